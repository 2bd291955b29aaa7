//! HTTP answers without a JSON-RPC one, in words: the status and its body, a connection error,
//! and the reading of a body within a limit.

use std::fmt::Write as _;

use futures_util::StreamExt;
use reqwest::header::{CONTENT_TYPE, HeaderMap};

/// How much of an error body is kept to show.
pub(super) const ERROR_BODY_BYTES: usize = 4096;

pub(super) fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.to_ascii_lowercase().starts_with("text/event-stream"))
}

/// The body, up to `limit` bytes, and whether that was all of it.
pub(super) async fn read_body(response: reqwest::Response, limit: usize) -> (Vec<u8>, bool) {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(Ok(chunk)) = stream.next().await {
        let room = limit.saturating_sub(body.len());
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return (body, false);
        }
        body.extend_from_slice(&chunk);
    }
    (body, true)
}

/// An HTTP status that carried no JSON-RPC answer, in words: what it means, the headers that
/// matter, and how the body starts.
pub(super) fn describe_status(
    status: reqwest::StatusCode,
    headers: &HeaderMap,
    body: &str,
) -> String {
    let meaning = match status.as_u16() {
        202 => "accepted, but a request needs an answer",
        200..=299 => "an answer that is not JSON-RPC",
        401 => "the server wants authorization",
        403 => "the server refused this client (its Origin or credentials)",
        404 => "no MCP endpoint here, or the session has expired",
        405 => "the endpoint does not take this method",
        406 | 415 => "the server would not accept what sightline sent: please report it as a bug",
        400..=499 => "the server rejected the request",
        500..=599 => "the server (or a proxy before it) failed",
        _ => "an unexpected status",
    };
    let mut text = format!("HTTP {status}: {meaning}");
    if let Some(challenge) = headers
        .get("www-authenticate")
        .and_then(|value| value.to_str().ok())
    {
        let _ = write!(text, " (WWW-Authenticate: {challenge})");
    }
    let start: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if !start.is_empty() {
        let clipped: String = start.chars().take(120).collect();
        let more = if clipped.len() < start.len() {
            "…"
        } else {
            ""
        };
        let _ = write!(text, "; the body starts: {clipped}{more}");
    }
    text
}

/// A connection error, in words: refused, DNS, TLS or timeout, with reqwest's own cause.
pub(super) fn words(error: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut causes = Vec::new();
    let mut source = error.source();
    while let Some(cause) = source {
        causes.push(cause.to_string());
        source = cause.source();
    }
    let what = if error.is_timeout() {
        "timed out"
    } else if error.is_connect() {
        "could not connect"
    } else {
        "the request failed"
    };
    match causes.last() {
        Some(cause) => format!("{what}: {cause}"),
        None => format!("{what}: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn statuses_without_an_answer_are_said_in_words() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "www-authenticate",
            HeaderValue::from_static("Bearer realm=\"mcp\""),
        );
        let unauthorized = describe_status(reqwest::StatusCode::UNAUTHORIZED, &headers, "");
        assert_eq!(
            unauthorized,
            "HTTP 401 Unauthorized: the server wants authorization (WWW-Authenticate: Bearer realm=\"mcp\")"
        );
        let page = describe_status(
            reqwest::StatusCode::BAD_GATEWAY,
            &HeaderMap::new(),
            "<html>\n  <h1>502 Bad Gateway</h1></html>",
        );
        assert!(page.starts_with("HTTP 502 Bad Gateway: the server (or a proxy before it) failed"));
        assert!(page.ends_with("the body starts: <html> <h1>502 Bad Gateway</h1></html>"));
    }
}
