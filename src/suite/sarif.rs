//! The cases that did not hold as SARIF 2.1.0, each at the line of its test file.

use serde_json::Value;

/// A case that did not hold, where a SARIF log places it: its file (a path in the repository),
/// the line of its `[[case]]`, its name and what broke.
pub struct Placed<'a> {
    pub file: &'a str,
    pub line: usize,
    pub name: &'a str,
    pub failures: &'a [String],
}

/// What to do about a broken case: the rule's `help`, which GitHub code scanning requires.
const CASE_HELP: &str = "A case of a sightline test file no longer holds: the server answered the call differently from what the case expects (its class, its words, or what a host's model reads of it). Run `sightline test FILE` to see each expectation and what came instead; if the new answer is the right one, update the case (`sightline test NEW.toml --init RECORDING` writes cases from a recording).";

/// Where the cases' expectations come from: the spec's tools page, its error handling.
const CASE_HELP_URI: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling";

/// The cases that did not hold as a SARIF 2.1.0 log: one rule, a result per case at its line
/// of its file, fingerprinted by file and name.
pub fn sarif(failed: &[Placed]) -> Value {
    let results: Vec<Value> = failed
        .iter()
        .map(|case| {
            serde_json::json!({
                "ruleId": "test.case-broken",
                "level": "error",
                "message": {"text": format!("{}: {}", case.name, case.failures.join("; "))},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": case.file},
                        "region": {"startLine": case.line},
                    },
                    "logicalLocations": [{"name": case.name, "kind": "function"}],
                }],
                "partialFingerprints": {"sightlineTestCase/v1": format!("{}#{}", case.file, case.name)},
            })
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sightline",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1303",
                "rules": [{
                    "id": "test.case-broken",
                    "name": "case-broken",
                    "shortDescription": {"text": "a test case no longer holds"},
                    "fullDescription": {"text": "The server's answer to a saved call broke what the case expects of it."},
                    "help": {"text": CASE_HELP, "markdown": CASE_HELP},
                    "helpUri": CASE_HELP_URI,
                    "defaultConfiguration": {"level": "error"},
                }],
            }},
            "results": results,
        }],
    })
}

/// The line (from 1) of the `[[case]]` whose name is `name` in a test file's `text`; 1 when it
/// cannot be told.
pub fn line_of(text: &str, name: &str) -> usize {
    let mut header = 1;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line == "[[case]]" {
            header = number + 1;
        }
        if let Some(value) = line.strip_prefix("name").map(str::trim_start)
            && let Some(value) = value.strip_prefix('=')
            && toml::from_str::<toml::Table>(&format!("n = {}", value.trim()))
                .ok()
                .and_then(|table| table.get("n").and_then(|n| n.as_str().map(str::to_owned)))
                .as_deref()
                == Some(name)
        {
            return header;
        }
    }
    1
}
