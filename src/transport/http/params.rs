//! 2026-07-28's `Mcp-Param-*` headers: learnt from the `x-mcp-header` annotations of the tools
//! `tools/list` lists, sent with each call of those tools.

use std::sync::PoisonError;

use super::posted::Posted;
use super::poster::Poster;
use crate::mcp::headers::{header_params, param_headers};
use crate::mcp::json;
use crate::mcp::jsonrpc::{Message, Reply};
use crate::mcp::messages::tools_page;

impl Poster {
    /// `Mcp-Param-*` for a call of tool `name`, from the arguments in `line`.
    pub(super) fn param_headers(&self, name: &str, line: &str) -> Vec<(String, String)> {
        let known = self
            .header_params
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(params) = known.get(name) else {
            return Vec::new();
        };
        let arguments = json::member(line, "params")
            .and_then(|params| json::member(params, "arguments"))
            .and_then(|arguments| serde_json::from_str(arguments).ok())
            .unwrap_or(serde_json::Value::Null);
        param_headers(params, &arguments)
    }

    /// Learns the `x-mcp-header` parameters of the tools in a `tools/list` answer; a tool whose
    /// annotations are invalid gets none (the client marks it rejected).
    pub(super) fn learn_header_params(&self, outgoing: &Posted, message: &Message) {
        let Message::Response {
            reply: Reply::Result(result),
            ..
        } = message
        else {
            return;
        };
        if outgoing.method.as_deref() != Some("tools/list")
            || outgoing.modern_version.is_none()
            || !result.text().contains("x-mcp-header")
        {
            return;
        }
        let Some(page) = tools_page(result) else {
            return;
        };
        let mut known = self
            .header_params
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut catalog = crate::mcp::catalog::Catalog::default();
        let _ = catalog.push_page(page.tools);
        for tool in &catalog {
            let params = tool
                .input_schema()
                .and_then(|schema| header_params(&schema).ok())
                .filter(|params| !params.is_empty());
            match params {
                Some(params) => known.insert(tool.name.to_string(), params),
                None => known.remove(tool.name.as_str()),
            };
        }
    }
}
