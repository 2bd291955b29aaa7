//! The audit's report, pure: a table per tool readable without colour, a summary line, JSON,
//! `JUnit` XML and Markdown, all from the same results; a baseline of known cases.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};

use super::plan::{Case, Skipped};
use super::verdict::{Judged, SpecQuote, Verdict};
use crate::classify::findings::Finding;
use crate::sanitize;

/// One case as it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    #[serde(flatten)]
    pub case: Case,
    /// The JSON-RPC id of the request, to find it in the log or a transcript.
    pub id: String,
    #[serde(flatten)]
    pub judged: Judged,
    /// Listed in the baseline with this verdict: known, not a regression.
    pub known: bool,
}

/// Which verdicts fail the run.
pub const DEFAULT_FAIL_ON: [Verdict; 4] = [
    Verdict::ModelBlind,
    Verdict::Lenient,
    Verdict::Misfiled,
    Verdict::Unclear,
];

/// The whole audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// `name version`, the era and the negotiated protocol version.
    pub server: Value,
    pub host: String,
    pub cases: Vec<CaseResult>,
    pub skipped: Vec<Skipped>,
    /// The tools with cases, by name.
    pub audited: Vec<String>,
    /// Tools with nothing to break, and why.
    pub no_cases: Vec<Skipped>,
    #[serde(skip)]
    pub fail_on: Vec<Verdict>,
    /// Findings about the server, not one case (text on stdout that is not MCP).
    pub findings: Vec<Finding>,
    /// The file in the repository the SARIF log's results are attached to.
    #[serde(skip)]
    pub sarif_location: Option<String>,
}

impl Report {
    /// How many cases had each verdict.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let mut counts: BTreeMap<&'static str, usize> =
            Verdict::ALL.iter().map(|v| (v.name(), 0)).collect();
        for result in &self.cases {
            *counts.entry(result.judged.verdict.name()).or_default() += 1;
        }
        counts
    }

    /// Cases whose verdict fails the run and that the baseline does not know.
    pub fn failing(&self) -> impl Iterator<Item = &CaseResult> {
        self.cases
            .iter()
            .filter(|result| self.fail_on.contains(&result.judged.verdict) && !result.known)
    }

    /// `14 conformant · 0 model-blind · 0 lenient · 0 misfiled · 0 unclear`, and the known.
    pub fn summary(&self) -> String {
        let counts = self.counts();
        let mut line = Verdict::ALL
            .iter()
            .map(|v| format!("{} {}", counts[v.name()], v.name()))
            .collect::<Vec<_>>()
            .join(" · ");
        let known = self.cases.iter().filter(|r| r.known).count();
        if known > 0 {
            let _ = write!(line, " ({known} known from the baseline)");
        }
        line
    }

    /// The share of cases answered conformantly, in percent (100 with no case).
    pub fn score(&self) -> f64 {
        let conformant = self
            .cases
            .iter()
            .filter(|result| result.judged.verdict == Verdict::Conformant)
            .count();
        if self.cases.is_empty() {
            return 100.0;
        }
        #[allow(clippy::cast_precision_loss)] // counts of cases, far below 2^52
        let share = conformant as f64 * 100.0 / self.cases.len() as f64;
        (share * 10.0).round() / 10.0
    }

    /// Tools skipped whole (not those audited with some cases left out).
    fn tools_skipped(&self) -> usize {
        let mut names: Vec<&str> = self
            .skipped
            .iter()
            .map(|skipped| skipped.tool.as_str())
            .filter(|tool| !self.audited.iter().any(|audited| audited == tool))
            .collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    }

    /// `tools: 3 audited · 1 skipped · 1 with no cases`: every tool the audit looked at.
    pub fn tools_line(&self) -> String {
        format!(
            "tools: {} audited · {} skipped · {} with no cases",
            self.audited.len(),
            self.tools_skipped(),
            self.no_cases.len()
        )
    }

    /// The report as `--json` prints it.
    pub fn to_json(&self) -> Value {
        json!({
            "server": self.server,
            "host": self.host,
            "cases": self.cases,
            "skipped": self.skipped,
            "no_cases": self.no_cases,
            "tools": {
                "audited": self.audited,
                "skipped": self.tools_skipped(),
                "no_cases": self.no_cases.len(),
            },
            "findings": self
                .findings
                .iter()
                .map(|finding| json!({
                    "id": finding.id,
                    "severity": finding.severity,
                    "message": finding.message,
                }))
                .collect::<Vec<_>>(),
            "summary": self.counts(),
            "score": self.score(),
            "failing": self.failing().count(),
        })
    }

    /// The cases by group, in the order first met.
    fn groups(&self) -> Vec<(&str, Vec<&CaseResult>)> {
        let mut groups: Vec<(&str, Vec<&CaseResult>)> = Vec::new();
        for result in &self.cases {
            match groups
                .iter_mut()
                .find(|(name, _)| *name == result.case.group)
            {
                Some((_, results)) => results.push(result),
                None => groups.push((&result.case.group, vec![result])),
            }
        }
        groups
    }

    /// The rules quoted, numbered in the order first cited.
    fn rules(&self) -> Vec<SpecQuote> {
        let mut rules: Vec<SpecQuote> = Vec::new();
        for result in &self.cases {
            if !rules.contains(&result.judged.rule) {
                rules.push(result.judged.rule);
            }
        }
        rules
    }

    /// The terminal report: a table per tool, each case with what the model saw and the
    /// rule it was judged by (numbered, quoted at the end), then the summary. No colour needed.
    pub fn text(&self) -> String {
        let rules = self.rules();
        let number = |rule: &SpecQuote| rules.iter().position(|r| r == rule).map_or(0, |i| i + 1);
        let mut out = String::new();
        for (group, results) in self.groups() {
            let _ = writeln!(
                out,
                "{} ({})",
                sanitize::text(group),
                plural(results.len(), "case")
            );
            for result in results {
                let judged = &result.judged;
                let mark = match (judged.verdict, result.known) {
                    (Verdict::Conformant, _) => "✓",
                    (_, true) => "·",
                    (Verdict::Unclear, false) => "?",
                    (_, false) => "✗",
                };
                let _ = writeln!(
                    out,
                    "  {mark} {:<12} {}  →  {} [{}]{}",
                    judged.verdict.name(),
                    sanitize::text(&result.case.what),
                    judged.got,
                    number(&judged.rule),
                    if result.known { " (known)" } else { "" }
                );
                let _ = writeln!(out, "      the model sees: {}", line(&judged.model_sees));
                if let Some(task) = &judged.task {
                    let _ = writeln!(out, "      {}", task.words());
                }
                if let Some(evidence) = &judged.evidence {
                    let _ = writeln!(out, "      the answer {}", sanitize::text(evidence));
                }
                if judged.actionable == Some(false) && judged.verdict == Verdict::Conformant {
                    let _ = writeln!(
                        out,
                        "      its message does not say what to send instead (a format, the \
                         allowed values, a bound)"
                    );
                }
                if !judged.hosts.is_empty() {
                    let _ = writeln!(out, "      real hosts: {}", per_host(judged));
                }
                if judged.verdict != Verdict::Conformant {
                    let _ = writeln!(out, "      {}", judged.why);
                }
                if let Some(note) = &judged.note {
                    let _ = writeln!(out, "      note: {note}");
                }
            }
            out.push('\n');
        }
        let _ = writeln!(out, "rules");
        for (i, rule) in rules.iter().enumerate() {
            let _ = writeln!(
                out,
                "  [{}] {} {}: \"{}\"",
                i + 1,
                rule.version,
                rule.source,
                rule.text
            );
        }
        for skipped in &self.skipped {
            let _ = writeln!(
                out,
                "skipped {}: {}",
                sanitize::text(&skipped.tool),
                skipped.reason
            );
        }
        for empty in &self.no_cases {
            let _ = writeln!(
                out,
                "no cases for {}: {}",
                sanitize::text(&empty.tool),
                empty.reason
            );
        }
        for finding in &self.findings {
            let _ = writeln!(
                out,
                "server finding {} ({}): {}",
                finding.id,
                severity(finding),
                sanitize::text(&finding.message)
            );
        }
        let _ = writeln!(out, "{}", self.tools_line());
        let _ = writeln!(out, "summary: {} · score {}%", self.summary(), self.score());
        out
    }

    /// `JUnit` XML: a test suite per tool, a test case per audit case; the verdicts that fail the
    /// run are failures, other unclear cases are skipped.
    pub fn junit(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let failing = self.failing().count();
        let _ = writeln!(
            out,
            "<testsuites name=\"sightline audit\" tests=\"{}\" failures=\"{failing}\">",
            self.cases.len()
        );
        for (group, results) in self.groups() {
            let failures = results.iter().filter(|r| self.fails(r)).count();
            let _ = writeln!(
                out,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">",
                xml(group),
                results.len()
            );
            for result in results {
                let judged = &result.judged;
                let name = format!("{}: {}", result.case.kind.name(), result.case.what);
                let _ = write!(
                    out,
                    "    <testcase classname=\"{}\" name=\"{}\">",
                    xml(group),
                    xml(&name)
                );
                let mut detail = format!(
                    "expected {}, got {}. {}. The model sees: {}. Rule ({} {}): {}",
                    judged.expected,
                    judged.got,
                    judged.why,
                    judged.model_sees,
                    judged.rule.version,
                    judged.rule.source,
                    judged.rule.text
                );
                if let Some(note) = &judged.note {
                    let _ = write!(detail, ". Note: {note}");
                }
                if self.fails(result) {
                    let _ = write!(
                        out,
                        "<failure type=\"{}\" message=\"{}\">{}</failure>",
                        judged.verdict.name(),
                        xml(&format!("{}: {}", judged.verdict.name(), judged.why)),
                        xml(&detail)
                    );
                } else if judged.verdict != Verdict::Conformant {
                    let why = if result.known {
                        format!("{} (known from the baseline)", judged.verdict.name())
                    } else {
                        format!("{}: {}", judged.verdict.name(), judged.why)
                    };
                    let _ = write!(out, "<skipped message=\"{}\"/>", xml(&why));
                } else {
                    let _ = write!(out, "<system-out>{}</system-out>", xml(&detail));
                }
                out.push_str("</testcase>\n");
            }
            out.push_str("  </testsuite>\n");
        }
        out.push_str("</testsuites>\n");
        out
    }

    fn fails(&self, result: &CaseResult) -> bool {
        self.fail_on.contains(&result.judged.verdict) && !result.known
    }

    /// Markdown for a pull-request comment: the summary, then a table per tool.
    pub fn markdown(&self, title: &str) -> String {
        // The server line aligns its columns with spaces for a terminal; a heading reads as one
        // run of words.
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut out = format!("### sightline audit: {}\n\n", md(&title));
        let _ = writeln!(out, "**{}**\n", self.summary());
        for finding in &self.findings {
            let _ = writeln!(
                out,
                "- server finding `{}` ({}): {}",
                finding.id,
                severity(finding),
                md(&finding.message)
            );
        }
        if !self.findings.is_empty() {
            out.push('\n');
        }
        for (group, results) in self.groups() {
            let _ = writeln!(out, "#### `{}`\n", md(group));
            out.push_str("| verdict | case | expected | got | the model sees | real hosts |\n");
            out.push_str("|---|---|---|---|---|---|\n");
            for result in results {
                let judged = &result.judged;
                let _ = writeln!(
                    out,
                    "| {}{} | {} | {} | {} | {} | {} |",
                    judged.verdict.name(),
                    if result.known { " (known)" } else { "" },
                    md(&result.case.what),
                    judged.expected,
                    md(&judged.got),
                    md(&line(&judged.model_sees)),
                    per_host(judged)
                );
            }
            out.push('\n');
        }
        for rule in self.rules() {
            let _ = writeln!(
                out,
                "> {} {}: \"{}\"",
                rule.version,
                rule.source,
                md(rule.text)
            );
            out.push_str(">\n");
        }
        if !self.skipped.is_empty() {
            out.push('\n');
            for skipped in &self.skipped {
                let _ = writeln!(out, "- skipped `{}`: {}", md(&skipped.tool), skipped.reason);
            }
        }
        out
    }
}

/// A finding's severity as its JSON names it (`warning`).
fn severity(finding: &Finding) -> String {
    match serde_json::to_value(finding.severity) {
        Ok(Value::String(name)) => name,
        _ => String::new(),
    }
}

/// `claude-code readable · openai-agents model-blind · …`: each real host's consequence.
fn per_host(judged: &Judged) -> String {
    judged
        .hosts
        .iter()
        .map(|host| format!("{} {}", host.host, host.consequence.name()))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Known cases: from an earlier `audit --json` (each case's key and verdict), or a text file
/// of keys (`group/kind[/property]`, one a line; `#` comments), known whatever their verdict.
#[derive(Debug, Clone, Default)]
pub struct Baseline(HashMap<String, Option<Verdict>>);

impl Baseline {
    pub fn parse(text: &str) -> Result<Baseline, String> {
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            let cases = value
                .get("cases")
                .and_then(Value::as_array)
                .ok_or("a JSON baseline is the output of `audit --json` (no \"cases\")")?;
            let mut known = HashMap::new();
            for case in cases {
                let field = |name: &str| case.get(name).and_then(Value::as_str);
                let (Some(group), Some(kind)) = (field("group"), field("kind")) else {
                    return Err("a case of the baseline has no group or kind".into());
                };
                let key = match field("property") {
                    Some(property) => format!("{group}/{kind}/{property}"),
                    None => format!("{group}/{kind}"),
                };
                known.insert(key, field("verdict").and_then(Verdict::parse));
            }
            return Ok(Baseline(known));
        }
        Ok(Baseline(
            text.lines()
                .map(str::trim)
                .filter(|line| !line.is_empty() && !line.starts_with('#'))
                .map(|line| (line.to_owned(), None))
                .collect(),
        ))
    }

    /// Whether the baseline lists `case` with `verdict` (or with any verdict, for a key list).
    pub fn knows(&self, case: &Case, verdict: Verdict) -> bool {
        match self.0.get(&case.key()) {
            Some(Some(known)) => *known == verdict,
            Some(None) => true,
            None => false,
        }
    }
}

/// `1 case`, `2 cases`.
/// Longest model-view text the table and Markdown reports quote (`--json` has it whole).
const MODEL_TEXT_CHARS: usize = 160;

/// `text` on one line of the report, clipped.
pub fn line(text: &str) -> String {
    let mut clipped: String = text.chars().take(MODEL_TEXT_CHARS).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    clipped.replace('\n', " ↵ ")
}

/// `this call` / `these 3 calls`: a determiner that agrees with its count.
pub fn these(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("this {noun}")
    } else {
        format!("these {count} {noun}s")
    }
}

pub fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Text for XML attributes and content; control characters are dropped (XML 1.0 forbids them).
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Text for a Markdown table cell: one line, pipes and backticks escaped, terminal-safe.
fn md(text: &str) -> String {
    sanitize::text(text)
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('`', "\\`")
        .replace(['\n', '\r'], " ")
}
