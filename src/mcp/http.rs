//! One HTTP request and its response as the log keeps them, and how their secrets are masked
//! wherever they are shown (headers, OAuth answers).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Serialize;

use super::jsonrpc::Id;

/// One HTTP request and its response, as the wire had them: what the Detail pane, `--json`'s
/// `http` member and the `-v` log show. Secrets are kept here and masked where shown.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct HttpExchange {
    /// `POST`, `GET` or `DELETE`.
    pub method: String,
    pub url: String,
    /// The JSON-RPC request the POST carried (or the GET resumed).
    pub request_id: Option<Id>,
    pub request_headers: Vec<(String, String)>,
    /// `None` when no response came (refused, DNS, TLS, timeout).
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
    /// From sending to the response's headers.
    pub headers_ms: Option<u64>,
    /// From sending to the answer (or to the end of the exchange when nothing answered).
    pub took_ms: u64,
    /// Server-sent events read on this response, and the ids of the first of them.
    pub events: u64,
    pub event_ids: Vec<String>,
    /// Why the exchange failed at the HTTP level, in words.
    pub error: Option<String>,
    /// The response's JSON body, for the requests of an authorization flow (metadata,
    /// registration, token), its secret members already masked: never a token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<serde_json::Value>,
}

/// Members of OAuth answers whose values are secrets.
const SECRET_MEMBERS: [&str; 6] = [
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "registration_access_token",
    "code",
];

/// `value` with every secret member's value masked, at any depth.
pub fn masked_json(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(name, member)| {
                    let shown = if SECRET_MEMBERS.contains(&name.as_str()) {
                        Value::from(MASK)
                    } else {
                        masked_json(member)
                    };
                    (name.clone(), shown)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(masked_json).collect()),
        other => other.clone(),
    }
}

/// Event ids kept per exchange; a longer stream is counted, not kept.
pub const HTTP_EVENT_IDS_KEPT: usize = 32;

/// The mask that replaces a secret.
const MASK: &str = "****";

/// Whether a header's value is a secret: credentials, cookies and anything named like a token
/// or key.
pub fn secret_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        // A DPoP proof is bound to its request, yet replayable for minutes beside a token.
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie" | "dpop"
    ) || [
        "token",
        "secret",
        "api-key",
        "apikey",
        "password",
        "credential",
    ]
    .iter()
    .any(|word| name.contains(word))
}

/// `value` as shown: a secret keeps its scheme word (`Bearer ****`) and nothing else.
pub fn shown_header_value<'a>(name: &str, value: &'a str, show_secrets: bool) -> Cow<'a, str> {
    if show_secrets || !secret_header(name) {
        return Cow::Borrowed(value);
    }
    match value.split_once(' ') {
        Some((scheme, _)) if !scheme.is_empty() => Cow::Owned(format!("{scheme} {MASK}")),
        _ => Cow::Borrowed(MASK),
    }
}

impl HttpExchange {
    /// `POST /mcp → 200 OK · text/event-stream · 3 events · 12 ms`, one line.
    pub fn summary(&self) -> String {
        let path = url_path(&self.url);
        let mut text = format!("{} {path}", self.method);
        match self.status {
            Some(status) => {
                let _ = write!(text, " → {status}");
                if let Some(reason) = status_reason(status) {
                    let _ = write!(text, " {reason}");
                }
            }
            None => text.push_str(" → no response"),
        }
        if let Some(kind) = self.header("content-type") {
            let kind = kind.split(';').next().unwrap_or(kind).trim();
            let _ = write!(text, " · {kind}");
        }
        if self.events > 0 {
            let plural = if self.events == 1 { "" } else { "s" };
            let _ = write!(text, " · {} event{plural}", self.events);
        }
        let _ = write!(text, " · {} ms", self.took_ms);
        if let Some(error) = &self.error {
            let _ = write!(text, " · {error}");
        }
        text
    }

    /// The first response header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.response_headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Every detail, a line each, secrets masked unless `show_secrets`.
    pub fn lines(&self, show_secrets: bool) -> Vec<String> {
        let mut lines = vec![format!("⇄ HTTP {} {}", self.method, self.url)];
        let status = match self.status {
            Some(status) => format!(
                "status {status}{}",
                status_reason(status)
                    .map(|r| format!(" {r}"))
                    .unwrap_or_default()
            ),
            None => "no response".to_owned(),
        };
        let headers_ms = self
            .headers_ms
            .map(|ms| format!(", headers after {ms} ms"))
            .unwrap_or_default();
        lines.push(format!("  {status}{headers_ms}, took {} ms", self.took_ms));
        if let Some(error) = &self.error {
            lines.push(format!("  {error}"));
        }
        if self.events > 0 {
            let ids = if self.event_ids.is_empty() {
                "no ids".to_owned()
            } else {
                let more =
                    usize::try_from(self.events).unwrap_or(usize::MAX) > self.event_ids.len();
                format!(
                    "ids {}{}",
                    self.event_ids.join(", "),
                    if more { ", …" } else { "" }
                )
            };
            lines.push(format!("  {} server-sent events, {ids}", self.events));
        }
        for (title, headers) in [
            ("request headers", &self.request_headers),
            ("response headers", &self.response_headers),
        ] {
            if headers.is_empty() {
                continue;
            }
            lines.push(format!("  {title}:"));
            lines.extend(headers.iter().map(|(name, value)| {
                format!(
                    "    {name}: {}",
                    shown_header_value(name, value, show_secrets)
                )
            }));
        }
        if let Some(body) = &self.body {
            lines.push("  response body:".to_owned());
            let pretty = serde_json::to_string_pretty(body).unwrap_or_default();
            lines.extend(pretty.lines().map(|line| format!("    {line}")));
        }
        lines
    }

    /// The `http` member of `--json`, secrets masked unless `show_secrets`.
    pub fn to_json(&self, show_secrets: bool) -> serde_json::Value {
        let headers = |headers: &[(String, String)]| {
            headers
                .iter()
                .map(|(name, value)| {
                    serde_json::json!([name, shown_header_value(name, value, show_secrets)])
                })
                .collect::<Vec<_>>()
        };
        serde_json::json!({
            "method": self.method,
            "url": self.url,
            "status": self.status,
            "request_headers": headers(&self.request_headers),
            "response_headers": headers(&self.response_headers),
            "headers_ms": self.headers_ms,
            "took_ms": self.took_ms,
            "events": self.events,
            "event_ids": self.event_ids,
            "error": self.error,
            "body": self.body,
        })
    }
}

/// The path (and query) of a URL, for a short line; the URL itself when it has none.
fn url_path(url: &str) -> &str {
    url.split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|at| &rest[at..]))
        .unwrap_or(url)
}

/// The standard reason phrase of the statuses an MCP client meets.
fn status_reason(status: u16) -> Option<&'static str> {
    Some(match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        409 => "Conflict",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange() -> HttpExchange {
        let pair = |name: &str, value: &str| (name.to_owned(), value.to_owned());
        HttpExchange {
            method: "POST".into(),
            url: "http://127.0.0.1:8080/mcp?x=1".into(),
            request_headers: vec![
                pair("authorization", "Bearer s3cr3t"),
                pair("x-api-key", "k3y"),
                pair("mcp-session-id", "abc"),
            ],
            status: Some(200),
            response_headers: vec![
                pair("content-type", "text/event-stream; charset=utf-8"),
                pair("set-cookie", "sid=1"),
            ],
            headers_ms: Some(3),
            took_ms: 12,
            events: 40,
            event_ids: (0..HTTP_EVENT_IDS_KEPT).map(|n| n.to_string()).collect(),
            ..HttpExchange::default()
        }
    }

    #[test]
    fn secrets_are_masked_wherever_shown_unless_asked_for() {
        let http = exchange();
        let lines = http.lines(false).join("\n");
        assert!(lines.contains("authorization: Bearer ****"), "{lines}");
        assert!(lines.contains("x-api-key: ****"), "{lines}");
        assert!(lines.contains("set-cookie: ****"), "{lines}");
        assert!(lines.contains("mcp-session-id: abc"), "{lines}");
        assert!(
            !lines.contains("s3cr3t") && !lines.contains("k3y"),
            "{lines}"
        );
        let json = http.to_json(false).to_string();
        assert!(
            !json.contains("s3cr3t") && json.contains("Bearer ****"),
            "{json}"
        );
        let shown = http.lines(true).join("\n");
        assert!(shown.contains("authorization: Bearer s3cr3t"), "{shown}");
    }

    #[test]
    fn an_authorization_answer_is_kept_with_its_secrets_masked() {
        let answer = serde_json::json!({
            "access_token": "demo-token-x",
            "token_type": "Bearer",
            "refresh_token": "demo-refresh-y",
            "nested": [{"client_secret": "s", "client_id": "c"}],
        });
        let http = HttpExchange {
            body: Some(masked_json(&answer)),
            ..exchange()
        };
        let shown = http.lines(true).join("\n");
        assert!(shown.contains("  response body:"), "{shown}");
        assert!(shown.contains("\"token_type\": \"Bearer\""), "{shown}");
        assert!(shown.contains("\"client_id\": \"c\""), "{shown}");
        for secret in ["demo-token-x", "demo-refresh-y", "\"s\""] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
        assert_eq!(http.to_json(true)["body"]["access_token"], "****");
    }

    #[test]
    fn the_summary_names_path_status_kind_events_and_time() {
        assert_eq!(
            exchange().summary(),
            "POST /mcp?x=1 → 200 OK · text/event-stream · 40 events · 12 ms"
        );
        let refused = HttpExchange {
            method: "POST".into(),
            url: "http://example.com".into(),
            error: Some("could not connect: refused".into()),
            ..HttpExchange::default()
        };
        assert_eq!(
            refused.summary(),
            "POST http://example.com → no response · 0 ms · could not connect: refused"
        );
        let lines = exchange().lines(false);
        assert_eq!(lines[1], "  status 200 OK, headers after 3 ms, took 12 ms");
        assert!(
            lines[2].starts_with("  40 server-sent events, ids 0, 1,") && lines[2].ends_with(", …")
        );
    }
}
