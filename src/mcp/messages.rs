//! The MCP payloads sightline reads. Lenient by design: the raw JSON is always kept, so an odd
//! field never hides what the server sent.

use serde::Serialize;
use serde_json::Value;

use super::era::META_SERVER_INFO;

/// Who the server says it is (self-reported, unverified).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
}

impl ServerInfo {
    /// Reads an `Implementation` object; missing fields become empty.
    pub fn from_implementation(value: Option<&Value>) -> Self {
        let field = |key: &str| {
            value
                .and_then(|v| v.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Self {
            name: field("name"),
            version: field("version"),
        }
    }

    /// From an `initialize` result (`serverInfo`).
    pub fn from_initialize(result: &Value) -> Self {
        Self::from_implementation(result.get("serverInfo"))
    }

    /// From a `server/discover` result: `_meta` serverInfo, or a top-level `serverInfo`.
    pub fn from_discover(result: &Value) -> Self {
        let meta = result
            .get("_meta")
            .and_then(|meta| meta.get(META_SERVER_INFO));
        Self::from_implementation(meta.or_else(|| result.get("serverInfo")))
    }
}

/// One tool as listed by the server.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    /// The tool object exactly as listed.
    pub raw: Value,
}

impl Tool {
    pub fn input_schema(&self) -> Option<&Value> {
        self.raw.get("inputSchema")
    }

    pub fn description(&self) -> Option<&str> {
        self.raw.get("description").and_then(Value::as_str)
    }

    /// Display name precedence from the schema: `title`, `annotations.title`, then `name`.
    pub fn display_name(&self) -> &str {
        self.raw
            .get("title")
            .and_then(Value::as_str)
            .or_else(|| {
                self.raw
                    .pointer("/annotations/title")
                    .and_then(Value::as_str)
            })
            .unwrap_or(&self.name)
    }
}

/// One page of `tools/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolsPage {
    pub tools: Vec<Tool>,
    /// `nextCursor`, when present and a string.
    pub next_cursor: Option<String>,
}

/// Reads a `tools/list` result; `None` when it has no `tools` array.
pub fn tools_page(result: &Value) -> Option<ToolsPage> {
    let tools = result
        .get("tools")?
        .as_array()?
        .iter()
        .map(|raw| Tool {
            name: raw
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            raw: raw.clone(),
        })
        .collect();
    let next_cursor = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned);
    Some(ToolsPage { tools, next_cursor })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn server_info_comes_from_either_era() {
        let init = json!({"serverInfo": {"name": "a", "version": "1"}});
        assert_eq!(ServerInfo::from_initialize(&init).name, "a");
        let discover = json!({"_meta": {META_SERVER_INFO: {"name": "b", "version": "2"}}});
        assert_eq!(ServerInfo::from_discover(&discover).version, "2");
        assert_eq!(ServerInfo::from_discover(&json!({})), ServerInfo::default());
    }

    #[test]
    fn tools_pages_keep_the_raw_tool_and_the_cursor() {
        let page = tools_page(&json!({
            "tools": [{"name": "x", "annotations": {"title": "Ex"}}, {"title": "no name"}],
            "nextCursor": ""
        }))
        .unwrap();
        assert_eq!(page.tools[0].display_name(), "Ex");
        assert_eq!(page.tools[1].name, "");
        assert_eq!(page.next_cursor.as_deref(), Some(""));
        assert!(tools_page(&json!({"nextCursor": "x"})).is_none());
    }
}
