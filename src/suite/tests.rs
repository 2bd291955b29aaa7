//! The suites' reading, dates, checks, written cases, load reports and SARIF placement.

use super::*;
use crate::classify::Class;
use serde_json::json;

/// 2026-12-03T12:00:00Z.
const NOW: i64 = 1_796_299_200;

#[test]
fn dates_are_put_in_as_of_the_run() {
    assert_eq!(dates("{today}", NOW).unwrap(), "2026-12-03");
    assert_eq!(
        dates("on {today+30d:%d/%m/%Y}!", NOW).unwrap(),
        "on 02/01/2027!"
    );
    assert_eq!(
        dates("{today-3d:%Y%m%d} 100%", NOW).unwrap(),
        "20261130 100%"
    );
    assert!(dates("{today+x}", NOW).is_err());
    assert!(dates("{today:%H}", NOW).is_err());
    assert!(dates("{today", NOW).is_err());
}

#[test]
fn a_suite_reads_with_its_dates_and_refuses_what_it_does_not_know() {
    let suite = read(
        r#"
        [server]
        demo = "legacy"
        [[case]]
        name = "future"
        tool = "book_flight"
        arguments = { departureDate = "{today+1d:%d/%m/%Y}" }
        expect = { class = "success", text_contains = "{today+1d:%d/%m/%Y}" }
        "#,
        NOW,
    )
    .unwrap();
    assert_eq!(suite.server.unwrap().args().unwrap(), ["--demo", "legacy"]);
    assert_eq!(
        suite.cases[0].arguments,
        Some(json!({"departureDate": "04/12/2026"}))
    );
    assert_eq!(
        suite.cases[0].expect.text_contains.as_deref(),
        Some("04/12/2026")
    );
    let typo = read(
        "[[case]]\nname = \"x\"\ntool = \"t\"\nexpect = { clas = \"success\" }",
        NOW,
    );
    assert!(typo.unwrap_err().contains("clas"));
    assert!(
        read("[server]\ndemo = \"legacy\"\n", NOW)
            .unwrap_err()
            .contains("no [[case]]")
    );
    let neither = read("[[case]]\nname = \"x\"\n", NOW);
    assert!(neither.unwrap_err().contains("`tool` or `method`"));
}

fn observed() -> Observed {
    Observed {
        class: Class::ToolError,
        code: None,
        text: "Invalid departure date: must be in the future.".into(),
        is_error: Some(true),
        structured: Some(json!({"ref": "SL-1", "seat": {"row": 3, "letter": "C"}})),
        findings: vec!["structured-without-text".into()],
        elapsed_ms: 40,
        hosts: vec![crate::audit::HostConsequence {
            host: "claude-code".to_owned(),
            consequence: crate::audit::Consequence::Readable,
            server_called: true,
            model_sees: "Invalid departure date".to_owned(),
        }],
    }
}

#[test]
fn each_expectation_that_holds_passes_and_each_that_does_not_says_what_came() {
    let holds: Expect = toml::from_str(
        r#"
        class = "tool_error"
        is_error = true
        text_contains = "in the future"
        text_matches = "^Invalid .* date"
        structured = { seat = { row = 3 } }
        structured_schema = { type = "object", required = ["ref"] }
        findings = ["structured-without-text"]
        no_findings = ["sep1303.validation-as-protocol-error"]
        model_sees = { claude-code = "readable" }
        model_reads = { claude-code = "departure" }
        within_ms = 100
        "#,
    )
    .unwrap();
    assert_eq!(check(&holds, &observed()), Vec::<String>::new());
    let breaks: Expect = toml::from_str(
        r#"
        class = "success"
        code = -32602
        text = "Booked"
        text_matches = "^Booked"
        is_error = false
        structured = { seat = { row = 4 } }
        structured_schema = { type = "object", required = ["when"] }
        findings = ["sep1303.validation-as-protocol-error"]
        no_findings = ["structured-without-text"]
        model_sees = { claude-code = "model-blind", nobody = "readable" }
        model_reads = { claude-code = "Booked" }
        within_ms = 10
        "#,
    )
    .unwrap();
    let failed = check(&breaks, &observed());
    assert_eq!(failed.len(), 13, "{failed:#?}");
    assert!(failed[0].starts_with("class: expected success, got tool_error"));
    assert!(
        failed
            .iter()
            .any(|f| f == "time: expected within 10 ms, took 40 ms")
    );
    assert!(failed.iter().any(|f| f.contains("no such host profile")));
}

#[test]
fn a_recorded_day_becomes_the_runs_and_a_null_is_refused_by_name() {
    let day = Date {
        year: 2026,
        month: 12,
        day: 3,
    };
    assert_eq!(
        undated(
            "Current date is 03/12/2026 (2026-12-03); 04/12/2026 stays",
            day
        ),
        "Current date is {today:%d/%m/%Y} ({today}); 04/12/2026 stays"
    );
    let mut case: CaseSpec = toml::from_str("name = \"n\"\ntool = \"t\"").unwrap();
    case.arguments = Some(json!({"seat": null}));
    let suite = Suite {
        server: None,
        cases: vec![case],
    };
    assert!(to_toml(&suite).unwrap_err().starts_with("case 'n': "));
}

#[test]
fn a_load_report_counts_every_class_and_ranks_the_percentiles() {
    let calls: Vec<(u64, Class, bool)> = (1..=100)
        .map(|ms| {
            let class = if ms % 10 == 0 {
                Class::ProtocolError
            } else {
                Class::ToolError
            };
            (ms, class, ms % 10 == 0)
        })
        .collect();
    let report = load_report(&calls, 4, 2000);
    assert_eq!(
        (report.p50_ms, report.p90_ms, report.p99_ms, report.max_ms),
        (50, 90, 99, 100)
    );
    assert_eq!(report.classes["tool_error"], 90);
    assert_eq!(report.classes["protocol_error"], 10);
    assert_eq!(report.classes["success"], 0);
    assert_eq!(report.failed_expectations, 10);
    assert!((report.per_second - 50.0).abs() < 1e-9);
    assert_eq!(
        report
            .histogram
            .iter()
            .map(|bucket| bucket.calls)
            .sum::<usize>(),
        100
    );
    assert_eq!(report.histogram[0].calls, 1, "1 ms");
    assert_eq!(report.histogram[6].calls, 50, "51-100 ms");
    let empty = load_report(&[], 1, 0);
    assert_eq!((empty.p99_ms, empty.per_second), (0, 0.0));
}

#[test]
fn a_case_is_found_at_the_line_of_its_header() {
    let text = "[server]\ndemo = \"legacy\"\n\n[[case]]\nname = \"one\"\n\n[[case]]\n# why\nname = 'two'\n";
    assert_eq!(line_of(text, "one"), 4);
    assert_eq!(line_of(text, "two"), 7);
    assert_eq!(line_of(text, "three"), 1);
}
