//! A proxy for an HTTP host: a local Streamable HTTP endpoint whose every request goes on to the
//! remote server as it came (method, headers but the hop-by-hop ones, body), and whose answer
//! comes back as the server sent it (status, headers, body streamed chunk by chunk as it
//! arrives); each JSON-RPC message in either body — a JSON answer, or each event of an event
//! stream — is handed to the watch on the way. Only when the server cannot be reached does the
//! proxy answer itself: 502, in plain text, never as JSON-RPC.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::observe::Seen;
use super::watch::Side;
use crate::mcp::framing::{DEFAULT_MAX_FRAME_BYTES, Line};
use crate::mcp::sse::{SseItem, SseParser};

/// The body of an answer to the host.
type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// Headers of one hop, not the message's (RFC 9110 §7.6.1), and those the client computes.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

/// Where a listening proxy sends what it gets.
#[derive(Clone)]
struct Upstream {
    client: reqwest::Client,
    url: reqwest::Url,
    /// `--header` values, added to each request.
    headers: Arc<Vec<(String, String)>>,
    seen: mpsc::Sender<Seen>,
}

/// Serves the host on `address` until the process ends, each request passed on to `url`; the
/// endpoint's URL is said on stderr.
pub async fn run(
    address: SocketAddr,
    url: &str,
    headers: Vec<(String, String)>,
    seen: mpsc::Sender<Seen>,
) -> Result<(), String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let url = reqwest::Url::parse(url).map_err(|error| format!("--url {url}: {error}"))?;
    let client = reqwest::Client::builder()
        .build()
        .map_err(|error| format!("cannot make an HTTP client: {error}"))?;
    let listener = TcpListener::bind(address)
        .await
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    let local = listener
        .local_addr()
        .map_err(|error| format!("cannot listen on {address}: {error}"))?;
    eprintln!("sightline proxy: serving http://{local}/mcp for {url}");
    let upstream = Upstream {
        client,
        url,
        headers: Arc::new(headers),
        seen,
    };
    crate::http_listener::serve(listener, move |request| {
        let upstream = upstream.clone();
        async move { Ok::<_, Infallible>(upstream.pass(request).await) }
    })
    .await
    .map_err(|error| format!("the listener stopped: {error}"))
}

impl Upstream {
    async fn pass(&self, request: Request<Incoming>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let body = match body.collect().await {
            Ok(body) => body.to_bytes(),
            Err(error) => {
                return gateway(&format!("the host's request could not be read: {error}"));
            }
        };
        if !body.is_empty() {
            self.watch_json(Side::Host, &body).await;
        }
        let method = reqwest::Method::from_bytes(parts.method.as_str().as_bytes())
            .unwrap_or(reqwest::Method::POST);
        let mut forwarded = self.client.request(method, self.url.clone());
        for (name, value) in &parts.headers {
            if !HOP_BY_HOP.contains(&name.as_str()) {
                forwarded = forwarded.header(name.as_str(), value.as_bytes());
            }
        }
        for (name, value) in self.headers.iter() {
            forwarded = forwarded.header(name.as_str(), value.as_str());
        }
        let answer = match forwarded.body(body).send().await {
            Ok(answer) => answer,
            Err(error) => {
                let reason = format!("the server could not be reached: {error}");
                eprintln!("sightline proxy: {reason}");
                return gateway(&reason);
            }
        };
        let mut response = Response::builder().status(answer.status().as_u16());
        let events = answer
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|kind| kind.to_str().ok())
            .is_some_and(|kind| kind.starts_with("text/event-stream"));
        for (name, value) in answer.headers() {
            if !HOP_BY_HOP.contains(&name.as_str()) {
                response = response.header(name.as_str(), value.as_bytes());
            }
        }
        let body = self.stream_back(answer, events);
        response
            .body(body)
            .unwrap_or_else(|_| gateway("an answer that cannot be passed on"))
    }

    /// The server's body to the host chunk by chunk, each chunk watched after it is handed on.
    fn stream_back(&self, answer: reqwest::Response, events: bool) -> Body {
        let seen = self.seen.clone();
        let mut watcher = BodyWatcher::new(events);
        let (tx, rx) = mpsc::channel::<Bytes>(16);
        tokio::spawn(async move {
            let mut chunks = answer.bytes_stream();
            while let Some(Ok(chunk)) = chunks.next().await {
                let passed = tx.send(chunk.clone()).await.is_ok();
                for line in watcher.push(&chunk) {
                    let _ = seen.send(Seen::line_now(Side::Server, line)).await;
                }
                if !passed {
                    break;
                }
            }
            drop(tx);
            for line in watcher.finish() {
                let _ = seen.send(Seen::line_now(Side::Server, line)).await;
            }
        });
        let stream = tokio_stream(rx).map(|chunk| Ok::<_, Infallible>(Frame::data(chunk)));
        BodyExt::boxed(StreamBody::new(stream))
    }

    /// The message of a JSON body, watched.
    async fn watch_json(&self, from: Side, body: &[u8]) {
        let _ = self
            .seen
            .send(Seen::line_now(from, whole(body.to_vec())))
            .await;
    }
}

/// The messages in a server's body as it streams: each event's data of an event stream, or
/// the JSON body once it has all come.
enum BodyWatcher {
    Events(SseParser),
    /// The body so far, until it passes the frame limit (then only its length).
    Json {
        body: Vec<u8>,
        len: usize,
    },
}

impl BodyWatcher {
    fn new(events: bool) -> Self {
        if events {
            BodyWatcher::Events(SseParser::new(DEFAULT_MAX_FRAME_BYTES))
        } else {
            BodyWatcher::Json {
                body: Vec::new(),
                len: 0,
            }
        }
    }

    fn push(&mut self, chunk: &[u8]) -> Vec<Line> {
        match self {
            BodyWatcher::Events(parser) => parser
                .push(chunk)
                .into_iter()
                .filter_map(|item| match item {
                    SseItem::Event(event) if !event.data.trim().is_empty() => {
                        Some(Line::Text(event.data.into()))
                    }
                    SseItem::Oversized(len) => Some(Line::Oversized { len }),
                    SseItem::Event(_) | SseItem::Retry(_) => None,
                })
                .collect(),
            BodyWatcher::Json { body, len } => {
                *len += chunk.len();
                if *len <= DEFAULT_MAX_FRAME_BYTES {
                    body.extend_from_slice(chunk);
                } else {
                    *body = Vec::new();
                }
                Vec::new()
            }
        }
    }

    fn finish(&mut self) -> Vec<Line> {
        match self {
            BodyWatcher::Events(_) => Vec::new(),
            BodyWatcher::Json { body, len } if *len > DEFAULT_MAX_FRAME_BYTES => {
                vec![Line::Oversized { len: *len }]
            }
            BodyWatcher::Json { body, .. } if body.iter().all(u8::is_ascii_whitespace) => {
                Vec::new()
            }
            BodyWatcher::Json { body, .. } => vec![whole(std::mem::take(body))],
        }
    }
}

/// A whole body as one line (a message may span lines).
fn whole(body: Vec<u8>) -> Line {
    match String::from_utf8(body) {
        Ok(text) => Line::Text(crate::mcp::shared_trimmed(text)),
        Err(error) => Line::Bytes(error.into_bytes()),
    }
}

/// A receiver as a stream.
fn tokio_stream(mut rx: mpsc::Receiver<Bytes>) -> impl futures_util::Stream<Item = Bytes> {
    futures_util::stream::poll_fn(move |context| rx.poll_recv(context))
}

/// The proxy's own answer when the server cannot be reached: plain text, not JSON-RPC.
fn gateway(reason: &str) -> Response<Body> {
    let mut response = Response::new(BodyExt::boxed(Full::new(Bytes::from(format!(
        "sightline proxy: {reason}\n"
    )))));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response
}
