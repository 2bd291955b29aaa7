//! What a host does before it calls the server, pure: a tool it did not list, arguments it
//! checks itself and refuses; what its model reads then, in the host's words.

use super::hosts::{self, ArgumentCheck, HostProfile};
use super::{Block, Blocks, ModelView, Rule, validators};

/// What the model reads when the host stops a call itself, before the server: a tool it does
/// not list, or (when it checks them) arguments that break the tool's `inputSchema`. `None`
/// when the host would call the server, or its profile does not model its checks, or the
/// tools are not known.
pub fn stopped_by_host(
    tool: &str,
    arguments: &serde_json::Value,
    catalog: Option<&crate::mcp::catalog::Catalog>,
    host: &HostProfile,
) -> Option<ModelView<'static>> {
    let checks = host.checks.as_ref()?;
    let catalog = catalog?;
    let listed = catalog.iter().find(|listed| listed.name == tool);
    let (text, reason, notes, explains) = match listed {
        None => unknown_tool(tool, catalog, checks),
        Some(listed)
            if checks.arguments == ArgumentCheck::Schema
                && checks.validator == hosts::Validator::Ajv =>
        {
            let schema = listed.input_schema()?;
            let errors = if checks.coerce_types {
                validators::ajv(&schema, &validators::ajv_coerced(&schema, arguments))
            } else {
                validators::ajv(&schema, arguments)
            };
            if errors.is_empty() {
                return None;
            }
            let error = validators::ajv_text(&errors, &checks.data_var);
            (
                hosts::fill(
                    &checks.invalid_arguments_text,
                    &[("tool", tool), ("error", &error)],
                ),
                format!(
                    "the arguments break the tool's inputSchema ({error}), and this host checks them itself with Ajv: it refuses the call, the server is never called, and the model reads the host's message"
                ),
                crate::schema::violations(&schema, arguments),
                checks.invalid_arguments_text.contains("{error}"),
            )
        }
        Some(listed) if checks.arguments != ArgumentCheck::None => {
            let schema = listed.input_schema()?;
            let problems = match checks.arguments {
                ArgumentCheck::Schema => crate::schema::violations(&schema, arguments),
                _ => missing_required(&schema, arguments),
            };
            let first = problems.first()?;
            let error = first
                .split_once(": ")
                .map_or(first.as_str(), |(_, why)| why);
            (
                hosts::fill(
                    &checks.invalid_arguments_text,
                    &[("tool", tool), ("error", error)],
                ),
                format!(
                    "the arguments break the tool's inputSchema ({}), and this host checks {} itself: it refuses the call, the server is never called, and the model reads the host's message",
                    error,
                    if checks.arguments == ArgumentCheck::Schema {
                        "them"
                    } else {
                        "required properties"
                    }
                ),
                problems,
                checks.invalid_arguments_text.contains("{error}"),
            )
        }
        Some(_) => return None,
    };
    let mut view = ModelView {
        host: host.name.clone(),
        forwarded: false,
        rule: Rule::Host,
        is_error: !text.is_empty(),
        error_flag: host.error_flag,
        less_likely_to_help: false,
        blocks: if text.is_empty() {
            Blocks::default()
        } else {
            Blocks::one(Block::Text { text: text.into() })
        },
        reason,
        notes,
        thrown: None,
        truncation: None,
        findings: Vec::new(),
        server_called: false,
        explains,
        ends_run: false,
        shape: host.shape,
        error_as_string: host.error_as_string,
        content_as_parts: host.content_as_parts,
    };
    view.as_the_host_marks_and_cuts_it(host);
    Some(view)
}

/// The names of the listed tools, once each in their order, joined by ", " (a host that lists
/// its tools to a model that called an unknown one).
fn tool_names(catalog: &crate::mcp::catalog::Catalog) -> String {
    let mut names: Vec<String> = Vec::new();
    for tool in catalog {
        // A host that lists the tools once a session sends the same names again.
        if !names.iter().any(|name| *name == tool.name) {
            names.push(tool.name.to_string());
        }
    }
    names.join(", ")
}

/// The server's tools by the host's names for them (`checks.tool_name`), sorted, joined by
/// ", " (hosts that list all their tools alphabetically).
fn host_tool_names(catalog: &crate::mcp::catalog::Catalog, checks: &hosts::Checks) -> String {
    let mut names: Vec<String> = catalog
        .iter()
        .map(|tool| match &checks.tool_name {
            Some(template) => hosts::fill(template, &[("tool", tool.name.as_str())]),
            None => tool.name.to_string(),
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    names.join(", ")
}

/// The host's answer to a tool it did not list: its words, why, and whether they say why.
fn unknown_tool(
    tool: &str,
    catalog: &crate::mcp::catalog::Catalog,
    checks: &hosts::Checks,
) -> (String, String, Vec<String>, bool) {
    match &checks.unknown_tool_text {
        Some(text) => (
            hosts::fill(
                text,
                &[
                    ("tool", tool),
                    ("tools", &tool_names(catalog)),
                    ("host_tools", &host_tool_names(catalog, checks)),
                    ("did_you_mean", &did_you_mean(tool, catalog, checks)),
                ],
            ),
            format!(
                "'{tool}' is not a tool the server listed: the host answers the model itself and never calls the server"
            ),
            Vec::new(),
            true,
        ),
        None => (
            String::new(),
            format!(
                "'{tool}' is not a tool the server listed: the host fails the whole run, so the model reads nothing and the server is never called"
            ),
            Vec::new(),
            false,
        ),
    }
}

/// Gemini CLI's hint for a tool it does not have (`getToolSuggestion`): the three names nearest
/// by edit distance among all its tools, in its order (ties keep it), as " Did you mean one of:
/// "a", "b", "c"?"; the server's tools are named by `checks.tool_name`, where `{server_tools}`
/// stands in `checks.tool_order`.
fn did_you_mean(
    tool: &str,
    catalog: &crate::mcp::catalog::Catalog,
    checks: &hosts::Checks,
) -> String {
    let name = |tool: &str| match &checks.tool_name {
        Some(template) => hosts::fill(template, &[("tool", tool)]),
        None => tool.to_owned(),
    };
    let wanted = name(tool);
    let mut all: Vec<String> = Vec::new();
    for entry in &checks.tool_order {
        if entry == "{server_tools}" {
            all.extend(catalog.iter().map(|listed| name(&listed.name)));
        } else {
            all.push(entry.clone());
        }
    }
    let mut near: Vec<(usize, String)> = all
        .into_iter()
        .map(|candidate| (levenshtein(&wanted, &candidate), candidate))
        .collect();
    // Stable, as JavaScript's sort: equal distances keep the host's order.
    near.sort_by_key(|(distance, _)| *distance);
    let quoted: Vec<String> = near
        .iter()
        .take(3)
        .map(|(_, n)| format!("\"{n}\""))
        .collect();
    match quoted.len() {
        0 => String::new(),
        1 => format!(" Did you mean {}?", quoted[0]),
        _ => format!(" Did you mean one of: {}?", quoted.join(", ")),
    }
}

/// Edit distance in UTF-16 code units, as `fast-levenshtein` counts.
pub(super) fn levenshtein(a: &str, b: &str) -> usize {
    let (a, b): (Vec<u16>, Vec<u16>) = (a.encode_utf16().collect(), b.encode_utf16().collect());
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut current = vec![i + 1];
        for (j, y) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(x != y);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// The top-level `required` properties `arguments` lacks, one line each as the validator words
/// it (`arguments: "x" is a required property`).
fn missing_required(schema: &serde_json::Value, arguments: &serde_json::Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .filter(|name| arguments.get(name).is_none())
        .map(|name| format!("arguments: \"{name}\" is a required property"))
        .collect()
}
