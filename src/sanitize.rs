//! Makes server-supplied text safe for a terminal: control characters, escape sequences and
//! bidirectional overrides are shown as visible escapes, never interpreted.

use std::borrow::Cow;
use std::fmt::Write;
use std::io;

/// Whether a character could change what the terminal shows beyond printing itself.
fn is_unsafe(c: char) -> bool {
    c.is_control() // C0, DEL and C1 (including ESC and CSI)
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// Plain text: unsafe characters become `\u{…}` (tabs and newlines become `\t`, `\n`).
pub fn text(input: &str) -> Cow<'_, str> {
    if !input.chars().any(is_unsafe) {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len() + 8);
    for c in input.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_unsafe(c) => {
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
/// value is unchanged. (Outside strings, valid JSON has only whitespace.)
pub fn json(input: &str) -> Cow<'_, str> {
    if !input
        .chars()
        .any(|c| is_unsafe(c) && c != '\n' && c != '\t' && c != '\r')
    {
        return Cow::Borrowed(input);
    }
    let mut out = String::with_capacity(input.len() + 8);
    for c in input.chars() {
        if is_unsafe(c) && c != '\n' && c != '\t' && c != '\r' {
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

/// Whether a character must be escaped in JSON text shown on a terminal.
fn is_unsafe_in_json(c: char) -> bool {
    is_unsafe(c) && c != '\n' && c != '\t' && c != '\r'
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
        let mut clean = 0;
        for (at, c) in text.char_indices() {
            if is_unsafe_in_json(c) {
                self.inner.write_all(&text.as_bytes()[clean..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(self.inner, "\\u{unit:04x}")?;
                }
                clean = at + c.len_utf8();
            }
        }
        self.inner.write_all(&text.as_bytes()[clean..])
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
