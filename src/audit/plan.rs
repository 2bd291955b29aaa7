//! The audit's plan, pure: from each tool's `inputSchema`, calls whose arguments break it in
//! one way each (a required property missing, a wrong type, a value outside an enum, a pattern,
//! a format, a length or a range), plus a call to a tool that does not exist and one whose
//! `arguments` is not an object. Each argument case is kept only if a validator agrees it breaks
//! the schema. `$ref` is followed inside the schema only.

use serde::Serialize;
use serde_json::{Value, json};

use super::base::{MAX_DEPTH, base, checker, declared_types, required, resolve, whole};
use crate::mcp::catalog::Catalog;

/// Cases planned for one tool, at most (missing properties first).
pub const MAX_CASES_PER_TOOL: usize = 12;
/// The group of the cases that are about the server, not one tool.
pub const SERVER: &str = "(server)";

/// What a case breaks, and so which channel the spec expects the answer on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseKind {
    MissingRequired,
    WrongType,
    OutsideEnum,
    PatternMismatch,
    FormatMismatch,
    TooShort,
    TooLong,
    BelowMinimum,
    AboveMaximum,
    UnexpectedProperty,
    UnknownTool,
    ArgumentsNotObject,
}

impl CaseKind {
    /// An input validation error (the tool's own schema), which SEP-1303 puts in `isError`;
    /// otherwise the request itself is wrong, a protocol error.
    pub fn is_argument_error(self) -> bool {
        !matches!(self, CaseKind::UnknownTool | CaseKind::ArgumentsNotObject)
    }

    /// The kebab-case name, as in `--json` and baselines.
    pub fn name(self) -> &'static str {
        match self {
            CaseKind::MissingRequired => "missing-required",
            CaseKind::WrongType => "wrong-type",
            CaseKind::OutsideEnum => "outside-enum",
            CaseKind::PatternMismatch => "pattern-mismatch",
            CaseKind::FormatMismatch => "format-mismatch",
            CaseKind::TooShort => "too-short",
            CaseKind::TooLong => "too-long",
            CaseKind::BelowMinimum => "below-minimum",
            CaseKind::AboveMaximum => "above-maximum",
            CaseKind::UnexpectedProperty => "unexpected-property",
            CaseKind::UnknownTool => "unknown-tool",
            CaseKind::ArgumentsNotObject => "arguments-not-object",
        }
    }
}

/// One planned `tools/call`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// The tool whose report it belongs to, or [`SERVER`].
    pub group: String,
    /// The tool name sent.
    pub tool: String,
    pub kind: CaseKind,
    /// The property broken, as a dotted path, for argument cases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub property: Option<String>,
    /// The `arguments` sent, exactly.
    pub arguments: Value,
    /// What is wrong, in words: `departureDate missing`, `seats: "x" is a string, not integer`.
    pub what: String,
}

/// Longest `arguments` a plan shows whole: longer ones are cut with `…`, so that what is wrong,
/// the column after them, stays in place (the headless plan and the TUI's audit panel alike).
pub const SHOWN_ARGUMENT_CHARS: usize = 32;

impl Case {
    /// Its arguments as a plan shows them: compact JSON, cut after [`SHOWN_ARGUMENT_CHARS`],
    /// terminal-safe.
    pub fn shown_arguments(&self) -> String {
        let arguments = self.arguments.to_string();
        let mut shown: String = arguments.chars().take(SHOWN_ARGUMENT_CHARS).collect();
        if shown.len() < arguments.len() {
            shown.push('…');
        }
        crate::sanitize::text(&shown).into_owned()
    }

    /// A stable key for baselines: group, kind and property.
    pub fn key(&self) -> String {
        format!(
            "{}/{}{}",
            self.group,
            self.kind.name(),
            self.property
                .as_deref()
                .map(|p| format!("/{p}"))
                .unwrap_or_default()
        )
    }
}

/// A tool left out of the plan, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub tool: String,
    pub reason: String,
}

/// What to audit.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Only these tools (all when empty).
    pub tools: Vec<String>,
    /// Also tools that may be destructive.
    pub include_destructive: bool,
    /// Also tools whose `x-mcp-header` declaration is invalid (which 2026-07-28 clients MUST
    /// exclude).
    pub include_invalid_headers: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Plan {
    pub cases: Vec<Case>,
    pub skipped: Vec<Skipped>,
    /// The tools audited, by name, in the server's order.
    pub audited: Vec<String>,
    /// Tools the audit looked at and found nothing to break in, and why.
    pub no_cases: Vec<Skipped>,
}

/// The plan for a server's tools.
pub fn plan(tools: &Catalog, options: &Options) -> Plan {
    let mut plan = Plan::default();
    let mut first_audited = None;
    for tool in tools {
        let name = tool.name.to_string();
        if !options.tools.is_empty() && !options.tools.contains(&name) {
            continue;
        }
        if let Some(problem) = tool
            .rejected
            .as_deref()
            .filter(|_| !options.include_invalid_headers)
        {
            plan.skipped.push(Skipped {
                tool: name,
                reason: format!(
                    "its x-mcp-header declaration is invalid ({problem}): excluded, as 2026-07-28 \
                     asks (--allow-invalid-tool-headers audits it)"
                ),
            });
            continue;
        }
        let annotations = tool.raw.get("annotations").map(|a| a.value());
        if !options.include_destructive && destructive(annotations.as_ref()) {
            let reason = match annotations {
                Some(_) => "annotated destructive (--include-destructive audits it)",
                None => {
                    "no annotations: destructive by the spec's default (--include-destructive audits it)"
                }
            };
            plan.skipped.push(Skipped {
                tool: name,
                reason: reason.into(),
            });
            continue;
        }
        first_audited.get_or_insert_with(|| name.clone());
        let schema = tool.input_schema().unwrap_or_else(|| json!({}));
        let (cases, dropped) = match tool_cases(&name, &schema) {
            Ok(planned) => planned,
            Err(reason) => {
                plan.no_cases.push(Skipped {
                    tool: name,
                    reason: format!("no valid base: {reason}"),
                });
                continue;
            }
        };
        if cases.is_empty() {
            plan.no_cases.push(Skipped {
                tool: name.clone(),
                reason: "its inputSchema names no property, no required argument and no \
                         constraint to break"
                    .into(),
            });
        } else {
            plan.audited.push(name.clone());
        }
        plan.cases.extend(cases);
        if dropped > 0 {
            plan.skipped.push(Skipped {
                tool: name,
                reason: format!(
                    "{dropped} more cases not planned (at most {MAX_CASES_PER_TOOL} a tool)"
                ),
            });
        }
    }
    for name in &options.tools {
        if !tools.iter().any(|tool| tool.name == name.as_str()) {
            plan.skipped.push(Skipped {
                tool: name.clone(),
                reason: "not listed by the server".into(),
            });
        }
    }
    let unknown = unknown_name(tools);
    plan.cases.push(Case {
        group: SERVER.into(),
        what: format!("{unknown} is not a tool the server listed"),
        tool: unknown,
        kind: CaseKind::UnknownTool,
        property: None,
        arguments: json!({}),
    });
    if let Some(tool) = first_audited {
        plan.cases.push(Case {
            group: SERVER.into(),
            what: format!("{tool} called with a string as `arguments` (must be an object)"),
            tool,
            kind: CaseKind::ArgumentsNotObject,
            property: None,
            arguments: json!("not an object"),
        });
    }
    plan
}

/// By the spec's defaults: destructive unless `readOnlyHint` is true or `destructiveHint` false.
pub fn destructive(annotations: Option<&Value>) -> bool {
    let Some(annotations) = annotations else {
        return true;
    };
    let read_only = annotations.get("readOnlyHint").and_then(Value::as_bool) == Some(true);
    let destructive = annotations.get("destructiveHint").and_then(Value::as_bool) != Some(false);
    !read_only && destructive
}

/// A tool name the server did not list.
fn unknown_name(tools: &Catalog) -> String {
    let mut name = "sightline_no_such_tool".to_owned();
    while tools.iter().any(|tool| tool.name == name.as_str()) {
        name.push('_');
    }
    name
}

/// The argument cases of one tool, and how many more the bound left out; `Err` with the reason
/// when no arguments that satisfy the schema could be built to start them from.
fn tool_cases(tool: &str, schema: &Value) -> Result<(Vec<Case>, usize), String> {
    let checker = Checker::new(schema);
    let base = base(schema)?;
    let mut cases = Vec::new();
    collect(schema, schema, &base, &[], &mut cases, 0);
    let mut kept: Vec<Case> = cases
        .into_iter()
        .filter(|(path, _, arguments, _)| checker.breaks(arguments, path))
        .map(|(path, kind, arguments, what)| Case {
            group: tool.into(),
            tool: tool.into(),
            kind,
            property: Some(path.join(".")),
            arguments,
            what,
        })
        .collect();
    // Missing properties first, then each other kind in the order found.
    kept.sort_by_key(|case| case.kind != CaseKind::MissingRequired);
    let dropped = kept.len().saturating_sub(MAX_CASES_PER_TOOL);
    kept.truncate(MAX_CASES_PER_TOOL);
    Ok((kept, dropped))
}

type Candidate = (Vec<String>, CaseKind, Value, String);

/// Cases for the properties of `schema` (an object schema at `path` inside `base`).
fn collect(
    root: &Value,
    schema: &Value,
    base: &Value,
    path: &[String],
    out: &mut Vec<Candidate>,
    depth: usize,
) {
    let schema = resolve(root, schema);
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for name in required(schema) {
        let mut at: Vec<String> = path.to_vec();
        at.push(name.clone());
        if let Some(arguments) = without(base, &at) {
            out.push((
                at.clone(),
                CaseKind::MissingRequired,
                arguments,
                format!("{} missing", at.join(".")),
            ));
        }
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        let mut extra = "sightline_unexpected".to_owned();
        while properties.contains_key(&extra) {
            extra.push('_');
        }
        let mut at: Vec<String> = path.to_vec();
        at.push(extra);
        if let Some(arguments) = with(base, &at, json!(true)) {
            let what = format!(
                "{}: a property the schema does not allow (additionalProperties: false)",
                at.join(".")
            );
            out.push((at, CaseKind::UnexpectedProperty, arguments, what));
        }
    }
    for (name, property) in properties {
        let mut at: Vec<String> = path.to_vec();
        at.push(name.clone());
        let property = resolve(root, property);
        let label = at.join(".");
        for (kind, value, what) in breaking_values(property) {
            if let Some(arguments) = with(base, &at, value.clone()) {
                out.push((at.clone(), kind, arguments, format!("{label}: {what}")));
            }
        }
        if depth < MAX_DEPTH && property.get("properties").is_some() {
            collect(root, property, base, &at, out, depth + 1);
        }
    }
}

/// Values that break `property` in one way each, with what is wrong in words.
fn breaking_values(property: &Value) -> Vec<(CaseKind, Value, String)> {
    let mut found = Vec::new();
    let types = declared_types(property);
    if !types.is_empty() {
        // A value of the first JSON type the property does not allow.
        let candidates = [
            ("string", json!("sightline")),
            ("integer", json!(12_345)),
            ("boolean", json!(true)),
            ("object", json!({})),
            ("array", json!([])),
        ];
        let wrong = candidates.into_iter().find(|(kind, _)| {
            let allowed = types.contains(kind) || (*kind == "integer" && types.contains(&"number"));
            !allowed
        });
        if let Some((kind, value)) = wrong {
            let what = format!(
                "{value} is {} {kind}, not {}",
                article(kind),
                types.join(" or ")
            );
            found.push((CaseKind::WrongType, value, what));
        }
    }
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let mut outside = "sightline-not-in-enum".to_owned();
        while values.iter().any(|v| v.as_str() == Some(&outside)) {
            outside.push('_');
        }
        found.push((
            CaseKind::OutsideEnum,
            json!(outside),
            format!("{outside:?} is not one of the enum"),
        ));
    }
    if let Some(pattern) = property.get("pattern").and_then(Value::as_str) {
        found.push((
            CaseKind::PatternMismatch,
            json!("sightline ✗ pattern"),
            format!("\"sightline ✗ pattern\" does not match {pattern}"),
        ));
    }
    if let Some(format) = property.get("format").and_then(Value::as_str) {
        let value = format!("not {} {format}", article(format));
        found.push((
            CaseKind::FormatMismatch,
            json!(value),
            format!("{value:?} is not a valid {format}"),
        ));
    }
    if let Some(min) = property
        .get("minLength")
        .and_then(Value::as_u64)
        .filter(|&m| m > 0)
    {
        let short = "x".repeat(usize::try_from(min - 1).unwrap_or(0));
        found.push((
            CaseKind::TooShort,
            json!(short),
            format!("{} characters, fewer than {min}", min - 1),
        ));
    }
    if let Some(max) = property
        .get("maxLength")
        .and_then(Value::as_u64)
        .filter(|&m| m < 100_000)
    {
        let long = "x".repeat(usize::try_from(max + 1).unwrap_or(0));
        found.push((
            CaseKind::TooLong,
            json!(long),
            format!("{} characters, more than {max}", max + 1),
        ));
    }
    let integer = types.contains(&"integer");
    if let Some(below) = bound(property, "minimum", "exclusiveMinimum", -1.0, integer) {
        found.push((
            CaseKind::BelowMinimum,
            below.clone(),
            format!("{below} is below the minimum"),
        ));
    }
    if let Some(above) = bound(property, "maximum", "exclusiveMaximum", 1.0, integer) {
        found.push((
            CaseKind::AboveMaximum,
            above.clone(),
            format!("{above} is above the maximum"),
        ));
    }
    found
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A number just outside `minimum`/`maximum` (or their exclusive forms, in both the 2020-12
/// and the draft-04 spelling); `step` is -1 below, +1 above.
fn bound(
    property: &Value,
    inclusive: &str,
    exclusive: &str,
    step: f64,
    integer: bool,
) -> Option<Value> {
    let number = |value: &Value| value.as_f64();
    let (limit, outside) = match (property.get(inclusive), property.get(exclusive)) {
        // Draft 4: `exclusiveMinimum: true` makes `minimum` itself outside.
        (Some(limit), Some(Value::Bool(true))) | (None, Some(limit)) => (number(limit)?, true),
        (Some(limit), _) => (number(limit)?, false),
        (None, None) => return None,
    };
    let value = if outside {
        limit
    } else if integer {
        limit + step
    } else {
        limit + step * 0.5
    };
    Some(whole(value))
}

/// `value` with the property at `path` removed; `None` when the path is not there.
fn without(value: &Value, path: &[String]) -> Option<Value> {
    let mut copy = value.clone();
    let (last, parents) = path.split_last()?;
    let mut at = &mut copy;
    for name in parents {
        at = at.get_mut(name)?;
    }
    at.as_object_mut()?.remove(last)?;
    Some(copy)
}

/// `value` with the property at `path` set, its parents made as objects when missing.
fn with(value: &Value, path: &[String], new: Value) -> Option<Value> {
    let mut copy = value.clone();
    let (last, parents) = path.split_last()?;
    let mut at = &mut copy;
    for name in parents {
        let object = at.as_object_mut()?;
        at = object.entry(name.clone()).or_insert_with(|| json!({}));
    }
    at.as_object_mut()?.insert(last.clone(), new);
    Some(copy)
}

/// The tool's schema as a validator with formats checked; a schema it cannot compile keeps
/// every case (the server is the judge then).
struct Checker(Option<jsonschema::Validator>);

impl Checker {
    fn new(schema: &Value) -> Self {
        Checker(checker(schema).ok())
    }

    /// Whether `arguments` break the schema at `path` (or, for a missing property, at its
    /// parent, naming it).
    fn breaks(&self, arguments: &Value, path: &[String]) -> bool {
        let Some(validator) = &self.0 else {
            return true;
        };
        let pointer = json_pointer(path);
        let parent = json_pointer(&path[..path.len().saturating_sub(1)]);
        let name = path.last().map_or("", String::as_str);
        validator.iter_errors(arguments).any(|error| {
            let at = error.instance_path().to_string();
            let said = error.to_string();
            let named =
                said.contains(&format!("\"{name}\"")) || said.contains(&format!("'{name}'"));
            at == pointer || at.starts_with(&format!("{pointer}/")) || (at == parent && named)
        })
    }
}

/// A property path as a JSON pointer.
fn json_pointer(path: &[String]) -> String {
    path.iter().fold(String::new(), |mut pointer, name| {
        pointer.push('/');
        pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
        pointer
    })
}
