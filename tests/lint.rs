//! `sightline lint` against real servers: the demo in both styles, a server built on the
//! official TypeScript SDK whose zod schemas carry the spellings hosts mishandle, the official
//! everything server, and one that never answers.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::process::Command;

use common::peers::{everything, ts};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

/// `lint --json` of `server`: the document and the exit code.
fn lint(server: &[&str]) -> (Value, i32) {
    let output = Command::new(BIN)
        .arg("lint")
        .arg("--json")
        .args(server)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let document = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stdout)));
    (document, output.status.code().unwrap())
}

/// Each finding as `tool rule path`, but the hosts' notes (`host_notes` has those).
fn found(document: &Value) -> Vec<String> {
    findings(document, |rule| rule != "host-checks-first")
}

/// The hosts' notes, as `tool rule path`.
fn host_notes(document: &Value) -> Vec<String> {
    findings(document, |rule| rule == "host-checks-first")
}

fn findings(document: &Value, keep: impl Fn(&str) -> bool) -> Vec<String> {
    document["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| keep(f["rule"].as_str().unwrap()))
        .map(|f| format!("{} {} {}", f["tool"], f["rule"], f["path"]).replace('"', ""))
        .collect()
}

#[test]
fn the_demo_says_where_its_description_demands_what_no_schema_checks() {
    for style in ["legacy", "sep1303"] {
        let (document, code) = lint(&["--demo", style]);
        assert_eq!(code, 0, "notes alone do not fail the run: {document}");
        assert_eq!(
            found(&document),
            [
                "book_flight checked-only-at-call-time description",
                "confirm_booking checked-only-at-call-time description",
            ],
            "{style}"
        );
        assert!(
            document["findings"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["severity"] == "note")
        );
        // What the calibrated hosts do first: Ajv hosts check the date's pattern, the Agents
        // SDK refuses a missing date in its own words.
        let notes = host_notes(&document);
        assert!(
            notes.contains(&"book_flight host-checks-first inputSchema".to_owned()),
            "{notes:#?}"
        );
        assert!(notes.contains(&"book_flight host-checks-first inputSchema.required".to_owned()));
        let book = document["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["tool"] == "book_flight" && f["path"] == "inputSchema")
            .unwrap();
        assert!(
            book["message"].as_str().unwrap().contains("gemini-cli"),
            "{book}"
        );
        assert_eq!(document["tools"], 10);
        assert_eq!(document["summary"]["checked-only-at-call-time"], 2);
        assert_eq!(document["summary"]["type-union"], 0);
    }
}

#[test]
fn the_typescript_sdks_zod_spellings_are_found_and_fail_the_run_with_6() {
    let server = ["--", "node", "tests/peers/ts_lint_server.mjs"];
    let (document, code) = lint(&server);
    assert_eq!(code, 6, "{document}");
    assert_eq!(
        found(&document),
        [
            "reschedule type-union inputSchema.properties.note",
            "reschedule untyped-schema inputSchema.properties.extra",
            "reschedule checked-only-at-call-time description",
        ]
    );
    // The text says the same, with the count per severity.
    let output = Command::new(BIN)
        .arg("lint")
        .args(server)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(6));
    assert!(text.contains("warning  type-union"), "{text}");
    assert!(text.contains("0 errors, 2 warnings, "), "{text}");
}

#[test]
fn clean_servers_built_on_the_official_sdks_pass() {
    for server in [everything(), ts()] {
        let mut args = vec!["--".to_owned()];
        args.extend(server);
        if args[2].contains("server-everything") {
            args.push("stdio".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (document, code) = lint(&args);
        assert_eq!(code, 0, "{document}");
        // Nothing but the hosts' notes (their tools take required arguments).
        assert_eq!(found(&document), Vec::<String>::new(), "{args:?}");
        assert!(document["tools"].as_u64().unwrap() >= 2);
    }
}

#[test]
fn a_server_that_cannot_start_is_a_transport_failure_with_its_outcome() {
    let (document, code) = lint(&["--", "/nonexistent/server"]);
    assert_eq!(code, 4, "{document}");
    assert_eq!(
        document["outcome"]["class"], "transport_failure",
        "{document}"
    );
    assert!(document["findings"].as_array().unwrap().is_empty());
}

/// `--sarif` is a log GitHub code scanning takes (the official schema and the Multitool's
/// GitHub rules): a result per finding, in the server's own file, its tool and path beside.
#[test]
fn the_sarif_log_is_one_code_scanning_takes() {
    let log = std::env::temp_dir().join(format!("sightline-lint-{}.sarif", std::process::id()));
    let output = Command::new(BIN)
        .args([
            "lint",
            "--sarif",
            log.to_str().unwrap(),
            "--",
            "node",
            "tests/peers/ts_lint_server.mjs",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(6));
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let errors: Vec<String> = common::sarif::schema()
        .iter_errors(&sarif)
        .map(|error| error.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        common::sarif::code_scanning_problems(&log),
        Vec::<String>::new()
    );
    let _ = std::fs::remove_file(&log);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let rules: Vec<&str> = results
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .filter(|rule| *rule != "lint.host-checks-first")
        .collect();
    assert_eq!(
        rules,
        [
            "lint.type-union",
            "lint.untyped-schema",
            "lint.checked-only-at-call-time"
        ]
    );
    assert!(results.iter().all(|result| {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            == "tests/peers/ts_lint_server.mjs"
    }));
    assert_eq!(
        results[0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
        "reschedule.inputSchema.properties.note"
    );
}
