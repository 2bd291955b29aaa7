//! The `model_view` object of `call --json`, serialized as it is written: the text once,
//! streamed, or, beside the response it came from, as parts that point into the response
//! where the model reads a long string of it unchanged; the blocks by size; the host's
//! payload only when asked for.

use std::fmt;

use serde::Serialize;
use serde::ser::SerializeSeq;

use super::block::Iter;
use super::{Block, Blocks, ModelView};
use crate::mcp::json::{Compact, Json};
use crate::mcp::messages::{CallResult, block_text};

/// A response string at least this long is pointed at rather than written again; shorter
/// ones cost less written than a pointer does.
const POINTED_BYTES: usize = 1024;

/// See [`ModelView::to_json`].
pub struct ModelViewJson<'v, 'a> {
    pub(super) view: &'v ModelView<'a>,
    pub(super) with_payload: bool,
    /// The `result` the view was read from, when the document carries it as `response`.
    pub(super) result: Option<&'v Json>,
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
        map.serialize_entry("error_flag", &view.error_flag)?;
        map.serialize_entry("less_likely_to_help", &view.less_likely_to_help)?;
        match self.result.and_then(|result| pointed(view, result)) {
            Some(pointers) => map.serialize_entry(
                "parts",
                &Parts {
                    blocks: &view.blocks,
                    pointers: &pointers,
                },
            )?,
            None => map.serialize_entry("text", &Streamed(view.joined()))?,
        }
        map.serialize_entry("blocks", &Shapes(&view.blocks))?;
        map.serialize_entry("reason", &view.reason)?;
        map.serialize_entry("notes", &view.notes)?;
        if let Some(thrown) = &view.thrown {
            map.serialize_entry("host_error", thrown)?;
        }
        if let Some(truncation) = &view.truncation {
            map.serialize_entry("truncated", truncation)?;
        }
        if !view.server_called {
            map.serialize_entry("server_called", &false)?;
        }
        if self.with_payload {
            map.serialize_entry("payload", &view.payload_stream())?;
        }
        map.end()
    }
}

/// The blocks as `call --json` describes them (kind and size), serialized one by one.
struct Shapes<'v, 'a>(&'v Blocks<'a>);

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum BlockShape<'v> {
    Text { bytes: usize },
    Media { text: &'v str },
    Placeholder { text: &'v str },
    Json { bytes: usize },
    Structured { bytes: usize },
}

impl Serialize for Shapes<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for block in self.0 {
            seq.serialize_element(&match &*block {
                Block::Text { .. } => BlockShape::Text { bytes: block.len() },
                Block::Media { label, .. } => BlockShape::Media { text: label },
                Block::Placeholder { text } => BlockShape::Placeholder { text },
                Block::Json { .. } => BlockShape::Json { bytes: block.len() },
                Block::Structured { .. } => BlockShape::Structured { bytes: block.len() },
            })?;
        }
        seq.end()
    }
}

/// A `Display` value serialized as a JSON string without building it first.
struct Streamed<T>(T);

impl<T: fmt::Display> Serialize for Streamed<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

/// For each block, the JSON pointer (into `response`) of the long response string it is
/// unchanged; `None` when no block is one, or the host cuts the text (what it keeps differs).
fn pointed(view: &ModelView, result: &Json) -> Option<Vec<Option<String>>> {
    if view.truncation.is_some() {
        return None;
    }
    let call = CallResult::read(result);
    // Most views point at nothing: asked first, so a million small blocks cost no list.
    if !view
        .blocks
        .iter()
        .any(|block| pointer(&block, &call).is_some())
    {
        return None;
    }
    Some(
        view.blocks
            .iter()
            .map(|block| pointer(&block, &call))
            .collect(),
    )
}

/// Where in the response `block` is, unchanged and long: a text block's string, or a value
/// the host writes as its compact JSON text when the server already sent it compact.
fn pointer(block: &Block, call: &CallResult) -> Option<String> {
    let same = |a: &str, b: &str| a.as_ptr() == b.as_ptr() && a.len() == b.len();
    match block {
        Block::Text { text } if text.len() >= POINTED_BYTES => {
            // Borrowed text is the string as received (an escaped one is decoded, a copy).
            let std::borrow::Cow::Borrowed(text) = text else {
                return None;
            };
            call.blocks().enumerate().find_map(|(i, source)| {
                let kept = block_text(source)?;
                matches!(kept, std::borrow::Cow::Borrowed(kept) if same(kept, text))
                    .then(|| format!("/result/content/{i}/text"))
            })
        }
        Block::Structured { json } if json.len() >= POINTED_BYTES => {
            let compact = Compact(json).len() == json.len();
            (compact && call.structured.is_some_and(|sent| same(sent, json)))
                .then(|| "/result/structuredContent".to_owned())
        }
        Block::Json { json } if json.len() >= POINTED_BYTES => {
            let compact = Compact(json).len() == json.len();
            call.blocks()
                .position(|source| compact && same(source, json))
                .map(|i| format!("/result/content/{i}"))
        }
        _ => None,
    }
}

/// The text as parts: runs of what is written here (`{"text": …}`, blocks joined by newlines,
/// streamed) and pointers into the response (`{"from": "/result/content/0/text"}`).
struct Parts<'v, 'a> {
    blocks: &'v Blocks<'a>,
    pointers: &'v [Option<String>],
}

#[derive(Serialize)]
struct From<'p> {
    from: &'p str,
}

#[derive(Serialize)]
struct Written<T: Serialize> {
    text: T,
}

/// Blocks written in a run (`count` of them from where `from` stands), with the newlines that
/// join them to their neighbours.
struct Run<'v, 'a> {
    from: Iter<'v, 'a>,
    count: usize,
    newline_before: bool,
    newline_after: bool,
}

impl fmt::Display for Run<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.newline_before {
            f.write_str("\n")?;
        }
        super::truncation::write_blocks(self.from.clone().take(self.count), f)?;
        if self.newline_after {
            f.write_str("\n")?;
        }
        Ok(())
    }
}

impl Serialize for Parts<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        // `start`: the first block not yet written; `after_pointer`: a pointed block is before it.
        // `cursor` stands at block `start`; one walk of the blocks in all.
        let (mut cursor, mut start, mut after_pointer) = (self.blocks.iter(), 0, false);
        for (at, pointer) in self.pointers.iter().enumerate() {
            let Some(pointer) = pointer else {
                continue;
            };
            let count = at - start;
            if count > 0 || after_pointer {
                seq.serialize_element(&Written {
                    text: Streamed(Run {
                        from: cursor.clone(),
                        count,
                        newline_before: after_pointer,
                        newline_after: count > 0,
                    }),
                })?;
            }
            seq.serialize_element(&From { from: pointer })?;
            cursor.nth(count);
            (start, after_pointer) = (at + 1, true);
        }
        if start < self.blocks.len() {
            seq.serialize_element(&Written {
                text: Streamed(Run {
                    from: cursor,
                    count: self.blocks.len() - start,
                    newline_before: after_pointer,
                    newline_after: false,
                }),
            })?;
        }
        seq.end()
    }
}
