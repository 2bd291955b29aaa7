//! The MCP payloads sightline reads. Lenient by design: the raw JSON is always kept, so an odd
//! field never hides what the server sent.

use std::borrow::Cow;

use compact_str::CompactString;
use serde::Serialize;
use serde_json::Value;

use super::era::META_SERVER_INFO;
use super::json::{self, Json};

/// Who the server says it is (self-reported, unverified).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

impl ServerInfo {
    /// `name version`, or the name alone when the server gave no version (no double space).
    pub fn label(&self) -> String {
        match (self.name.is_empty(), self.version.is_empty()) {
            (_, true) => self.name.clone(),
            (true, false) => format!("(no name) {}", self.version),
            (false, false) => format!("{} {}", self.name, self.version),
        }
    }

    /// Reads an `Implementation` object; missing fields become empty.
    pub fn from_implementation(value: Option<&Json>) -> Self {
        let field = |key: &str| {
            value
                .and_then(|v| v.get(key))
                .and_then(|v| v.as_str().map(Into::into))
                .unwrap_or_default()
        };
        Self {
            name: field("name"),
            version: field("version"),
        }
    }

    /// From an `initialize` result (`serverInfo`).
    pub fn from_initialize(result: &Json) -> Self {
        Self::from_implementation(result.get("serverInfo").as_ref())
    }

    /// From a `server/discover` result: `_meta` serverInfo, or a top-level `serverInfo`.
    pub fn from_discover(result: &Json) -> Self {
        let meta = result
            .get("_meta")
            .and_then(|meta| meta.get(META_SERVER_INFO));
        Self::from_implementation(meta.or_else(|| result.get("serverInfo")).as_ref())
    }
}

/// One tool as listed by the server: its name, and the tool object as listed (text shared
/// with the page it came in, read when asked).
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// Inline up to 24 bytes: most names cost no allocation of their own.
    pub name: CompactString,
    pub raw: Json,
    /// Why a conforming client drops this tool from the listing (2026-07-28 over HTTP: an
    /// `x-mcp-header` that breaks the spec's constraints); sightline keeps it, marked.
    pub rejected: Option<Box<str>>,
}

impl Tool {
    /// A tool from its JSON object: for tools we define, and for tests.
    pub fn from_value(raw: &Value) -> Tool {
        let name = raw.get("name").and_then(Value::as_str).unwrap_or_default();
        Tool {
            name: name.into(),
            raw: Json::from_value(raw),
            rejected: None,
        }
    }

    /// Why the tool's `x-mcp-header` annotations break the 2026-07-28 constraints, if they do;
    /// schemas without the word are not parsed.
    pub fn header_problem(&self) -> Option<String> {
        if !self.raw.text().contains("x-mcp-header") {
            return None;
        }
        let schema = self.input_schema().unwrap_or(Value::Null);
        super::headers::header_params(&schema).err()
    }

    /// The input schema, parsed (a schema is small, and read only when a tool is used).
    pub fn input_schema(&self) -> Option<Value> {
        self.raw.get("inputSchema").map(|schema| schema.value())
    }

    pub fn description(&self) -> Option<Cow<'_, str>> {
        json::string(json::member(self.raw.text(), "description")?)
    }

    /// Display name precedence from the schema: `title`, `annotations.title`, then `name`.
    pub fn display_name(&self) -> Cow<'_, str> {
        let text = self.raw.text();
        json::member(text, "title")
            .and_then(json::string)
            .or_else(|| {
                let annotations = json::member(text, "annotations")?;
                json::string(json::member(annotations, "title")?)
            })
            .unwrap_or(Cow::Borrowed(&self.name))
    }
}

/// One page of `tools/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolsPage {
    /// The page's `tools` array, as it came.
    pub tools: Json,
    /// `nextCursor`, when present and a string.
    pub next_cursor: Option<String>,
}

/// Reads a `tools/list` result; `None` when it has no `tools` array.
pub fn tools_page(result: &Json) -> Option<ToolsPage> {
    let tools = result.get("tools").filter(Json::is_array)?;
    let next_cursor = result
        .get("nextCursor")
        .and_then(|cursor| cursor.as_str().map(Cow::into_owned));
    Some(ToolsPage { tools, next_cursor })
}

/// A `tools/call` result, read from its text in one pass: only the members sightline looks at,
/// each still text.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallResult<'a> {
    /// The `content` array.
    pub content: Option<&'a str>,
    /// `isError: true`, exactly.
    pub is_error: bool,
    /// The `structuredContent` value.
    pub structured: Option<&'a str>,
}

impl<'a> CallResult<'a> {
    pub fn read(result: &'a Json) -> Self {
        let mut read = CallResult::default();
        for (key, value) in json::members(result.text()).into_iter().flatten() {
            match json::string(key).as_deref() {
                Some("content") => read.content = Some(value),
                Some("isError") => read.is_error = value == "true",
                Some("structuredContent") => read.structured = Some(value),
                _ => {}
            }
        }
        read
    }

    /// The content blocks, each as its text.
    pub fn blocks(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        self.content.and_then(json::elements).into_iter().flatten()
    }

    /// The text of each `text` block.
    pub fn texts(&self) -> impl Iterator<Item = Cow<'a, str>> + use<'a> {
        self.blocks().filter_map(block_text)
    }
}

/// The `type` of a content block.
pub fn block_type(block: &str) -> Option<Cow<'_, str>> {
    json::string(json::member(block, "type")?)
}

/// The text of a `text` content block (empty when it has none); `None` for other blocks.
pub fn block_text(block: &str) -> Option<Cow<'_, str>> {
    let mut kind = None;
    let mut text = None;
    for (key, value) in json::members(block)? {
        match json::string(key).as_deref() {
            Some("type") => kind = Some(value),
            Some("text") => text = Some(value),
            _ => {}
        }
    }
    (kind.and_then(json::string).as_deref() == Some("text"))
        .then(|| text.and_then(json::string).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(value: Value) -> Json {
        value.into()
    }

    #[test]
    fn a_server_without_a_version_is_named_without_a_double_space() {
        let info = |name: &str, version: &str| ServerInfo {
            name: name.into(),
            version: version.into(),
        };
        assert_eq!(info("demo", "1.0").label(), "demo 1.0");
        assert_eq!(info("demo", "").label(), "demo");
        assert_eq!(info("", "2").label(), "(no name) 2");
    }

    #[test]
    fn server_info_comes_from_either_era() {
        let init = read(json!({"serverInfo": {"name": "a", "version": "1"}}));
        assert_eq!(ServerInfo::from_initialize(&init).name, "a");
        let discover = read(json!({"_meta": {META_SERVER_INFO: {"name": "b", "version": "2"}}}));
        assert_eq!(ServerInfo::from_discover(&discover).version, "2");
        assert_eq!(
            ServerInfo::from_discover(&read(json!({}))),
            ServerInfo::default()
        );
    }

    #[test]
    fn a_call_result_is_read_in_one_pass() {
        let result = read(json!({
            "content": [{"type": "text", "text": "a\u{1}"}, {"type": "image", "data": "x"}, {"text": "t", "type": "text"}],
            "isError": true,
            "structuredContent": {"k": 1}
        }));
        let call = CallResult::read(&result);
        assert!(call.is_error);
        assert_eq!(call.blocks().count(), 3);
        assert_eq!(call.texts().collect::<Vec<_>>(), ["a\u{1}", "t"]);
        assert_eq!(call.structured, Some(r#"{"k":1}"#));
        assert_eq!(
            block_type(call.blocks().nth(1).unwrap()).as_deref(),
            Some("image")
        );
        let plain = read(json!({"isError": "true"}));
        assert!(!CallResult::read(&plain).is_error, "only the boolean true");
    }

    #[test]
    fn tools_pages_keep_the_raw_tool_and_the_cursor() {
        let page = tools_page(&read(json!({
            "tools": [{"name": "x", "annotations": {"title": "Ex"}}, {"title": "no name"}],
            "nextCursor": ""
        })))
        .unwrap();
        let mut catalog = crate::mcp::catalog::Catalog::default();
        catalog.push_page(page.tools.clone()).unwrap();
        let tools = catalog.to_vec();
        assert_eq!(tools[0].display_name(), "Ex");
        assert_eq!(tools[1].name, "");
        assert_eq!(page.next_cursor.as_deref(), Some(""));
        assert!(tools_page(&read(json!({"nextCursor": "x"}))).is_none());
    }
}
