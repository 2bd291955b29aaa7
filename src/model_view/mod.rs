//! What the model would see for one `tools/call`, pure: given the exchange, its outcome, the
//! negotiated version and a host profile, the text that lands in the context window (borrowed
//! from the reply, never copied), the rule of the spec that decided it, and the payload a host
//! would build.

pub mod hosts;

use std::borrow::Cow;
use std::fmt::{self, Write};

use serde::Serialize;
use serde_json::{Value, json};

use crate::classify::{Class, Outcome};
use crate::mcp::json::{self, Compact, Json};
use crate::mcp::jsonrpc::{Reply, error_code_name};
use crate::mcp::messages::{CallResult, block_text};
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
    /// The host dropped the tool from its listing (an invalid `x-mcp-header` over HTTP): the
    /// model has no such tool to call.
    Dropped,
}

impl Rule {
    pub fn label(self) -> &'static str {
        match self {
            Rule::Should => "SHOULD",
            Rule::May => "MAY",
            Rule::Result => "result",
            Rule::NoReply => "no reply",
            Rule::Dropped => "tool dropped",
        }
    }
}

/// One piece of what the model reads; server text is borrowed from the reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Block<'a> {
    /// Text, as the server or the host wrote it.
    Text { text: Cow<'a, str> },
    /// A short stand-in for content a text model does not read (image, audio, resource).
    Placeholder { text: String },
    /// The `structuredContent` value (its text as received), written compactly for the model.
    Structured { json: &'a str },
}

impl fmt::Display for Block<'_> {
    /// The block as the model reads it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Block::Text { text } => f.write_str(text),
            Block::Placeholder { text } => f.write_str(text),
            Block::Structured { json } => write!(f, "{}", Compact(json)),
        }
    }
}

impl Block<'_> {
    /// The block's length in bytes as the model reads it.
    pub fn len(&self) -> usize {
        match self {
            Block::Text { text } => text.len(),
            Block::Placeholder { text } => text.len(),
            Block::Structured { json } => Compact(json).len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The blocks as one text, one block per line, written as it is read (never built whole).
#[derive(Debug, Clone, Copy)]
pub struct Joined<'v, 'a>(pub &'v [Block<'a>]);

impl fmt::Display for Joined<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, block) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char('\n')?;
            }
            write!(f, "{block}")?;
        }
        Ok(())
    }
}

/// What the model's context window receives for one exchange.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelView<'a> {
    pub host: String,
    /// Whether anything the server said reaches the model.
    pub forwarded: bool,
    pub rule: Rule,
    /// Whether the host marks it as an error.
    pub is_error: bool,
    /// Forwarded under the MAY rule: "less likely to result in successful recovery".
    pub less_likely_to_help: bool,
    pub blocks: Vec<Block<'a>>,
    /// One line: why the view is what it is.
    pub reason: String,
    shape: Shape,
}

/// The version that brought the SHOULD/MAY sentences (SEP-1303).
const SEP_1303_VERSION: &str = "2025-11-25";

/// Builds the model view of a finished `tools/call`; its text borrows from `exchange`.
pub fn model_view<'a>(
    exchange: &'a Exchange,
    outcome: &Outcome,
    version: &str,
    host: &HostProfile,
) -> ModelView<'a> {
    let mut view = ModelView {
        host: host.name.clone(),
        forwarded: true,
        rule: Rule::Result,
        is_error: false,
        less_likely_to_help: false,
        blocks: Vec::new(),
        reason: String::new(),
        shape: host.shape,
    };
    let since_sep1303 = version >= SEP_1303_VERSION;
    match (&outcome.class, exchange.answer()) {
        (Class::Success, Some(Reply::Result(result))) => {
            view.blocks = project(result, host.structured);
            view.reason = format!(
                "the result reaches the model ({})",
                structured_note(host.structured)
            );
        }
        (Class::ToolError, Some(Reply::Result(result))) => {
            view.rule = Rule::Should;
            view.is_error = true;
            view.blocks = project(result, host.structured);
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
                    let _ = write!(text, " {}", Compact(data.text()));
                }
                view.blocks = vec![Block::Text { text: text.into() }];
                view.reason = format!(
                    "{named}: forwarded because {may} (on), though it is less likely to help"
                );
            } else {
                view.forwarded = false;
                view.blocks = vec![Block::Text {
                    text: host.failure_text.clone().into(),
                }];
                view.reason = format!(
                    "{named}: handled by the client, not forwarded ({may}; off): the model learns that the call failed, not why"
                );
            }
        }
        // A class that disagrees with the reply cannot come from `classify`; shown as no reply.
        (Class::TransportFailure, _)
        | (Class::Success | Class::ToolError, None | Some(Reply::Error(_)))
        | (Class::ProtocolError, None | Some(Reply::Result(_))) => {
            view.rule = Rule::NoReply;
            view.forwarded = false;
            view.is_error = true;
            view.blocks = vec![Block::Text {
                text: host.failure_text.clone().into(),
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
fn project(result: &Json, policy: Structured) -> Vec<Block<'_>> {
    let call = CallResult::read(result);
    let content = || {
        call.blocks()
            .map(|source| match block_text(source) {
                Some(text) => Block::Text { text },
                None => project_block(source),
            })
            .collect::<Vec<_>>()
    };
    match (policy, call.structured) {
        (Structured::Prefer, Some(json)) => vec![Block::Structured { json }],
        (Structured::Alongside, Some(json))
            if !call.texts().any(|text| json::same(&text, json)) =>
        {
            let mut blocks = content();
            blocks.push(Block::Structured { json });
            blocks
        }
        (Structured::Prefer | Structured::Alongside | Structured::Ignore, _) => content(),
    }
}

fn project_block(block: &str) -> Block<'static> {
    let field = |key: &str| json::member(block, key).and_then(json::string);
    let placeholder = |text: String| Block::Placeholder { text };
    match field("type").as_deref() {
        Some(kind @ ("image" | "audio")) => placeholder(format!(
            "[{kind}: {}, {}]",
            field("mimeType").unwrap_or("unknown type".into()),
            human_size(base64_len(&field("data").unwrap_or_default()))
        )),
        Some("resource_link") => {
            let mime = field("mimeType")
                .map(|m| format!(", {m}"))
                .unwrap_or_default();
            placeholder(format!(
                "[resource link: {} ({}{mime})]",
                field("uri").unwrap_or("?".into()),
                field("name").unwrap_or("unnamed".into())
            ))
        }
        Some("resource") => {
            let resource = json::member(block, "resource").unwrap_or("null");
            let inner = |key: &str| json::member(resource, key).and_then(json::string);
            let size = match (inner("text"), inner("blob")) {
                (Some(text), _) => text.len(),
                (None, Some(blob)) => base64_len(&blob),
                (None, None) => 0,
            };
            placeholder(format!(
                "[embedded resource: {}, {}, {}]",
                inner("uri").unwrap_or("?".into()),
                inner("mimeType").unwrap_or("unknown type".into()),
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

impl ModelView<'_> {
    /// The text that lands in the context window, built whole (for a copy; display and
    /// output use [`ModelView::joined`] or [`ModelView::text_within`]).
    pub fn text(&self) -> String {
        self.joined().to_string()
    }

    /// The text, written as it is read.
    pub fn joined(&self) -> Joined<'_, '_> {
        Joined(&self.blocks)
    }

    /// The first `max` bytes of the text (cut on a character boundary), and how many bytes
    /// were left out: a 50 MB result is never copied to be shown.
    pub fn text_within(&self, max: usize) -> (String, usize) {
        let mut out = Bounded {
            text: String::new(),
            max,
            omitted: 0,
        };
        let _ = write!(out, "{}", self.joined());
        (out.text, out.omitted)
    }

    /// "forwarded (SHOULD)", "not forwarded (MAY, off)"…
    /// The view of a call to a tool the host dropped from its listing: whatever the server
    /// answered, no model could have made this call.
    pub fn dropped(&mut self, tool: &str, reason: &str) {
        self.forwarded = false;
        self.rule = Rule::Dropped;
        self.is_error = false;
        self.less_likely_to_help = false;
        self.blocks = vec![Block::Text {
            text: format!("(no tool '{tool}': the host dropped it from tools/list)").into(),
        }];
        self.reason = format!(
            "'{tool}' has an invalid x-mcp-header ({reason}): HTTP clients MUST drop it from \
             tools/list (2026-07-28 streamable-http.mdx), so the model never sees this tool"
        );
    }

    pub fn verdict(&self) -> String {
        match (self.forwarded, self.rule) {
            (true, Rule::May) => "forwarded (MAY, on; less likely to help)".to_owned(),
            (true, rule) => format!("forwarded ({})", rule.label()),
            (false, Rule::May) => "not forwarded (MAY, off)".to_owned(),
            (false, rule) => format!("not forwarded ({})", rule.label()),
        }
    }

    /// The message a host of this profile would send its model (it holds the text again).
    pub fn payload(&self) -> Value {
        let text_block = |block: &Block| json!({"type": "text", "text": block.to_string()});
        match self.shape {
            Shape::Generic => json!({
                "type": "tool_result",
                "is_error": self.is_error,
                "content": self.blocks.iter().map(|block| match block {
                    Block::Structured { json } => json!({"type": "json", "json": parsed(json)}),
                    Block::Text { .. } | Block::Placeholder { .. } => text_block(block),
                }).collect::<Vec<_>>(),
            }),
            Shape::AnthropicMessages => json!({
                "type": "tool_result",
                "tool_use_id": "toolu_sightline",
                "is_error": self.is_error,
                "content": self.blocks.iter().map(text_block).collect::<Vec<_>>(),
            }),
            Shape::OpenaiChat => {
                json!({"role": "tool", "tool_call_id": "call_sightline", "content": self.text()})
            }
        }
    }

    /// The `model_view` object of `call --json`. The text appears once (`text`, streamed when
    /// serialized); `blocks` describe its pieces by size; `payload` (the host's message, which
    /// repeats the text) only when asked for.
    pub fn to_json(&self, with_payload: bool) -> ModelViewJson<'_, '_> {
        ModelViewJson {
            view: self,
            with_payload,
        }
    }
}

/// JSON text as a value (the payload repeats the text anyway; built only when asked for).
fn parsed(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

/// Collects at most `max` bytes, counting the rest.
struct Bounded {
    text: String,
    max: usize,
    omitted: usize,
}

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.max.saturating_sub(self.text.len());
        let kept = if self.omitted == 0 { clip(s, room) } else { "" };
        self.text.push_str(kept);
        self.omitted += s.len() - kept.len();
        Ok(())
    }
}

/// See [`ModelView::to_json`].
pub struct ModelViewJson<'v, 'a> {
    view: &'v ModelView<'a>,
    with_payload: bool,
}

impl Serialize for ModelViewJson<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let view = self.view;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("host", &view.host)?;
        map.serialize_entry("forwarded", &view.forwarded)?;
        map.serialize_entry("rule", &view.rule)?;
        map.serialize_entry("is_error", &view.is_error)?;
        map.serialize_entry("less_likely_to_help", &view.less_likely_to_help)?;
        map.serialize_entry("text", &Streamed(view.joined()))?;
        map.serialize_entry("blocks", &Shapes(&view.blocks))?;
        map.serialize_entry("reason", &view.reason)?;
        if self.with_payload {
            map.serialize_entry("payload", &view.payload())?;
        }
        map.end()
    }
}

/// The blocks as `call --json` describes them (kind and size), serialized one by one.
struct Shapes<'v, 'a>(&'v [Block<'a>]);

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum BlockShape<'v> {
    Text { bytes: usize },
    Placeholder { text: &'v str },
    Structured { bytes: usize },
}

impl Serialize for Shapes<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|block| match block {
            Block::Text { .. } => BlockShape::Text { bytes: block.len() },
            Block::Placeholder { text } => BlockShape::Placeholder { text },
            Block::Structured { .. } => BlockShape::Structured { bytes: block.len() },
        }))
    }
}

/// A `Display` value serialized as a JSON string without building it first.
struct Streamed<T>(T);

impl<T: fmt::Display> Serialize for Streamed<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
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
