//! The demo server over Streamable HTTP: one endpoint, `/mcp`, taking POST. Answers are JSON;
//! the slow search answers as an event stream (a priming event, its progress, then the result).
//! A legacy `initialize` opens a session (`Mcp-Session-Id`); a modern request's headers must
//! match its `_meta` (else 400 with -32020), and an unknown method is a 404. A present `Origin`
//! that is not a loopback one is refused with 403, as the spec asks. A GET with a legacy
//! session's id is that session's stream (the board's changes, when subscribed); any other GET,
//! and DELETE, get 405. Log messages and a 2026-07-28 listen come on the request's own stream.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue, ORIGIN};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use super::subscriptions::{self, DEPARTURES, Peer};
use super::{
    DemoServer, Handled, NAME, listen_stream, slow_search, today, unix_seconds, until_next_tick,
};
use crate::http_listener::{self, Body, plain};
use crate::mcp::era::META_PROTOCOL_VERSION;
use crate::mcp::jsonrpc::{self, ErrorObject, Frame as JsonRpcFrame, Id, Message, Reply};

/// The largest request body taken.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// What every connection shares.
#[derive(Clone)]
struct Shared {
    server: DemoServer,
    sessions: Arc<AtomicU64>,
    /// Slow searches running, for a legacy `notifications/cancelled`.
    running: Arc<Mutex<HashMap<Id, AbortHandle>>>,
    /// Legacy calls waiting for the answer to the server's question, by the question's id.
    asking: Arc<Mutex<HashMap<Id, oneshot::Sender<Reply>>>>,
    questions: Arc<AtomicU64>,
    /// What each legacy session subscribed to and its log level, by `Mcp-Session-Id` (the
    /// empty string for requests without one).
    peers: Arc<Mutex<HashMap<String, Peer>>>,
    /// With `--auth`: `/mcp` is a protected resource, and the authorization server is here.
    auth: Option<super::auth::Auth>,
}

/// Serves until the process ends; prints the endpoint's URL on stdout first. With `auth`, the
/// endpoint wants an OAuth token, and the authorization server that issues it is here too.
pub async fn run_http(
    server: DemoServer,
    address: SocketAddr,
    auth: bool,
    token_uses: Option<u32>,
) -> std::io::Result<()> {
    let (listener, url) = http_listener::listen(address).await?;
    eprintln!("{NAME}: serving Streamable HTTP on {url}");
    if auth {
        eprintln!(
            "{NAME}: /mcp needs an OAuth token; its authorization server is /auth, beside it"
        );
    }
    let shared = Shared {
        auth: auth.then(|| super::auth::Auth::new(&url, token_uses)),
        server,
        sessions: Arc::new(AtomicU64::new(0)),
        running: Arc::default(),
        asking: Arc::default(),
        questions: Arc::new(AtomicU64::new(0)),
        peers: Arc::default(),
    };
    http_listener::serve(listener, move |request| answer(shared.clone(), request)).await
}

async fn answer(shared: Shared, request: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    if let Some(auth) = &shared.auth
        && request.uri().path() != "/mcp"
    {
        let served = auth.serve(request).await;
        return Ok(served.unwrap_or_else(|| plain(StatusCode::NOT_FOUND, "no such page")));
    }
    if request.uri().path() != "/mcp" {
        return Ok(plain(StatusCode::NOT_FOUND, "the MCP endpoint is /mcp"));
    }
    if !origin_allowed(request.headers().get(ORIGIN)) {
        return Ok(plain(StatusCode::FORBIDDEN, "Origin not allowed"));
    }
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    // Behind `--auth` there is no GET stream: it would be a way round the token.
    if let (&Method::GET, Some(session), None) = (request.method(), &session, &shared.auth) {
        return Ok(session_stream(&shared, session.clone()));
    }
    if request.method() != Method::POST {
        return Ok(plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "this server offers no GET stream and ends no sessions by DELETE",
        ));
    }
    let headers = request.headers().clone();
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => return Ok(plain(StatusCode::PAYLOAD_TOO_LARGE, "body too large")),
    };
    let text = String::from_utf8_lossy(&body);
    let frame = match jsonrpc::parse(text.trim()) {
        Ok(frame) => frame,
        Err(error) => {
            let reply = shared.server.handle_invalid(&error);
            return Ok(json(StatusCode::BAD_REQUEST, reply.as_ref()));
        }
    };
    if let Some(refused) = refused(&shared, &frame.message, &headers) {
        return Ok(refused);
    }
    let modern = is_modern(&frame.message);
    if let Message::Response {
        id: Some(question),
        reply,
    } = &frame.message
    {
        // The client's answer to a question on a call's stream: that stream goes on.
        let waiting = shared
            .asking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(question);
        if let Some(waiting) = waiting {
            let _ = waiting.send(reply.clone());
        }
        return Ok(empty(StatusCode::ACCEPTED));
    }
    let handled = {
        let mut peers = shared.peers.lock().unwrap_or_else(PoisonError::into_inner);
        let peer = peers.entry(session.unwrap_or_default()).or_default();
        shared
            .server
            .handle_on(frame.message.clone(), today(), unix_seconds(), peer)
    };
    Ok(carry_out(&shared, &frame.message, modern, handled).await)
}

/// The response that carries out what the server made of `message`.
async fn carry_out(
    shared: &Shared,
    request: &Message,
    modern: bool,
    handled: Handled,
) -> Response<Body> {
    match handled {
        Handled::Send(message) => {
            let status = match &message {
                // 2026-07-28: a method the server does not implement is a 404 with -32601.
                Message::Response {
                    reply: Reply::Error(error),
                    ..
                } if modern && error.code == -32601 => StatusCode::NOT_FOUND,
                _ => StatusCode::OK,
            };
            let mut response = json(status, Some(&message));
            if request.method() == Some("initialize") && !modern {
                let session = shared.sessions.fetch_add(1, Ordering::Relaxed) + 1;
                if let Ok(value) = HeaderValue::try_from(format!("demo-session-{session}")) {
                    response.headers_mut().insert("mcp-session-id", value);
                }
            }
            response
        }
        Handled::StartSlow {
            id,
            seconds,
            progress_token,
            modern,
        } => slow_stream(shared, id, seconds, progress_token, modern),
        Handled::Later { after, message, .. } => {
            // The answer waits on the request's own connection (a client that gives up closes
            // it).
            tokio::time::sleep(after).await;
            json(StatusCode::OK, Some(&message))
        }
        Handled::Cancel(id) => {
            let running = shared
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(task) = running.get(&id) {
                task.abort();
                eprintln!("{NAME}: request {id} cancelled by the client");
            }
            empty(StatusCode::ACCEPTED)
        }
        Handled::Ask {
            id,
            name,
            arguments,
            ask,
        } => ask_stream(shared, id, name, arguments, ask),
        Handled::SendAll(messages) => messages_stream(messages),
        Handled::Listen { id, uris } => {
            let (tx, rx) = mpsc::channel::<Message>(16);
            // Closing the stream is the client's cancel: the task ends with its reader.
            tokio::spawn(listen_stream(id, uris, tx));
            event_stream(rx)
        }
        Handled::Exit { status, why } => {
            eprintln!("{why}");
            std::process::exit(status)
        }
        Handled::Nothing => empty(StatusCode::ACCEPTED),
    }
}

/// These messages as one event stream (the log messages of a call, then its reply).
fn messages_stream(messages: Vec<Message>) -> Response<Body> {
    let (tx, rx) = mpsc::channel::<Message>(messages.len().max(1));
    for message in messages {
        // The channel has room for every one of them.
        let _ = tx.try_send(message);
    }
    event_stream(rx)
}

/// A legacy session's own stream: the board's changes while the session is subscribed to it,
/// else a comment each tick, so that a client (or a proxy between) that went away is noticed
/// on the next write and the stream ends with it.
fn session_stream(shared: &Shared, session: String) -> Response<Body> {
    let (tx, mut rx) = mpsc::channel::<String>(16);
    let peers = Arc::clone(&shared.peers);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(until_next_tick()).await;
            let hears = peers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&session)
                .is_some_and(Peer::hears_departures);
            let text = if hears {
                let line = JsonRpcFrame::encode(subscriptions::updated(DEPARTURES, None));
                format!("data: {}\n\n", line.into_raw())
            } else {
                ": the board changed; this session is not subscribed to it\n\n".to_owned()
            };
            if tx.send(text).await.is_err() {
                return;
            }
        }
    });
    let events = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx)
            .map(|text| text.map(|text| Ok(event(text))))
    });
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(events)));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    response
}

/// How long a legacy call waits for the answer to its question.
const ANSWER_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// A legacy call that asks the client: an event stream carrying the question; the client's
/// answer comes in its own POST, and the call's reply follows on this stream.
fn ask_stream(
    shared: &Shared,
    id: Id,
    name: String,
    arguments: serde_json::Map<String, Value>,
    ask: super::tools::Ask,
) -> Response<Body> {
    let number = shared.questions.fetch_add(1, Ordering::Relaxed) + 1;
    let question = Id::String(format!("demo-ask-{number}"));
    let (answer_tx, answer_rx) = oneshot::channel();
    shared
        .asking
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(question.clone(), answer_tx);
    let (tx, rx) = mpsc::channel::<Message>(4);
    let server = shared.server.clone();
    tokio::spawn(async move {
        let request = Message::Request {
            id: question,
            method: ask.method.to_owned(),
            params: Some(ask.params),
        };
        if tx.send(request).await.is_err() {
            return;
        }
        let reply = match tokio::time::timeout(ANSWER_WAIT, answer_rx).await {
            Ok(Ok(reply)) => reply,
            _ => Reply::Error(ErrorObject {
                code: -32001,
                message: "no answer to the server's question".into(),
                data: None,
            }),
        };
        let _ = tx.send(server.resume(id, &name, &arguments, &reply)).await;
    });
    event_stream(rx)
}

/// An event stream of these messages, after a priming event; it ends when the sender does.
fn event_stream(mut rx: mpsc::Receiver<Message>) -> Response<Body> {
    let priming = futures_util::stream::once(async { Ok(event("id: 0\ndata:\n\n".to_owned())) });
    let messages = futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx).map(|message| {
            message.map(|message| {
                let line = JsonRpcFrame::encode(message).into_raw();
                Ok(event(format!("data: {line}\n\n")))
            })
        })
    });
    let body = StreamBody::new(futures_util::StreamExt::chain(priming, messages));
    let mut response = Response::new(BodyExt::boxed(body));
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    response
}

/// The slow search as an event stream: a priming event, progress, the result. Closing the
/// stream (the modern era's cancellation) stops the search with it.
fn slow_stream(
    shared: &Shared,
    id: Id,
    seconds: u64,
    progress_token: Option<Value>,
    modern: bool,
) -> Response<Body> {
    let (tx, rx) = mpsc::channel::<Message>(16);
    let task = tokio::spawn(slow_search(
        shared.server.clone(),
        id.clone(),
        seconds,
        progress_token,
        modern,
        tx,
    ));
    shared
        .running
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(id, task.abort_handle());
    event_stream(rx)
}

fn event(text: String) -> Frame<Bytes> {
    Frame::data(Bytes::from(text))
}

/// Loopback origins only (a page elsewhere must not drive a local server).
fn origin_allowed(origin: Option<&HeaderValue>) -> bool {
    let Some(origin) = origin else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let host = origin
        .split_once("://")
        .map_or(origin, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    let host = match host.split_once(']') {
        Some((v6, _)) => &host[..=v6.len()],
        None => host.split(':').next().unwrap_or_default(),
    };
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn is_modern(message: &Message) -> bool {
    meta_version(message).is_some()
}

fn meta_version(message: &Message) -> Option<String> {
    let Message::Request { params, .. } = message else {
        return None;
    };
    params
        .as_ref()?
        .get("_meta")?
        .get(META_PROTOCOL_VERSION)?
        .as_str()
        .map(str::to_owned)
}

/// A modern request whose headers disagree with its body: 400 with -32020, as 2026-07-28 asks.
/// A message `/mcp` does not take: without the token it needs (`--auth`), or with headers that
/// disagree with its body (2026-07-28).
fn refused(
    shared: &Shared,
    message: &Message,
    headers: &hyper::HeaderMap,
) -> Option<Response<Body>> {
    if let Some(refused) = shared
        .auth
        .as_ref()
        .and_then(|auth| auth.refuse(headers, message))
    {
        return Some(refused);
    }
    let mismatch = header_mismatch(message, headers)?;
    Some(json(StatusCode::BAD_REQUEST, Some(&mismatch)))
}

fn header_mismatch(message: &Message, headers: &hyper::HeaderMap) -> Option<Message> {
    let version = meta_version(message)?;
    let Message::Request { id, method, .. } = message else {
        return None;
    };
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let problem = if header("mcp-protocol-version") != Some(version.as_str()) {
        format!("MCP-Protocol-Version must be {version}, as in _meta")
    } else if header("mcp-method") != Some(method.as_str()) {
        format!("Mcp-Method must be {method}")
    } else {
        return None;
    };
    Some(Message::Response {
        id: Some(id.clone()),
        reply: Reply::Error(ErrorObject {
            code: -32020,
            message: format!("Header mismatch: {problem}"),
            data: None,
        }),
    })
}

fn json(status: StatusCode, message: Option<&Message>) -> Response<Body> {
    let text = message.map_or_else(String::new, |message| {
        JsonRpcFrame::encode(message.clone()).into_raw().to_string()
    });
    let mut response = Response::new(Full::new(Bytes::from(text)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_origins_are_allowed() {
        let allowed =
            |origin: &'static str| origin_allowed(Some(&HeaderValue::from_static(origin)));
        assert!(origin_allowed(None), "no Origin: not a browser");
        assert!(allowed("http://localhost:3000"));
        assert!(allowed("http://127.0.0.1"));
        assert!(allowed("http://[::1]:8080"));
        assert!(!allowed("https://evil.example"));
        assert!(!allowed("http://localhost.evil.example"));
        assert!(!allowed("null"));
    }
}
