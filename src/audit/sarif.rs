//! The audit as SARIF 2.1.0, pure: one rule per verdict that is a problem, one result per case
//! that is not conformant (an error when it fails the run, a note when the baseline knows it),
//! each with its tool as a logical location and the case's stable key as a fingerprint.

use serde_json::{Value, json};

use super::report::{CaseResult, Report};
use super::verdict::Verdict;
use crate::classify::findings::Severity;

/// The SARIF version and schema written.
const VERSION: &str = "2.1.0";
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// What each problem verdict means, for its rule.
fn rule(verdict: Verdict) -> (&'static str, &'static str) {
    match verdict {
        Verdict::ModelBlind => (
            "an input validation error answered as a protocol error",
            "Clients only MAY show the model a protocol error, so some hosts never tell it why the call failed: SEP-1303 (2025-11-25) puts input validation errors in tool results with isError: true, which clients SHOULD show.",
        ),
        Verdict::Lenient => (
            "invalid input accepted",
            "The tool ran with input its own schema forbids, or failed for a reason that is not the invalid input.",
        ),
        Verdict::Misfiled => (
            "a protocol error answered as a tool result, or the wrong code",
            "Unknown tools and malformed requests are protocol errors; invalid params are -32602.",
        ),
        Verdict::Unclear => (
            "no verdict",
            "The answer could not be judged: no answer, an answer about another argument, or something that blocked the call.",
        ),
        Verdict::Conformant => ("conformant", "Answered on the channel the spec asks for."),
    }
}

/// The verdicts a SARIF log reports.
const PROBLEMS: [Verdict; 4] = [
    Verdict::ModelBlind,
    Verdict::Lenient,
    Verdict::Misfiled,
    Verdict::Unclear,
];

impl Report {
    /// The report as a SARIF 2.1.0 log.
    pub fn sarif(&self) -> Value {
        let rules: Vec<Value> = PROBLEMS
            .iter()
            .map(|verdict| {
                let (short, full) = rule(*verdict);
                json!({
                    "id": rule_id(*verdict),
                    "name": verdict.name(),
                    "shortDescription": {"text": short},
                    "fullDescription": {"text": full},
                    "defaultConfiguration": {"level": "error"},
                })
            })
            .collect();
        let mut rules = rules;
        let mut results: Vec<Value> = self
            .cases
            .iter()
            .filter(|result| result.judged.verdict != Verdict::Conformant)
            .map(|result| self.result(result))
            .collect();
        // Findings about the server: a rule per finding id, a result each, never failing.
        for finding in &self.findings {
            let level = match finding.severity {
                Severity::Info => "note",
                Severity::Warning => "warning",
            };
            if !rules.iter().any(|rule| rule["id"] == finding.id) {
                rules.push(json!({
                    "id": finding.id,
                    "name": finding.id,
                    "shortDescription": {"text": finding.id},
                    "defaultConfiguration": {"level": level},
                }));
            }
            results.push(json!({
                "ruleId": finding.id,
                "level": level,
                "message": {"text": finding.message},
            }));
        }
        json!({
            "$schema": SCHEMA,
            "version": VERSION,
            "runs": [{
                "tool": {"driver": {
                    "name": "sightline",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": "https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1303",
                    "rules": rules,
                }},
                "properties": {"server": self.server, "host": self.host},
                "results": results,
            }],
        })
    }

    fn result(&self, result: &CaseResult) -> Value {
        let judged = &result.judged;
        let level = if self.fail_on.contains(&judged.verdict) && !result.known {
            "error"
        } else {
            "note"
        };
        let message = format!(
            "{}: {} → {}: {} ({} {})",
            result.case.tool,
            result.case.what,
            judged.got,
            judged.why,
            judged.rule.version,
            judged.rule.source
        );
        json!({
            "ruleId": rule_id(judged.verdict),
            "level": level,
            "message": {"text": message},
            "locations": [{"logicalLocations": [{
                "name": result.case.tool,
                "kind": "function",
            }]}],
            "partialFingerprints": {"sightlineCase/v1": result.case.key()},
            "properties": {
                "kind": result.case.kind.name(),
                "arguments": result.case.arguments,
                "answer": judged.answer,
                "evidence": judged.evidence,
                "note": judged.note,
                "known": result.known,
            },
        })
    }
}

fn rule_id(verdict: Verdict) -> String {
    format!("audit.{}", verdict.name())
}
