use serde_json::{Value, json};

use super::plan::{MAX_CASES_PER_TOOL, Options, SERVER, plan};
use super::report::DEFAULT_FAIL_ON;
use super::*;
use crate::analysis::CallContext;
use crate::classify::fixtures::call;
use crate::mcp::catalog::Catalog;
use crate::mcp::messages::Tool;
use crate::model_view::hosts::{HostProfile, resolve};

fn tool(name: &str, schema: &Value) -> Tool {
    Tool::from_value(&json!({
        "name": name,
        "inputSchema": schema,
        "annotations": {"readOnlyHint": true}
    }))
}

/// The argument cases planned for one schema, as (kind, property) pairs.
fn cases(schema: &Value) -> Vec<(&'static str, String)> {
    let planned = plan(&Catalog::from(vec![tool("t", schema)]), &Options::default());
    planned
        .cases
        .iter()
        .filter(|case| case.group == "t")
        .map(|case| (case.kind.name(), case.property.clone().unwrap_or_default()))
        .collect()
}

fn pairs(expected: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    expected
        .iter()
        .map(|(k, p)| (*k, (*p).to_owned()))
        .collect()
}

#[test]
fn each_planned_argument_case_breaks_the_schema_in_the_one_way_it_names() {
    let schema = json!({
        "type": "object",
        "properties": {
            "departureDate": {"type": "string", "pattern": "^\\d{2}/\\d{2}/\\d{4}$"},
            "seats": {"type": "integer", "minimum": 1, "maximum": 9},
            "class": {"type": "string", "enum": ["economy", "business"]},
            "email": {"type": "string", "format": "email"},
            "code": {"type": "string", "minLength": 3, "maxLength": 5}
        },
        "required": ["departureDate", "seats"]
    });
    let planned = plan(
        &Catalog::from(vec![tool("book", &schema)]),
        &Options::default(),
    );
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let argument_cases: Vec<_> = planned.cases.iter().filter(|c| c.group == "book").collect();
    let kinds: Vec<&str> = argument_cases.iter().map(|c| c.kind.name()).collect();
    assert_eq!(
        kinds,
        [
            "missing-required",
            "missing-required",
            "wrong-type",
            "pattern-mismatch",
            "wrong-type",
            "below-minimum",
            "above-maximum",
            "wrong-type",
            "outside-enum",
            "wrong-type",
            "format-mismatch",
            "wrong-type"
        ],
        "missing first, then each property in order, bounded at {MAX_CASES_PER_TOOL}"
    );
    assert!(
        planned
            .skipped
            .iter()
            .any(|s| s.tool == "book" && s.reason.starts_with("2 more cases")),
        "{:?}",
        planned.skipped
    );
    for case in &argument_cases {
        let property = case.property.as_deref().unwrap();
        let found: Vec<String> = validator
            .iter_errors(&case.arguments)
            .map(|error| format!("{}: {error}", error.instance_path()))
            .collect();
        assert!(
            found.iter().any(|v| v.contains(property)),
            "{}: {} should break {property}: {found:?}",
            case.what,
            case.arguments
        );
        // Every other required property is there and well formed: one thing is wrong.
        let others: Vec<&String> = found.iter().filter(|v| !v.contains(property)).collect();
        assert!(others.is_empty(), "{}: {others:?}", case.what);
    }
}

#[test]
fn the_server_cases_name_a_tool_nobody_listed_and_send_a_string_as_arguments() {
    let tools: Catalog = vec![
        tool("sightline_no_such_tool", &json!({"type": "object"})),
        tool("ok", &json!({"type": "object"})),
    ]
    .into();
    let planned = plan(&tools, &Options::default());
    let server: Vec<_> = planned.cases.iter().filter(|c| c.group == SERVER).collect();
    assert_eq!(server.len(), 2);
    assert_eq!(server[0].kind, CaseKind::UnknownTool);
    assert_eq!(server[0].tool, "sightline_no_such_tool_");
    assert_eq!(server[1].kind, CaseKind::ArgumentsNotObject);
    assert_eq!(
        server[1].tool, "sightline_no_such_tool",
        "the first audited tool"
    );
    assert!(!server[1].arguments.is_object());
}

#[test]
fn nested_objects_refs_and_old_drafts_are_planned_from_the_schema_itself() {
    let schema = json!({
        "type": "object",
        "$defs": {"age": {"type": "integer", "minimum": 0}},
        "definitions": {"name": {"type": "string", "minLength": 1}},
        "properties": {
            "passenger": {
                "type": "object",
                "properties": {
                    "age": {"$ref": "#/$defs/age"},
                    "name": {"$ref": "#/definitions/name"}
                },
                "required": ["age"]
            },
            "remote": {"$ref": "https://example.com/schema.json"},
            "old": {"type": "number", "maximum": 5, "exclusiveMaximum": true}
        },
        "required": ["passenger"]
    });
    assert_eq!(
        cases(&schema),
        pairs(&[
            ("missing-required", "passenger"),
            ("missing-required", "passenger.age"),
            ("wrong-type", "passenger"),
            ("wrong-type", "passenger.age"),
            ("below-minimum", "passenger.age"),
            ("wrong-type", "passenger.name"),
            ("too-short", "passenger.name"),
            ("wrong-type", "old"),
            ("above-maximum", "old"),
        ])
    );
}

#[test]
fn one_of_arrays_and_closed_objects_get_the_cases_they_declare() {
    let schema = json!({
        "type": "object",
        "properties": {
            "when": {"oneOf": [{"type": "string", "format": "date"}, {"type": "integer"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1}
        },
        "required": ["when", "tags"],
        "additionalProperties": false
    });
    assert_eq!(
        cases(&schema),
        pairs(&[
            ("missing-required", "when"),
            ("missing-required", "tags"),
            ("unexpected-property", "sightline_unexpected"),
            ("wrong-type", "tags"),
        ])
    );
}

#[test]
fn an_empty_or_missing_schema_plans_only_the_server_cases() {
    for schema in [
        json!({}),
        json!({"type": "object"}),
        json!(true),
        Value::Null,
    ] {
        assert!(cases(&schema).is_empty(), "{schema}");
    }
    let planned = plan(
        &Catalog::from(vec![Tool::from_value(
            &json!({"name": "bare", "annotations": {"readOnlyHint": true}}),
        )]),
        &Options::default(),
    );
    assert_eq!(planned.cases.len(), 2);
}

#[test]
fn a_wide_schema_is_bounded_missing_properties_first() {
    let properties: serde_json::Map<String, Value> = (0..30)
        .map(|i| (format!("p{i:02}"), json!({"type": "string"})))
        .collect();
    let names: Vec<String> = properties.keys().cloned().collect();
    let schema = json!({"type": "object", "properties": properties, "required": names});
    let planned = cases(&schema);
    assert_eq!(planned.len(), MAX_CASES_PER_TOOL);
    assert!(planned.iter().all(|(kind, _)| *kind == "missing-required"));
}

#[test]
fn destructive_tools_are_skipped_unless_included_and_tool_limits_the_audit() {
    let annotated = |name: &str, annotations: Value| {
        Tool::from_value(
            &json!({"name": name, "inputSchema": {"type": "object"}, "annotations": annotations}),
        )
    };
    let tools: Catalog = vec![
        Tool::from_value(&json!({"name": "bare", "inputSchema": {"type": "object"}})),
        annotated("wipe", json!({"destructiveHint": true})),
        annotated("add", json!({"destructiveHint": false})),
        annotated(
            "read",
            json!({"readOnlyHint": true, "destructiveHint": true}),
        ),
    ]
    .into();
    let audited = |options: &Options| -> Vec<String> {
        plan(&tools, options)
            .cases
            .iter()
            .filter(|c| c.kind == CaseKind::ArgumentsNotObject)
            .map(|c| c.tool.clone())
            .chain(
                plan(&tools, options)
                    .skipped
                    .iter()
                    .map(|s| format!("-{}", s.tool)),
            )
            .collect()
    };
    assert_eq!(audited(&Options::default()), ["add", "-bare", "-wipe"]);
    let everything = Options {
        include_destructive: true,
        ..Options::default()
    };
    assert_eq!(audited(&everything), ["bare"]);
    let only = Options {
        tools: vec!["read".into(), "gone".into()],
        ..Options::default()
    };
    assert_eq!(audited(&only), ["read", "-gone"]);
}

#[test]
fn a_tool_with_an_invalid_x_mcp_header_is_skipped_unless_allowed() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "object", "x-mcp-header": "N"}}, "required": ["n"]});
    let mut bad = tool("bad", &schema);
    bad.rejected = bad.header_problem().map(Into::into);
    assert!(bad.rejected.is_some());
    let tools: Catalog = vec![bad].into();
    let excluded = plan(&tools, &Options::default());
    assert!(excluded.cases.iter().all(|case| case.tool != "bad"));
    assert!(
        excluded.skipped[0]
            .reason
            .contains("x-mcp-header declaration is invalid")
    );
    let allowed = Options {
        include_invalid_headers: true,
        ..Options::default()
    };
    assert!(
        plan(&tools, &allowed)
            .cases
            .iter()
            .any(|case| case.tool == "bad")
    );
}

fn judged(kind: CaseKind, exchange: &crate::mcp::session::Exchange, version: &str) -> Judged {
    let host: HostProfile = resolve("spec", &[]).unwrap();
    let tools: Catalog = vec![tool("book_flight", &json!({"type": "object"}))].into();
    let case = Case {
        group: "book_flight".into(),
        tool: "book_flight".into(),
        kind,
        property: None,
        arguments: json!({}),
        what: String::new(),
    };
    let context = CallContext {
        version,
        catalog: Some(&tools),
        host: &host,
        forward_protocol_errors: false,
    };
    judge(&case, exchange, &context)
}

#[test]
fn verdicts_follow_the_channel_the_spec_version_asks_for() {
    let missing = CaseKind::MissingRequired;
    let tool_error = call("book_flight", json!({})).tool_error("departureDate is required");
    let invalid = call("book_flight", json!({})).error(-32602, "Invalid params");
    let ran = call("book_flight", json!({})).text("booked");

    let conformant = judged(missing, &tool_error, "2025-11-25");
    assert_eq!(conformant.verdict, Verdict::Conformant);
    assert_eq!(conformant.model_sees, "departureDate is required");
    assert!(conformant.forwarded);

    let blind = judged(missing, &invalid, "2025-11-25");
    assert_eq!(blind.verdict, Verdict::ModelBlind);
    assert!(!blind.allowed_then);
    assert_eq!(blind.rule.version, "2025-11-25");
    assert!(blind.model_sees.starts_with("nothing of the answer"));
    assert!(!blind.forwarded);

    let then = judged(missing, &invalid, "2025-06-18");
    assert_eq!(then.verdict, Verdict::ModelBlind);
    assert!(then.allowed_then);
    assert_eq!(then.rule.version, "2025-06-18");
    assert!(then.rule.text.contains("Invalid arguments"));

    assert_eq!(
        judged(missing, &ran, "2025-11-25").verdict,
        Verdict::Lenient
    );
    let timeout = call("book_flight", json!({})).timeout();
    assert_eq!(
        judged(missing, &timeout, "2025-11-25").verdict,
        Verdict::Unclear
    );
}

#[test]
fn unknown_tools_and_malformed_requests_want_protocol_errors_but_not_internal_errors() {
    let unknown = CaseKind::UnknownTool;
    let malformed = CaseKind::ArgumentsNotObject;
    let is_error = call("x", json!({})).tool_error("Unknown tool: x");
    let invalid = call("x", json!({})).error(-32602, "Unknown tool: x");
    let internal = call("x", json!("oops")).error(-32603, "Internal error");
    assert_eq!(
        judged(unknown, &is_error, "2025-11-25").verdict,
        Verdict::Misfiled
    );
    assert_eq!(
        judged(unknown, &invalid, "2025-11-25").verdict,
        Verdict::Conformant
    );
    assert_eq!(
        judged(malformed, &invalid, "2025-11-25").verdict,
        Verdict::Conformant
    );
    let misfiled = judged(malformed, &internal, "2025-11-25");
    assert_eq!(misfiled.verdict, Verdict::Misfiled);
    assert_eq!(misfiled.rule.version, "JSON-RPC 2.0");
    assert_eq!(misfiled.got, "protocol error -32603 (internal error)");
    assert_eq!(
        judged(unknown, &internal, "2025-11-25").verdict,
        Verdict::Conformant
    );
}

#[test]
fn the_unknown_tool_code_counts_from_2026_07_28_and_the_case_names_sep_2145() {
    let unknown = CaseKind::UnknownTool;
    let not_found = call("x", json!({})).error(-32601, "Tool not found: x");
    let before = judged(unknown, &not_found, "2025-11-25");
    assert_eq!(before.verdict, Verdict::Conformant);
    assert_eq!(before.rule.version, "2025-11-25");
    let note = before.note.as_deref().unwrap();
    assert!(
        note.contains("(this server: -32601)") && note.contains("SEP-2145"),
        "{note}"
    );
    let after = judged(unknown, &not_found, "2026-07-28");
    assert_eq!(after.verdict, Verdict::Misfiled);
    assert_eq!(after.rule.source, "schema.ts, InvalidParamsError (-32602)");
    assert!(
        after.why.starts_with("-32601 for an unknown tool"),
        "{}",
        after.why
    );
    let invalid = call("x", json!({})).error(-32602, "Unknown tool: x");
    assert_eq!(
        judged(unknown, &invalid, "2026-07-28").verdict,
        Verdict::Conformant
    );
    let missing = call("book_flight", json!({})).tool_error("departureDate is required");
    assert_eq!(
        judged(CaseKind::MissingRequired, &missing, "2026-07-28").note,
        None
    );
}

fn report(verdicts: &[Verdict], fail_on: &[Verdict], baseline: &Baseline) -> Report {
    let exchange = call("t", json!({})).tool_error("bad <input> & \"quotes\" | pipes");
    let cases = verdicts
        .iter()
        .enumerate()
        .map(|(i, verdict)| {
            let case = Case {
                group: "t".into(),
                tool: "t".into(),
                kind: CaseKind::MissingRequired,
                property: Some(format!("p{i}")),
                arguments: json!({}),
                what: format!("p{i} missing"),
            };
            let mut judged = judged(CaseKind::MissingRequired, &exchange, "2025-11-25");
            judged.verdict = *verdict;
            CaseResult {
                known: baseline.knows(&case, *verdict),
                case,
                id: i.to_string(),
                judged,
            }
        })
        .collect();
    Report {
        server: json!({"name": "s"}),
        host: "spec".into(),
        cases,
        skipped: Vec::new(),
        audited: Vec::new(),
        no_cases: Vec::new(),
        fail_on: fail_on.to_vec(),
        findings: Vec::new(),
        sarif_location: Some("server.py".into()),
    }
}

#[test]
fn the_report_counts_fails_and_carries_the_same_verdicts_in_every_format() {
    let verdicts = [Verdict::Conformant, Verdict::ModelBlind, Verdict::Unclear];
    let all = report(&verdicts, &DEFAULT_FAIL_ON, &Baseline::default());
    assert_eq!(
        all.summary(),
        "1 conformant · 1 model-blind · 0 lenient · 0 misfiled · 1 unclear"
    );
    assert_eq!(all.failing().count(), 2);
    let json = all.to_json();
    assert_eq!(json["failing"], 2);
    let named: Vec<&str> = json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|case| case["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["conformant", "model-blind", "unclear"]);
    let junit = all.junit();
    assert_eq!(junit.matches("<testcase ").count(), 3);
    assert_eq!(junit.matches("<failure type=\"model-blind\"").count(), 1);
    assert_eq!(junit.matches("<failure type=\"unclear\"").count(), 1);
    assert!(junit.contains("tests=\"3\" failures=\"2\""));
    assert!(
        junit.contains("bad &lt;input&gt; &amp; &quot;quotes&quot;"),
        "{junit}"
    );
    let markdown = all.markdown("server   demo 1 ·  modern era");
    assert!(
        markdown.starts_with("### sightline audit: server demo 1 · modern era\n"),
        "one space between words: {markdown}"
    );
    assert!(
        markdown.contains("| model-blind | p1 missing |"),
        "{markdown}"
    );
    assert!(markdown.contains("\\| pipes"), "{markdown}");
    let text = all.text();
    assert!(text.contains("✗ model-blind"), "{text}");
    assert!(text.ends_with(
        "summary: 1 conformant · 1 model-blind · 0 lenient · 0 misfiled · 1 unclear · score 33.3%\n"
    ));

    let lenient_only = report(&verdicts, &[Verdict::Lenient], &Baseline::default());
    assert_eq!(lenient_only.failing().count(), 0, "--fail-on lenient");
    let junit = lenient_only.junit();
    assert_eq!(junit.matches("<failure").count(), 0);
    assert_eq!(junit.matches("<skipped").count(), 2);
}

#[test]
fn a_baseline_lets_known_cases_pass_and_catches_new_ones() {
    let before = report(
        &[Verdict::ModelBlind],
        &DEFAULT_FAIL_ON,
        &Baseline::default(),
    );
    let baseline = Baseline::parse(&before.to_json().to_string()).unwrap();
    let after = report(
        &[Verdict::ModelBlind, Verdict::Misfiled],
        &DEFAULT_FAIL_ON,
        &baseline,
    );
    let failing: Vec<String> = after.failing().map(|r| r.case.key()).collect();
    assert_eq!(failing, ["t/missing-required/p1"]);
    assert!(after.summary().ends_with("(1 known from the baseline)"));
    // Known with another verdict is not known.
    let changed = report(&[Verdict::Lenient], &DEFAULT_FAIL_ON, &baseline);
    assert_eq!(changed.failing().count(), 1);
    // A list of keys knows them whatever their verdict.
    let keys = Baseline::parse("# known\nt/missing-required/p0\n").unwrap();
    assert_eq!(
        report(&[Verdict::Lenient], &DEFAULT_FAIL_ON, &keys)
            .failing()
            .count(),
        0
    );
    assert!(Baseline::parse("{\"no\": 1}").is_err());
}

#[test]
fn each_captured_host_gets_the_consequence_its_profile_predicts() {
    // A -32602 for a call whose arguments the schema allows (no host stops it first).
    let invalid = call("book_flight", json!({})).error(-32602, "Invalid departure date");
    let judged = judged(CaseKind::MissingRequired, &invalid, "2025-11-25");
    let of = |host: &str| {
        judged.hosts.iter().find(|h| h.host == host).map_or_else(
            || panic!("no {host} in {:?}", judged.hosts),
            |h| (h.consequence, h.server_called),
        )
    };
    // Calibrated by tests/hosts.rs: Claude Code forwards the message, the Agents SDK sends
    // its fixed sentence, LangChain ends its run.
    assert_eq!(of("claude-code"), (Consequence::Readable, true));
    assert_eq!(of("openai-agents"), (Consequence::ModelBlind, true));
    assert_eq!(of("langchain"), (Consequence::RunFails, true));
    assert_eq!(
        judged.hosts.len(),
        crate::model_view::hosts::captured().len()
    );
}

#[test]
fn every_tool_is_counted_audited_skipped_or_with_no_cases() {
    let tools: Catalog = vec![
        tool(
            "book",
            &json!({"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]}),
        ),
        tool("ping", &json!({"type": "object"})),
        Tool::from_value(&json!({"name": "wipe", "inputSchema": {"type": "object"}})),
    ]
    .into();
    let planned = plan(&tools, &Options::default());
    assert_eq!(planned.audited, ["book"]);
    let empty: Vec<&str> = planned.no_cases.iter().map(|s| s.tool.as_str()).collect();
    assert_eq!(
        empty,
        ["ping"],
        "a tool with nothing to break is said, not dropped"
    );
    let mut report = report(&[], &DEFAULT_FAIL_ON, &Baseline::default());
    report.audited = planned.audited.clone();
    report.skipped = planned.skipped.clone();
    report.no_cases = planned.no_cases.clone();
    let text = report.text();
    assert!(
        text.contains("no cases for ping: its inputSchema names no property"),
        "{text}"
    );
    assert!(
        text.contains("tools: 1 audited · 1 skipped · 1 with no cases"),
        "{text}"
    );
    let json = report.to_json();
    assert_eq!(json["tools"]["no_cases"], 1);
    assert_eq!(json["no_cases"][0]["tool"], "ping");
}

/// A tool whose schema no arguments satisfy is listed with the reason, and none of its cases
/// are planned from a guess.
#[test]
fn a_tool_with_no_valid_base_is_said_instead_of_guessed() {
    let code = json!({"type": "string", "pattern": "^[A-Z]{2}$", "maxLength": 1});
    let tools: Catalog = vec![
        tool(
            "lookup",
            &json!({"type": "object", "properties": {"code": code, "n": {"type": "integer"}},
                    "required": ["code"]}),
        ),
        tool(
            "ping",
            &json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        ),
    ]
    .into();
    let planned = plan(&tools, &Options::default());
    assert_eq!(planned.audited, ["ping"]);
    assert!(planned.cases.iter().all(|case| case.group != "lookup"));
    assert_eq!(planned.no_cases.len(), 1);
    assert_eq!(planned.no_cases[0].tool, "lookup");
    assert!(
        planned.no_cases[0]
            .reason
            .starts_with("no valid base: pattern '^[A-Z]{2}$' for 'code' could not be satisfied"),
        "{:?}",
        planned.no_cases
    );
}

#[test]
fn counts_agree_with_their_nouns() {
    assert_eq!(super::report::these(1, "call"), "this call");
    assert_eq!(super::report::these(3, "call"), "these 3 calls");
}

/// A case for `property` of a call that also sent `departureDate`.
fn judged_for(property: &str, exchange: &crate::mcp::session::Exchange) -> Judged {
    let host: HostProfile = resolve("spec", &[]).unwrap();
    let tools: Catalog = vec![tool("book_flight", &json!({"type": "object"}))].into();
    let case = Case {
        group: "book_flight".into(),
        tool: "book_flight".into(),
        kind: CaseKind::UnexpectedProperty,
        property: Some(property.into()),
        arguments: json!({"departureDate": "25/12/2099", property: true}),
        what: String::new(),
    };
    let context = CallContext {
        version: "2025-11-25",
        catalog: Some(&tools),
        host: &host,
        forward_protocol_errors: false,
    };
    judge(&case, exchange, &context)
}

#[test]
fn a_verdict_reads_what_the_answer_says_not_only_its_channel() {
    let about_it =
        call("book_flight", json!({})).tool_error("Unrecognized key: 'sightline_unexpected'");
    let judged = judged_for("sightline_unexpected", &about_it);
    assert_eq!(judged.verdict, Verdict::Conformant);
    assert_eq!(
        judged.evidence.as_deref(),
        Some("names \"sightline_unexpected\"")
    );
    assert_eq!(judged.answer, "Unrecognized key: 'sightline_unexpected'");
    assert_eq!(
        judged.actionable,
        Some(false),
        "it does not say what to send instead"
    );

    let unrelated = call("book_flight", json!({})).tool_error("explode: deliberate failure");
    let judged = judged_for("sightline_unexpected", &unrelated);
    assert_eq!(judged.verdict, Verdict::Lenient, "{}", judged.why);

    let base =
        call("book_flight", json!({})).tool_error("Invalid departure date: must be in the future");
    let judged = judged_for("sightline_unexpected", &base);
    assert_eq!(judged.verdict, Verdict::Unclear);
    assert!(
        judged.why.contains("about 'departureDate'"),
        "{}",
        judged.why
    );

    let blocked = call("book_flight", json!({})).error(
        -32600,
        "Tool requires task augmentation (taskSupport: 'required')",
    );
    let judged = judged_for("sightline_unexpected", &blocked);
    assert_eq!(judged.verdict, Verdict::Unclear);
    assert!(judged.why.contains("task augmentation"), "{}", judged.why);

    let generic = call("book_flight", json!({})).error(-32602, "Invalid params");
    let judged = judged_for("sightline_unexpected", &generic);
    assert_eq!(judged.verdict, Verdict::ModelBlind);
    assert_eq!(
        judged.evidence.as_deref(),
        Some("code -32602 (invalid params)")
    );
}

#[test]
fn a_date_the_description_names_is_a_future_one_in_that_format() {
    let schema = json!({
        "type": "object",
        "properties": {
            "departureDate": {"type": "string", "description": "Departure date in dd/mm/yyyy format", "pattern": "^\\d{2}/\\d{2}/\\d{4}$"},
            "destination": {"type": "string"}
        },
        "required": ["departureDate", "destination"]
    });
    let planned = plan(
        &Catalog::from(vec![tool("book", &schema)]),
        &Options::default(),
    );
    let missing_destination = planned
        .cases
        .iter()
        .find(|case| {
            case.kind == CaseKind::MissingRequired
                && case.property.as_deref() == Some("destination")
        })
        .expect("planned");
    assert_eq!(missing_destination.arguments["departureDate"], "25/12/2099");
}

#[test]
fn the_sarif_log_has_a_rule_per_problem_and_a_result_per_case_that_is_not_conformant() {
    let verdicts = [Verdict::Conformant, Verdict::ModelBlind, Verdict::Lenient];
    let all = report(&verdicts, &[Verdict::ModelBlind], &Baseline::default());
    let log = all.sarif();
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|rule| rule["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "audit.model-blind",
            "audit.lenient",
            "audit.misfiled",
            "audit.unclear"
        ]
    );
    let levels: Vec<(&str, &str)> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["ruleId"].as_str().unwrap(), r["level"].as_str().unwrap()))
        .collect();
    // Lenient does not fail this run (--fail-on model-blind): a note, not an error.
    assert_eq!(
        levels,
        [("audit.model-blind", "error"), ("audit.lenient", "note")]
    );
}
