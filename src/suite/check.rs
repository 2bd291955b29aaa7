//! A case's answer as its expectations read it, and each expectation checked against it.

use serde::Serialize;
use serde_json::Value;

use super::Expect;
use crate::analysis::{self, CallContext};
use crate::audit::verdict::{HostConsequence, host_consequence};
use crate::classify::Class;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::model_view::hosts::HostProfile;

/// What came of a case, as the expectations read it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observed {
    pub class: Class,
    pub code: Option<i64>,
    pub text: String,
    pub is_error: Option<bool>,
    pub structured: Option<Value>,
    pub findings: Vec<String>,
    pub elapsed_ms: u64,
    /// Per host the case names: what its model makes of the answer, and the words it reads
    /// (as the audit reports it per host).
    pub hosts: Vec<HostConsequence>,
}

impl Observed {
    /// What `host`'s model made of the answer, when the case named it.
    fn seen_by(&self, host: &str) -> Option<&HostConsequence> {
        self.hosts.iter().find(|seen| seen.host == host)
    }
}

/// The facts of `exchange` under `context`, with each of `hosts` judged.
pub fn observe(exchange: &Exchange, context: &CallContext<'_>, hosts: &[HostProfile]) -> Observed {
    let (outcome, findings) = analysis::judge(exchange, context);
    let result: Option<Value> = match exchange.answer() {
        Some(Reply::Result(result)) => serde_json::from_str(result.text()).ok(),
        _ => None,
    };
    Observed {
        class: outcome.class,
        code: outcome.code,
        text: crate::audit::answer::text(exchange),
        is_error: result
            .as_ref()
            .and_then(|result| result.get("isError"))
            .and_then(Value::as_bool),
        structured: result
            .and_then(|mut result| result.get_mut("structuredContent").map(Value::take)),
        findings: findings
            .into_iter()
            .map(|finding| finding.id.to_string())
            .collect(),
        elapsed_ms: exchange.ended_at.since(exchange.sent_at),
        hosts: hosts
            .iter()
            .map(|host| host_consequence(exchange, &outcome, context, host))
            .collect(),
    }
}

/// Every expectation of `expect` that `observed` breaks, said as "expected …, got …".
pub fn check(expect: &Expect, observed: &Observed) -> Vec<String> {
    let mut failed = Vec::new();
    check_answer(expect, observed, &mut failed);
    check_judged(expect, observed, &mut failed);
    failed
}

/// The answer itself: its class and code, its words, `isError`, `structuredContent`.
fn check_answer(expect: &Expect, observed: &Observed, failed: &mut Vec<String>) {
    let class = class_name(observed.class);
    if let Some(want) = &expect.class
        && want != class
    {
        failed.push(format!(
            "class: expected {want}, got {class}{}",
            code_words(observed)
        ));
    }
    if let Some(code) = expect.code
        && observed.code != Some(code)
    {
        failed.push(format!(
            "code: expected {code}, got {}",
            observed.code.map_or("none".into(), |c| c.to_string())
        ));
    }
    let text = &observed.text;
    if let Some(want) = &expect.text
        && want != text
    {
        failed.push(format!("text: expected {want:?}, got {text:?}"));
    }
    if let Some(want) = &expect.text_contains
        && !text.contains(want.as_str())
    {
        failed.push(format!(
            "text: expected it to contain {want:?}, got {text:?}"
        ));
    }
    if let Some(pattern) = &expect.text_matches {
        match matches(pattern, text) {
            Ok(true) => {}
            Ok(false) => failed.push(format!(
                "text: expected it to match /{pattern}/, got {text:?}"
            )),
            Err(why) => failed.push(format!("text_matches /{pattern}/: {why}")),
        }
    }
    if let Some(want) = expect.is_error
        && observed.is_error.unwrap_or(false) != want
    {
        failed.push(format!(
            "isError: expected {want}, got {}",
            observed.is_error.map_or("absent".into(), |b| b.to_string())
        ));
    }
    if let Some(want) = &expect.structured {
        match &observed.structured {
            Some(got) if contains(got, want) => {}
            got => failed.push(format!(
                "structuredContent: expected it to hold {want}, got {}",
                got.as_ref().map_or("none".into(), Value::to_string)
            )),
        }
    }
    if let Some(schema) = &expect.structured_schema {
        let got = observed.structured.clone().unwrap_or(Value::Null);
        match jsonschema::validator_for(schema) {
            Ok(validator) => {
                if let Some(error) = validator.iter_errors(&got).next() {
                    failed.push(format!(
                        "structuredContent: not valid against the schema: {error}"
                    ));
                }
            }
            Err(error) => failed.push(format!("structured_schema is not a JSON Schema: {error}")),
        }
    }
}

/// What sightline judged of it: the findings, each named host's model, the time it took.
fn check_judged(expect: &Expect, observed: &Observed, failed: &mut Vec<String>) {
    for id in &expect.findings {
        if !observed.findings.contains(id) {
            failed.push(format!(
                "finding {id}: expected, not raised (raised: {})",
                listed(&observed.findings)
            ));
        }
    }
    for id in &expect.no_findings {
        if observed.findings.contains(id) {
            failed.push(format!("finding {id}: raised, expected none"));
        }
    }
    for (host, want) in &expect.model_sees {
        match observed.seen_by(host) {
            Some(seen) if seen.consequence.name() != want => failed.push(format!(
                "model under {host}: expected {want}, got {} (it reads: {})",
                seen.consequence.name(),
                one_line(&seen.model_sees)
            )),
            Some(_) => {}
            None => failed.push(format!("model under {host}: no such host profile")),
        }
    }
    for (host, want) in &expect.model_reads {
        match observed.seen_by(host) {
            Some(seen) if !seen.model_sees.contains(want.as_str()) => failed.push(format!(
                "model under {host}: expected it to read {want:?}, it reads: {}",
                one_line(&seen.model_sees)
            )),
            Some(_) => {}
            None => failed.push(format!("model under {host}: no such host profile")),
        }
    }
    if let Some(budget) = expect.within_ms
        && observed.elapsed_ms > budget
    {
        failed.push(format!(
            "time: expected within {budget} ms, took {} ms",
            observed.elapsed_ms
        ));
    }
}

/// The class as test files and `--json` name it.
pub fn class_name(class: Class) -> &'static str {
    match class {
        Class::Success => "success",
        Class::ToolError => "tool_error",
        Class::ProtocolError => "protocol_error",
        Class::TransportFailure => "transport_failure",
    }
}

fn code_words(observed: &Observed) -> String {
    observed
        .code
        .map_or_else(String::new, |code| format!(" {code}"))
}

fn listed(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

fn one_line(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::sanitize::text(&line).into_owned()
}

/// Whether `got` holds every member of `want` (objects recursively; anything else equal).
fn contains(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(got), Value::Object(want)) => want
            .iter()
            .all(|(key, want)| got.get(key).is_some_and(|got| contains(got, want))),
        _ => got == want,
    }
}

/// Whether `text` matches `pattern`, checked as a JSON Schema `pattern` is.
fn matches(pattern: &str, text: &str) -> Result<bool, String> {
    let schema = serde_json::json!({"type": "string", "pattern": pattern});
    let validator = jsonschema::validator_for(&schema).map_err(|error| error.to_string())?;
    Ok(validator.is_valid(&Value::String(text.to_owned())))
}
