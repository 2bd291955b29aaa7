//! Descriptions that demand what no schema keyword can check.

use serde_json::Value;

use super::{Definition, Rule};

/// Words that demand what no JSON Schema keyword checks: the state of the world at call time.
const CALL_TIME_WORDS: &[&str] = &[
    "in the future",
    "in the past",
    "future date",
    "past date",
    "after today",
    "before today",
    "not yet",
    "must exist",
    "must not exist",
    "already exist",
    "must be available",
    "must be unique",
    "business day",
    "weekday",
];

/// A description (the tool's or a property's) that demands what only the server can check.
pub(super) fn checked_at_call_time(tool: &Definition, emit: &mut impl FnMut(Rule, String, String)) {
    let mut described: Vec<(String, &str)> = Vec::new();
    if let Some(description) = tool.description {
        described.push(("description".into(), description));
    }
    if let Some(Value::Object(properties)) = tool
        .input_schema
        .and_then(|schema| schema.get("properties"))
    {
        for (name, property) in properties {
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                described.push((
                    format!("inputSchema.properties.{name}.description"),
                    description,
                ));
            }
        }
    }
    for (path, description) in described {
        let lower = description.to_lowercase();
        if let Some(words) = CALL_TIME_WORDS.iter().find(|words| lower.contains(*words)) {
            emit(
                Rule::CheckedOnlyAtCallTime,
                path,
                format!(
                    "says \"{words}\", which no schema keyword can check: the server decides at \
                     call time, so report that failure as a tool error (`isError: true`, \
                     SEP-1303) that the model reads and corrects itself from, not as -32602"
                ),
            );
        }
    }
}
