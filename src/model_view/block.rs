//! The pieces of what the model reads, how each reads as text, and their list.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

use crate::mcp::json::{self, Compact};
use crate::mcp::messages::block_text;

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

/// The blocks of a view in order. A stretch of the reply's text blocks that reach the model as
/// they are is kept as where it starts and how long it is, and read again when walked: a
/// million of them cost one entry, not a million.
#[derive(Debug, Clone, Default)]
pub struct Blocks<'a> {
    pieces: Vec<Piece<'a>>,
    len: usize,
    /// The reply's text block the last piece holds whole (its index and text): a second one
    /// right after it turns it into a stretch. A text alone stays whole, read once.
    lone: Option<(usize, &'a str)>,
}

#[derive(Debug, Clone)]
enum Piece<'a> {
    One(Block<'a>),
    /// `count` text blocks of the reply in a row, the first of them element `first` of the
    /// content array, `rest` the array's text from it on.
    Texts {
        rest: &'a str,
        first: usize,
        count: usize,
    },
}

impl<'a> Blocks<'a> {
    pub fn one(block: Block<'a>) -> Self {
        Blocks {
            pieces: vec![Piece::One(block)],
            len: 1,
            lone: None,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, block: Block<'a>) {
        self.pieces.push(Piece::One(block));
        self.len += 1;
        self.lone = None;
    }

    /// Element `index` of the content array `content`, whose text is `source`: a text block the
    /// model reads as it is, `text`.
    pub(super) fn push_reply_text(
        &mut self,
        content: &'a str,
        index: usize,
        source: &'a str,
        text: &'a str,
    ) {
        let rest = |source: &str| {
            let at = (source.as_ptr() as usize).saturating_sub(content.as_ptr() as usize);
            content.get(at..).unwrap_or_default()
        };
        match (self.pieces.last_mut(), self.lone.take()) {
            (Some(Piece::Texts { first, count, .. }), _) if *first + *count == index => {
                *count += 1;
            }
            (Some(last @ Piece::One(_)), Some((before, lone))) if before + 1 == index => {
                *last = Piece::Texts {
                    rest: rest(lone),
                    first: before,
                    count: 2,
                };
            }
            _ => {
                self.pieces.push(Piece::One(Block::Text {
                    text: Cow::Borrowed(text),
                }));
                self.lone = Some((index, source));
            }
        }
        self.len += 1;
    }

    pub fn insert_first(&mut self, block: Block<'a>) {
        self.pieces.insert(0, Piece::One(block));
        self.len += 1;
        self.lone = None;
    }

    pub fn iter(&self) -> Iter<'_, 'a> {
        Iter {
            pieces: self.pieces.iter(),
            stretch: None,
        }
    }

    pub fn first(&self) -> Option<Cow<'_, Block<'a>>> {
        self.iter().next()
    }

    /// The one block, when there is exactly one.
    pub fn only(&self) -> Option<Cow<'_, Block<'a>>> {
        (self.len == 1).then(|| self.first()).flatten()
    }

    /// Each block as its own value (for a host that rearranges them, and for tests).
    pub fn to_vec(&self) -> Vec<Block<'a>> {
        self.iter().map(Cow::into_owned).collect()
    }

    /// The total length in bytes as the model reads them, a newline between blocks.
    pub fn joined_len(&self) -> usize {
        self.iter().map(|block| block.len()).sum::<usize>() + self.len.saturating_sub(1)
    }
}

impl<'a> From<Vec<Block<'a>>> for Blocks<'a> {
    fn from(blocks: Vec<Block<'a>>) -> Self {
        Blocks {
            len: blocks.len(),
            pieces: blocks.into_iter().map(Piece::One).collect(),
            lone: None,
        }
    }
}

impl<'s, 'a> IntoIterator for &'s Blocks<'a> {
    type Item = Cow<'s, Block<'a>>;
    type IntoIter = Iter<'s, 'a>;

    fn into_iter(self) -> Iter<'s, 'a> {
        self.iter()
    }
}

impl PartialEq for Blocks<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

/// See [`Blocks::iter`]; cloned, it walks on from where it is.
#[derive(Clone)]
pub struct Iter<'s, 'a> {
    pieces: std::slice::Iter<'s, Piece<'a>>,
    stretch: Option<std::iter::Take<json::Elements<'a>>>,
}

impl<'s, 'a> Iterator for Iter<'s, 'a> {
    type Item = Cow<'s, Block<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(source) = self.stretch.as_mut().and_then(Iterator::next) {
                let text = block_text(source).unwrap_or_default();
                return Some(Cow::Owned(Block::Text { text }));
            }
            self.stretch = None;
            match self.pieces.next()? {
                Piece::One(block) => return Some(Cow::Borrowed(block)),
                Piece::Texts { rest, count, .. } => {
                    self.stretch = Some(json::elements_from(rest).take(*count));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::messages::CallResult;

    /// The blocks of `content` as a host that passes texts and keeps the rest whole would list
    /// them.
    fn listed(content: &str) -> Blocks<'_> {
        let mut blocks = Blocks::default();
        for (index, source) in json::elements(content).into_iter().flatten().enumerate() {
            match block_text(source) {
                Some(Cow::Borrowed(text)) => blocks.push_reply_text(content, index, source, text),
                Some(text) => blocks.push(Block::Text { text }),
                None => blocks.push(Block::Json { json: source }),
            }
        }
        blocks
    }

    #[test]
    fn texts_in_a_row_are_one_entry_and_walk_as_each_block() {
        let content = format!(
            "[{}]",
            vec![r#"{"type":"text","text":"a"}"#; 1000].join(", ")
        );
        let blocks = listed(&content);
        assert_eq!(blocks.pieces.len(), 1);
        assert_eq!(blocks.len(), 1000);
        assert!(
            blocks
                .iter()
                .all(|block| *block == Block::Text { text: "a".into() })
        );
        assert_eq!(blocks.joined_len(), 1999);
    }

    #[test]
    fn a_block_between_texts_breaks_the_stretch_and_keeps_the_order() {
        let content = r#"[{"type":"text","text":"one"},{"type":"image","data":"x"},
            {"type":"text","text":"two"} , {"type":"text","text":"t\u00e9"},{"type":"text","text":"three"}]"#;
        let blocks = listed(content);
        let walked: Vec<String> = blocks.iter().map(|block| block.to_string()).collect();
        assert_eq!(
            walked,
            [
                "one",
                r#"{"type":"image","data":"x"}"#,
                "two",
                "té",
                "three"
            ]
        );
        // "one" whole, the image, "two" whole, "té" (escaped, so decoded), "three" whole: a text
        // alone is held whole, read once.
        assert_eq!(blocks.pieces.len(), 5);
        assert!(
            blocks
                .pieces
                .iter()
                .all(|piece| matches!(piece, Piece::One(_)))
        );
        let call = CallResult {
            content: Some(content),
            ..CallResult::default()
        };
        assert_eq!(call.blocks().count(), blocks.len());
    }

    #[test]
    fn a_walk_picked_up_where_it_stood_goes_on_from_there() {
        let content =
            r#"[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":"text","text":"c"}]"#;
        let blocks = listed(content);
        let mut cursor = blocks.iter();
        cursor.next();
        let rest: Vec<String> = cursor.clone().map(|block| block.to_string()).collect();
        assert_eq!(rest, ["b", "c"]);
        assert_eq!(
            cursor.next().map(|block| block.to_string()).as_deref(),
            Some("b")
        );
    }
}
