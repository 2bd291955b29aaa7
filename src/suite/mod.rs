//! Test suites for `sightline test`, pure: a TOML file of cases (a `tools/call` or any request,
//! and what must hold of its answer, down to what named hosts' models read), the run's date put
//! into them, and each expectation checked against what came.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::time::Date;

mod check;
mod load;
mod sarif;
mod written;

pub use check::{Observed, check, class_name, observe};
pub use load::{Bucket, LoadReport, load_report};
pub use sarif::{Placed, line_of, sarif};
pub use written::{case_from, file_start, to_toml, undated};

/// One file: the server (optional: the command line may name it) and its cases, in order.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerSpec>,
    #[serde(rename = "case", default)]
    pub cases: Vec<CaseSpec>,
}

/// The server a suite runs against: exactly one of a stdio command, a URL, a demo style, or an
/// entry of an `mcp.json`-style file.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demo: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
}

impl ServerSpec {
    /// The command-line words that select this server (what `sightline tools` would take).
    pub fn args(&self) -> Result<Vec<String>, String> {
        let given = [
            self.command.is_some(),
            self.url.is_some(),
            self.demo.is_some(),
            self.config.is_some(),
        ];
        if given.iter().filter(|given| **given).count() != 1 {
            return Err(
                "[server] takes exactly one of command, url, demo or config (with entry)".into(),
            );
        }
        let mut args = Vec::new();
        if let Some(url) = &self.url {
            args.extend(["--url".to_owned(), url.clone()]);
        }
        if let Some(demo) = &self.demo {
            args.extend(["--demo".to_owned(), demo.clone()]);
        }
        if let Some(config) = &self.config {
            args.extend(["--config".to_owned(), config.clone()]);
            if let Some(entry) = &self.entry {
                args.extend(["--server".to_owned(), entry.clone()]);
            }
        }
        if let Some(command) = &self.command {
            if command.is_empty() {
                return Err("[server] command is empty".into());
            }
            args.push("--".into());
            args.extend(command.iter().cloned());
        }
        Ok(args)
    }
}

/// One case: what is sent, and what must hold of the answer.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CaseSpec {
    pub name: String,
    /// A `tools/call` of this tool with `arguments`…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// …or any request, with `params`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    #[serde(default)]
    pub expect: Expect,
}

/// What must hold; every member is optional and each given one is checked.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `success`, `tool_error`, `protocol_error` or `transport_failure`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The protocol error's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// The answer's words (a result's text blocks, a protocol error's message): exactly…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// …containing this…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_contains: Option<String>,
    /// …or matching this regular expression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_matches: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `structuredContent` holds these members (recursively; arrays whole).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// `structuredContent` is valid against this JSON Schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_schema: Option<Value>,
    /// Finding ids that must be raised…
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// …and ones that must not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_findings: Vec<String>,
    /// Per host profile: `readable`, `model-blind`, `host-explains`, `host-refuses-blind` or
    /// `run-fails`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_sees: BTreeMap<String, String>,
    /// Per host profile: words the model reads.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub model_reads: BTreeMap<String, String>,
    /// The answer came within this many milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within_ms: Option<u64>,
}

impl CaseSpec {
    /// The request: a tool call, or a method; an error when the case names neither or both.
    pub fn request(&self) -> Result<Request, String> {
        match (&self.tool, &self.method) {
            (Some(tool), None) => Ok(Request::Call {
                tool: tool.clone(),
                arguments: self
                    .arguments
                    .clone()
                    .unwrap_or_else(|| Value::Object(serde_json::Map::default())),
            }),
            (None, Some(method)) => Ok(Request::Other {
                method: method.clone(),
                params: self.params.clone(),
            }),
            _ => Err(format!(
                "case '{}': give `tool` or `method`, not both or neither",
                self.name
            )),
        }
    }

    /// The host profiles the expectations name, in order, each once.
    pub fn hosts(&self) -> Vec<&str> {
        let mut hosts: Vec<&str> = self
            .expect
            .model_sees
            .keys()
            .chain(self.expect.model_reads.keys())
            .map(String::as_str)
            .collect();
        hosts.sort_unstable();
        hosts.dedup();
        hosts
    }
}

/// What a case sends.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Call {
        tool: String,
        arguments: Value,
    },
    Other {
        method: String,
        params: Option<Value>,
    },
}

/// Reads a suite, its dates put in as of `now` (Unix seconds): `{today}`, `{today+30d}`,
/// `{today-1d:%d/%m/%Y}` in any string of arguments, params or expectations.
pub fn read(text: &str, now: i64) -> Result<Suite, String> {
    let mut suite: Suite = toml::from_str(text).map_err(|error| error.to_string())?;
    if suite.cases.is_empty() {
        return Err("no [[case]]: nothing to run".into());
    }
    for case in &mut suite.cases {
        for value in [
            &mut case.arguments,
            &mut case.params,
            &mut case.expect.structured,
        ]
        .into_iter()
        .flatten()
        {
            dated(value, now)?;
        }
        let expect = &mut case.expect;
        for text in [&mut expect.text, &mut expect.text_contains]
            .into_iter()
            .flatten()
        {
            *text = dates(text, now)?;
        }
        for text in expect.model_reads.values_mut() {
            *text = dates(text, now)?;
        }
        case.request()?;
    }
    Ok(suite)
}

fn dated(value: &mut Value, now: i64) -> Result<(), String> {
    match value {
        Value::String(text) => *text = dates(text, now)?,
        Value::Array(items) => items.iter_mut().try_for_each(|item| dated(item, now))?,
        Value::Object(members) => members.values_mut().try_for_each(|item| dated(item, now))?,
        _ => {}
    }
    Ok(())
}

/// `text` with each `{today…}` replaced by the date it names.
pub fn dates(text: &str, now: i64) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{today") {
        out.push_str(&rest[..start]);
        let Some(end) = rest[start..].find('}') else {
            return Err(format!("'{text}': an unclosed {{today"));
        };
        let inner = &rest[start + 1..start + end];
        out.push_str(&one_date(inner, now).map_err(|why| format!("'{text}': {why}"))?);
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `today`, `today+30d` or `today-1d`, then optionally `:FORMAT` (`%d`, `%m`, `%Y`, `%%`).
fn one_date(inner: &str, now: i64) -> Result<String, String> {
    let (when, format) = inner.split_once(':').unwrap_or((inner, "%Y-%m-%d"));
    let offset = when.strip_prefix("today").unwrap_or(when);
    let days: i64 = if offset.is_empty() {
        0
    } else {
        let (sign, number) = offset.split_at(1);
        let number: i64 = number
            .strip_suffix('d')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("'{when}' is not today±Nd"))?;
        match sign {
            "+" => number,
            "-" => -number,
            _ => return Err(format!("'{when}' is not today±Nd")),
        }
    };
    let date = Date::from_unix_seconds(now + days * 86_400);
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => {
                let _ = write!(out, "{:02}", date.day);
            }
            Some('m') => {
                let _ = write!(out, "{:02}", date.month);
            }
            Some('Y') => {
                let _ = write!(out, "{:04}", date.year);
            }
            Some('%') => out.push('%'),
            other => return Err(format!("%{} is not %d, %m, %Y or %%", other.unwrap_or(' '))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
