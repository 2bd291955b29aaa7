//! A result's blocks as one host converts them, pure: what passes, what becomes JSON text or a
//! placeholder, what is dropped, and the block the host fails on.

use std::borrow::Cow;

use super::hosts::{Action, Blocks, HostProfile, JsonStyle, Structured};
use super::{Block, Blocks as BlockList};
use crate::mcp::json::{self, Compact, Json};
use crate::mcp::messages::{CallResult, block_text};

/// What a host makes of a result's blocks.
#[derive(Debug, Default)]
pub(super) struct Converted<'a> {
    pub blocks: BlockList<'a>,
    /// Plain sentences: what was dropped or replaced, and why.
    pub notes: Vec<String>,
    /// The host's own error, when it fails on a block; `kind` is the block's type.
    pub thrown: Option<Thrown>,
}

/// A host failing on a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Thrown {
    pub kind: String,
    /// The host's error message, in its words.
    pub message: String,
}

/// The blocks a model reads from a result, as `host` builds them.
pub(super) fn convert<'a>(result: &'a Json, host: &HostProfile, tool: &str) -> Converted<'a> {
    let call = CallResult::read(result);
    let mut converted = Converted::default();
    let structured_alone = match (host.structured, call.structured) {
        (Structured::Prefer, Some(json)) => Some(json),
        (Structured::WhenContentEmpty, Some(json))
            if !call.is_error && call.blocks().next().is_none() =>
        {
            Some(json)
        }
        (Structured::PreferOnSuccess, Some(json)) if !call.is_error => Some(json),
        _ => None,
    };
    if let Some(json) = structured_alone {
        converted.blocks.push(Block::Structured { json });
        if call.blocks().next().is_some() && !call.texts().any(|text| json::same(&text, json)) {
            converted.notes.push(
                "this host sends structuredContent alone: the content blocks are left out"
                    .to_owned(),
            );
        }
        return converted;
    }
    let content = call.content.unwrap_or_default();
    // Placeholders the host sends after every other block.
    let mut last = Vec::new();
    for (index, source) in call.blocks().enumerate() {
        // Text first, in one pass over the block: a million of them must not cost two. A text
        // as received stays in the reply, read again when walked; an escaped one is decoded.
        if host.blocks.text == Action::Pass
            && let Some(text) = block_text(source)
        {
            match text {
                Cow::Borrowed(text) => {
                    converted
                        .blocks
                        .push_reply_text(content, index, source, text);
                }
                Cow::Owned(_) => converted.blocks.push(Block::Text { text }),
            }
            continue;
        }
        match convert_block(source, &host.blocks) {
            Ok(Some(block @ Block::Placeholder { .. }))
                if let Some(caption) = last_caption(source, &host.blocks) =>
            {
                converted.blocks.push(Block::Placeholder {
                    text: in_host_words_with(caption, source, &[("tool", tool)]),
                });
                last.push(block);
            }
            Ok(Some(block)) => converted.blocks.push(block),
            Ok(None) => converted.notes.push(format!(
                "{} is dropped: this host does not send {}",
                describe(source),
                plural(source)
            )),
            Err(thrown) => {
                converted.thrown = Some(thrown);
                return converted;
            }
        }
    }
    for block in last {
        converted.blocks.push(block);
    }
    let carried = |json: &str| call.texts().any(|text| json::same(&text, json));
    // Hosts that compare the texts with their own `JSON.stringify` of the value.
    let written = |json: &str| {
        let compact = Compact(json).to_string();
        call.texts().any(|text| text == compact)
    };
    match (host.structured, call.structured) {
        (Structured::First | Structured::AfterBlankLine, Some(json)) if written(json) => {}
        (Structured::First, Some(json)) => {
            converted.blocks.insert_first(Block::Structured { json });
        }
        (Structured::AfterBlankLine, Some(json)) => {
            if !converted.blocks.is_empty() {
                converted.blocks.push(Block::Text { text: "".into() });
            }
            converted.blocks.push(Block::Structured { json });
        }
        (_, Some(json)) if carried(json) => {}
        (Structured::Alongside, Some(json)) => converted.blocks.push(Block::Structured { json }),
        (Structured::Ignore, Some(_)) => converted
            .notes
            .push("structuredContent is not sent: this host reads only content".to_owned()),
        (Structured::WhenContentEmpty, Some(_)) if !call.is_error => converted.notes.push(
            "structuredContent is not sent: this host uses it only when content is empty"
                .to_owned(),
        ),
        _ => {}
    }
    if converted.blocks.is_empty()
        && let Some(text) = &host.empty_text
    {
        converted
            .blocks
            .push(Block::Placeholder { text: text.clone() });
        converted.notes.push(format!(
            "nothing this host sends was left, so it writes \"{text}\" instead"
        ));
    }
    converted
}

/// The caption left in a block's place when its placeholder goes last (`placeholders_last`).
fn last_caption<'r>(source: &str, rules: &'r Blocks) -> Option<&'r String> {
    if !rules.placeholders_last {
        return None;
    }
    let kind = json::member(source, "type").and_then(json::string)?;
    rules.captions.get(kind.as_ref())
}

/// One block as the host converts it; `None` when it drops it.
fn convert_block<'a>(source: &'a str, rules: &Blocks) -> Result<Option<Block<'a>>, Thrown> {
    let field = |key: &str| json::member(source, key).and_then(json::string);
    let kind = field("type").map(Cow::into_owned).unwrap_or_default();
    let action = match kind.as_str() {
        "text" => rules.text,
        "image" => rules.image,
        "audio" => rules.audio,
        "resource" => rules.resource,
        // Other types fare as links do: both are references a text model cannot open.
        _ => rules.resource_link,
    };
    let throw = |message: String| Thrown {
        kind: kind.clone(),
        message,
    };
    let action = match action {
        Action::Unwrap => {
            let text = json::member(source, "resource")
                .and_then(|resource| json::member(resource, "text"))
                .and_then(json::string);
            if kind == "resource"
                && let Some(text) = text
            {
                return Ok(Some(Block::Text { text }));
            }
            Action::Pass
        }
        other => other,
    };
    Ok(Some(match action {
        // `unwrap` was made `pass` above for everything but a text resource.
        Action::Pass | Action::Unwrap => match kind.as_str() {
            "text" => Block::Text {
                text: block_text(source).unwrap_or_default(),
            },
            "image" => {
                let mime = field("mimeType").unwrap_or_default();
                if !allowed(rules.image_types.as_deref(), &mime) {
                    return Err(throw(format!("Unsupported image MIME type: {mime}")));
                }
                Block::Media {
                    label: label(source),
                    source,
                }
            }
            "audio" => Block::Media {
                label: label(source),
                source,
            },
            "resource" => {
                let resource = json::member(source, "resource").unwrap_or("null");
                let inner = |key: &str| json::member(resource, key).and_then(json::string);
                let mime = inner("mimeType").unwrap_or_default();
                if !allowed(rules.resource_types.as_deref(), &mime) {
                    return Err(throw(format!(
                        "Unsupported MIME type \"{mime}\" for resource: {}",
                        inner("uri").unwrap_or_default()
                    )));
                }
                Block::Media {
                    label: label(source),
                    source,
                }
            }
            _ => Block::Placeholder {
                text: label(source),
            },
        },
        Action::Json => match rules.json_style {
            JsonStyle::Wire => Block::Json { json: source },
            JsonStyle::PythonSdk => Block::Text {
                text: Cow::Owned(super::python_dump::dump(
                    &serde_json::from_str(source).unwrap_or_default(),
                )),
            },
            JsonStyle::AiSdk => Block::Text {
                text: Cow::Owned(super::key_order::dump(
                    &serde_json::from_str(source).unwrap_or_default(),
                    &super::key_order::AI_SDK,
                )),
            },
            JsonStyle::Rmcp => Block::Text {
                text: Cow::Owned(super::key_order::dump(
                    &serde_json::from_str(source).unwrap_or_default(),
                    &super::key_order::RMCP,
                )),
            },
        },
        Action::Placeholder => Block::Placeholder {
            text: match rules.placeholders.get(&kind) {
                Some(template) => in_host_words(template, source),
                None => label(source),
            },
        },
        Action::Drop => return Ok(None),
        Action::Throw => return Err(throw(format!("Unsupported MCP content type: {kind}"))),
    }))
}

/// A host's placeholder for a block: its template with the block's string fields filled in
/// (an embedded resource's from its `resource`).
fn in_host_words(template: &str, source: &str) -> String {
    in_host_words_with(template, source, &[])
}

/// [`in_host_words`] with more keys than the block's own (they win over its fields).
fn in_host_words_with(template: &str, source: &str, extra: &[(&str, &str)]) -> String {
    let fields = json::member(source, "resource").unwrap_or(source);
    let value: serde_json::Value = serde_json::from_str(fields).unwrap_or_default();
    let mut strings: Vec<(&str, &str)> = value
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.as_str(), value.as_str()?)))
        .collect();
    // `{bytes}`: the decoded size of the block's data (or blob).
    let data = strings
        .iter()
        .find(|(key, _)| matches!(*key, "data" | "blob"))
        .map_or(0, |(_, data)| base64_len(data))
        .to_string();
    strings.push(("bytes", &data));
    strings.splice(0..0, extra.iter().copied());
    super::hosts::fill(template, &strings)
}

/// The blocks with the host's caption (`blocks.captions`) before each block it passes as it
/// is (an image, audio, an embedded resource); `{tool}` is the tool's name on the server.
pub(super) fn captioned<'a>(blocks: BlockList<'a>, rules: &Blocks, tool: &str) -> BlockList<'a> {
    if rules.captions.is_empty() {
        return blocks;
    }
    let mut out = BlockList::default();
    for block in blocks.to_vec() {
        if let Block::Media { source, .. } = &block {
            let kind = json::member(source, "type").and_then(json::string);
            if let Some(template) = kind.and_then(|kind| rules.captions.get(kind.as_ref())) {
                out.push(Block::Placeholder {
                    text: in_host_words_with(template, source, &[("tool", tool)]),
                });
            }
        }
        out.push(block);
    }
    out
}

/// Whether a MIME type is in a host's list: exact types, prefixes ending in `/`, `""` for none.
fn allowed(list: Option<&[String]>, mime: &str) -> bool {
    list.is_none_or(|list| {
        list.iter().any(|entry| {
            entry == mime || (entry.ends_with('/') && !mime.is_empty() && mime.starts_with(entry))
        })
    })
}

/// "an image/png image", "a block of type 'audio'": a block named in a note.
pub(super) fn describe(source: &str) -> String {
    let field = |key: &str| json::member(source, key).and_then(json::string);
    match (field("type").as_deref(), field("mimeType")) {
        (Some("image"), Some(mime)) => format!("an {mime} image"),
        (Some(kind), _) => format!("a block of type '{kind}'"),
        (None, _) => "a malformed block".to_owned(),
    }
}

/// "images", "audio", "resource links"…: what a host does not send, in a note.
fn plural(source: &str) -> &'static str {
    match json::member(source, "type")
        .and_then(json::string)
        .as_deref()
    {
        Some("text") => "text",
        Some("image") => "images",
        Some("audio") => "audio",
        Some("resource") => "embedded resources",
        Some("resource_link") => "resource links",
        _ => "blocks of this type",
    }
}

/// How an image or audio block is named where its bytes would be: "[image: image/png, 70 B]".
pub fn media_label(kind: &str, mime: &str, base64: &str) -> String {
    format!("[{kind}: {mime}, {}]", human_size(base64_len(base64)))
}

/// The short stand-in shown for a block a text reader cannot show: type, name and size.
pub(super) fn label(block: &str) -> String {
    let field = |key: &str| json::member(block, key).and_then(json::string);
    match field("type").as_deref() {
        Some(kind @ ("image" | "audio")) => media_label(
            kind,
            &field("mimeType").unwrap_or("unknown type".into()),
            &field("data").unwrap_or_default(),
        ),
        Some("resource_link") => {
            let mime = field("mimeType")
                .map(|m| format!(", {m}"))
                .unwrap_or_default();
            format!(
                "[resource link: {} ({}{mime})]",
                field("uri").unwrap_or("?".into()),
                field("name").unwrap_or("unnamed".into())
            )
        }
        Some("resource") => {
            let resource = json::member(block, "resource").unwrap_or("null");
            let inner = |key: &str| json::member(resource, key).and_then(json::string);
            let size = match (inner("text"), inner("blob")) {
                (Some(text), _) => text.len(),
                (None, Some(blob)) => base64_len(&blob),
                (None, None) => 0,
            };
            format!(
                "[embedded resource: {}, {}, {}]",
                inner("uri").unwrap_or("?".into()),
                inner("mimeType").unwrap_or("unknown type".into()),
                human_size(size)
            )
        }
        Some(other) => format!("[unsupported content type '{other}']"),
        None => "[malformed content block]".to_owned(),
    }
}

/// Decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() * 3 / 4).saturating_sub(padding)
}

pub(super) fn human_size(bytes: usize) -> String {
    #[allow(clippy::cast_precision_loss)] // a size label needs one decimal, not exactness
    let value = bytes as f64;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KB", value / 1024.0),
        _ => format!("{:.1} MB", value / 1_048_576.0),
    }
}
