//! Makes server-supplied text safe for a terminal, one rule for every output: control
//! characters (C0, C1, CR), escape sequences, bidirectional overrides, invisible (default
//! ignorable) and unassigned code points, noncharacters included, are shown as visible escapes,
//! never interpreted or hidden (`zero\u{200b}width` cannot pass for `zerowidth`); characters
//! whose width a terminal cannot be trusted with (private use, piled-up combining marks) too, so
//! they cannot push a pane's border out of line.

use std::borrow::Cow;
use std::fmt::Write;
use std::io;

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_width::UnicodeWidthChar;

/// Zero-width characters kept after one printing character; more pile up over their
/// neighbours' cells.
const MAX_MARKS: usize = 2;

/// Whether a character could change what the terminal shows beyond printing itself, or
/// print as nothing at all.
fn is_unsafe(c: char) -> bool {
    c.is_control() // C0, DEL and C1 (including ESC and CSI)
        || matches!(c,
            // bidirectional embeddings, overrides, isolates and marks
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
            // line and paragraph separators
            | '\u{2028}' | '\u{2029}')
        || is_default_ignorable(c)
        // Unassigned, noncharacters (U+FFFF, U+10FFFF…) among them: no width to trust.
        || get_general_category(c) == GeneralCategory::Unassigned
}

/// Unicode's `Default_Ignorable_Code_Point` (`DerivedCoreProperties.txt`): printed as nothing, so
/// they can hide text or leave a cell the terminal does not draw. The emoji joiner and the
/// emoji presentation selectors stay, as emoji need them.
fn is_default_ignorable(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}' | '\u{200C}' | '\u{200E}' | '\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{3164}'
        | '\u{FE00}'..='\u{FE0D}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// Private-use characters: fonts draw them one or two cells wide, as they please.
fn is_private_use(c: char) -> bool {
    matches!(c, '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}')
}

/// Each character of `input`, and whether it must be shown as an escape: unsafe or
/// private-use characters, and combining marks with nothing to sit on or piled past
/// [`MAX_MARKS`]. Emoji joiners and variation selectors stay.
fn screened(input: &str) -> impl Iterator<Item = (char, bool)> + '_ {
    // Marks since the last printing character; `None` before any.
    let mut marks: Option<usize> = None;
    input.chars().map(move |c| {
        let width = c.width();
        let escape = if is_unsafe(c) || is_private_use(c) {
            true
        } else if width == Some(0) && !matches!(c, '\u{200D}' | '\u{FE0E}' | '\u{FE0F}') {
            match marks {
                Some(count) if count < MAX_MARKS => {
                    marks = Some(count + 1);
                    false
                }
                Some(_) | None => true,
            }
        } else {
            false
        };
        if !escape && width.is_some_and(|w| w > 0) {
            marks = Some(0);
        }
        (c, escape)
    })
}

/// Plain text: unsafe characters become `\u{…}` (tabs and newlines become `\t`, `\n`).
pub fn text(input: &str) -> Cow<'_, str> {
    if !screened(input).any(|(_, escape)| escape) {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len() + 8);
    for (c, escape) in screened(input) {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if escape => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Multi-line text: like [`text`], but newlines stay newlines.
pub fn text_keeping_newlines(input: &str) -> String {
    input.split('\n').map(text).collect::<Vec<_>>().join("\n")
}

/// JSON text: unsafe characters inside strings become JSON `\uXXXX` escapes, so the JSON
/// value is unchanged. (Outside strings, valid JSON has only whitespace: a raw CR there
/// becomes a space, so that it cannot send the cursor back over the line.)
pub fn json(input: &str) -> Cow<'_, str> {
    let kept_whitespace = |c: char| matches!(c, '\n' | '\t');
    if !screened(input).any(|(c, escape)| escape && !kept_whitespace(c)) {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len() + 8);
    for (c, escape) in screened(input) {
        if c == '\r' {
            out.push(' ');
        } else if escape && !kept_whitespace(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether a character must be escaped in JSON text, one at a time (a stream cannot count
/// combining marks across writes).
fn is_unsafe_in_json(c: char) -> bool {
    (is_unsafe(c) || is_private_use(c)) && c != '\n' && c != '\t' && c != '\r'
}

/// A writer of JSON text that applies [`json`] as the bytes stream through, so a large
/// document is made terminal-safe without being held in memory. Feed it whole UTF-8 text
/// (as `serde_json` writes); a character split across writes is joined first.
#[derive(Debug)]
pub struct JsonWriter<W: io::Write> {
    inner: W,
    /// The start of a character whose remaining bytes have not arrived yet.
    partial: Vec<u8>,
}

impl<W: io::Write> JsonWriter<W> {
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            partial: Vec::new(),
        }
    }

    fn write_text(&mut self, text: &str) -> io::Result<()> {
        let bytes = text.as_bytes();
        let mut clean = 0;
        let mut at = 0;
        loop {
            // Printable ASCII, newline and tab are safe: runs of them are skipped a byte at a
            // time, without decoding a character (a 50 MiB frame is mostly such a run).
            at += bytes[at..]
                .iter()
                .position(|&byte| !matches!(byte, b' '..=b'~' | b'\n' | b'\t'))
                .unwrap_or(bytes.len() - at);
            let Some(c) = text[at..].chars().next() else {
                break;
            };
            // A raw CR is whitespace between tokens (inside a string it is escaped): a space
            // keeps the value and cannot send the cursor back over the line, whoever reads it.
            if c == '\r' {
                self.inner.write_all(&bytes[clean..at])?;
                self.inner.write_all(b" ")?;
                clean = at + 1;
            } else if is_unsafe_in_json(c) {
                self.inner.write_all(&bytes[clean..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(self.inner, "\\u{unit:04x}")?;
                }
                clean = at + c.len_utf8();
            }
            at += c.len_utf8();
        }
        self.inner.write_all(&bytes[clean..])
    }
}

impl<W: io::Write> io::Write for JsonWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let joined;
        let input = if self.partial.is_empty() {
            bytes
        } else {
            self.partial.extend_from_slice(bytes);
            joined = std::mem::take(&mut self.partial);
            &joined
        };
        match std::str::from_utf8(input) {
            Ok(text) => self.write_text(text)?,
            Err(error) => {
                let (valid, rest) = input.split_at(error.valid_up_to());
                // `valid` was just checked to be UTF-8.
                self.write_text(std::str::from_utf8(valid).unwrap_or_default())?;
                match error.error_len() {
                    None => self.partial = rest.to_vec(),
                    // Not UTF-8 at all: not ours to judge, passed on as it is.
                    Some(_) => self.inner.write_all(rest)?,
                }
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let partial = std::mem::take(&mut self.partial);
        self.inner.write_all(&partial)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    #[test]
    fn the_json_writer_escapes_like_json_even_across_split_writes() {
        let raw = "{\"t\":\"\u{9b}2J\u{202e}x é\"}";
        let mut out = JsonWriter::new(Vec::new());
        for byte in raw.as_bytes() {
            out.write_all(std::slice::from_ref(byte)).unwrap();
        }
        out.flush().unwrap();
        assert_eq!(String::from_utf8(out.inner).unwrap(), json(raw));
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(text("ok"), "ok");
        assert_eq!(text("\u{1b}[31mred\u{7}"), "\\u{1b}[31mred\\u{7}");
        assert_eq!(text("a\nb\u{9b}c\u{202e}"), "a\\nb\\u{9b}c\\u{202e}");
    }

    #[test]
    fn a_raw_cr_between_tokens_becomes_a_space_on_every_output() {
        let raw = "{\r\"a\":\r1}";
        let mut out = JsonWriter::new(Vec::new());
        out.write_all(raw.as_bytes()).unwrap();
        let shown = String::from_utf8(out.inner).unwrap();
        assert_eq!(shown, "{ \"a\": 1}");
        assert_eq!(json(raw), shown);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&shown).unwrap(),
            serde_json::from_str::<serde_json::Value>(raw).unwrap()
        );
    }

    #[test]
    fn characters_of_untrusted_width_cannot_break_a_border() {
        assert_eq!(text("tool\u{e0a0}x"), "tool\\u{e0a0}x", "private use");
        assert_eq!(
            text("\u{301}a"),
            "\\u{301}a",
            "a mark with nothing under it"
        );
        assert_eq!(text("e\u{301}"), "e\u{301}", "one mark on a letter stays");
        assert_eq!(
            text("a\u{300}\u{301}\u{302}\u{303}"),
            "a\u{300}\u{301}\\u{302}\\u{303}",
            "a pile is cut after two"
        );
        assert_eq!(
            text("b\u{302}c\u{303}"),
            "b\u{302}c\u{303}",
            "each letter has its own"
        );
        let json_text = json("{\"n\":\"\u{e0a0}\"}");
        assert_eq!(json_text, "{\"n\":\"\\ue0a0\"}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&json_text).unwrap()["n"],
            "\u{e0a0}"
        );
    }

    #[test]
    fn invisible_characters_become_visible() {
        assert_eq!(text("zero\u{200b}width"), "zero\\u{200b}width");
        for c in [
            '\u{feff}', '\u{2060}', '\u{61c}', '\u{2028}', '\u{2029}', '\u{ad}',
        ] {
            assert!(text(&format!("a{c}b")).contains("\\u{"), "{c:?}");
        }
        // Noncharacters, unassigned code points, Hangul fillers and tag characters: invisible
        // or of no trustworthy width.
        for c in [
            '\u{ffff}',
            '\u{10ffff}',
            '\u{fdd0}',
            '\u{d7ff}',
            '\u{115f}',
            '\u{1160}',
            '\u{3164}',
            '\u{e0041}',
            '\u{e007f}',
        ] {
            let shown = text(&format!("a{c}b")).into_owned();
            assert_eq!(shown, format!("a\\u{{{:x}}}b", u32::from(c)), "{c:?}");
            let in_json = json(&format!("\"{c}\"")).into_owned();
            assert!(in_json.starts_with("\"\\u"), "{c:?}: {in_json}");
            let mut streamed = JsonWriter::new(Vec::new());
            streamed.write_all(format!("\"{c}\"").as_bytes()).unwrap();
            assert_eq!(String::from_utf8(streamed.inner).unwrap(), in_json);
        }
        // Joiners inside emoji and ordinary non-ASCII text are left alone.
        assert_eq!(text("👩\u{200d}💻 café"), "👩\u{200d}💻 café");
    }

    #[test]
    fn json_stays_the_same_value() {
        let raw = "{\"t\":\"\u{9b}2J\u{202e}x\"}";
        let safe = json(raw);
        assert_eq!(safe, "{\"t\":\"\\u009b2J\\u202ex\"}");
        let a: serde_json::Value = serde_json::from_str(raw).unwrap();
        let b: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(a, b);
        assert_eq!(json("{\n  \"a\": 1\n}"), "{\n  \"a\": 1\n}");
    }
}
