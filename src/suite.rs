//! Test suites for `sightline test`, pure: a TOML file of cases (a `tools/call` or any request,
//! and what must hold of its answer, down to what named hosts' models read), the run's date put
//! into them, and each expectation checked against what came.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::analysis::{self, CallContext};
use crate::audit::verdict::host_consequence;
use crate::classify::Class;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::model_view::hosts::HostProfile;
use crate::time::Date;

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
    /// Per host the case names: what its model makes of the answer, and the words it reads.
    pub hosts: BTreeMap<String, (String, String)>,
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
            .map(|host| {
                let seen = host_consequence(exchange, &outcome, context, host);
                (
                    host.name.clone(),
                    (seen.consequence.name().to_owned(), seen.model_sees),
                )
            })
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
        match observed.hosts.get(host) {
            Some((got, words)) if got != want => failed.push(format!(
                "model under {host}: expected {want}, got {got} (it reads: {})",
                one_line(words)
            )),
            Some(_) => {}
            None => failed.push(format!("model under {host}: no such host profile")),
        }
    }
    for (host, want) in &expect.model_reads {
        match observed.hosts.get(host) {
            Some((_, words)) if !words.contains(want.as_str()) => failed.push(format!(
                "model under {host}: expected it to read {want:?}, it reads: {}",
                one_line(words)
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

/// A case that expects what happened: the class, the code, `isError`, the words (the
/// recording's day in them written as `{today…}`, so the case holds on the day it runs), the
/// findings raised and the SEP-1303 finding when it was not, and what each of `observed`'s
/// hosts made of it; no time, no id.
pub fn case_from(
    name: String,
    tool: &str,
    arguments: &Value,
    observed: &Observed,
    day: Date,
) -> CaseSpec {
    let mut no_findings = Vec::new();
    if !observed.findings.iter().any(|id| id == SEP_1303_FINDING) {
        no_findings.push(SEP_1303_FINDING.to_owned());
    }
    let mut arguments = arguments.clone();
    undated_value(&mut arguments, day);
    CaseSpec {
        name,
        tool: Some(tool.to_owned()),
        arguments: Some(arguments),
        method: None,
        params: None,
        expect: Expect {
            class: Some(class_name(observed.class).to_owned()),
            code: observed.code,
            text: Some(undated(&observed.text, day)),
            is_error: observed.is_error,
            structured: observed.structured.clone(),
            findings: observed.findings.clone(),
            no_findings,
            model_sees: observed
                .hosts
                .iter()
                .map(|(host, (consequence, _))| (host.clone(), consequence.clone()))
                .collect(),
            ..Expect::default()
        },
    }
}

/// The start of a test file for a server described as the status line names it: `[server]`
/// for the built-in demo, else a comment saying where to name it.
pub fn file_start(transport: &str) -> String {
    let demo = transport
        .split_once("demo-server --style ")
        .and_then(|(_, style)| style.split_whitespace().next());
    let said = crate::sanitize::text(transport);
    match demo {
        Some(style) => format!("# Recorded against: {said}\n\n[server]\ndemo = \"{style}\"\n\n"),
        None => format!(
            "# Recorded against: {said}\n# Name the server in [server] or on the command line (-- CMD, --url).\n\n"
        ),
    }
}

/// The finding a test written from a recording asserts the absence of, when it was absent.
const SEP_1303_FINDING: &str = "sep1303.validation-as-protocol-error";

/// `text` with `day` (as `dd/mm/yyyy` or `yyyy-mm-dd`) written as the run's date.
pub fn undated(text: &str, day: Date) -> String {
    let european = format!("{:02}/{:02}/{:04}", day.day, day.month, day.year);
    let iso = format!("{:04}-{:02}-{:02}", day.year, day.month, day.day);
    text.replace(&european, "{today:%d/%m/%Y}")
        .replace(&iso, "{today}")
}

fn undated_value(value: &mut Value, day: Date) {
    match value {
        Value::String(text) => *text = undated(text, day),
        Value::Array(items) => items.iter_mut().for_each(|item| undated_value(item, day)),
        Value::Object(members) => members
            .values_mut()
            .for_each(|item| undated_value(item, day)),
        _ => {}
    }
}

/// The suite as a test file. A value TOML cannot hold (`null`) is an error naming the case.
pub fn to_toml(suite: &Suite) -> Result<String, String> {
    for case in &suite.cases {
        toml::to_string(case).map_err(|error| format!("case '{}': {error}", case.name))?;
    }
    toml::to_string(suite).map_err(|error| error.to_string())
}

/// A case run under load: how many calls, how fast, how long each took, and what came.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadReport {
    pub calls: usize,
    pub concurrency: usize,
    pub elapsed_ms: u64,
    /// Calls finished per second, over the whole run.
    pub per_second: f64,
    pub p50_ms: u64,
    pub p90_ms: u64,
    pub p99_ms: u64,
    pub max_ms: u64,
    /// Calls per class, every class named.
    pub classes: BTreeMap<&'static str, usize>,
    /// Calls whose answer broke the case's expectations.
    pub failed_expectations: usize,
    /// Latency buckets: calls that took at most `le_ms` (the last bucket has none: the rest).
    pub histogram: Vec<Bucket>,
}

/// One bucket of [`LoadReport::histogram`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bucket {
    pub le_ms: Option<u64>,
    pub calls: usize,
}

/// Bucket bounds, in milliseconds.
const BOUNDS: [u64; 12] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

/// The report of a load run: each call's milliseconds and class, and whether it broke the
/// case's expectations.
pub fn load_report(
    calls: &[(u64, Class, bool)],
    concurrency: usize,
    elapsed_ms: u64,
) -> LoadReport {
    let mut latencies: Vec<u64> = calls.iter().map(|(ms, ..)| *ms).collect();
    latencies.sort_unstable();
    let at = |share: f64| -> u64 {
        if latencies.is_empty() {
            return 0;
        }
        // Nearest rank: the smallest latency at least `share` of the calls do not exceed.
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let rank = ((share * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
        latencies[rank - 1]
    };
    let mut classes: BTreeMap<&'static str, usize> = [
        Class::Success,
        Class::ToolError,
        Class::ProtocolError,
        Class::TransportFailure,
    ]
    .into_iter()
    .map(|class| (class_name(class), 0))
    .collect();
    for (_, class, _) in calls {
        *classes.entry(class_name(*class)).or_default() += 1;
    }
    let mut histogram: Vec<Bucket> = BOUNDS
        .iter()
        .map(|bound| Bucket {
            le_ms: Some(*bound),
            calls: 0,
        })
        .chain(std::iter::once(Bucket {
            le_ms: None,
            calls: 0,
        }))
        .collect();
    for ms in &latencies {
        let bucket = BOUNDS
            .iter()
            .position(|bound| ms <= bound)
            .unwrap_or(BOUNDS.len());
        histogram[bucket].calls += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let per_second = if elapsed_ms == 0 {
        0.0
    } else {
        calls.len() as f64 * 1000.0 / elapsed_ms as f64
    };
    LoadReport {
        calls: calls.len(),
        concurrency,
        elapsed_ms,
        per_second,
        p50_ms: at(0.50),
        p90_ms: at(0.90),
        p99_ms: at(0.99),
        max_ms: latencies.last().copied().unwrap_or(0),
        classes,
        failed_expectations: calls.iter().filter(|(.., failed)| *failed).count(),
        histogram,
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// 2026-12-03T12:00:00Z.
    const NOW: i64 = 1_796_299_200;

    #[test]
    fn dates_are_put_in_as_of_the_run() {
        assert_eq!(dates("{today}", NOW).unwrap(), "2026-12-03");
        assert_eq!(
            dates("on {today+30d:%d/%m/%Y}!", NOW).unwrap(),
            "on 02/01/2027!"
        );
        assert_eq!(
            dates("{today-3d:%Y%m%d} 100%", NOW).unwrap(),
            "20261130 100%"
        );
        assert!(dates("{today+x}", NOW).is_err());
        assert!(dates("{today:%H}", NOW).is_err());
        assert!(dates("{today", NOW).is_err());
    }

    #[test]
    fn a_suite_reads_with_its_dates_and_refuses_what_it_does_not_know() {
        let suite = read(
            r#"
            [server]
            demo = "legacy"
            [[case]]
            name = "future"
            tool = "book_flight"
            arguments = { departureDate = "{today+1d:%d/%m/%Y}" }
            expect = { class = "success", text_contains = "{today+1d:%d/%m/%Y}" }
            "#,
            NOW,
        )
        .unwrap();
        assert_eq!(suite.server.unwrap().args().unwrap(), ["--demo", "legacy"]);
        assert_eq!(
            suite.cases[0].arguments,
            Some(json!({"departureDate": "04/12/2026"}))
        );
        assert_eq!(
            suite.cases[0].expect.text_contains.as_deref(),
            Some("04/12/2026")
        );
        let typo = read(
            "[[case]]\nname = \"x\"\ntool = \"t\"\nexpect = { clas = \"success\" }",
            NOW,
        );
        assert!(typo.unwrap_err().contains("clas"));
        let neither = read("[[case]]\nname = \"x\"\n", NOW);
        assert!(neither.unwrap_err().contains("`tool` or `method`"));
    }

    fn observed() -> Observed {
        Observed {
            class: Class::ToolError,
            code: None,
            text: "Invalid departure date: must be in the future.".into(),
            is_error: Some(true),
            structured: Some(json!({"ref": "SL-1", "seat": {"row": 3, "letter": "C"}})),
            findings: vec!["structured-without-text".into()],
            elapsed_ms: 40,
            hosts: BTreeMap::from([(
                "claude-code".to_owned(),
                ("readable".to_owned(), "Invalid departure date".to_owned()),
            )]),
        }
    }

    #[test]
    fn each_expectation_that_holds_passes_and_each_that_does_not_says_what_came() {
        let holds: Expect = toml::from_str(
            r#"
            class = "tool_error"
            is_error = true
            text_contains = "in the future"
            text_matches = "^Invalid .* date"
            structured = { seat = { row = 3 } }
            structured_schema = { type = "object", required = ["ref"] }
            findings = ["structured-without-text"]
            no_findings = ["sep1303.validation-as-protocol-error"]
            model_sees = { claude-code = "readable" }
            model_reads = { claude-code = "departure" }
            within_ms = 100
            "#,
        )
        .unwrap();
        assert_eq!(check(&holds, &observed()), Vec::<String>::new());
        let breaks: Expect = toml::from_str(
            r#"
            class = "success"
            code = -32602
            text = "Booked"
            text_matches = "^Booked"
            is_error = false
            structured = { seat = { row = 4 } }
            structured_schema = { type = "object", required = ["when"] }
            findings = ["sep1303.validation-as-protocol-error"]
            no_findings = ["structured-without-text"]
            model_sees = { claude-code = "model-blind", nobody = "readable" }
            model_reads = { claude-code = "Booked" }
            within_ms = 10
            "#,
        )
        .unwrap();
        let failed = check(&breaks, &observed());
        assert_eq!(failed.len(), 13, "{failed:#?}");
        assert!(failed[0].starts_with("class: expected success, got tool_error"));
        assert!(
            failed
                .iter()
                .any(|f| f == "time: expected within 10 ms, took 40 ms")
        );
        assert!(failed.iter().any(|f| f.contains("no such host profile")));
    }

    #[test]
    fn a_recorded_day_becomes_the_runs_and_a_null_is_refused_by_name() {
        let day = Date {
            year: 2026,
            month: 12,
            day: 3,
        };
        assert_eq!(
            undated(
                "Current date is 03/12/2026 (2026-12-03); 04/12/2026 stays",
                day
            ),
            "Current date is {today:%d/%m/%Y} ({today}); 04/12/2026 stays"
        );
        let mut case: CaseSpec = toml::from_str("name = \"n\"\ntool = \"t\"").unwrap();
        case.arguments = Some(json!({"seat": null}));
        let suite = Suite {
            server: None,
            cases: vec![case],
        };
        assert!(to_toml(&suite).unwrap_err().starts_with("case 'n': "));
    }

    #[test]
    fn a_load_report_counts_every_class_and_ranks_the_percentiles() {
        let calls: Vec<(u64, Class, bool)> = (1..=100)
            .map(|ms| {
                let class = if ms % 10 == 0 {
                    Class::ProtocolError
                } else {
                    Class::ToolError
                };
                (ms, class, ms % 10 == 0)
            })
            .collect();
        let report = load_report(&calls, 4, 2000);
        assert_eq!(
            (report.p50_ms, report.p90_ms, report.p99_ms, report.max_ms),
            (50, 90, 99, 100)
        );
        assert_eq!(report.classes["tool_error"], 90);
        assert_eq!(report.classes["protocol_error"], 10);
        assert_eq!(report.classes["success"], 0);
        assert_eq!(report.failed_expectations, 10);
        assert!((report.per_second - 50.0).abs() < 1e-9);
        assert_eq!(
            report
                .histogram
                .iter()
                .map(|bucket| bucket.calls)
                .sum::<usize>(),
            100
        );
        assert_eq!(report.histogram[0].calls, 1, "1 ms");
        assert_eq!(report.histogram[6].calls, 50, "51-100 ms");
        let empty = load_report(&[], 1, 0);
        assert_eq!((empty.p99_ms, empty.per_second), (0, 0.0));
    }

    #[test]
    fn a_case_is_found_at_the_line_of_its_header() {
        let text = "[server]\ndemo = \"legacy\"\n\n[[case]]\nname = \"one\"\n\n[[case]]\n# why\nname = 'two'\n";
        assert_eq!(line_of(text, "one"), 4);
        assert_eq!(line_of(text, "two"), 7);
        assert_eq!(line_of(text, "three"), 1);
    }
}
