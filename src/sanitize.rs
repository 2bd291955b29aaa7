//! Makes server-supplied text safe for a terminal: control characters, escape sequences and
//! bidirectional overrides are shown as visible escapes, never interpreted.

use std::borrow::Cow;
use std::fmt::Write;

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

#[cfg(test)]
mod tests {
    use super::*;

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
