//! What the model would see for one `tools/call`, pure: given the exchange, its outcome, the
//! negotiated version and a host profile, the text that lands in the context window, the rule
//! of the spec that decided it, and the payload a host would build.

pub mod hosts;

use std::fmt::Write;

use serde::Serialize;
use serde_json::{Value, json};

use crate::classify::{Class, Outcome};
use crate::mcp::jsonrpc::{Reply, error_code_name};
use crate::mcp::session::Exchange;
use hosts::{HostProfile, Shape, Structured};

/// The rule of the spec that decided whether the server's answer reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Rule {
    /// Clients SHOULD provide tool execution errors to the model.
    Should,
    /// Clients MAY provide protocol errors to the model.
    May,
    /// A successful result is the model's input.
    Result,
    /// No reply came; only the host can say something.
    NoReply,
}

impl Rule {
    pub fn label(self) -> &'static str {
        match self {
            Rule::Should => "SHOULD",
            Rule::May => "MAY",
            Rule::Result => "result",
            Rule::NoReply => "no reply",
        }
    }
}

/// One piece of what the model reads.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Block {
    /// Text, as the server or the host wrote it.
    Text { text: String },
    /// A short stand-in for content a text model does not read (image, audio, resource).
    Placeholder { text: String },
    /// The `structuredContent` value, serialized for the model.
    Structured { value: Value },
}

impl Block {
    fn text(&self) -> String {
        match self {
            Block::Text { text } | Block::Placeholder { text } => text.clone(),
            Block::Structured { value } => value.to_string(),
        }
    }
}

/// What the model's context window receives for one exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelView {
    pub host: String,
    /// Whether anything the server said reaches the model.
    pub forwarded: bool,
    pub rule: Rule,
    /// Whether the host marks it as an error.
    pub is_error: bool,
    /// Forwarded under the MAY rule: "less likely to result in successful recovery".
    pub less_likely_to_help: bool,
    pub blocks: Vec<Block>,
    /// One line: why the view is what it is.
    pub reason: String,
    /// Bytes of text left out by [`model_view_within`].
    pub omitted_bytes: usize,
    shape: Shape,
}

/// The version that brought the SHOULD/MAY sentences (SEP-1303).
const SEP_1303_VERSION: &str = "2025-11-25";

/// Builds the model view of a finished `tools/call`.
pub fn model_view(
    exchange: &Exchange,
    outcome: &Outcome,
    version: &str,
    host: &HostProfile,
) -> ModelView {
    model_view_within(exchange, outcome, version, host, usize::MAX)
}

/// Like [`model_view`], with each text block cut at `max_text` bytes (for display: a 50 MB
/// result is not copied to be shown); `omitted_bytes` counts what was cut.
pub fn model_view_within(
    exchange: &Exchange,
    outcome: &Outcome,
    version: &str,
    host: &HostProfile,
    max_text: usize,
) -> ModelView {
    let mut view = ModelView {
        host: host.name.clone(),
        forwarded: true,
        rule: Rule::Result,
        is_error: false,
        less_likely_to_help: false,
        blocks: Vec::new(),
        reason: String::new(),
        omitted_bytes: 0,
        shape: host.shape,
    };
    let since_sep1303 = version >= SEP_1303_VERSION;
    match (&outcome.class, exchange.reply()) {
        (Class::Success, Some(Reply::Result(result))) => {
            (view.blocks, view.omitted_bytes) = project(result, host.structured, max_text);
            view.reason = format!(
                "the result reaches the model ({})",
                structured_note(host.structured)
            );
        }
        (Class::ToolError, Some(Reply::Result(result))) => {
            view.rule = Rule::Should;
            view.is_error = true;
            (view.blocks, view.omitted_bytes) = project(result, host.structured, max_text);
            view.reason = if since_sep1303 {
                format!(
                    "tool execution error: clients SHOULD provide it to the model to enable self-correction ({version} tools.mdx)"
                )
            } else {
                format!(
                    "tool execution error: isError results are meant for the model ({version}); the SHOULD came with SEP-1303 in {SEP_1303_VERSION}"
                )
            };
        }
        (Class::ProtocolError, Some(Reply::Error(error))) => {
            view.rule = Rule::May;
            view.is_error = true;
            let named = format!(
                "protocol error {} ({})",
                error.code,
                error_code_name(error.code)
            );
            let may = if since_sep1303 {
                "clients MAY provide protocol errors"
            } else {
                "the MAY rule of 2025-11-25"
            };
            if host.forward_protocol_errors {
                view.less_likely_to_help = true;
                let mut text = format!("MCP error {}: {}", error.code, error.message);
                if let Some(data) = &error.data {
                    let _ = write!(text, " {data}");
                }
                view.blocks = vec![Block::Text { text }];
                view.reason = format!(
                    "{named}: forwarded because {may} (on), though it is less likely to help"
                );
            } else {
                view.forwarded = false;
                view.blocks = vec![Block::Text {
                    text: host.failure_text.clone(),
                }];
                view.reason = format!(
                    "{named}: handled by the client, not forwarded ({may}; off): the model learns that the call failed, not why"
                );
            }
        }
        _ => {
            view.rule = Rule::NoReply;
            view.forwarded = false;
            view.is_error = true;
            view.blocks = vec![Block::Text {
                text: host.failure_text.clone(),
            }];
            view.reason = format!(
                "no reply, so nothing from the server reaches the model and the host reports the failure ({})",
                outcome.detail
            );
        }
    }
    view
}

fn structured_note(policy: Structured) -> &'static str {
    match policy {
        Structured::Alongside => {
            "content blocks; structuredContent too when no text block carries it"
        }
        Structured::Ignore => "content blocks only; structuredContent ignored",
        Structured::Prefer => "structuredContent when present, else content blocks",
    }
}

/// The blocks a model reads from a result, per the host's structured-content policy.
/// The blocks a model reads from a result, per the host's structured-content policy, with
/// text cut at `max_text` bytes; also the number of bytes cut.
fn project(result: &Value, policy: Structured, max_text: usize) -> (Vec<Block>, usize) {
    let sources: &[Value] = result
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut omitted = 0;
    let content: Vec<Block> = sources
        .iter()
        .map(|source| match text_of(source) {
            Some(text) => {
                let kept = clip(text, max_text);
                omitted += text.len() - kept.len();
                Block::Text {
                    text: kept.to_owned(),
                }
            }
            None => project_block(source),
        })
        .collect();
    let blocks = match (policy, result.get("structuredContent")) {
        (Structured::Prefer, Some(value)) => vec![Block::Structured {
            value: value.clone(),
        }],
        (Structured::Alongside, Some(value)) if !carries(sources, value) => {
            let mut blocks = content;
            blocks.push(Block::Structured {
                value: value.clone(),
            });
            blocks
        }
        _ => content,
    };
    (blocks, omitted)
}

/// The text of a `text` content block.
fn text_of(block: &Value) -> Option<&str> {
    (block.get("type").and_then(Value::as_str) == Some("text")).then(|| {
        block
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
    })
}

/// Whether a text block already holds `value` serialized.
fn carries(sources: &[Value], value: &Value) -> bool {
    sources
        .iter()
        .filter_map(text_of)
        .any(|text| serde_json::from_str::<Value>(text).is_ok_and(|parsed| &parsed == value))
}

fn project_block(block: &Value) -> Block {
    let field = |key: &str| block.get(key).and_then(Value::as_str);
    let placeholder = |text: String| Block::Placeholder { text };
    match field("type") {
        Some(kind @ ("image" | "audio")) => placeholder(format!(
            "[{kind}: {}, {}]",
            field("mimeType").unwrap_or("unknown type"),
            human_size(base64_len(field("data").unwrap_or_default()))
        )),
        Some("resource_link") => {
            let mime = field("mimeType")
                .map(|m| format!(", {m}"))
                .unwrap_or_default();
            placeholder(format!(
                "[resource link: {} ({}{mime})]",
                field("uri").unwrap_or("?"),
                field("name").unwrap_or("unnamed")
            ))
        }
        Some("resource") => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let inner = |key: &str| resource.get(key).and_then(Value::as_str);
            let size = match (inner("text"), inner("blob")) {
                (Some(text), _) => text.len(),
                (None, Some(blob)) => base64_len(blob),
                (None, None) => 0,
            };
            placeholder(format!(
                "[embedded resource: {}, {}, {}]",
                inner("uri").unwrap_or("?"),
                inner("mimeType").unwrap_or("unknown type"),
                human_size(size)
            ))
        }
        Some(other) => placeholder(format!("[unsupported content type '{other}']")),
        None => placeholder("[malformed content block]".to_owned()),
    }
}

/// Decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() * 3 / 4).saturating_sub(padding)
}

fn human_size(bytes: usize) -> String {
    #[allow(clippy::cast_precision_loss)] // a size label needs one decimal, not exactness
    let value = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", value / 1024.0),
        _ => format!("{:.1} MB", value / 1_048_576.0),
    }
}

impl ModelView {
    /// The text that lands in the context window.
    pub fn text(&self) -> String {
        self.blocks
            .iter()
            .map(Block::text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// "forwarded (SHOULD)", "not forwarded (MAY, off)"…
    pub fn verdict(&self) -> String {
        match (self.forwarded, self.rule) {
            (true, Rule::May) => "forwarded (MAY, on; less likely to help)".to_owned(),
            (true, rule) => format!("forwarded ({})", rule.label()),
            (false, Rule::May) => "not forwarded (MAY, off)".to_owned(),
            (false, rule) => format!("not forwarded ({})", rule.label()),
        }
    }

    /// The message a host of this profile would send its model.
    pub fn payload(&self) -> Value {
        let text = self.text();
        match self.shape {
            Shape::Generic => json!({
                "type": "tool_result",
                "is_error": self.is_error,
                "content": self.blocks.iter().map(|block| match block {
                    Block::Structured { value } => json!({"type": "json", "json": value}),
                    Block::Text { .. } | Block::Placeholder { .. } => json!({"type": "text", "text": block.text()}),
                }).collect::<Vec<_>>(),
            }),
            Shape::AnthropicMessages => json!({
                "type": "tool_result",
                "tool_use_id": "toolu_sightline",
                "is_error": self.is_error,
                "content": self.blocks.iter().map(|block| json!({"type": "text", "text": block.text()})).collect::<Vec<_>>(),
            }),
            Shape::OpenaiChat => {
                json!({"role": "tool", "tool_call_id": "call_sightline", "content": text})
            }
        }
    }

    /// The `model_view` object of `call --json`.
    pub fn to_json(&self) -> Value {
        json!({
            "host": self.host,
            "forwarded": self.forwarded,
            "rule": self.rule,
            "is_error": self.is_error,
            "less_likely_to_help": self.less_likely_to_help,
            "text": self.text(),
            "blocks": self.blocks,
            "reason": self.reason,
            "payload": self.payload(),
        })
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests;
