//! The GitHub Action (`action.yml`) kept true: every flag its audit step passes is one `sightline
//! audit` takes, and the step's own script, run with bash against the demo server, writes the
//! SARIF log and exits as the audit does.

#![allow(clippy::unwrap_used)] // a panic is a failed test

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn action() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml")).unwrap()
}

/// The script of the step named `Audit`: the lines of its `run: |` block.
fn audit_script(action: &str) -> String {
    step_script(action, "Audit")
}

/// The script of the step named `name`.
fn step_script(action: &str, name: &str) -> String {
    let step = action
        .split("    - name: ")
        .find(|step| step.starts_with(&format!("{name}\n")))
        .expect("the step");
    let run = step.split("      run: |\n").nth(1).expect("a run block");
    run.lines()
        .take_while(|line| line.starts_with("        ") || line.is_empty())
        .map(|line| line.strip_prefix("        ").unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_flag_the_action_passes_is_an_audit_flag() {
    let help = Command::new(BIN)
        .args(["audit", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let script = audit_script(&action());
    let flags: Vec<&str> = script
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter(|word| word.starts_with("--") && word.len() > 2)
        .collect();
    assert!(flags.len() >= 6, "{flags:?}");
    for flag in flags {
        assert!(
            help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
            "{flag} is no `sightline audit` flag"
        );
    }
}

/// Runs the action's audit step as GitHub would, with these inputs.
fn run_step(inputs: &[(&str, &str)], sarif: &Path) -> std::process::Output {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new("bash");
    command
        .args(["-e", "-c", &audit_script(&action())])
        .env("PATH", path)
        .env("HOST", "spec")
        .env("FAIL_UNDER", "")
        .env("FAIL_ON", "")
        .env("BASELINE", "")
        .env("DESTRUCTIVE", "false")
        .env("SARIF_LOCATION", "")
        .env("SARIF", sarif);
    for (name, value) in inputs {
        command.env(name, value);
    }
    command.output().unwrap()
}

#[test]
fn the_action_audits_a_server_and_writes_its_sarif_log() {
    let dir = std::env::temp_dir().join(format!("sightline-action-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sarif = dir.join("audit.sarif");
    let legacy = run_step(
        &[
            ("SERVER", "sightline demo-server --style legacy"),
            ("SARIF_LOCATION", "server/main.py"),
        ],
        &sarif,
    );
    assert_eq!(
        legacy.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&legacy.stderr)
    );
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(results.iter().all(|result| {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "server/main.py"
    }));
    // The sep1303 style passes; a score threshold it meets changes nothing.
    let clean = run_step(
        &[
            ("SERVER", "sightline demo-server --style sep1303"),
            ("FAIL_UNDER", "90"),
        ],
        &sarif,
    );
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The action's test step, run with bash as GitHub would: the demo's suite against the server
/// given, its SARIF log and job summary written, its exit code the test run's.
#[test]
fn the_action_runs_test_files_against_the_server() {
    let dir = std::env::temp_dir().join(format!("sightline-action-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |style: &str| {
        Command::new("bash")
            .args(["-e", "-c", &step_script(&action(), "Test")])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("PATH", &path)
            .env("SERVER", format!("{BIN} demo-server --style {style}"))
            .env("TESTS", "tests/suites/demo.toml")
            .env("TESTS_SARIF", dir.join("test.sarif"))
            .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
            .output()
            .unwrap()
    };
    let passed = run("sep1303");
    assert_eq!(passed.status.code(), Some(0), "{passed:?}");
    let failed = run("legacy");
    assert_eq!(failed.status.code(), Some(1), "{failed:?}");
    let sarif = std::fs::read_to_string(dir.join("test.sarif")).unwrap();
    assert!(sarif.contains("test.case-broken"), "{sarif}");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("2 passed, 3 failed"), "{summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
