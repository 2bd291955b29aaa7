//! What changed between two recordings of a server, pure: tools added, removed or changed (a
//! readable schema diff), and the same calls whose class, findings or model view changed.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::analysis::{CallContext, analyze};
use crate::mcp::catalog::Catalog;
use crate::mcp::json::Json;
use crate::model_view::hosts::HostProfile;
use crate::recording::{Loaded, RecordedCall};
use crate::sanitize;
use crate::transcript::class_name;

/// Everything that differs between two recordings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    pub tools: ToolsDiff,
    /// Calls made in both (same tool, same arguments) that were judged differently.
    pub calls: Vec<CallChange>,
    /// Calls made in one recording only.
    pub only_before: Vec<CallKey>,
    pub only_after: Vec<CallKey>,
    /// Calls made in both and judged the same.
    pub unchanged_calls: usize,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ToolsDiff {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<ToolChange>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolChange {
    pub name: String,
    pub changes: Vec<Change>,
}

/// One value that differs, by its path in the tool's definition (`None`: absent).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub path: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// A call as the diff matches it: the tool and its arguments.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CallKey {
    pub tool: String,
    /// The arguments as compact JSON text.
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallChange {
    #[serde(flatten)]
    pub call: CallKey,
    pub before: Judgement,
    pub after: Judgement,
}

/// How a call was judged: what the diff compares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Judgement {
    pub class: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    pub findings: Vec<String>,
    /// "forwarded (SHOULD)", "not forwarded (MAY, off)"…
    pub model_view: String,
    pub forwarded: bool,
    /// What the model reads, at most 200 bytes of it.
    pub text: String,
}

impl Diff {
    pub fn changed(&self) -> bool {
        !(self.tools.added.is_empty()
            && self.tools.removed.is_empty()
            && self.tools.changed.is_empty()
            && self.calls.is_empty()
            && self.only_before.is_empty()
            && self.only_after.is_empty())
    }

    /// The text report: tools first, then calls, readable without colour.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let tools = &self.tools;
        let _ = writeln!(
            out,
            "tools: {} added, {} removed, {} changed",
            tools.added.len(),
            tools.removed.len(),
            tools.changed.len()
        );
        for name in &tools.added {
            let _ = writeln!(out, "  + {}", sanitize::text(name));
        }
        for name in &tools.removed {
            let _ = writeln!(out, "  - {}", sanitize::text(name));
        }
        for tool in &tools.changed {
            let _ = writeln!(out, "  ~ {}", sanitize::text(&tool.name));
            for change in &tool.changes {
                let _ = writeln!(
                    out,
                    "      {}: {} → {}",
                    sanitize::text(&change.path),
                    shown(change.before.as_ref()),
                    shown(change.after.as_ref())
                );
            }
        }
        let _ = writeln!(
            out,
            "calls: {} judged differently, {} the same, {} only before, {} only after",
            self.calls.len(),
            self.unchanged_calls,
            self.only_before.len(),
            self.only_after.len()
        );
        for change in &self.calls {
            let _ = writeln!(out, "  {}", key_text(&change.call));
            let _ = writeln!(out, "    before: {}", change.before.summary());
            let _ = writeln!(out, "    after:  {}", change.after.summary());
            for id in &change.before.findings {
                if !change.after.findings.contains(id) {
                    let _ = writeln!(out, "    finding gone: {id}");
                }
            }
            for id in &change.after.findings {
                if !change.before.findings.contains(id) {
                    let _ = writeln!(out, "    finding new:  {id}");
                }
            }
        }
        for (label, calls) in [
            ("only before", &self.only_before),
            ("only after", &self.only_after),
        ] {
            for call in calls {
                let _ = writeln!(out, "  {label}: {}", key_text(call));
            }
        }
        out
    }
}

impl Judgement {
    /// "protocol error -32602 · not forwarded (MAY, off): the model is blind".
    fn summary(&self) -> String {
        let class = self.class.replace('_', " ");
        let code = self.code.map(|code| format!(" {code}")).unwrap_or_default();
        let blind = if self.forwarded {
            ""
        } else {
            ": the model does not see why"
        };
        format!("{class}{code} · {}{blind}", self.model_view)
    }
}

fn key_text(key: &CallKey) -> String {
    format!(
        "{} {}",
        sanitize::text(&key.tool),
        sanitize::text(crate::model_view::clip(&key.arguments, 120))
    )
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(
        || "(absent)".to_owned(),
        |value| {
            let text = value.to_string();
            let clipped = crate::model_view::clip(&text, 80);
            let more = if clipped.len() < text.len() {
                "…"
            } else {
                ""
            };
            sanitize::text(&format!("{clipped}{more}")).into_owned()
        },
    )
}

/// Compares two recordings, judging each call as `host` would pass it on.
pub fn diff(before: &Loaded, after: &Loaded, host: &HostProfile) -> Diff {
    let empty = Catalog::default();
    let tools = tools_diff(
        before.tools.as_deref().unwrap_or(&empty),
        after.tools.as_deref().unwrap_or(&empty),
    );
    let mut by_key: BTreeMap<CallKey, (Vec<Judgement>, Vec<Judgement>)> = BTreeMap::new();
    for call in &before.calls {
        by_key
            .entry(key(call))
            .or_default()
            .0
            .push(judge(call, host));
    }
    for call in &after.calls {
        by_key
            .entry(key(call))
            .or_default()
            .1
            .push(judge(call, host));
    }
    let mut diff = Diff {
        tools,
        calls: Vec::new(),
        only_before: Vec::new(),
        only_after: Vec::new(),
        unchanged_calls: 0,
    };
    for (key, (before, after)) in by_key {
        for (old, new) in before.iter().zip(&after) {
            if old == new {
                diff.unchanged_calls += 1;
            } else {
                diff.calls.push(CallChange {
                    call: key.clone(),
                    before: old.clone(),
                    after: new.clone(),
                });
            }
        }
        let extra = before.len().abs_diff(after.len());
        let side = if before.len() > after.len() {
            &mut diff.only_before
        } else {
            &mut diff.only_after
        };
        side.extend(std::iter::repeat_n(key, extra));
    }
    diff
}

fn key(call: &RecordedCall) -> CallKey {
    let params = call.exchange.params();
    let field = |name: &str| params.as_ref().and_then(|params| params.get(name)).cloned();
    CallKey {
        tool: field("name")
            .and_then(|name| name.as_str().map(str::to_owned))
            .unwrap_or_default(),
        arguments: field("arguments").map_or_else(|| "{}".to_owned(), |args| args.to_string()),
    }
}

fn judge(call: &RecordedCall, host: &HostProfile) -> Judgement {
    let context = CallContext {
        version: call.version(),
        catalog: call.catalog.as_deref(),
        host,
        forward_protocol_errors: false,
    };
    let analysis = analyze(&call.exchange, &context);
    let (text, _) = analysis.view.text_within(200);
    let mut findings: Vec<String> = analysis
        .findings
        .iter()
        .map(|finding| finding.id.to_owned())
        .collect();
    findings.sort();
    Judgement {
        class: class_name(analysis.outcome.class),
        code: analysis.outcome.code,
        findings,
        model_view: analysis.view.verdict(),
        forwarded: analysis.view.forwarded,
        text,
    }
}

fn tools_diff(before: &Catalog, after: &Catalog) -> ToolsDiff {
    // By name, the first of each (a listing may repeat one): one walk of each listing.
    let index = |tools: &Catalog| {
        let mut by_name: HashMap<String, Json> = HashMap::new();
        for tool in tools {
            by_name.entry(tool.name.to_string()).or_insert(tool.raw);
        }
        by_name
    };
    let (old, new) = (index(before), index(after));
    let mut diff = ToolsDiff::default();
    for tool in before {
        match new.get(tool.name.as_str()) {
            None => diff.removed.push(tool.name.to_string()),
            Some(now) => {
                let mut changes = Vec::new();
                compare(
                    "",
                    Some(&tool.raw.value()),
                    Some(&now.value()),
                    &mut changes,
                );
                if !changes.is_empty() {
                    diff.changed.push(ToolChange {
                        name: tool.name.to_string(),
                        changes,
                    });
                }
            }
        }
    }
    for tool in after {
        if !old.contains_key(tool.name.as_str()) {
            diff.added.push(tool.name.to_string());
        }
    }
    diff
}

/// The paths at which two values differ: objects member by member, arrays of the same length
/// element by element, anything else whole.
fn compare(path: &str, before: Option<&Value>, after: Option<&Value>, out: &mut Vec<Change>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match (before, after) {
        (Some(Value::Object(old)), Some(Value::Object(new))) => {
            for (key, value) in old {
                compare(&join(key), Some(value), new.get(key), out);
            }
            for (key, value) in new {
                if !old.contains_key(key) {
                    compare(&join(key), None, Some(value), out);
                }
            }
        }
        (Some(Value::Array(old)), Some(Value::Array(new))) if old.len() == new.len() => {
            for (i, (old, new)) in old.iter().zip(new).enumerate() {
                compare(&format!("{path}[{i}]"), Some(old), Some(new), out);
            }
        }
        (old, new) if old != new => out.push(Change {
            path: path.to_owned(),
            before: old.cloned(),
            after: new.cloned(),
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_schema_change_is_named_by_its_path() {
        let mut changes = Vec::new();
        compare(
            "",
            Some(
                &json!({"name": "t", "inputSchema": {"properties": {"d": {"type": "string", "pattern": "x"}}, "required": ["d"]}}),
            ),
            Some(
                &json!({"name": "t", "inputSchema": {"properties": {"d": {"type": "string"}, "e": {"type": "integer"}}, "required": ["e"]}, "title": "T"}),
            ),
            &mut changes,
        );
        let paths: Vec<&str> = changes.iter().map(|change| change.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "inputSchema.properties.d.pattern",
                "inputSchema.properties.e",
                "inputSchema.required[0]",
                "title"
            ]
        );
        assert_eq!(changes[0].after, None);
        assert_eq!(changes[3].before, None);
    }
}
