//! The limits every view shares: how much of a frame is pretty-printed, how much of an
//! oversized one is shown as received, how much of what the model sees is printed, and a line
//! cut to a width.

use std::borrow::Cow;

use serde_json::Value;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::model_view;
use crate::sanitize;

/// Frames up to this size are pretty-printed; larger ones are shown as received, clipped.
pub const PRETTY_LIMIT: usize = 4 * 1024 * 1024;
/// How much of an oversized frame is shown.
pub const RAW_PREVIEW: usize = 64 * 1024;
/// What the model sees, printed or drawn up to this many bytes (the rest is counted).
pub const MODEL_TEXT_BYTES: usize = 16 * 1024;
/// Characters of a frame in a line-oriented log (`-v`); the rest is counted.
pub const LOG_FRAME_CHARS: usize = 4096;

/// `text` cut to `width` columns, with `…` where it was cut.
pub fn fit(text: &str, width: usize) -> Cow<'_, str> {
    if text.width() <= width {
        return Cow::Borrowed(text);
    }
    let mut kept = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        kept.push(c);
        used += w;
    }
    if width > 0 {
        kept.push('…');
    }
    Cow::Owned(kept)
}

/// A frame's text for reading, terminal-safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pretty {
    /// Pretty JSON (or the text as it came, when it is not JSON).
    Whole(String),
    /// Too large to pretty-print: its first bytes as received.
    AsReceived {
        shown: String,
        shown_bytes: usize,
        total: usize,
    },
}

/// `raw` pretty-printed, or its start as received when it is over [`PRETTY_LIMIT`].
pub fn pretty(raw: &str) -> Pretty {
    if raw.len() > PRETTY_LIMIT {
        let shown = model_view::clip(raw, RAW_PREVIEW);
        return Pretty::AsReceived {
            shown: sanitize::json(shown).into_owned(),
            shown_bytes: shown.len(),
            total: raw.len(),
        };
    }
    let text = serde_json::from_str::<Value>(raw)
        .and_then(|value| serde_json::to_string_pretty(&value))
        .unwrap_or_else(|_| raw.to_owned());
    Pretty::Whole(sanitize::json(&text).into_owned())
}

/// The first [`LOG_FRAME_CHARS`] characters of a frame, terminal-safe; the rest is counted,
/// not copied.
pub fn log_frame(raw: &str) -> String {
    let cut = raw.char_indices().nth(LOG_FRAME_CHARS).map(|(at, _)| at);
    let shown = sanitize::text(&raw[..cut.unwrap_or(raw.len())]);
    match cut {
        Some(_) => format!("{shown}… ({} bytes in all)", raw.len()),
        None => shown.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_over_the_limit_is_shown_as_received_and_counted() {
        let raw = format!("[\"{}\"]", "a".repeat(PRETTY_LIMIT));
        let Pretty::AsReceived {
            shown_bytes, total, ..
        } = pretty(&raw)
        else {
            panic!("clipped")
        };
        assert_eq!((shown_bytes, total), (RAW_PREVIEW, raw.len()));
        assert_eq!(
            pretty("{\"a\":1}"),
            Pretty::Whole("{\n  \"a\": 1\n}".into())
        );
    }

    #[test]
    fn a_long_frame_in_the_log_is_cut_at_a_character_and_counted() {
        let raw = "é".repeat(LOG_FRAME_CHARS + 1);
        let shown = log_frame(&raw);
        assert!(shown.ends_with(&format!("… ({} bytes in all)", raw.len())));
        assert_eq!(shown.chars().filter(|c| *c == 'é').count(), LOG_FRAME_CHARS);
    }
}
