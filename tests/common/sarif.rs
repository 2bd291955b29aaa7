//! SARIF logs checked as their readers check them: the official 2.1.0 schema, and GitHub code
//! scanning's ingestion rules (Microsoft's SARIF Multitool), both installed by
//! `tests/peers/install.sh`.

use std::process::Command;

use serde_json::Value;

/// The official SARIF 2.1.0 schema, as a validator.
pub fn schema() -> jsonschema::Validator {
    let schema = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/peers/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"
    );
    let text =
        std::fs::read_to_string(schema).expect("the SARIF schema: run tests/peers/install.sh");
    // The schema's `language` pattern has a stray `]` that no ECMA-262 reader takes, so the
    // schema does not pass its own meta-schema; it is read as the spec means it ("en" or
    // "en-US", SARIF 2.1.0 §3.14.14). Every other word of the schema is as shipped.
    let broken = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert!(
        text.contains(broken),
        "the schema changed: look at its language pattern again"
    );
    let text = text.replace(broken, r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#);
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// Microsoft's SARIF Multitool (`validate --rule-kind Gh`: the rules of GitHub's code scanning
/// ingestion) on a log: errors and warnings of its checks, one a line.
pub fn code_scanning_problems(log: &std::path::Path) -> Vec<String> {
    let tool = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/peers/node_modules/.bin/sarif-multitool"
    );
    let out = log.with_extension("checked.sarif");
    let output = Command::new(tool)
        .args(["validate", "--rule-kind", "Gh", "-o"])
        .arg(&out)
        .arg(log)
        .output()
        .expect("the SARIF Multitool: run tests/peers/install.sh");
    let _ = std::fs::remove_file(&out);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("Done. 1 files scanned."), "{text}");
    text.lines()
        .filter(|line| line.contains(": error ") || line.contains(": warning "))
        .map(str::to_owned)
        .collect()
}
