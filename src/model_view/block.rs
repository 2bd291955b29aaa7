//! One piece of what the model reads, and how it reads as text.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

use crate::mcp::json::Compact;

/// One piece of what the model reads; server text is borrowed from the reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Block<'a> {
    /// Text, as the server or the host wrote it.
    Text { text: Cow<'a, str> },
    /// An image, audio or embedded resource the host hands the model as it is, shown by a short
    /// label (the payload carries the block itself).
    Media {
        label: String,
        #[serde(skip)]
        source: &'a str,
    },
    /// A short text standing in for content: the host's words, or sightline's for a block of
    /// a type no host reads.
    Placeholder { text: String },
    /// A content block the host sends as its JSON text.
    Json { json: &'a str },
    /// The `structuredContent` value (its text as received), written compactly for the model.
    Structured { json: &'a str },
}

impl fmt::Display for Block<'_> {
    /// The block as the model reads it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Block::Text { text } => f.write_str(text),
            Block::Media { label, .. } => f.write_str(label),
            Block::Placeholder { text } => f.write_str(text),
            Block::Json { json } | Block::Structured { json } => write!(f, "{}", Compact(json)),
        }
    }
}

impl Block<'_> {
    /// The block's length in bytes as the model reads it.
    pub fn len(&self) -> usize {
        match self {
            Block::Text { text } => text.len(),
            Block::Media { label, .. } => label.len(),
            Block::Placeholder { text } => text.len(),
            Block::Json { json } | Block::Structured { json } => Compact(json).len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
