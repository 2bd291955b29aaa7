//! How prompts read, pure: the listing (name, title, description, arguments with which are
//! required), and a `prompts/get` result as its messages by role, each with its content type
//! (text shown terminal-safe, media and blobs as type and size, resources by URI).

use std::fmt::Write as _;

use serde_json::Value;

use super::resources::{Content, decode, text_lines};
use crate::mcp::json::Json;
use crate::sanitize;

/// The prompts, one block each.
pub fn prompt_lines(prompts: &[Json]) -> Vec<String> {
    let mut lines = Vec::new();
    for prompt in prompts {
        let item = prompt.value();
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("(no name)");
        let mut first = sanitize::text(name).into_owned();
        if let Some(title) = item.get("title").and_then(Value::as_str) {
            let _ = write!(first, " — {}", sanitize::text(title));
        }
        lines.push(String::new());
        lines.push(first);
        if let Some(description) = item.get("description").and_then(Value::as_str) {
            lines.push(format!("  {}", sanitize::text(description)));
        }
        let arguments = item
            .get("arguments")
            .and_then(Value::as_array)
            .map_or_else(Vec::new, |arguments| {
                arguments.iter().map(argument_words).collect()
            });
        if arguments.is_empty() {
            lines.push("  no arguments".into());
        } else {
            lines.push("  arguments:".into());
            lines.extend(arguments.into_iter().map(|words| format!("    {words}")));
        }
    }
    lines
}

fn argument_words(argument: &Value) -> String {
    let name = argument.get("name").and_then(Value::as_str).unwrap_or("?");
    let mut words = sanitize::text(name).into_owned();
    if argument.get("required").and_then(Value::as_bool) == Some(true) {
        words.push_str(" (required)");
    }
    if let Some(description) = argument.get("description").and_then(Value::as_str) {
        let _ = write!(words, " — {}", sanitize::text(description));
    }
    words
}

/// The messages of a `prompts/get` result, each under `── role · content type`; `None`
/// without a `messages` array.
pub fn message_lines(result: &Json) -> Option<Vec<String>> {
    let messages = result.get("messages")?;
    let mut lines = Vec::new();
    if let Some(description) = result
        .get("description")
        .and_then(|d| d.as_str().map(std::borrow::Cow::into_owned))
    {
        lines.push(format!("description: {}", sanitize::text(&description)));
    }
    let items: Vec<Json> = messages
        .elements()?
        .filter_map(|item| messages.part(item))
        .collect();
    let plural = if items.len() == 1 { "" } else { "s" };
    lines.push(format!("{} message{plural}", items.len()));
    for message in &items {
        lines.push(String::new());
        lines.extend(message_block(message));
    }
    Some(lines)
}

fn message_block(message: &Json) -> Vec<String> {
    let role = message
        .get("role")
        .and_then(|role| role.as_str().map(|s| sanitize::text(&s).into_owned()))
        .unwrap_or_else(|| "(no role)".into());
    let Some(content) = message.get("content") else {
        return vec![format!("── {role} · (no content)")];
    };
    let kind = content
        .get("type")
        .and_then(|kind| kind.as_str().map(|s| sanitize::text(&s).into_owned()))
        .unwrap_or_else(|| "(no type)".into());
    let field = |key: &str| {
        content
            .get(key)
            .and_then(|value| value.as_str().map(std::borrow::Cow::into_owned))
    };
    let mut lines = Vec::new();
    match kind.as_str() {
        "text" => {
            lines.push(format!("── {role} · text"));
            lines.extend(text_lines(&field("text").unwrap_or_default()));
        }
        "image" | "audio" => {
            let mime = field("mimeType").unwrap_or_else(|| "(no mimeType)".into());
            let size = match field("data").as_deref().map(decode) {
                Some(Ok(bytes)) => format!("{} bytes decoded", bytes.len()),
                Some(Err(why)) => why,
                None => "no data".into(),
            };
            lines.push(format!(
                "── {role} · {kind} · {} · {size}",
                sanitize::text(&mime)
            ));
        }
        "resource" => match content.get("resource") {
            Some(resource) => {
                let embedded = Content::of(&resource).lines();
                let mut embedded = embedded.into_iter();
                let heading = embedded.next().unwrap_or_default();
                let heading = heading.trim_start_matches("── ");
                lines.push(format!("── {role} · resource · {heading}"));
                lines.extend(embedded);
            }
            None => lines.push(format!("── {role} · resource · (no resource)")),
        },
        "resource_link" => {
            let uri = field("uri").unwrap_or_else(|| "(no uri)".into());
            let mime = field("mimeType")
                .map(|m| format!(" · {}", sanitize::text(&m)))
                .unwrap_or_default();
            lines.push(format!(
                "── {role} · resource_link · {}{mime}",
                sanitize::text(&uri)
            ));
        }
        _ => {
            lines.push(format!("── {role} · {kind}"));
            lines.extend(super::call::pretty_lines(content.text()));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listing_names_each_argument_and_which_are_required() {
        let prompts = [Json::from_value(&json!({
            "name": "plan_trip", "title": "Plan a trip", "description": "Plan it.",
            "arguments": [{"name": "destination", "required": true, "description": "Where"}, {"name": "date"}],
        }))];
        assert_eq!(
            prompt_lines(&prompts),
            [
                "",
                "plan_trip — Plan a trip",
                "  Plan it.",
                "  arguments:",
                "    destination (required) — Where",
                "    date"
            ]
        );
    }

    #[test]
    fn messages_read_by_role_with_their_content_types() {
        let result = Json::from_value(&json!({"description": "d", "messages": [
            {"role": "user", "content": {"type": "text", "text": "hi\u{1b}"}},
            {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "AAEC"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "demo://t", "mimeType": "text/plain", "text": "x"}}},
            {"role": "user", "content": {"type": "resource_link", "uri": "demo://l", "name": "l"}},
        ]}));
        let lines = message_lines(&result).unwrap();
        assert_eq!(
            lines,
            [
                "description: d",
                "4 messages",
                "",
                "── user · text",
                "hi\\u{1b}",
                "",
                "── assistant · image · image/png · 3 bytes decoded",
                "",
                "── user · resource · demo://t · text/plain · text, 1 bytes",
                "x",
                "",
                "── user · resource_link · demo://l",
            ]
        );
    }
}
