//! Streamable HTTP, the client side: every line a POST to one endpoint; the answer a JSON body or
//! an event stream whose events are lines; an HTTP status without a JSON-RPC body becomes the
//! failure of its request, said in words. Legacy sessions (`Mcp-Session-Id`, the negotiated
//! `MCP-Protocol-Version`) and the modern era's per-request headers are kept here, read from
//! the lines themselves.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};

use super::{EVENT_CAPACITY, OUTGOING_CAPACITY, Transport, TransportError, TransportEvent, now};
use crate::mcp::era::{META_PROTOCOL_VERSION, MODERN_VERSIONS};
use crate::mcp::framing::{Line, decode};
use crate::mcp::json;
use crate::mcp::jsonrpc::{Id, Message, Reply};
use crate::mcp::sse::{SseItem, SseParser};

/// How long connecting may take; an answer itself may take as long as the client waits.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of an error body is kept to show.
const ERROR_BODY_BYTES: usize = 4096;
/// How long the session's `DELETE` may take at shutdown.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);

/// A Streamable HTTP endpoint and the headers to send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    pub url: String,
    /// `-H 'Name: value'`, in order.
    pub headers: Vec<(String, String)>,
}

impl HttpTarget {
    /// `http: example.com:8080` — the host, for the status line.
    pub fn display(&self) -> String {
        let host = reqwest::Url::parse(&self.url)
            .ok()
            .and_then(|url| {
                let host = url.host_str()?.to_owned();
                Some(match url.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host,
                })
            })
            .unwrap_or_else(|| self.url.clone());
        format!("http: {host}")
    }
}

/// What the session carries from one POST to the next.
#[derive(Debug, Default)]
struct SessionState {
    /// `Mcp-Session-Id`, as the server gave it on `initialize` (legacy era).
    id: Option<String>,
    /// The version `initialize` negotiated, sent as `MCP-Protocol-Version` (legacy era).
    protocol_version: Option<String>,
}

type Shared = Arc<Mutex<SessionState>>;

/// Everything a POST task needs.
#[derive(Clone)]
struct Poster {
    client: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    session: Shared,
    events: mpsc::Sender<TransportEvent>,
    max_frame_bytes: usize,
}

/// Starts a transport to the endpoint `target` names. Nothing is sent until the first line.
pub fn connect(target: &HttpTarget, max_frame_bytes: usize) -> Result<Transport, TransportError> {
    // One process-wide TLS provider (ring: no C toolchain needed beyond a compiler); a second
    // call finds it installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let url = reqwest::Url::parse(&target.url).map_err(|error| TransportError::BadUrl {
        url: target.url.clone(),
        reason: error.to_string(),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(TransportError::BadUrl {
            url: target.url.clone(),
            reason: "only http and https URLs can be reached".into(),
        });
    }
    let mut headers = HeaderMap::new();
    for (name, value) in &target.headers {
        let bad = |what: &str| {
            TransportError::BadHeader(format!(
                "-H '{name}: …': the header {what} is not one HTTP allows"
            ))
        };
        let header = HeaderName::try_from(name.as_str()).map_err(|_| bad("name"))?;
        let value = HeaderValue::try_from(value.as_str()).map_err(|_| bad("value"))?;
        headers.append(header, value);
    }
    let client = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
        .map_err(|error| TransportError::Http(words(&error)))?;
    let (outgoing, lines) = mpsc::channel::<Arc<str>>(OUTGOING_CAPACITY);
    let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
    let (stop, stopped) = oneshot::channel();
    let (cancel, cancels) = mpsc::unbounded_channel();
    let poster = Poster {
        client,
        url,
        headers,
        session: Shared::default(),
        events: events_tx,
        max_frame_bytes,
    };
    tokio::spawn(dispatch(poster, lines, cancels, stopped));
    Ok(Transport {
        outgoing: Some(outgoing),
        events,
        stop: Some(stop),
        group: None,
        close_stream: Some(cancel),
        description: target.display(),
    })
}

/// Posts each line as it comes, answers running side by side; at the end, the session is
/// deleted (legacy) and `Closed` follows.
async fn dispatch(
    poster: Poster,
    mut lines: mpsc::Receiver<Arc<str>>,
    mut cancels: mpsc::UnboundedReceiver<Id>,
    mut stopped: oneshot::Receiver<()>,
) {
    let mut running = JoinSet::new();
    // The open POSTs of 2026-07-28 requests, by id: closing one is how that era cancels.
    let mut modern: HashMap<Id, AbortHandle> = HashMap::new();
    loop {
        tokio::select! {
            line = lines.recv() => match line {
                Some(line) => {
                    let outgoing = Outgoing::read(&line);
                    let post = running.spawn(poster.clone().post(line));
                    if let (Some(id), Some(_)) = (outgoing.id, outgoing.modern_version) {
                        modern.retain(|_, post| !post.is_finished());
                        modern.insert(id, post);
                    }
                }
                None => break,
            },
            Some(id) = cancels.recv() => {
                if let Some(post) = modern.remove(&id) {
                    post.abort();
                }
            }
            _ = &mut stopped => break,
            Some(_) = running.join_next(), if !running.is_empty() => {}
        }
    }
    // Closing the streams is the modern era's cancellation, and the end of this client.
    running.abort_all();
    let session = poster
        .session
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .id
        .clone();
    let status = match session {
        Some(id) => {
            let delete = poster
                .client
                .delete(poster.url.clone())
                .headers(poster.headers.clone())
                .header("Mcp-Session-Id", id)
                .timeout(DELETE_TIMEOUT)
                .send()
                .await;
            match delete {
                Ok(response) => format!("session deleted: HTTP {}", response.status()),
                Err(error) => format!("session not deleted: {}", words(&error)),
            }
        }
        None => "no session to end".to_owned(),
    };
    let closed = TransportEvent::Closed {
        status: format!("HTTP client closed; {status}"),
        stderr_tail: Vec::new(),
        at: now(),
    };
    let _ = poster.events.send(closed).await;
}

/// What a line we send says about itself, for the headers and for matching its answer.
struct Outgoing {
    method: Option<String>,
    id: Option<Id>,
    /// `params.name` (or `params.uri`) for the methods that carry it in `Mcp-Name`.
    name: Option<String>,
    /// The `_meta` protocol version of a modern-era request.
    modern_version: Option<String>,
}

impl Outgoing {
    fn read(line: &str) -> Outgoing {
        let member = |name| json::member(line, name);
        let method = member("method").and_then(json::string).map(Into::into);
        let id = member("id").and_then(|id| serde_json::from_str::<Id>(id).ok());
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
        Outgoing {
            method,
            id,
            name,
            modern_version,
        }
    }
}

impl Poster {
    async fn post(self, line: Arc<str>) {
        let outgoing = Outgoing::read(&line);
        let carried_session =
            outgoing.modern_version.is_none() && self.session_state().id.is_some();
        let request = self.request(&outgoing, &line);
        let response = match request.send().await {
            Ok(response) => response,
            Err(error) => return self.fail(&outgoing, words(&error)).await,
        };
        let status = response.status();
        if status == reqwest::StatusCode::NOT_FOUND && carried_session {
            // The session is gone: forget it, so that the next `initialize` starts a new one.
            *self.session_state() = SessionState::default();
            let _ = self
                .events
                .send(TransportEvent::SessionExpired { at: now() })
                .await;
        }
        if outgoing.method.as_deref() == Some("initialize") && status.is_success() {
            let id = response
                .headers()
                .get("mcp-session-id")
                .and_then(|id| id.to_str().ok())
                .map(str::to_owned);
            self.session_state().id.clone_from(&id);
            if let Some(id) = id {
                let _ = self
                    .events
                    .send(TransportEvent::SessionStarted { id, at: now() })
                    .await;
            }
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        if status.is_success() && content_type.starts_with("text/event-stream") {
            return self.read_stream(&outgoing, response).await;
        }
        if status == reqwest::StatusCode::ACCEPTED && outgoing.id.is_none() {
            return;
        }
        let headers = response.headers().clone();
        let limit = if status.is_success() {
            self.max_frame_bytes
        } else {
            ERROR_BODY_BYTES
        };
        let (body, whole) = read_body(response, limit).await;
        let text = String::from_utf8_lossy(&body).into_owned();
        let line = if whole && !text.trim().is_empty() {
            Some(decode(Line::Text(text.trim().into()), self.max_frame_bytes))
        } else {
            None
        };
        match line {
            Some(Ok(frame)) if status.is_success() || is_response(&frame.message) => {
                if !status.is_success() {
                    self.note(format!(
                        "HTTP {status}: the server's JSON-RPC answer came with this status"
                    ))
                    .await;
                }
                self.remember_version(&outgoing, &frame.message);
                self.deliver(vec![Ok(frame)]).await;
            }
            line => {
                // No answer in the body: its own text is logged as the line it is (a 200 that
                // is not JSON-RPC), and the request fails with the status in words.
                if let Some(line @ Err(_)) = line.filter(|_| status.is_success()) {
                    self.deliver(vec![line]).await;
                }
                let reason = describe_status(status, &headers, &text);
                self.fail(&outgoing, reason).await;
            }
        }
    }

    fn request(&self, outgoing: &Outgoing, line: &Arc<str>) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json");
        if let Some(version) = &outgoing.modern_version {
            // 2026-07-28: no session; the version and the method on every request.
            request = request.header("MCP-Protocol-Version", version.as_str());
            if let Some(method) = &outgoing.method {
                request = request.header("Mcp-Method", header_value(method));
            }
            if let Some(name) = &outgoing.name {
                request = request.header("Mcp-Name", header_value(name));
            }
        } else {
            let state = self.session_state();
            if let Some(id) = &state.id {
                request = request.header("Mcp-Session-Id", id.as_str());
            }
            if let Some(version) = &state.protocol_version {
                request = request.header("MCP-Protocol-Version", version.as_str());
            }
        }
        request.body(line.to_string())
    }

    /// An event stream: each event's data is a line, delivered as it comes. A stream that ends
    /// before the answer to its request fails that request.
    async fn read_stream(&self, outgoing: &Outgoing, response: reqwest::Response) {
        let mut parser = SseParser::new(self.max_frame_bytes);
        let mut body = response.bytes_stream();
        let mut answered = false;
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => {
                    let reason = format!("the event stream broke: {}", words(&error));
                    return self.fail_unless(answered, outgoing, reason).await;
                }
            };
            let mut lines = Vec::new();
            for item in parser.push(&chunk) {
                let line = match item {
                    SseItem::Event(event) => Line::Text(event.data.into()),
                    SseItem::Oversized(len) => Line::Oversized { len },
                    SseItem::Retry(_) => continue,
                };
                let line = decode(line, self.max_frame_bytes);
                if let Ok(frame) = &line {
                    answered |= answers(&frame.message, outgoing.id.as_ref());
                    self.remember_version(outgoing, &frame.message);
                }
                lines.push(line);
            }
            if !lines.is_empty() {
                self.deliver(lines).await;
            }
        }
        let reason = "the event stream ended before the response".to_owned();
        self.fail_unless(answered, outgoing, reason).await;
    }

    /// The legacy era's version header follows what `initialize` negotiated.
    fn remember_version(&self, outgoing: &Outgoing, message: &Message) {
        if outgoing.method.as_deref() != Some("initialize") {
            return;
        }
        if let Message::Response {
            reply: Reply::Result(result),
            ..
        } = message
        {
            let version = result
                .get("protocolVersion")
                .and_then(|v| v.as_str().map(Into::into));
            self.session_state().protocol_version = version;
        }
    }

    fn session_state(&self) -> std::sync::MutexGuard<'_, SessionState> {
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }

    async fn deliver(
        &self,
        lines: Vec<Result<crate::mcp::jsonrpc::Frame, crate::mcp::framing::InvalidLine>>,
    ) {
        let _ = self
            .events
            .send(TransportEvent::Received { lines, at: now() })
            .await;
    }

    async fn note(&self, text: String) {
        let _ = self
            .events
            .send(TransportEvent::Note { text, at: now() })
            .await;
    }

    async fn fail_unless(&self, answered: bool, outgoing: &Outgoing, reason: String) {
        if !answered {
            self.fail(outgoing, reason).await;
        }
    }

    /// The request failed at the HTTP level: its own failure, or (a notification, an answer)
    /// a note in the log.
    async fn fail(&self, outgoing: &Outgoing, reason: String) {
        let method = outgoing.method.as_deref().unwrap_or("a message");
        let event = match &outgoing.id {
            Some(id) if outgoing.method.is_some() => TransportEvent::RequestFailed {
                id: id.clone(),
                reason,
                at: now(),
            },
            _ => TransportEvent::Note {
                text: format!("{method} was not taken: {reason}"),
                at: now(),
            },
        };
        let _ = self.events.send(event).await;
    }
}

fn is_response(message: &Message) -> bool {
    matches!(message, Message::Response { .. })
}

fn answers(message: &Message, id: Option<&Id>) -> bool {
    matches!(message, Message::Response { id: Some(answered), .. } if Some(answered) == id)
}

/// A header value as the modern era writes it: plain ASCII as is, anything else base64 in
/// `=?base64?…?=`.
fn header_value(value: &str) -> String {
    let plain = value.bytes().all(|b| (0x20..0x7f).contains(&b)) && value.trim() == value;
    if plain {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The body, up to `limit` bytes, and whether that was all of it.
async fn read_body(response: reqwest::Response, limit: usize) -> (Vec<u8>, bool) {
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
fn describe_status(status: reqwest::StatusCode, headers: &HeaderMap, body: &str) -> String {
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
fn words(error: &reqwest::Error) -> String {
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
    use super::*;

    #[test]
    fn outgoing_lines_name_their_headers() {
        let line = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book_flight","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let read = Outgoing::read(line);
        assert_eq!(read.method.as_deref(), Some("tools/call"));
        assert_eq!(read.id, Some(Id::Number(3)));
        assert_eq!(read.name.as_deref(), Some("book_flight"));
        assert_eq!(read.modern_version.as_deref(), Some("2026-07-28"));
        let legacy = Outgoing::read(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert!(legacy.id.is_none() && legacy.modern_version.is_none());
    }

    #[test]
    fn header_values_outside_plain_ascii_are_base64() {
        assert_eq!(header_value("book_flight"), "book_flight");
        assert_eq!(header_value("réserver"), "=?base64?csOpc2VydmVy?=");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"abc"), "YWJj");
    }

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
