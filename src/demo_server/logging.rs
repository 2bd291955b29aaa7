//! The demo server's log messages, pure: the RFC 5424 levels, `logging/setLevel` (up to
//! 2025-11-25), the 2026-07-28 per-request `_meta` opt-in that replaced it, and the
//! `notifications/message` a tool call sends at or above the level asked for.

use serde_json::{Value, json};

use crate::mcp::jsonrpc::{ErrorObject, Message};

/// The 2026-07-28 per-request opt-in (deprecated with logging, still in the schema).
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// The levels, least severe first, as `logging.mdx` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

const NAMES: &[(&str, Level)] = &[
    ("debug", Level::Debug),
    ("info", Level::Info),
    ("notice", Level::Notice),
    ("warning", Level::Warning),
    ("error", Level::Error),
    ("critical", Level::Critical),
    ("alert", Level::Alert),
    ("emergency", Level::Emergency),
];

impl Level {
    pub fn parse(name: &str) -> Option<Level> {
        NAMES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, level)| *level)
    }

    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, level)| *level == self)
            .map_or("info", |(name, _)| name)
    }
}

/// The level a `logging/setLevel` asks for; an unknown one is -32602, as the spec says.
pub fn set_level(params: &Value) -> Result<Level, ErrorObject> {
    let name = params.get("level").and_then(Value::as_str);
    name.and_then(Level::parse).ok_or_else(|| ErrorObject {
        code: -32602,
        message: format!(
            "Invalid params: logging/setLevel needs `level`, one of {}; got {}",
            NAMES
                .iter()
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(", "),
            params
                .get("level")
                .map_or_else(|| "none".into(), Value::to_string)
        ),
        data: None,
    })
}

/// The level a 2026-07-28 request opted in to in its `_meta`, if any.
pub fn requested_level(params: &Value) -> Option<Level> {
    params
        .get("_meta")?
        .get(META_LOG_LEVEL)?
        .as_str()
        .and_then(Level::parse)
}

/// What a tool call logs at `wanted`: its arguments at `debug`, that it ran at `info`.
pub fn tool_call_messages(name: &str, arguments: &Value, wanted: Level) -> Vec<Message> {
    let mut messages = Vec::new();
    if wanted <= Level::Debug {
        messages.push(message(
            Level::Debug,
            &json!(format!("tools/call {name} with arguments {arguments}")),
        ));
    }
    if wanted <= Level::Info {
        messages.push(message(Level::Info, &json!(format!("{name} ran"))));
    }
    messages
}

fn message(level: Level, data: &Value) -> Message {
    Message::Notification {
        method: "notifications/message".into(),
        params: Some(json!({"level": level.name(), "logger": super::NAME, "data": data}).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_call_logs_at_and_above_the_level_asked_for() {
        let arguments = json!({"departureDate": "12/12/2099"});
        assert_eq!(
            tool_call_messages("book_flight", &arguments, Level::Debug).len(),
            2
        );
        let info = tool_call_messages("book_flight", &arguments, Level::Info);
        assert_eq!(info.len(), 1);
        assert_eq!(info[0].to_value()["params"]["level"], "info");
        assert!(tool_call_messages("book_flight", &arguments, Level::Warning).is_empty());
    }

    #[test]
    fn set_level_takes_the_rfc_5424_names_only() {
        assert_eq!(
            set_level(&json!({"level": "notice"})).unwrap(),
            Level::Notice
        );
        assert_eq!(
            set_level(&json!({"level": "loud"})).unwrap_err().code,
            -32602
        );
        assert_eq!(set_level(&json!({})).unwrap_err().code, -32602);
        let meta = json!({"_meta": {META_LOG_LEVEL: "debug"}});
        assert_eq!(requested_level(&meta), Some(Level::Debug));
    }
}
