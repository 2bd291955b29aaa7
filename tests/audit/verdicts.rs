//! Each audit verdict against a server written for it (`tests/peers/verdict_server.py MODE`):
//! every case's verdict, what it got, its evidence and whether its message is actionable.

use serde_json::Value;

use super::audit_json;

/// What a mode's answers to the argument cases must be judged: verdict, the start of `got`,
/// the evidence (`{name}` is the case's argument) and `actionable`.
struct Expect {
    verdict: &'static str,
    got: &'static str,
    evidence: Option<&'static str>,
    actionable: Option<bool>,
}

/// The report of `audit --yes --json` against the verdict server in `mode`; its exit code must
/// be `code`.
fn audit_mode(mode: &str, code: i32) -> Vec<Value> {
    let server = vec![
        "python3".to_owned(),
        "tests/peers/verdict_server.py".to_owned(),
        mode.to_owned(),
    ];
    let (exit, report) = audit_json(&[], &server);
    assert_eq!(exit, code, "{mode}: {report:#}");
    assert_eq!(report["tools"]["audited"], serde_json::json!(["book"]));
    let cases = report["cases"].as_array().unwrap().clone();
    // Every constraint of `book`'s schema has its case: 11 argument cases and the 2 server ones.
    assert_eq!(cases.len(), 13, "{mode}: {report:#}");
    cases
}

fn is_argument_case(case: &Value) -> bool {
    case["group"] == "book"
}

/// The argument's name as the answer names it (the last part of the case's property).
fn name(case: &Value) -> &str {
    case["property"]
        .as_str()
        .and_then(|path| path.rsplit('.').next())
        .unwrap()
}

fn check(mode: &str, case: &Value, expect: &Expect) {
    let label = format!("{mode}: {} {}", case["kind"], case["property"]);
    assert_eq!(case["verdict"], expect.verdict, "{label}: {case:#}");
    let got = case["got"].as_str().unwrap();
    assert!(got.starts_with(expect.got), "{label}: got {got}");
    let evidence = expect.evidence.map(|e| e.replace("{name}", name(case)));
    assert_eq!(
        case["evidence"].as_str().map(str::to_owned),
        evidence,
        "{label}: {case:#}"
    );
    assert_eq!(
        case["actionable"].as_bool(),
        expect.actionable,
        "{label}: {case:#}"
    );
}

/// The server cases (`unknown-tool`, `arguments-not-object`): a verdict and `got` each.
fn check_server(mode: &str, cases: &[Value], expected: [(&str, &str); 2]) {
    let server: Vec<&Value> = cases.iter().filter(|c| c["group"] == "(server)").collect();
    let kinds: Vec<&str> = server.iter().map(|c| c["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["unknown-tool", "arguments-not-object"], "{mode}");
    for (case, (verdict, got)) in server.iter().zip(expected) {
        assert_eq!(case["verdict"], verdict, "{mode}: {case:#}");
        assert_eq!(case["got"], got, "{mode}: {case:#}");
        assert!(case.get("evidence").is_none() && case["actionable"].is_null());
    }
}

const PROTOCOL_ERRORS: [(&str, &str); 2] = [
    ("conformant", "protocol error -32602 (invalid params)"),
    ("conformant", "protocol error -32602 (invalid params)"),
];

#[test]
fn a_tool_error_that_names_the_argument_and_says_what_to_send_is_conformant() {
    let cases = audit_mode("conformant", 0);
    let expect = Expect {
        verdict: "conformant",
        got: "tool error",
        evidence: Some("names \"{name}\""),
        actionable: Some(true),
    };
    for case in cases.iter().filter(|c| is_argument_case(c)) {
        check("conformant", case, &expect);
        assert!(
            case["answer"]
                .as_str()
                .unwrap()
                .starts_with("Invalid arguments: ")
        );
    }
    check_server("conformant", &cases, PROTOCOL_ERRORS);
}

#[test]
fn invalid_params_for_an_argument_error_is_model_blind() {
    let cases = audit_mode("model-blind", 1);
    let expect = Expect {
        verdict: "model-blind",
        got: "protocol error -32602 (invalid params)",
        evidence: Some("names \"{name}\""),
        actionable: Some(true),
    };
    for case in cases.iter().filter(|c| is_argument_case(c)) {
        check("model-blind", case, &expect);
        assert_eq!(case["allowed_then"], false, "2025-11-25 is after SEP-1303");
        assert!(case["model_sees"].as_str().unwrap().starts_with("nothing"));
    }
    check_server("model-blind", &cases, PROTOCOL_ERRORS);
}

#[test]
fn a_tool_that_runs_anyway_is_lenient_on_every_case() {
    let cases = audit_mode("lenient", 1);
    let expect = Expect {
        verdict: "lenient",
        got: "success",
        evidence: None,
        actionable: None,
    };
    for case in cases.iter().filter(|c| is_argument_case(c)) {
        check("lenient", case, &expect);
    }
    check_server(
        "lenient",
        &cases,
        [("lenient", "success"), ("lenient", "success")],
    );
}

#[test]
fn a_tool_error_about_something_else_is_lenient() {
    let cases = audit_mode("lenient-error", 1);
    let expect = Expect {
        verdict: "lenient",
        got: "tool error",
        evidence: None,
        actionable: Some(false),
    };
    for case in cases.iter().filter(|c| is_argument_case(c)) {
        check("lenient-error", case, &expect);
        assert!(
            case["why"]
                .as_str()
                .unwrap()
                .contains("failed for another reason"),
            "{case:#}"
        );
    }
    check_server("lenient-error", &cases, PROTOCOL_ERRORS);
}

#[test]
fn is_error_for_an_unknown_tool_and_internal_error_for_a_string_are_misfiled() {
    let cases = audit_mode("misfiled", 1);
    let expect = Expect {
        verdict: "conformant",
        got: "tool error",
        evidence: Some("names \"{name}\""),
        actionable: Some(true),
    };
    for case in cases.iter().filter(|c| is_argument_case(c)) {
        check("misfiled", case, &expect);
    }
    check_server(
        "misfiled",
        &cases,
        [
            ("misfiled", "tool error"),
            ("misfiled", "protocol error -32603 (internal error)"),
        ],
    );
}

#[test]
fn an_answer_about_a_rate_limit_or_authorization_is_unclear_naming_it() {
    for (mode, got, evidence, what) in [
        (
            "unclear",
            "tool error",
            "says \"rate limit\"",
            "a rate limit",
        ),
        (
            "unclear-auth",
            "protocol error -32001",
            "says \"unauthorized\"",
            "authorization",
        ),
    ] {
        let cases = audit_mode(mode, 1);
        let expect = Expect {
            verdict: "unclear",
            got,
            evidence: Some(evidence),
            // An answer about something else is not judged on what it advises.
            actionable: None,
        };
        for case in cases.iter().filter(|c| is_argument_case(c)) {
            check(mode, case, &expect);
            let why = case["why"].as_str().unwrap();
            assert!(
                why.starts_with(&format!("the answer is about {what}, not the case")),
                "{mode}: {why}"
            );
        }
        check_server(mode, &cases, PROTOCOL_ERRORS);
    }
}

/// A server that refuses the base value of `destination` on every call: the cases about the
/// other arguments are unclear and name it; those about `destination` itself are judged.
#[test]
fn a_refused_base_value_makes_the_other_arguments_cases_unclear_naming_it() {
    let cases = audit_mode("unclear-base", 1);
    for case in cases.iter().filter(|c| is_argument_case(c)) {
        let own = case["property"] == "destination";
        let expect = Expect {
            verdict: if own { "conformant" } else { "unclear" },
            got: "tool error",
            evidence: Some("names \"destination\""),
            actionable: own.then_some(false),
        };
        check("unclear-base", case, &expect);
        if !own {
            let why = case["why"].as_str().unwrap();
            assert!(
                why.starts_with("the answer is about 'destination', not '"),
                "{why}"
            );
        }
    }
    check_server("unclear-base", &cases, PROTOCOL_ERRORS);
}
