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
    assert_eq!(first["observed"]["hosts"]["openai-agents"][0], "readable");
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
