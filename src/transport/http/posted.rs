//! What a line we send says about itself: its method, id, name and era, for the headers and
//! for matching its answer.

use crate::mcp::era::{META_PROTOCOL_VERSION, MODERN_VERSIONS};
use crate::mcp::json;
use crate::mcp::jsonrpc::Id;

/// What a line we send says about itself, for the headers and for matching its answer.
pub(super) struct Posted {
    pub(super) method: Option<String>,
    pub(super) id: Option<Id>,
    /// `params.name` (or `params.uri`) for the methods that carry it in `Mcp-Name`.
    pub(super) name: Option<String>,
    /// The `_meta` protocol version of a modern-era request.
    pub(super) modern_version: Option<String>,
}

impl Posted {
    /// No line: a stream the client did not ask for by a request.
    pub(super) fn none() -> Posted {
        Posted {
            method: None,
            id: None,
            name: None,
            modern_version: None,
        }
    }

    /// `#3 (tools/call): `, to open a line about this request.
    pub(super) fn label(&self) -> String {
        match (&self.id, &self.method) {
            (Some(id), Some(method)) => format!("#{id} ({method}): "),
            _ => String::new(),
        }
    }

    pub(super) fn read(line: &str) -> Posted {
        let member = |name| json::member(line, name);
        let method = member("method").and_then(json::string).map(Into::into);
        // A response (no method) carries the id of the server's request, not one of ours.
        let id = member("id")
            .filter(|_| method.is_some())
            .and_then(|id| serde_json::from_str::<Id>(id).ok());
        let params = member("params");
        let name = params.and_then(|params| {
            let key = match method.as_deref() {
                Some("tools/call" | "prompts/get") => "name",
                Some("resources/read") => "uri",
                _ => return None,
            };
            json::string(json::member(params, key)?).map(Into::into)
        });
        let modern_version = params
            .and_then(|params| json::member(params, "_meta"))
            .and_then(|meta| json::member(meta, META_PROTOCOL_VERSION))
            .and_then(json::string)
            .map(Into::into)
            .filter(|version: &String| MODERN_VERSIONS.contains(&version.as_str()));
        Posted {
            method,
            id,
            name,
            modern_version,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outgoing_lines_name_their_headers() {
        let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book_flight","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let read = Posted::read(line);
        assert_eq!(read.method.as_deref(), Some("tools/call"));
        assert_eq!(read.id, Some(Id::Number(3)));
        assert_eq!(read.name.as_deref(), Some("book_flight"));
        assert_eq!(read.modern_version.as_deref(), Some("2026-07-28"));
        let legacy = Posted::read(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(legacy.id.is_none() && legacy.modern_version.is_none());
    }
}
