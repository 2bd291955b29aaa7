//! The `model_view` object of `call --json`, serialized as it is written: the text once,
//! streamed; the blocks by size; the host's payload only when asked for.

use std::fmt;

use serde::Serialize;

use super::{Block, ModelView};

/// See [`ModelView::to_json`].
pub struct ModelViewJson<'v, 'a> {
    pub(super) view: &'v ModelView<'a>,
    pub(super) with_payload: bool,
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
        map.serialize_entry("text", &Streamed(view.joined()))?;
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
struct Shapes<'v, 'a>(&'v [Block<'a>]);

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
        serializer.collect_seq(self.0.iter().map(|block| match block {
            Block::Text { .. } => BlockShape::Text { bytes: block.len() },
            Block::Media { label, .. } => BlockShape::Media { text: label },
            Block::Placeholder { text } => BlockShape::Placeholder { text },
            Block::Json { .. } => BlockShape::Json { bytes: block.len() },
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
