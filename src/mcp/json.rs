//! JSON kept as the text it arrived in and read on demand: a reply of a million small values
//! costs its bytes, not a tree of a million nodes. Readers walk text already checked by
//! [`check`], so they only split it; they never panic on text that was not checked.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::SharedText;

/// A JSON value as text, sharing the frame it came in (a clone costs a reference count).
#[derive(Clone)]
pub struct Json {
    source: SharedText,
    start: usize,
    end: usize,
}

impl Json {
    /// The part of `source` that is `part`; `None` when `part` does not lie inside it.
    pub fn within(source: &SharedText, part: &str) -> Option<Json> {
        let start = (part.as_ptr() as usize).checked_sub(source.as_ptr() as usize)?;
        let end = start + part.len();
        (end <= source.len()).then(|| Json {
            source: Arc::clone(source),
            start,
            end,
        })
    }

    /// A value we build ourselves (requests, the demo server's replies, tests).
    pub fn from_value(value: &Value) -> Json {
        let text = Arc::new(value.to_string());
        Json {
            end: text.len(),
            source: text,
            start: 0,
        }
    }

    /// JSON text we wrote ourselves (joined from values already read).
    pub fn from_text(text: String) -> Json {
        let text = Arc::new(text);
        Json {
            end: text.len(),
            source: text,
            start: 0,
        }
    }

    /// The value's text, exactly as it was received.
    pub fn text(&self) -> &str {
        &self.source[self.start..self.end]
    }

    /// The value parsed whole: for small values only (`null` if it cannot be read).
    pub fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }

    /// The member `name` of an object (the last one, when a name repeats, as parsers keep).
    pub fn get(&self, name: &str) -> Option<Json> {
        self.part(member(self.text(), name)?)
    }

    /// The elements of an array, as text.
    pub fn elements(&self) -> Option<Elements<'_>> {
        elements(self.text())
    }

    pub fn as_str(&self) -> Option<Cow<'_, str>> {
        string(self.text())
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.text() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        serde_json::from_str(self.text()).ok()
    }

    pub fn is_object(&self) -> bool {
        self.text().starts_with('{')
    }

    pub fn is_array(&self) -> bool {
        self.text().starts_with('[')
    }

    /// A sub-slice of this value's text as a value of its own.
    pub fn part(&self, part: &str) -> Option<Json> {
        Json::within(&self.source, part)
    }
}

impl From<Value> for Json {
    fn from(value: Value) -> Json {
        Json::from_value(&value)
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// Equal when they mean the same JSON (the wire's spacing aside).
impl PartialEq for Json {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text() || self.value() == other.value()
    }
}

/// Written as the text it is, byte for byte.
impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue =
            serde_json::from_str(self.text()).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let text = Arc::new(String::from(raw.get()));
        Ok(Json {
            end: text.len(),
            source: text,
            start: 0,
        })
    }
}

/// Checks that `text` is one JSON value by the rules a full parse applies (strings free of
/// raw controls and lone surrogates, numbers within `f64`, nesting under 128), building
/// nothing.
pub fn check(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<Checked>(text).map(|_| ())
}

struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Checked)
    }
}

impl<'de> Visitor<'de> for Checked {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        while map.next_key::<Checked>()?.is_some() {
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

/// The value of member `name` in the object `text` (the last, when a name repeats).
pub fn member<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    members(text)?
        .filter(|(key, _)| key_is(key, name))
        .last()
        .map(|(_, value)| value)
}

/// Whether the quoted key `key` (as written, quotes included) names `name`.
fn key_is(key: &str, name: &str) -> bool {
    let inner = &key[1..key.len() - 1];
    if inner.contains('\\') {
        string(key).is_some_and(|decoded| decoded == name)
    } else {
        inner == name
    }
}

/// The text of a JSON string, unescaped only when it has escapes.
pub fn string(text: &str) -> Option<Cow<'_, str>> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(text).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// The members of an object: each key as written (quoted) and its value's text.
pub fn members(text: &str) -> Option<Members<'_>> {
    let at = inside(text, b'{')?;
    Some(Members {
        text,
        at,
        done: false,
    })
}

/// The elements of an array, each as its text.
pub fn elements(text: &str) -> Option<Elements<'_>> {
    let at = inside(text, b'[')?;
    Some(Elements {
        text,
        at,
        done: false,
    })
}

/// Just past the opening bracket, when `text` is a container that opens with `open`.
fn inside(text: &str, open: u8) -> Option<usize> {
    let at = skip_space(text.as_bytes(), 0);
    (text.as_bytes().get(at) == Some(&open)).then_some(at + 1)
}

/// JSON text written without the whitespace between tokens, as a serializer would write it.
#[derive(Debug, Clone, Copy)]
pub struct Compact<'a>(pub &'a str);

/// Follows JSON text byte by byte: which bytes are spacing between tokens (outside strings).
#[derive(Default)]
struct Spacing {
    in_string: bool,
    escaped: bool,
}

impl Spacing {
    fn is_spacing(&mut self, byte: u8) -> bool {
        if self.in_string {
            match (self.escaped, byte) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                (false, _) => {}
            }
            false
        } else {
            self.in_string = byte == b'"';
            matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
        }
    }
}

impl Compact<'_> {
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let mut spacing = Spacing::default();
        self.0
            .bytes()
            .filter(move |&byte| !spacing.is_spacing(byte))
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.bytes().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Display for Compact<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Spacing is ASCII, so every run between two removed bytes is whole UTF-8.
        let mut spacing = Spacing::default();
        let mut start = 0;
        for (i, byte) in self.0.bytes().enumerate() {
            if spacing.is_spacing(byte) {
                f.write_str(&self.0[start..i])?;
                start = i + 1;
            }
        }
        f.write_str(&self.0[start..])
    }
}

/// Whether two JSON texts mean the same value. Texts that differ only in spacing are compared
/// without parsing; others are parsed, when small enough to parse cheaply.
pub fn same(a: &str, b: &str) -> bool {
    const PARSE_LIMIT: usize = 1 << 20;
    if Compact(a).bytes().eq(Compact(b).bytes()) {
        return true;
    }
    a.len() <= PARSE_LIMIT
        && b.len() <= PARSE_LIMIT
        && matches!(
            (serde_json::from_str::<Value>(a), serde_json::from_str::<Value>(b)),
            (Ok(a), Ok(b)) if a == b
        )
}

/// See [`members`].
pub struct Members<'a> {
    text: &'a str,
    at: usize,
    done: bool,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let Some((key, value, next)) = next_member(self.text, self.at) else {
            self.done = true;
            return None;
        };
        self.at = next;
        Some((key, value))
    }
}

fn next_member(text: &str, at: usize) -> Option<(&str, &str, usize)> {
    let bytes = text.as_bytes();
    let key_start = skip_space(bytes, at);
    if bytes.get(key_start) != Some(&b'"') {
        return None;
    }
    let key_end = string_end(bytes, key_start)?;
    let colon = skip_space(bytes, key_end);
    if bytes.get(colon) != Some(&b':') {
        return None;
    }
    let value_start = skip_space(bytes, colon + 1);
    let value_end = value_end(bytes, value_start)?;
    let next = after_separator(bytes, value_end, b'}')?;
    Some((
        text.get(key_start..key_end)?,
        text.get(value_start..value_end)?,
        next,
    ))
}

/// The elements of an array from one of them on: `rest` is the array's text from the start of
/// that element to the closing bracket (to walk again a stretch an earlier walk marked).
pub fn elements_from(rest: &str) -> Elements<'_> {
    Elements {
        text: rest,
        at: 0,
        done: false,
    }
}

/// See [`elements`].
#[derive(Debug, Clone)]
pub struct Elements<'a> {
    text: &'a str,
    at: usize,
    done: bool,
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.done {
            return None;
        }
        let bytes = self.text.as_bytes();
        let start = skip_space(bytes, self.at);
        let end = value_end(bytes, start);
        let step = end.and_then(|end| Some((end, after_separator(bytes, end, b']')?)));
        let Some((end, next)) = step else {
            self.done = true;
            return None;
        };
        self.at = next;
        self.text.get(start..end)
    }
}

/// Past the `,` after a value; at the end when the container closes with `close` instead.
fn after_separator(bytes: &[u8], at: usize, close: u8) -> Option<usize> {
    let at = skip_space(bytes, at);
    match bytes.get(at)? {
        b',' => Some(at + 1),
        byte if *byte == close => Some(bytes.len()),
        _ => None,
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end of the string whose opening quote is at `at`. Most strings (keys, types) end within
/// a few bytes, where a plain loop is fastest; a long one is crossed with `memchr`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    const SHORT: usize = 16;
    let mut i = at + 1;
    loop {
        let rest = bytes.get(i..)?;
        let special = |b: &u8| matches!(b, b'"' | b'\\');
        i += match rest.iter().take(SHORT).position(special) {
            Some(offset) => offset,
            None => SHORT + memchr::memchr2(b'"', b'\\', rest.get(SHORT..)?)?,
        };
        match bytes[i] {
            b'"' => return Some(i + 1),
            _ => i += 2,
        }
    }
}

/// The end of the value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        b',' | b'}' | b']' | b':' => None,
        _ => {
            let end = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(bytes.len(), |len| at + len);
            Some(end)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn whole(text: &str) -> Json {
        let source = Arc::new(text.to_owned());
        Json::within(&source, &source).unwrap()
    }

    #[test]
    fn members_and_elements_split_the_text_as_a_parser_reads_it() {
        let text = r#" { "a" : [1, "x,]}", {"b": null}] , "c\"d":true, "a": {"e": -1.5e3} } "#;
        let keys: Vec<_> = members(text).unwrap().map(|(key, _)| key).collect();
        assert_eq!(keys, [r#""a""#, r#""c\"d""#, r#""a""#]);
        assert_eq!(member(text, "a"), Some(r#"{"e": -1.5e3}"#));
        assert_eq!(member(text, "c\"d"), Some("true"));
        assert_eq!(member(text, "z"), None);
        let array = r#"[1, "x,]}", {"b": null}]"#;
        let items: Vec<_> = elements(array).unwrap().collect();
        assert_eq!(items, ["1", r#""x,]}""#, r#"{"b": null}"#]);
        assert_eq!(elements("[ ]").unwrap().count(), 0);
        assert_eq!(members("{}").unwrap().count(), 0);
        assert!(members("[1]").is_none() && elements("{}").is_none());
    }

    #[test]
    fn a_json_value_reads_its_parts_sharing_the_text() {
        let json = whole(r#"{"content":[{"type":"text","text":"a\nb"}],"isError":true,"n":7}"#);
        let block = json.get("content").unwrap();
        let first = block.part(block.elements().unwrap().next().unwrap());
        assert_eq!(
            first.unwrap().get("text").unwrap().as_str().unwrap(),
            "a\nb"
        );
        assert_eq!(json.get("isError").unwrap().as_bool(), Some(true));
        assert_eq!(json.get("n").unwrap().as_i64(), Some(7));
        assert_eq!(json, Json::from_value(&json.value()));
        assert_eq!(
            serde_json::to_string(&json).unwrap(),
            json.text(),
            "written as received"
        );
    }

    #[test]
    fn unchecked_text_gives_nothing_rather_than_a_panic() {
        for text in [
            "{",
            r#"{"a""#,
            r#"{"a":}"#,
            "[1,",
            r#"["x"#,
            "{]",
            "[}",
            r#"{"a":1 "b":2}"#,
        ] {
            let _ = members(text).map(Iterator::count);
            let _ = elements(text).map(Iterator::count);
        }
        assert_eq!(elements("[1,").unwrap().collect::<Vec<_>>(), ["1"]);
    }

    #[test]
    fn compact_text_drops_spacing_outside_strings_only() {
        let text = " { \"a b\" : [ 1 , \"x \\\" y\" ] ,\n\"c\":\ttrue } ";
        let compact = Compact(text).to_string();
        assert_eq!(compact, r#"{"a b":[1,"x \" y"],"c":true}"#);
        assert_eq!(Compact(text).len(), compact.len());
        assert!(
            same(text, r#"{"c":true,"a b":[1,"x \" y"]}"#),
            "member order aside"
        );
        assert!(!same(text, r#"{"a b":[1,"x \" y"],"c":false}"#));
        assert!(!same("1", "[1]"));
    }

    #[test]
    fn check_is_as_strict_as_a_full_parse() {
        let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
        for bad in [
            "{\"a\":\"\u{1b}\"}",
            r#"{"a":"\ud800"}"#,
            r#"{"code":1e400}"#,
            "{} {}",
            &deep,
            "[1,]",
        ] {
            assert!(check(bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
        }
        check(&json!({"a": [1, 2.5, "é", null, {"b": false}]}).to_string()).unwrap();
    }
}
