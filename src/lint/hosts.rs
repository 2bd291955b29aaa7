//! What the calibrated hosts check of a call's arguments before the server sees it, per tool.

use serde_json::Value;

use super::{Definition, Finding, Rule};

/// What a calibrated host checks of the arguments before it calls the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostCheck {
    /// The whole schema; its model reads these words (`{error}`: the validator's complaint).
    Schema { host: String, words: String },
    /// Only that `required` properties are there; its model then reads these words.
    Required { host: String, words: String },
}

/// Schema keywords a validator checks a value against (beyond its type).
const CHECKED: &[&str] = &[
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "enum",
    "const",
    "minItems",
    "maxItems",
    "multipleOf",
];

/// For each tool, the hosts of `hosts` that would refuse a call breaking its schema before the
/// server is called, and what their models read then (the calibrated profiles' `checks`).
pub fn host_checks(tools: &[Definition], hosts: &[HostCheck]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let schema_hosts: Vec<&str> = hosts
        .iter()
        .filter_map(|check| match check {
            HostCheck::Schema { host, .. } => Some(host.as_str()),
            HostCheck::Required { .. } => None,
        })
        .collect();
    for tool in tools {
        let Some(schema) = tool.input_schema else {
            continue;
        };
        let constrained: Vec<&str> = schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(_, property)| {
                CHECKED
                    .iter()
                    .any(|keyword| property.get(*keyword).is_some())
            })
            .map(|(name, _)| name.as_str())
            .collect();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut emit = |path: &str, message: String| {
            findings.push(Finding {
                rule: Rule::HostChecksFirst,
                severity: Rule::HostChecksFirst.severity(),
                tool: tool.name.to_owned(),
                path: path.to_owned(),
                message,
            });
        };
        if !constrained.is_empty() && !schema_hosts.is_empty() {
            emit(
                "inputSchema",
                format!(
                    "{} check the arguments against this schema before the server is called: a \
                     call that breaks {} reaches their model as the validator's complaint, not \
                     your message",
                    schema_hosts.join(", "),
                    constrained.join(", ")
                ),
            );
        }
        for check in hosts {
            if let HostCheck::Required { host, words } = check
                && !required.is_empty()
            {
                emit(
                    "inputSchema.required",
                    format!(
                        "{host} refuses a call without {} itself, and its model reads only \
                         \"{words}\": it never learns which argument is missing",
                        required.join(" or ")
                    ),
                );
            }
        }
    }
    findings
}
