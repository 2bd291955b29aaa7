//! The audit as SARIF 2.1.0, pure: one rule per verdict that is a problem, one result per case
//! that is not conformant (an error when it fails the run, a note when the baseline knows it),
//! each with its tool as a logical location, the file `--sarif-location` names as its physical
//! one, and the case's stable key as a fingerprint; every rule says what to do (`help`).

use serde_json::{Value, json};

use super::report::{CaseResult, Report};
use super::verdict::Verdict;
use crate::classify::findings::Severity;

/// The SARIF version and schema written.
const VERSION: &str = "2.1.0";
const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Where the rules are written: the spec's tools page, its error handling (SEP-1303).
const HELP_URI: &str =
    "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling";

/// What to do about each problem verdict: a rule's `help`, which GitHub code scanning requires.
fn help(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::ModelBlind => {
            "Answer invalid input (a bad format, a value out of range, a date that must be in the future) with a tool result the model can read, not a JSON-RPC error: `{\"content\":[{\"type\":\"text\",\"text\":\"departureDate must be in the future (today is dd/mm/yyyy)\"}],\"isError\":true}`. Keep -32602 for requests that are malformed as requests. Run `sightline audit` again to check, and `sightline` (the TUI) to see what each host shows its model."
        }
        Verdict::Lenient => {
            "Check the arguments against the tool's inputSchema before running it, and answer what breaks it with a tool result that says why (`isError: true`)."
        }
        Verdict::Misfiled => {
            "Answer a call of a tool the server does not have, or a request that is malformed as a request, with a JSON-RPC error; answer invalid params with -32602, not another code."
        }
        Verdict::Unclear => {
            "Look at the case's call in the log (`sightline audit --record FILE`, then `sightline replay FILE`): the server did not answer, answered about another argument, or something blocked the call."
        }
        Verdict::Conformant => "Nothing to do.",
    }
}

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
                    "help": {"text": help(*verdict), "markdown": help(*verdict)},
                    "helpUri": HELP_URI,
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
                let help = format!(
                    "{} See the findings table in sightline's README for `{}`.",
                    finding.message, finding.id
                );
                rules.push(json!({
                    "id": finding.id,
                    "name": finding.id,
                    "shortDescription": {"text": finding.id},
                    "help": {"text": help, "markdown": help},
                    "helpUri": HELP_URI,
                    "defaultConfiguration": {"level": level},
                }));
            }
            results.push(json!({
                "ruleId": finding.id,
                "level": level,
                "message": {"text": finding.message},
                "locations": [self.location(None)],
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
            "locations": [self.location(Some(&result.case.tool))],
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

impl Report {
    /// Where a result lies: the tool as a logical location, and the file code scanning attaches
    /// it to (`--sarif-location`), which it requires of every result.
    fn location(&self, tool: Option<&str>) -> Value {
        let mut location = json!({});
        if let Some(file) = &self.sarif_location {
            location["physicalLocation"] = json!({
                "artifactLocation": {"uri": file},
                "region": {"startLine": 1},
            });
        }
        if let Some(tool) = tool {
            location["logicalLocations"] = json!([{"name": tool, "kind": "function"}]);
        }
        location
    }
}

fn rule_id(verdict: Verdict) -> String {
    format!("audit.{}", verdict.name())
}
