//! A JSON config file's text edited in place, pure: one member's value found by its path and
//! replaced, every other byte as it was; the value written in the file's own indentation.

use std::ops::Range;

use serde_json::Value;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};

/// Where the value at `path` (member names from the top) is in `text`, which is valid JSON;
/// `None` when a member is missing. Of repeated names the last counts, as in `JSON.parse`.
pub fn find(text: &str, path: &[&str]) -> Result<Option<Range<usize>>, String> {
    let mut scanner = Scanner { text, at: 0 };
    scanner.space();
    let mut span = scanner.value()?;
    for name in path {
        let mut inner = Scanner {
            text,
            at: span.start,
        };
        match inner.member(name)? {
            Some(found) => span = found,
            None => return Ok(None),
        }
    }
    Ok(Some(span))
}

/// Whether `text` has `//` or `/* */` comments outside its strings (JSONC).
pub fn has_comments(text: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    let mut previous = '\0';
    for c in text.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if previous == '/' && (c == '/' || c == '*') {
            return true;
        }
        previous = if in_string { '\0' } else { c };
    }
    false
}

/// The unit of indentation the file uses: a tab, or the spaces of its first indented line;
/// `None` for a file on one line.
pub fn indentation(text: &str) -> Option<String> {
    let line = text
        .lines()
        .find(|line| line.starts_with([' ', '\t']) && !line.trim().is_empty())?;
    if line.starts_with('\t') {
        return Some("\t".to_owned());
    }
    Some(" ".repeat(line.len() - line.trim_start_matches(' ').len()))
}

/// `value` written to replace the text at `span` of `text`: over several lines in the file's
/// indentation, continuing the line it starts on, when the old value spanned lines; on one
/// line otherwise, spaced as the old one was.
pub fn render(text: &str, span: &Range<usize>, value: &Value) -> Result<String, String> {
    let old = &text[span.clone()];
    let mut out = Vec::new();
    let written = if old.contains('\n') {
        let unit = indentation(text).unwrap_or_else(|| "  ".to_owned());
        let mut serializer =
            Serializer::with_formatter(&mut out, PrettyFormatter::with_indent(unit.as_bytes()));
        serde::Serialize::serialize(value, &mut serializer)
    } else if old.contains(": ") || old.contains(", ") {
        serde::Serialize::serialize(value, &mut Serializer::with_formatter(&mut out, Spaced))
    } else {
        serde::Serialize::serialize(value, &mut Serializer::new(&mut out))
    };
    written.map_err(|error| format!("cannot write the entry: {error}"))?;
    let rendered = String::from_utf8(out).map_err(|error| error.to_string())?;
    let line_start = text[..span.start].rfind('\n').map_or(0, |at| at + 1);
    let prefix: String = text[line_start..span.start]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    Ok(rendered.replace('\n', &format!("\n{prefix}")))
}

/// `text` with `span` replaced by `with`.
pub fn splice(text: &str, span: &Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..span.start]);
    out.push_str(with);
    out.push_str(&text[span.end..]);
    out
}

/// One line, `{"a": 1, "b": [2, 3]}`.
struct Spaced;

impl Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// Spans of valid JSON text.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        self.space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!(
                "expected '{}' at byte {}",
                char::from(byte),
                self.at
            ))
        }
    }

    /// The span of the value starting here (after any space).
    fn value(&mut self) -> Result<Range<usize>, String> {
        self.space();
        let start = self.at;
        match self.peek() {
            Some(b'{') => self.each(b'}', |scanner| {
                scanner.string()?;
                scanner.expect(b':')?;
                scanner.value().map(|_| ())
            })?,
            Some(b'[') => self.each(b']', |scanner| scanner.value().map(|_| ()))?,
            Some(b'"') => {
                self.string()?;
            }
            Some(_) => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n')
                ) {
                    self.at += 1;
                }
            }
            None => return Err("unexpected end of the file".into()),
        }
        Ok(start..self.at)
    }

    /// An object or array from its opening bracket to `close`, `item` read for each element.
    fn each(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        self.at += 1;
        self.space();
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(byte) if byte == close => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(format!("expected ',' at byte {}", self.at)),
            }
        }
    }

    /// A string's span, quotes included.
    fn string(&mut self) -> Result<Range<usize>, String> {
        self.space();
        let start = self.at;
        if self.peek() != Some(b'"') {
            return Err(format!("expected a string at byte {start}"));
        }
        self.at += 1;
        loop {
            match self.peek() {
                Some(b'\\') => self.at += 2,
                Some(b'"') => {
                    self.at += 1;
                    return Ok(start..self.at);
                }
                Some(_) => self.at += 1,
                None => return Err("a string without its end".into()),
            }
        }
    }

    /// In the object starting here, the span of the value of member `name` (the last of that
    /// name); `None` when it has none, or this is not an object.
    fn member(&mut self, name: &str) -> Result<Option<Range<usize>>, String> {
        self.space();
        if self.peek() != Some(b'{') {
            return Ok(None);
        }
        let text = self.text;
        let mut found = None;
        self.each(b'}', |scanner| {
            let key = scanner.string()?;
            scanner.expect(b':')?;
            let value = scanner.value()?;
            let key: String =
                serde_json::from_str(&text[key]).map_err(|error| error.to_string())?;
            if key == name {
                found = Some(value);
            }
            Ok(())
        })?;
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n    \"b\\\"q\": {\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"s\"]\n    }\n  },\n  \"n\": [1, {\"mcpServers\": 2}]\n}\n";

    #[test]
    fn a_member_is_found_by_its_path_whatever_its_name_escapes() {
        let span = find(FILE, &["mcpServers", "a"]).unwrap().unwrap();
        assert_eq!(&FILE[span], r#"{"command": "x"}"#);
        let span = find(FILE, &["mcpServers", "b\"q", "args"])
            .unwrap()
            .unwrap();
        assert_eq!(&FILE[span], r#"["-y", "s"]"#);
        assert_eq!(find(FILE, &["mcpServers", "c"]).unwrap(), None);
        assert_eq!(find(FILE, &["theme", "x"]).unwrap(), None);
        let span = find(FILE, &[]).unwrap().unwrap();
        assert_eq!(span, 0..FILE.len() - 1);
        // The last of repeated names, as JSON.parse and serde_json read it.
        let twice = r#"{"a": 1, "a": {"b": true}}"#;
        assert_eq!(
            &twice[find(twice, &["a"]).unwrap().unwrap()],
            r#"{"b": true}"#
        );
    }

    #[test]
    fn indentation_is_the_first_indented_line_s() {
        assert_eq!(indentation(FILE).as_deref(), Some("  "));
        assert_eq!(
            indentation("{\n    \"a\": {\n        \"b\": 1\n    }\n}").as_deref(),
            Some("    ")
        );
        assert_eq!(
            indentation("{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}").as_deref(),
            Some("\t")
        );
        assert_eq!(indentation(r#"{"a": 1}"#), None);
    }

    #[test]
    fn comments_are_seen_outside_strings_only() {
        assert!(has_comments("{\n  // mine\n  \"a\": 1\n}"));
        assert!(has_comments("{ /* x */ \"a\": 1 }"));
        assert!(!has_comments(
            r#"{"url": "https://example.com/mcp", "p": "a/*b"}"#
        ));
        assert!(!has_comments(r#"{"a": "\"//\""}"#));
    }

    #[test]
    fn a_value_is_written_in_the_style_of_the_one_it_replaces() {
        let value: Value = serde_json::json!({"command": "s", "args": ["proxy", "--"]});
        let span = find(FILE, &["mcpServers", "b\"q"]).unwrap().unwrap();
        assert_eq!(
            render(FILE, &span, &value).unwrap(),
            "{\n      \"command\": \"s\",\n      \"args\": [\n        \"proxy\",\n        \"--\"\n      ]\n    }"
        );
        let span = find(FILE, &["mcpServers", "a"]).unwrap().unwrap();
        assert_eq!(
            render(FILE, &span, &value).unwrap(),
            r#"{"command": "s", "args": ["proxy", "--"]}"#
        );
        let compact = r#"{"mcpServers":{"a":{"command":"x"}}}"#;
        let span = find(compact, &["mcpServers", "a"]).unwrap().unwrap();
        let edited = splice(compact, &span, &render(compact, &span, &value).unwrap());
        assert_eq!(
            edited,
            r#"{"mcpServers":{"a":{"command":"s","args":["proxy","--"]}}}"#
        );
        let tabs = "{\n\t\"mcpServers\": {\n\t\t\"a\": {\n\t\t\t\"command\": \"x\"\n\t\t}\n\t}\n}";
        let span = find(tabs, &["mcpServers", "a"]).unwrap().unwrap();
        assert_eq!(
            render(tabs, &span, &serde_json::json!({"command": "y"})).unwrap(),
            "{\n\t\t\t\"command\": \"y\"\n\t\t}"
        );
    }
}
