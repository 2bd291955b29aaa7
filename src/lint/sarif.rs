//! The findings as SARIF 2.1.0, for code scanning.

use serde_json::Value;

use super::{Finding, Rule};

/// Where the rules are written: the spec's tool definitions.
const HELP_URI: &str = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool";

/// The findings as a SARIF 2.1.0 log: a rule per lint rule, a result per finding with its tool
/// and path as the logical location and `file` (a path in the repository) as the physical one.
pub fn sarif(findings: &[Finding], file: Option<&str>) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            serde_json::json!({
                "id": format!("lint.{}", rule.id()),
                "name": rule.id(),
                "shortDescription": {"text": rule.id()},
                "fullDescription": {"text": rule.description()},
                "help": {"text": rule.help(), "markdown": rule.help()},
                "helpUri": HELP_URI,
                "defaultConfiguration": {"level": rule.severity()},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|finding| {
            let mut location = serde_json::json!({
                "logicalLocations": [{
                    "name": finding.path,
                    "fullyQualifiedName": format!("{}.{}", finding.tool, finding.path),
                    "kind": "member",
                }],
            });
            if let Some(file) = file {
                location["physicalLocation"] = serde_json::json!({
                    "artifactLocation": {"uri": file},
                    "region": {"startLine": 1},
                });
            }
            serde_json::json!({
                "ruleId": format!("lint.{}", finding.rule.id()),
                "level": finding.severity,
                "message": {"text": format!("{}: {}: {}", finding.tool, finding.path, finding.message)},
                "locations": [location],
                "partialFingerprints": {
                    "sightlineLint/v1": format!("{}/{}/{}", finding.tool, finding.rule.id(), finding.path),
                },
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
                "informationUri": "https://modelcontextprotocol.io/specification/2025-11-25/server/tools",
                "rules": rules,
            }},
            "results": results,
        }],
    })
}
