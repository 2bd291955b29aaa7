//! `sightline audit` with the real binary against real servers: the demo server in both styles,
//! the official TypeScript SDK before and after its SEP-1303 change, the Python and Rust SDKs,
//! and a peer that never checks its arguments. Also the consent rules and the report formats;
//! a server per verdict (`audit/verdicts.rs`) and every peer's reviewed expected report
//! (`audit/expected.rs`: `SIGHTLINE_UPDATE_EXPECTED=1 cargo test --test audit expected`
//! rewrites them).

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;
#[path = "audit/expected.rs"]
mod expected;
#[path = "audit/verdicts.rs"]
mod verdicts;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};

use common::peers::{everything, odd, py, rmcp, ts, ts_pre1303};
use serde_json::Value;

/// Runs `sightline audit ARGS [-- SERVER…]` from the repository root, stdin closed: the exit
/// code, stdout and stderr.
fn audit(args: &[&str], server: &[String]) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sightline"));
    command.arg("audit").args(args);
    if !server.is_empty() {
        command.arg("--").args(server);
    }
    let output = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("sightline starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    eprintln!(
        "$ sightline audit {} -- {}\n{stderr}",
        args.join(" "),
        server.join(" ")
    );
    (output.status.code().unwrap_or(-1), stdout, stderr)
}

/// `audit --yes --json`: the exit code and the report.
fn audit_json(args: &[&str], server: &[String]) -> (i32, Value) {
    let mut all = vec!["--yes", "--json"];
    all.extend_from_slice(args);
    let (code, stdout, _) = audit(&all, server);
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("stdout is not JSON ({error}):\n{stdout}"));
    (code, report)
}

/// Each case as `tool kind [property] → verdict`.
fn verdicts(report: &Value) -> BTreeMap<String, String> {
    report["cases"]
        .as_array()
        .unwrap_or_else(|| panic!("no cases: {report:#}"))
        .iter()
        .map(|case| {
            let key = format!(
                "{} {} {}",
                case["tool"].as_str().unwrap(),
                case["kind"].as_str().unwrap(),
                case["property"].as_str().unwrap_or("")
            );
            (
                key.trim_end().to_owned(),
                case["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn count(report: &Value, verdict: &str) -> u64 {
    report["summary"][verdict].as_u64().unwrap()
}

#[test]
fn the_sep1303_demo_audits_clean_and_the_junit_report_agrees() {
    let junit = std::env::temp_dir().join(format!("sightline-audit-{}.xml", std::process::id()));
    let (code, report) = audit_json(&["--junit", junit.to_str().unwrap()], &[]);
    let xml = std::fs::read_to_string(&junit).unwrap();
    std::fs::remove_file(&junit).unwrap();
    assert_eq!(code, 0, "{report:#}");
    let cases = report["cases"].as_array().unwrap();
    assert!(cases.len() >= 20, "{}", cases.len());
    assert_eq!(count(&report, "conformant"), cases.len() as u64);
    assert_eq!(report["failing"], 0);
    // The destructive tool is left out, and said to be.
    assert!(cases.iter().all(|case| case["tool"] != "cancel_booking"));
    assert_eq!(report["skipped"][0]["tool"], "cancel_booking");
    assert_eq!(xml.matches("<testcase ").count(), cases.len());
    assert!(
        xml.contains(&format!("tests=\"{}\" failures=\"0\"", cases.len())),
        "{xml}"
    );
    // The plan was printed before anything was sent.
    let (_, _, stderr) = audit(&["--yes", "--tool", "book_flight"], &[]);
    assert!(stderr.contains("audit plan: 6 calls"), "{stderr}");
    assert!(
        stderr.contains("  book_flight             missing-required      {}  "),
        "{stderr}"
    );
}

#[test]
fn the_legacy_demo_is_model_blind_on_every_argument_case_in_every_format() {
    let junit = std::env::temp_dir().join(format!("sightline-legacy-{}.xml", std::process::id()));
    let markdown = junit.with_extension("md");
    let (code, report) = audit_json(
        &[
            "--demo",
            "legacy",
            "--junit",
            junit.to_str().unwrap(),
            "--markdown",
            markdown.to_str().unwrap(),
        ],
        &[],
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    let md = std::fs::read_to_string(&markdown).unwrap();
    std::fs::remove_file(&junit).unwrap();
    std::fs::remove_file(&markdown).unwrap();
    assert_eq!(code, 1);
    for case in report["cases"].as_array().unwrap() {
        let argument = !matches!(
            case["kind"].as_str(),
            Some("unknown-tool" | "arguments-not-object")
        );
        let expected = if argument {
            "model-blind"
        } else {
            "conformant"
        };
        assert_eq!(case["verdict"], expected, "{case:#}");
        if argument {
            assert_eq!(case["got"], "protocol error -32602 (invalid params)");
            assert_eq!(case["rule"]["version"], "2025-11-25");
            assert!(case["model_sees"].as_str().unwrap().starts_with("nothing"));
        }
    }
    let blind = count(&report, "model-blind");
    assert!(blind >= 20, "{blind}");
    assert_eq!(
        xml.matches("<failure type=\"model-blind\"").count() as u64,
        blind
    );
    assert_eq!(md.matches("| model-blind |").count() as u64, blind);

    // The terminal report says the same, readable without colour.
    let (code, stdout, _) = audit(&["--yes", "--demo", "legacy"], &[]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains(
            "✗ model-blind  departureDate missing  →  protocol error -32602 (invalid params) [1]"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("summary: 2 conformant · {blind} model-blind")),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{1b}'), "no escape sequences in a pipe");

    // --fail-on chooses what fails; a baseline knows what failed before.
    let (code, _, _) = audit(
        &["--yes", "--demo", "legacy", "--fail-on", "lenient,misfiled"],
        &[],
    );
    assert_eq!(code, 0);
    let baseline = std::env::temp_dir().join(format!("sightline-base-{}.json", std::process::id()));
    std::fs::write(&baseline, report.to_string()).unwrap();
    let (code, again) = audit_json(
        &["--demo", "legacy", "--baseline", baseline.to_str().unwrap()],
        &[],
    );
    std::fs::remove_file(&baseline).unwrap();
    assert_eq!(code, 0, "every failure is known");
    assert_eq!(again["failing"], 0);
    assert_eq!(verdicts(&again), verdicts(&report));
}

#[test]
fn headless_without_yes_sends_nothing_and_destructive_tools_wait_for_their_flag() {
    let transcript =
        std::env::temp_dir().join(format!("sightline-consent-{}.jsonl", std::process::id()));
    let (code, stdout, stderr) = audit(&["--record", transcript.to_str().unwrap()], &[]);
    let recorded = std::fs::read_to_string(&transcript).unwrap();
    std::fs::remove_file(&transcript).unwrap();
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("nothing was sent"), "{stderr}");
    assert!(stderr.contains("--yes"), "{stderr}");
    assert!(
        recorded.contains(r#"\"method\":\"tools/list\""#),
        "the plan needs the listing"
    );
    assert!(
        !recorded.contains("tools/call"),
        "no call was sent:\n{recorded}"
    );

    let (_, report) = audit_json(&["--include-destructive", "--tool", "cancel_booking"], &[]);
    let cases = verdicts(&report);
    assert!(
        cases.contains_key("cancel_booking missing-required bookingRef"),
        "{cases:?}"
    );
    assert!(
        cases
            .keys()
            .all(|key| key.starts_with("cancel_booking")
                || key.starts_with("sightline_no_such_tool"))
    );
}

#[test]
fn the_typescript_sdk_before_and_after_its_sep1303_change_is_told_apart() {
    let (before_code, before) = audit_json(&["--include-destructive"], &ts_pre1303());
    let (after_code, after) = audit_json(&["--include-destructive"], &ts());
    assert_eq!((before_code, after_code), (1, 1));
    let before = verdicts(&before);
    let after = verdicts(&after);
    for case in [
        "echo missing-required text",
        "book_flight wrong-type departureDate",
    ] {
        assert_eq!(
            before[case], "model-blind",
            "1.20.2: -32602 for invalid arguments"
        );
        assert_eq!(after[case], "conformant", "1.32.2: isError");
    }
    assert_eq!(before["sightline_no_such_tool unknown-tool"], "conformant");
    assert_eq!(
        before["echo unexpected-property sightline_unexpected"], "lenient",
        "1.20.2 strips a property its schema forbids, and runs the tool"
    );
    assert_eq!(
        after["sightline_no_such_tool unknown-tool"], "misfiled",
        "isError for an unknown tool"
    );
    assert_eq!(
        before["echo arguments-not-object"], "misfiled",
        "-32603 for a malformed request"
    );
    assert_eq!(after["echo arguments-not-object"], "misfiled");
}

#[test]
fn the_python_sdk_files_an_unknown_tool_as_a_tool_error() {
    let (code, report) = audit_json(&["--include-destructive"], &py());
    assert_eq!(code, 1);
    let cases = verdicts(&report);
    assert_eq!(cases["sightline_no_such_tool unknown-tool"], "misfiled");
    assert_eq!(cases["echo missing-required text"], "conformant");
    assert_eq!(count(&report, "misfiled"), 1, "{cases:?}");
}

#[test]
fn rmcp_typed_tools_are_conformant_and_its_raw_object_tool_is_model_blind() {
    let (code, report) = audit_json(&[], &rmcp());
    assert_eq!(code, 1);
    let cases = verdicts(&report);
    assert_eq!(cases["echo missing-required text"], "conformant");
    assert_eq!(cases["echo wrong-type text"], "conformant");
    assert_eq!(cases["divide missing-required a"], "model-blind");
    assert_eq!(cases["divide wrong-type b"], "model-blind");
    assert_eq!(cases["sightline_no_such_tool unknown-tool"], "conformant");
    assert_eq!(
        cases["divide arguments-not-object"], "conformant",
        "-32601 is a protocol error"
    );
    // Not annotated: skipped as destructive by the spec's default.
    let skipped: Vec<&str> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tool"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["confirm", "summarise"]);
}

#[test]
fn a_tool_that_never_checks_its_arguments_is_lenient() {
    let (code, report) = audit_json(&["--era", "legacy", "--tool", "count_seats"], &odd());
    assert_eq!(code, 1);
    let cases = verdicts(&report);
    for case in [
        "count_seats missing-required seats",
        "count_seats wrong-type seats",
        "count_seats below-minimum seats",
        "count_seats above-maximum seats",
        "count_seats arguments-not-object",
    ] {
        assert_eq!(cases[case], "lenient", "{case}");
    }
}

#[test]
fn several_connections_give_the_same_verdicts_as_one() {
    let (_, one) = audit_json(&["--demo", "legacy"], &[]);
    let (_, three) = audit_json(&["--demo", "legacy", "--jobs", "3"], &[]);
    assert_eq!(verdicts(&three), verdicts(&one));
    let order = |report: &Value| -> Vec<String> {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|case| case["what"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(order(&three), order(&one), "the plan's order");
}

#[test]
fn bad_flags_are_usage_errors_before_anything_starts() {
    let (code, _, stderr) = audit(&["--yes", "--fail-on", "sometimes"], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--fail-on: unknown verdict 'sometimes'"),
        "{stderr}"
    );
    let (code, _, stderr) = audit(&["--yes", "--baseline", "/nonexistent/base.json"], &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--baseline /nonexistent/base.json"),
        "{stderr}"
    );
}

/// `--sarif` writes a SARIF 2.1.0 log that the official schema (shipped in
/// `@microsoft/jest-sarif`, installed by `tests/peers/install.sh`) accepts: a result per case
/// that is not conformant, each an error, with the tool and the case's key.
#[test]
fn the_sarif_log_is_valid_sarif_2_1_0_with_a_result_per_problem() {
    let validator = common::sarif::schema();
    let file = std::env::temp_dir().join(format!("sightline-audit-{}.sarif", std::process::id()));
    let (code, report) = audit_json(
        &["--demo", "legacy", "--sarif", file.to_str().unwrap()],
        &[],
    );
    assert_eq!(code, 1, "the legacy demo fails the audit");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::remove_file(&file).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The check can fail: a log that breaks the schema is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(
        !validator.is_valid(&broken),
        "the schema checks a result's level"
    );
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len() as u64, report["failing"].as_u64().unwrap());
    assert!(results.iter().all(|result| result["level"] == "error"
        && result["ruleId"] == "audit.model-blind"
        && result["locations"][0]["logicalLocations"][0]["name"].is_string()
        && result["partialFingerprints"]["sightlineCase/v1"].is_string()));
    // A SARIF log of a clean run has no results, and is valid too.
    let clean = std::env::temp_dir().join(format!("sightline-clean-{}.sarif", std::process::id()));
    let (code, _) = audit_json(&["--sarif", clean.to_str().unwrap()], &[]);
    assert_eq!(code, 0);
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&clean).unwrap()).unwrap();
    std::fs::remove_file(&clean).unwrap();
    assert!(validator.is_valid(&log));
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
}

/// The SARIF log of an audit of a server built on the official TypeScript SDK (before
/// SEP-1303: it fails) is one GitHub code scanning takes: each rule says what to do (`help`),
/// each result lies in the server's own file, found from its command.
#[test]
fn code_scanning_accepts_the_sarif_log() {
    let file = std::env::temp_dir().join(format!("sightline-gh-{}.sarif", std::process::id()));
    let args = ["--include-destructive", "--sarif", file.to_str().unwrap()];
    let (code, _) = audit_json(&args, &ts_pre1303());
    assert_eq!(code, 1, "the pre-SEP-1303 SDK fails the audit");
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for result in results {
        assert_eq!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "tests/peers/ts_server_pre1303.mjs"
        );
    }
    assert_eq!(
        common::sarif::code_scanning_problems(&file),
        Vec::<String>::new()
    );
    // The check can fail: a rule without its help is refused, as code scanning refuses it.
    let mut helpless = log.clone();
    helpless["runs"][0]["tool"]["driver"]["rules"][0]
        .as_object_mut()
        .unwrap()
        .remove("help");
    std::fs::write(&file, helpless.to_string()).unwrap();
    let problems = common::sarif::code_scanning_problems(&file);
    std::fs::remove_file(&file).unwrap();
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].contains("GH2012"), "{problems:#?}");

    // The official everything server, and the legacy demo with the file named.
    let cases = [
        (
            everything(),
            Vec::new(),
            "tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        ),
        (
            Vec::new(),
            vec!["--demo", "legacy", "--sarif-location", "src/server.rs"],
            "src/server.rs",
        ),
    ];
    for (server, extra, location) in cases {
        let mut args = vec!["--sarif", file.to_str().unwrap()];
        args.extend(extra);
        audit_json(&args, &server);
        let log: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert!(!results.is_empty(), "{location}");
        assert!(
            results.iter().all(|result| {
                result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == location
            }),
            "{location}"
        );
        assert_eq!(
            common::sarif::code_scanning_problems(&file),
            Vec::<String>::new(),
            "{location}"
        );
        std::fs::remove_file(&file).unwrap();
    }
}

/// `--fail-under SCORE` fails a run whose share of conformant cases is below it, whatever
/// `--fail-on` lets pass; the score is in the summary and in `--json`.
#[test]
fn a_score_below_fail_under_fails_the_run() {
    // The legacy demo: 2 of 29 cases conformant (6.9%); nothing misfiled.
    let lenient = ["--demo", "legacy", "--fail-on", "misfiled"];
    let (code, report) = audit_json(&lenient, &[]);
    assert_eq!(code, 0, "nothing misfiled: the run passes");
    let score = report["score"].as_f64().unwrap();
    assert!((score - 6.9).abs() < 0.05, "{score}");
    let (code, _, stderr) = audit(
        &[&["--yes"][..], &lenient, &["--fail-under", "10"]].concat(),
        &[],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("the score 6.9% is below --fail-under 10"),
        "{stderr}"
    );
    let (code, stdout, _) = audit(
        &[&["--yes"][..], &lenient, &["--fail-under", "5"]].concat(),
        &[],
    );
    assert_eq!(code, 0);
    assert!(stdout.contains("· score 6.9%"), "{stdout}");
    let (code, _, stderr) = audit(&["--yes", "--fail-under", "101"], &[]);
    assert_eq!(code, 2, "a usage error: {stderr}");
}

/// server-everything's `simulate-research-query` requires task augmentation: each case goes
/// out task-augmented (2025-11-25), and the TypeScript SDK answers it with its own -32602 about
/// the task it could not create ("Invalid task creation result"). No case is counted
/// conformant, or model-blind, on that: each is unclear, naming task augmentation.
#[test]
fn task_required_cases_are_augmented_and_never_judged_on_a_refusal() {
    let (_, report) = audit_json(
        &["--tool", "simulate-research-query"],
        &[everything(), vec!["stdio".into()]].concat(),
    );
    let argument_cases: Vec<&Value> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| case["group"] == "simulate-research-query")
        .collect();
    assert!(!argument_cases.is_empty(), "{report:#}");
    for case in argument_cases {
        assert_eq!(case["task"]["form"], "augmented", "{case:#}");
        assert_eq!(case["verdict"], "unclear", "{case:#}");
        assert!(
            case["why"].as_str().unwrap().contains("task augmentation"),
            "{case:#}"
        );
        assert!(
            case["answer"]
                .as_str()
                .unwrap()
                .contains("Invalid task creation result"),
            "{case:#}"
        );
    }
}

/// The members of `audit --json` (and of each case) are the ones docs/reference.md documents.
#[test]
fn audit_json_has_the_documented_fields() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference.md")).unwrap();
    let section = readme
        .split("<!-- audit-json -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- /audit-json -->").next())
        .expect("the documented fields");
    let mut tables = section.split("\n\n");
    let members = |table: &str| -> std::collections::BTreeSet<String> {
        table
            .lines()
            .filter_map(|line| line.strip_prefix("| "))
            .filter_map(|line| line.split(" |").next())
            .flat_map(|cell| cell.split(", "))
            .filter_map(|name| name.strip_prefix('`')?.strip_suffix('`'))
            .map(str::to_owned)
            .collect()
    };
    let documented_top = members(tables.next().unwrap());
    let documented_case = members(tables.next().unwrap());
    let (_, report) = audit_json(&[], &[]);
    let keys = |value: &Value| -> std::collections::BTreeSet<String> {
        value.as_object().unwrap().keys().cloned().collect()
    };
    assert_eq!(keys(&report), documented_top);
    // Every case has the documented members (`property` and `evidence` only when they apply;
    // `task` only for a tool run as a task, which the demo's cases never are: the test of
    // server-everything's task tool sees it).
    let mut all_case_keys: std::collections::BTreeSet<String> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(keys)
        .collect();
    all_case_keys.insert("task".into());
    assert_eq!(all_case_keys, documented_case);
}
