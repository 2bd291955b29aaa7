//! What the model would see for one `tools/call`, pure: given the exchange, its outcome, the
//! negotiated version and a host profile, the text that lands in the context window (borrowed
//! from the reply, never copied), the rule of the spec that decided it, and the payload a host
//! would build.

mod block;
pub mod clients;
mod convert;
mod gemini;
mod host_checks;
pub mod hosts;
mod json;
mod key_order;
pub mod measured;
pub mod output_check;
mod payload;
mod python_dump;
mod truncation;
mod validators;

use std::fmt::Write;

use serde::Serialize;

use crate::classify::findings::{Direction, Finding, FrameRef, Severity};
use crate::classify::{Class, Outcome};
use crate::mcp::json::Compact;
use crate::mcp::jsonrpc::{ErrorObject, Reply, error_code_name};
use crate::mcp::session::Exchange;
pub use block::{Block, Blocks};
pub use convert::media_label;
use convert::{Converted, convert};
pub use host_checks::stopped_by_host;
use hosts::{HostProfile, Keep, Shape, Structured};
pub use json::ModelViewJson;
use truncation::{Bounded, LineCount, write_blocks};
pub use truncation::{Joined, Truncation, thousands};

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
    /// The host stopped the call before the server (arguments it refused, a tool it does not
    /// list): the model reads the host's words.
    Host,
}

impl Rule {
    pub fn label(self) -> &'static str {
        match self {
            Rule::Should => "SHOULD",
            Rule::May => "MAY",
            Rule::Result => "result",
            Rule::NoReply => "no reply",
            Rule::Dropped => "tool dropped",
            Rule::Host => "stopped by the host",
        }
    }
}

/// What the model's context window receives for one exchange.
// Each flag is its own fact about the view (forwarded, marked, flag exists, MAY).
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq)]
pub struct ModelView<'a> {
    pub host: String,
    /// Whether anything the server said reaches the model.
    pub forwarded: bool,
    pub rule: Rule,
    /// Whether the host marks it as an error (never, for a host without an error flag).
    pub is_error: bool,
    /// Whether the host's message has an error flag at all.
    pub error_flag: bool,
    /// Forwarded under the MAY rule: "less likely to result in successful recovery".
    pub less_likely_to_help: bool,
    pub blocks: Blocks<'a>,
    /// One line: why the view is what it is.
    pub reason: String,
    /// What the host did that the model cannot tell: blocks dropped or replaced, text cut, no
    /// error flag, the host failing on the result. Plain sentences.
    pub notes: Vec<String>,
    /// The host's own error, when it fails on the result.
    pub thrown: Option<String>,
    /// The host's size limit at work.
    pub truncation: Option<Truncation>,
    /// Findings that depend on the host (a block it cannot send).
    pub findings: Vec<Finding>,
    /// Whether the host would call the server at all (false: it stops the call itself).
    pub server_called: bool,
    /// When the host stops the call: whether its words say why (the validator's complaint).
    pub explains: bool,
    /// The host fails its whole run on this call (`aborts_run_on`): no next model turn.
    pub ends_run: bool,
    shape: Shape,
    /// The host sends an error as one string (see [`HostProfile::error_as_string`]).
    error_as_string: bool,
    /// The host sends a result's parts as a list, one text too (see [`HostProfile::content_as_parts`]).
    content_as_parts: bool,
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
    let mut view = ModelView::empty(host);
    let since_sep1303 = version >= SEP_1303_VERSION;
    match (&outcome.class, exchange.answer()) {
        (Class::Success, Some(Reply::Result(result))) => {
            view.reason = format!(
                "the result reaches the model ({})",
                structured_note(host.structured)
            );
            view.take(
                convert(result, host, call_words(exchange).0),
                exchange,
                host,
            );
        }
        (Class::ToolError, Some(Reply::Result(result))) => {
            view.rule = Rule::Should;
            view.is_error = true;
            view.reason = if since_sep1303 {
                format!(
                    "tool execution error: clients SHOULD provide it to the model to enable self-correction ({version} tools.mdx)"
                )
            } else {
                format!(
                    "tool execution error: isError results are meant for the model ({version}); the SHOULD came with SEP-1303 in {SEP_1303_VERSION}"
                )
            };
            match &host.tool_error_text {
                // The host words the whole result itself; its blocks are never converted.
                Some(template) => {
                    let (tool, arguments) = call_words(exchange);
                    // `{text}`: the blocks as the host would send them on their own.
                    let text = if template.contains("{text}") {
                        let mut blocks = ModelView::empty(host);
                        blocks.take(
                            convert(result, host, call_words(exchange).0),
                            exchange,
                            host,
                        );
                        blocks.text()
                    } else {
                        String::new()
                    };
                    let result = gemini::sdk_result_json(result.text());
                    // `{content}`: the result's blocks alone, as the SDK keeps them.
                    let content = if template.contains("{content}") {
                        serde_json::from_str::<serde_json::Value>(&result)
                            .ok()
                            .and_then(|value| value.get("content").map(ToString::to_string))
                            .unwrap_or_else(|| "[]".to_owned())
                    } else {
                        String::new()
                    };
                    let values = [
                        ("tool", tool),
                        ("arguments", &arguments),
                        ("result", &result),
                        ("content", &content),
                        ("text", &text),
                    ];
                    view.blocks = Blocks::one(Block::Text {
                        text: hosts::fill_exact(template, &values).into(),
                    });
                }
                None => view.take(
                    convert(result, host, call_words(exchange).0),
                    exchange,
                    host,
                ),
            }
        }
        (Class::ProtocolError, Some(Reply::Error(error))) => {
            view.protocol_error(error, since_sep1303, host, exchange);
        }
        // A class that disagrees with the reply cannot come from `classify`; shown as no reply.
        (Class::TransportFailure, _)
        | (Class::Success | Class::ToolError, None | Some(Reply::Error(_)))
        | (Class::ProtocolError, None | Some(Reply::Result(_))) => {
            view.rule = Rule::NoReply;
            view.forwarded = false;
            if host.aborts_run_on.contains(&hosts::Abort::NoReply) {
                // The client's error ends the run: nothing reaches the model, flagged or not.
                view.ends_run = true;
                view.reason = format!(
                    "no reply, and this host fails its whole run on that: the model reads nothing of this call ({})",
                    outcome.detail
                );
            } else {
                view.is_error = true;
                view.blocks = Blocks::one(Block::Text {
                    text: failure_text(host, exchange).into(),
                });
                view.reason = format!(
                    "no reply, so nothing from the server reaches the model and the host reports the failure ({})",
                    outcome.detail
                );
            }
        }
    }
    view.as_the_host_marks_and_cuts_it(host);
    view
}

/// What the model sees when the host's MCP client refuses the server's result itself (its
/// `output_check`): the host handles the client's error as it handles a protocol error, and
/// nothing the server said reaches the model.
pub fn refused_by_client<'a>(
    exchange: &'a Exchange,
    refusal: &output_check::ClientRefusal,
    version: &str,
    host: &HostProfile,
) -> ModelView<'a> {
    let mut view = ModelView::empty(host);
    let error = ErrorObject {
        code: refusal.code.unwrap_or_default(),
        message: refusal.message.clone(),
        data: None,
    };
    view.protocol_error(&error, version >= SEP_1303_VERSION, host, exchange);
    if refusal.code.is_none() && host.forward_protocol_errors {
        // Not an MCP error, so no code to word: the host's words for its own failure.
        view.blocks = Blocks::one(Block::Text {
            text: hosts::fill(&host.host_error_text, &[("error", &refusal.message)]).into(),
        });
    }
    view.forwarded = false;
    let how = match refusal.code {
        Some(code) => format!("throws {code} ({})", error_code_name(code)),
        None => "raises".to_owned(),
    };
    view.reason = format!(
        "{} {how} on this result, so the host never sees it: \"{}\" (the host handles it as a \
         protocol error; nothing the server said reaches the model)",
        refusal.client, refusal.message
    );
    view.as_the_host_marks_and_cuts_it(host);
    view
}

/// The host's `failure_text`, with the call's `{tool}` and `{arguments}`.
fn failure_text(host: &HostProfile, exchange: &Exchange) -> String {
    let (tool, arguments) = call_words(exchange);
    hosts::fill(
        &host.failure_text,
        &[("tool", tool), ("arguments", &arguments)],
    )
}

/// The called tool's name and its arguments as compact JSON (`{}` when it sent none), for a
/// host's words about the call.
fn call_words(exchange: &Exchange) -> (&str, String) {
    let params = exchange.params();
    let tool = params
        .and_then(|params| params.get("name")?.as_str())
        .unwrap_or_default();
    let arguments = params
        .and_then(|params| params.get("arguments"))
        .map_or_else(|| "{}".to_owned(), serde_json::Value::to_string);
    (tool, arguments)
}

/// The blocks as one JSON array text, each part written by its kind's template (a host that
/// `JSON.stringify`s its own parts): images and audio by theirs, with `{data}` and
/// `{mimeType}`; everything else, and media without a template, as a text part of what the
/// model would otherwise read.
fn parts_as_json(blocks: &Blocks, templates: &hosts::PartsAsJson) -> String {
    use crate::mcp::json;
    // A JSON string literal, escaped as `JSON.stringify` escapes it.
    let quoted = |text: &str| serde_json::Value::from(text).to_string();
    let mut out = String::from("[");
    for (i, block) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let media = match &*block {
            Block::Media { source, .. } => {
                let field = |key: &str| json::member(source, key).and_then(json::string);
                let template = match field("type").as_deref() {
                    Some("image") => templates.image.as_ref(),
                    Some("audio") => templates.audio.as_ref(),
                    _ => None,
                };
                template.map(|template| {
                    let data = quoted(&field("data").unwrap_or_default());
                    let mime = quoted(&field("mimeType").unwrap_or_default());
                    hosts::fill(template, &[("data", &data), ("mimeType", &mime)])
                })
            }
            _ => None,
        };
        let part = media.unwrap_or_else(|| {
            hosts::fill(&templates.text, &[("text", &quoted(&block.to_string()))])
        });
        out.push_str(&part);
    }
    out.push(']');
    out
}

impl<'a> ModelView<'a> {
    /// Nothing yet: a result that reaches the model, before any block.
    fn empty(host: &HostProfile) -> Self {
        ModelView {
            host: host.name.clone(),
            forwarded: true,
            rule: Rule::Result,
            is_error: false,
            error_flag: host.error_flag,
            less_likely_to_help: false,
            blocks: Blocks::default(),
            reason: String::new(),
            notes: Vec::new(),
            thrown: None,
            truncation: None,
            findings: Vec::new(),
            server_called: true,
            explains: false,
            ends_run: false,
            shape: host.shape,
            error_as_string: host.error_as_string,
            content_as_parts: host.content_as_parts,
        }
    }

    /// A protocol error: the host's failure text, or (MAY, on) the error in the host's words.
    fn protocol_error(
        &mut self,
        error: &ErrorObject,
        since_sep1303: bool,
        host: &HostProfile,
        exchange: &Exchange,
    ) {
        self.rule = Rule::May;
        self.is_error = true;
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
        // The MAY rule switched on (`m`) wins: it asks what the model would read if the host
        // forwarded the error.
        if !host.forward_protocol_errors
            && host.aborts_run_on.contains(&hosts::Abort::ProtocolError)
        {
            // Nothing reaches the model, so nothing is marked as an error there either.
            self.ends_run = true;
            self.forwarded = false;
            self.is_error = false;
            self.blocks = Blocks::default();
            self.reason = format!(
                "{named}: this host fails its whole run on a protocol error ({may}; off), so the model reads nothing of this call"
            );
            return;
        }
        if host.forward_protocol_errors {
            self.less_likely_to_help = true;
            let code = error.code.to_string();
            let data = error
                .data
                .as_ref()
                .map(|data| Compact(data.text()).to_string())
                .unwrap_or_default();
            let (tool, arguments) = call_words(exchange);
            let quoted = serde_json::Value::from(error.message.as_str()).to_string();
            let escaped = &quoted[1..quoted.len() - 1];
            let text = hosts::fill(
                &host.protocol_error_text,
                &[
                    ("code", &code),
                    ("message", &error.message),
                    ("data", &data),
                    ("tool", tool),
                    ("arguments", &arguments),
                    ("message_escaped", escaped),
                ],
            );
            self.blocks = Blocks::one(Block::Text { text: text.into() });
            self.reason = format!(
                "{named}: forwarded because {may} (on), in this host's words, though it is less likely to help"
            );
        } else {
            self.forwarded = false;
            self.blocks = Blocks::one(Block::Text {
                text: failure_text(host, exchange).into(),
            });
            self.reason = format!(
                "{named}: handled by the client, not forwarded ({may}; off in this profile): a host that keeps it back tells its model that the call failed, not why"
            );
        }
    }

    /// The host's last word: no error flag to mark an error with, and its size limit.
    fn as_the_host_marks_and_cuts_it(&mut self, host: &HostProfile) {
        if self.is_error && !host.error_flag {
            if let Some(key) = &host.error_key {
                self.notes.push(format!(
                    "marked as an error by the response's `{key}` key (this host has no error flag)"
                ));
            } else {
                self.is_error = false;
                self.notes.push(
                    "this host has no error flag: the model sees this text as an ordinary result"
                        .to_owned(),
                );
            }
        }
        if let Some(limit) = &host.limit {
            let total = self.blocks.joined_len();
            let lines = if limit.keep == Keep::Replace && total > limit.bytes {
                let mut counted = LineCount::default();
                let _ = write_blocks(self.blocks.iter(), &mut counted);
                counted.lines()
            } else {
                0
            };
            self.truncation = Truncation::for_limit(total, lines, limit);
            if let Some(truncation) = &self.truncation {
                let kept = match limit.keep {
                    Keep::Head => limit.head.unwrap_or(limit.bytes).min(limit.bytes),
                    _ => limit.bytes,
                };
                self.notes.push(truncation.describe(kept));
            }
        }
        if let Some(persist) = host.persist.as_ref().filter(|_| self.truncation.is_none()) {
            let total = self.blocks.joined_len();
            if total > persist.bytes {
                self.truncation = Some(self.persisted(total, persist));
                self.notes.push(format!(
                    "this host keeps results of up to {} bytes: this one has {total}, so it is saved to a file and the model reads a {}-character preview of it",
                    persist.bytes, persist.preview
                ));
            }
        }
        self.with_the_call_prefix(host);
    }

    /// The host's own line before all it sends of a call it made (outside its size limit: the
    /// cut moves on by the prefix and its newline).
    fn with_the_call_prefix(&mut self, host: &HostProfile) {
        let Some(prefix) = host.call_prefix.as_deref() else {
            return;
        };
        if !self.server_called || self.blocks.is_empty() {
            return;
        }
        let added = prefix.len() + 1;
        if let Some(truncation) = &mut self.truncation {
            truncation.total += added;
            truncation.head += added;
        }
        self.blocks.insert_first(Block::Text {
            text: prefix.to_owned().into(),
        });
    }

    /// Takes in a result as the host converted it; a block the host fails on replaces the
    /// result with the host's own error.
    fn take(&mut self, converted: Converted<'a>, exchange: &Exchange, host: &HostProfile) {
        self.blocks = convert::captioned(converted.blocks, &host.blocks, call_words(exchange).0);
        self.notes = converted.notes;
        if host.shape == Shape::GeminiFunctionResponse {
            let mut blocks = self.blocks.to_vec();
            gemini::lay_out(&mut blocks, &mut self.notes);
            self.blocks = blocks.into();
        }
        let Some(thrown) = converted.thrown else {
            if let Some(templates) = &host.parts_as_json {
                self.blocks = Blocks::one(Block::Text {
                    text: parts_as_json(&self.blocks, templates).into(),
                });
                self.notes.push(
                    "this host sends the parts as one text, their JSON array: the model reads \
                     the JSON, not the parts"
                        .to_owned(),
                );
            }
            return;
        };
        let block = match thrown.kind.as_str() {
            "resource_link" => "a resource_link block".to_owned(),
            "" => "a block without a type".to_owned(),
            kind => format!("an {kind} block").replace("an resource", "a resource"),
        };
        self.notes.insert(
            0,
            format!(
                "this host would throw on {block} (\"{}\"): the model sees the host's error, not the result",
                thrown.message
            ),
        );
        self.forwarded = false;
        self.is_error = true;
        self.reason = format!(
            "this host cannot convert the result (it fails on {block}), so its model reads the \
             host's error instead of what the server said"
        );
        self.blocks = Blocks::one(Block::Text {
            text: hosts::fill(&host.host_error_text, &[("error", &thrown.message)]).into(),
        });
        if host.aborts_run_on.contains(&hosts::Abort::HostError) {
            // Its error ends the run: the model reads neither the result nor the error.
            self.ends_run = true;
            if let Some(first) = self.notes.first_mut() {
                *first = format!(
                    "this host would throw on {block} (\"{}\"), and that ends its whole run: \
                     the model reads nothing of this call",
                    thrown.message
                );
            }
            self.is_error = false;
            self.reason = format!(
                "this host cannot convert the result (it fails on {block}), and that ends its \
                 whole run: its model reads nothing of this call"
            );
            self.blocks = Blocks::default();
        }
        if matches!(thrown.kind.as_str(), "audio" | "resource_link") {
            self.findings.push(Finding {
                id: "audio-or-link-unsupported-by-host",
                severity: Severity::Warning,
                message: format!(
                    "host '{}' fails on {block} (\"{}\"), so the whole result, text included, \
                     never reaches its model; a link can travel as a URL in text or as an \
                     embedded resource",
                    host.name, thrown.message
                ),
                frames: vec![
                    FrameRef {
                        direction: Direction::Sent,
                        id: exchange.id.clone(),
                    },
                    FrameRef {
                        direction: Direction::Received,
                        id: exchange.id.clone(),
                    },
                ],
            });
        }
        self.thrown = Some(thrown.message);
    }
}

fn structured_note(policy: Structured) -> &'static str {
    match policy {
        Structured::Alongside => {
            "content blocks; structuredContent too when no text block carries it"
        }
        Structured::Ignore => "content blocks only; structuredContent ignored",
        Structured::Prefer => "structuredContent when present, else content blocks",
        Structured::WhenContentEmpty => {
            "content blocks; structuredContent only when content is empty"
        }
        Structured::PreferOnSuccess => {
            "structuredContent alone when present and not an error, else content blocks"
        }
        Structured::First => {
            "structuredContent as compact JSON first, unless a text block is exactly it, then content blocks"
        }
        Structured::AfterBlankLine => {
            "content blocks, then structuredContent as compact JSON after a blank line unless a text block is exactly it"
        }
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
        Joined {
            blocks: &self.blocks,
            truncation: self.truncation.as_ref(),
        }
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

    /// The view of a call to a tool the host dropped from its listing: whatever the server
    /// answered, no model could have made this call.
    pub fn dropped(&mut self, tool: &str, reason: &str) {
        self.forwarded = false;
        self.rule = Rule::Dropped;
        self.is_error = false;
        self.less_likely_to_help = false;
        self.thrown = None;
        self.ends_run = false;
        self.truncation = None;
        self.notes.clear();
        self.findings.clear();
        self.blocks = Blocks::one(Block::Text {
            text: format!("(no tool '{tool}': the host dropped it from tools/list)").into(),
        });
        self.reason = format!(
            "'{tool}' has an invalid x-mcp-header ({reason}): HTTP clients MUST drop it from \
             tools/list (2026-07-28 streamable-http.mdx), so the model never sees this tool"
        );
    }

    /// "forwarded (SHOULD)", "not forwarded (MAY, off)", "not forwarded (the host fails on it)"…
    pub fn verdict(&self) -> String {
        match (self.forwarded, self.rule) {
            _ if self.thrown.is_some() => "not forwarded (the host fails on it)".to_owned(),
            (true, Rule::May) => "forwarded (MAY, on; less likely to help)".to_owned(),
            (true, rule) => format!("forwarded ({})", rule.label()),
            (false, Rule::May) => "not forwarded (MAY, off)".to_owned(),
            (false, rule) => format!("not forwarded ({})", rule.label()),
        }
    }

    /// The `model_view` object of `call --json`. The text appears once (`text`, streamed when
    /// serialized); `blocks` describe its pieces by size; `payload` (the host's message, which
    /// repeats the text) only when asked for.
    pub fn to_json(&self, with_payload: bool) -> ModelViewJson<'_, '_> {
        ModelViewJson {
            view: self,
            with_payload,
            result: None,
        }
    }

    /// [`ModelView::to_json`] in a document that carries `result` (as `response`): where the
    /// model reads a long string of it unchanged, `parts` point at it instead of `text`
    /// repeating it, so a 50 MB result is written once.
    pub fn to_json_beside<'v>(
        &'v self,
        with_payload: bool,
        result: Option<&'v crate::mcp::json::Json>,
    ) -> ModelViewJson<'v, 'v> {
        ModelViewJson {
            view: self,
            with_payload,
            result,
        }
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

#[cfg(test)]
mod golden_tests;
