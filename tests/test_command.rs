//! `sightline test` run as a user runs it: the demo's suite against both styles (it passes
//! against SEP-1303's and fails against the legacy one, naming the case, the expectation and
//! what came), its `JUnit` read back by Python's XML parser, a broken file, and a server that
//! never starts.

#![allow(clippy::unwrap_used)] // a panic is a failed test

use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");
const SUITE: &str = "tests/suites/demo.toml";

fn sightline(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> (Value, i32) {
    let output = sightline(args);
    let document = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
        panic!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (document, output.status.code().unwrap())
}

#[test]
fn the_demo_suite_passes_against_the_sep1303_style() {
    let (document, code) = json(&["test", SUITE, "--json"]);
    assert_eq!(code, 0, "{document:#}");
    assert_eq!(document["summary"]["passed"], 5);
    assert_eq!(document["summary"]["failed"], 0);
    let first = &document["cases"][0];
    assert_eq!(first["observed"]["class"], "tool_error");
    let agents = first["observed"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|seen| seen["host"] == "openai-agents")
        .unwrap();
    assert_eq!(agents["consequence"], "readable", "{agents}");
    assert!(
        agents["model_sees"]
            .as_str()
            .unwrap()
            .contains("must be in the future")
    );
}

#[test]
fn against_the_legacy_style_it_fails_naming_the_case_the_expectation_and_what_came() {
    let output = sightline(&["test", SUITE, "--demo", "legacy"]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("✗ a past date is a tool error the model reads"),
        "{text}"
    );
    assert!(
        text.contains("class: expected tool_error, got protocol_error -32602"),
        "{text}"
    );
    assert!(
        text.contains("model under openai-agents: expected readable, got model-blind"),
        "{text}"
    );
    assert!(text.contains("2 passed, 3 failed"), "{text}");
}

#[test]
fn junit_is_well_formed_and_counts_each_file_s_failures() {
    let path = std::env::temp_dir().join(format!("sightline-junit-{}.xml", std::process::id()));
    let path = path.to_str().unwrap();
    let output = sightline(&["test", SUITE, "--demo", "legacy", "--junit", path]);
    assert_eq!(output.status.code(), Some(1));
    let read = Command::new("python3")
        .args([
            "-c",
            "import sys, xml.etree.ElementTree as t; s = t.parse(sys.argv[1]).getroot()[0]; \
             print(s.get('tests'), s.get('failures'), len(s.findall('testcase/failure')))",
            path,
        ])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(path);
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim(),
        "5 3 3",
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
}

#[test]
fn a_broken_file_is_a_usage_error_naming_the_file_and_the_mistake() {
    let path = std::env::temp_dir().join(format!("sightline-suite-{}.toml", std::process::id()));
    std::fs::write(
        &path,
        "[[case]]\nname = \"x\"\ntool = \"t\"\nexpect = { clas = \"success\" }\n",
    )
    .unwrap();
    let output = sightline(&["test", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("sightline-suite-"), "{stderr}");
    assert!(stderr.contains("clas"), "{stderr}");
}

#[test]
fn a_server_that_never_starts_leaves_every_case_not_run_and_exits_4() {
    let (document, code) = json(&["test", SUITE, "--json", "--", "/nonexistent/server"]);
    assert_eq!(code, 4, "{document:#}");
    assert_eq!(document["summary"]["failed"], 5);
    assert!(
        document["cases"][0]["failures"][0]
            .as_str()
            .unwrap()
            .starts_with("not run: "),
        "{document:#}"
    );
}

/// A path in the temporary directory, removed when dropped.
struct Temporary(std::path::PathBuf);

impl Temporary {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("sightline-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Self(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_suite_written_from_a_tui_sessions_recording_gives_that_sessions_verdicts_again() {
    let suite = Temporary::new("from-tui.toml");
    let recording = "tests/fixtures/tui_audit_legacy.jsonl";
    let wrote = sightline(&["test", suite.path(), "--init", recording]);
    assert_eq!(wrote.status.code(), Some(0), "{wrote:?}");
    assert!(
        String::from_utf8_lossy(&wrote.stdout).starts_with("wrote 6 cases to "),
        "{wrote:?}"
    );
    let text = std::fs::read_to_string(suite.path()).unwrap();
    assert!(text.contains("[server]\ndemo = \"legacy\""), "{text}");
    // Against the server it was recorded from: every verdict as it was then.
    let (document, code) = json(&["test", suite.path(), "--json"]);
    assert_eq!(code, 0, "{document:#}");
    assert_eq!(document["summary"]["passed"], 6);
    // Against the other style: the validation calls no longer answer as they did.
    let (document, code) = json(&["test", suite.path(), "--json", "--demo", "sep1303"]);
    assert_eq!(code, 1, "{document:#}");
    assert!(
        document["summary"]["failed"].as_u64().unwrap() >= 3,
        "{document:#}"
    );
    // An existing file is never overwritten.
    let again = sightline(&["test", suite.path(), "--init", recording]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists; not overwritten"));
}

#[test]
fn a_suite_written_from_a_headless_recording_runs_against_the_server_given() {
    let recording = Temporary::new("call.jsonl");
    let suite = Temporary::new("from-call.toml");
    let call = sightline(&[
        "call",
        "book_flight",
        r#"{"departureDate":"12/12/2024"}"#,
        "--demo",
        "sep1303",
        "--record",
        recording.path(),
    ]);
    assert_eq!(call.status.code(), Some(1), "{call:?}");
    let wrote = sightline(&["test", suite.path(), "--init", recording.path()]);
    assert_eq!(wrote.status.code(), Some(0), "{wrote:?}");
    let text = std::fs::read_to_string(suite.path()).unwrap();
    assert!(
        text.contains("Current date is {today:%d/%m/%Y}."),
        "the recording's day is the run's: {text}"
    );
    let (document, code) = json(&["test", suite.path(), "--json"]);
    assert_eq!(code, 0, "{document:#}");
    let (document, code) = json(&["test", suite.path(), "--json", "--demo", "legacy"]);
    assert_eq!(code, 1, "{document:#}");
    let failures = document["cases"][0]["failures"].to_string();
    assert!(
        failures.contains("class: expected tool_error, got protocol_error -32602"),
        "{failures}"
    );
}

#[test]
fn load_reports_percentiles_a_histogram_and_the_count_per_class() {
    // A benchmark-like command: the report's shape and counts are checked, not its times.
    let (document, code) = json(&[
        "test",
        SUITE,
        "--load",
        "--calls",
        "40",
        "--concurrency",
        "4",
        "--json",
    ]);
    assert_eq!(code, 0, "{document:#}");
    let report = &document["report"];
    assert_eq!(
        document["case"],
        "a past date is a tool error the model reads"
    );
    assert_eq!(report["calls"], 40);
    assert_eq!(report["concurrency"], 4);
    assert_eq!(report["classes"]["tool_error"], 40, "{report:#}");
    assert_eq!(report["classes"]["protocol_error"], 0);
    assert_eq!(report["failed_expectations"], 0);
    let buckets: u64 = report["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bucket| bucket["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(buckets, 40);
    let (p50, p90, p99) = (
        report["p50_ms"].as_u64().unwrap(),
        report["p90_ms"].as_u64().unwrap(),
        report["p99_ms"].as_u64().unwrap(),
    );
    assert!(p50 <= p90 && p90 <= p99 && p99 <= report["max_ms"].as_u64().unwrap());

    // The demo's slow search, four at once: every one a success.
    let suite = Temporary::new("slow.toml");
    std::fs::write(
        suite.path(),
        "[server]\ndemo = \"sep1303\"\n\n[[case]]\nname = \"slow\"\ntool = \"slow_search\"\n\
         arguments = { seconds = 1 }\nexpect = { class = \"success\" }\n",
    )
    .unwrap();
    let (document, code) = json(&[
        "test",
        suite.path(),
        "--load",
        "--calls",
        "4",
        "--concurrency",
        "4",
        "--json",
    ]);
    assert_eq!(code, 0, "{document:#}");
    assert_eq!(document["report"]["classes"]["success"], 4, "{document:#}");

    // Against the legacy style every call breaks the case's expectations: exit 1, and the text.
    let output = sightline(&[
        "test",
        SUITE,
        "--load",
        "--calls",
        "8",
        "--concurrency",
        "2",
        "--demo",
        "legacy",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("classes  protocol_error 8 ·"), "{text}");
    assert!(text.contains("expectations  0 held, 8 broken"), "{text}");
    assert!(text.contains("latency  p50 "), "{text}");
}

mod common;

/// `--sarif` is a log GitHub code scanning takes (the official schema and the Multitool's
/// GitHub rules): a result per broken case, at the line of its `[[case]]` in the test file;
/// `--markdown` a job summary with a row per case.
#[test]
fn sarif_and_markdown_place_each_broken_case_in_its_file() {
    let log = Temporary::new("test.sarif");
    let summary = Temporary::new("test.md");
    let output = sightline(&[
        "test",
        SUITE,
        "--demo",
        "legacy",
        "--sarif",
        log.path(),
        "--markdown",
        summary.path(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let sarif: Value = serde_json::from_str(&std::fs::read_to_string(log.path()).unwrap()).unwrap();
    let errors: Vec<String> = common::sarif::schema()
        .iter_errors(&sarif)
        .map(|error| error.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(
        common::sarif::code_scanning_problems(std::path::Path::new(log.path())),
        Vec::<String>::new()
    );
    let suite =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE))
            .unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for result in results {
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], SUITE);
        let line = location["region"]["startLine"].as_u64().unwrap();
        assert_eq!(
            suite.lines().nth(usize::try_from(line).unwrap() - 1),
            Some("[[case]]")
        );
    }
    let markdown = std::fs::read_to_string(summary.path()).unwrap();
    assert!(
        markdown.starts_with("## sightline test: 2 passed, 3 failed"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| ✓ | an unknown tool is a protocol error |"),
        "{markdown}"
    );
}
