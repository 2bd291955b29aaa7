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
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

mod authorize;
mod order;

pub use authorize::{OAuthClient, cache as token_cache};

use super::{EVENT_CAPACITY, OUTGOING_CAPACITY, Transport, TransportError, TransportEvent, now};
use crate::mcp::era::{META_PROTOCOL_VERSION, MODERN_VERSIONS};
use crate::mcp::framing::{Line, decode};
use crate::mcp::headers::{HeaderParam, encode_value, header_params, param_headers};
use crate::mcp::json;
use crate::mcp::jsonrpc::{Id, Message, Reply};
use crate::mcp::log::{HTTP_EVENT_IDS_KEPT, HttpExchange};
use crate::mcp::messages::tools_page;
use crate::mcp::oauth;
use crate::mcp::sse::{SseItem, SseParser};

/// How long connecting may take; an answer itself may take as long as the client waits.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of an error body is kept to show.
const ERROR_BODY_BYTES: usize = 4096;
/// How long the session's `DELETE` may take at shutdown.
const DELETE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long to wait before resuming a broken stream when the server named no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest `retry` honoured: a server asking for more is resumed after this.
const MAX_RETRY: Duration = Duration::from_secs(30);
/// Resumptions in a row that bring no event and no new event id, after which the request
/// fails. (A server that polls — closing each stream after a fresh priming id — goes on.)
const MAX_FRUITLESS_RESUMPTIONS: u32 = 3;
/// Resumptions of one request, at most, however lively the server.
const MAX_RESUMPTIONS: u32 = 600;
/// The shortest wait before resuming: a `retry: 0` must not become a busy loop.
const MIN_RETRY: Duration = Duration::from_millis(100);

/// A Streamable HTTP endpoint and the headers to send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    pub url: String,
    /// `-H 'Name: value'`, in order.
    pub headers: Vec<(String, String)>,
    /// The OAuth client to use when the server wants authorization (`--client-id`); without
    /// one, sightline registers itself where the server allows.
    pub client: Option<OAuthClient>,
    /// Where OAuth tokens are kept between runs (`--token-cache`); in memory only without.
    pub token_cache: Option<std::path::PathBuf>,
    /// The URL of sightline's Client ID Metadata Document (`--client-metadata-url`), used as
    /// its client id where the authorization server takes one.
    pub client_metadata_url: Option<String>,
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
    /// The deprecated HTTP+SSE transport (2024-11-05): where messages are posted, as the
    /// server's `endpoint` event named it; answers come on the GET stream.
    sse_endpoint: Option<reqwest::Url>,
}

type Shared = Arc<Mutex<SessionState>>;

/// Header values to send with one request instead of the computed ones, by its id.
pub type Overrides = Arc<Mutex<HashMap<Id, Vec<(String, String)>>>>;

/// Everything a POST task needs.
#[derive(Clone)]
struct Poster {
    client: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    session: Shared,
    /// 2026-07-28: the `x-mcp-header` parameters of each listed tool that has any, learnt
    /// from the answers to `tools/list`.
    header_params: Arc<Mutex<HashMap<String, Vec<HeaderParam>>>>,
    overrides: Overrides,
    events: mpsc::Sender<TransportEvent>,
    max_frame_bytes: usize,
    /// What OAuth gave: the access token, sent on every request from then on.
    token: Arc<Mutex<Option<authorize::Tokens>>>,
    /// One authorization flow at a time: requests that meet a 401 meanwhile wait for it.
    authorizing: Arc<tokio::sync::Mutex<()>>,
    oauth_client: Option<OAuthClient>,
    token_cache: Option<std::path::PathBuf>,
    client_metadata_url: Option<String>,
    /// This POST's turn: told once the server has accepted it, so that what follows may go.
    accepted: order::Accepted,
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
    let cached = target
        .token_cache
        .as_deref()
        .and_then(|path| authorize::cache::load(path, &oauth::canonical_resource(&url)));
    let poster = Poster {
        client,
        url,
        headers,
        session: Shared::default(),
        header_params: Arc::default(),
        overrides: Overrides::default(),
        events: events_tx,
        max_frame_bytes,
        token: Arc::new(Mutex::new(cached)),
        authorizing: Arc::default(),
        oauth_client: target.client.clone(),
        token_cache: target.token_cache.clone(),
        client_metadata_url: target.client_metadata_url.clone(),
        accepted: order::Accepted::default(),
    };
    let overrides = Arc::clone(&poster.overrides);
    tokio::spawn(dispatch(poster, lines, cancels, stopped));
    Ok(Transport {
        outgoing: Some(outgoing),
        events,
        stop: Some(stop),
        group: None,
        close_stream: Some(cancel),
        header_overrides: Some(overrides),
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
    let mut order = order::Order::default();
    loop {
        tokio::select! {
            line = lines.recv() => match line {
                Some(line) => {
                    let outgoing = Outgoing::read(&line);
                    let ordered =
                        order::orders_what_follows(outgoing.method.as_deref(), outgoing.id.is_some());
                    let mut turn = order.next(ordered);
                    let mut poster = poster.clone();
                    poster.accepted = std::mem::take(&mut turn.accepted);
                    let post = running.spawn(async move {
                        turn.wait().await;
                        poster.post(line).await;
                    });
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
        Some(id) => poster.delete_session(&id).await,
        None => "no session to end".to_owned(),
    };
    let closed = TransportEvent::Closed {
        status: format!("HTTP client closed; {status}"),
        stderr_tail: Vec::new(),
        at: now(),
    };
    let _ = poster.events.send(closed).await;
}

/// Where reading a request's event streams has got to, across resumptions.
#[derive(Debug)]
struct Stream {
    answered: bool,
    last_event_id: Option<String>,
    /// The server's `retry`, for the next resumption.
    retry: Duration,
}

impl Default for Stream {
    fn default() -> Self {
        Self {
            answered: false,
            last_event_id: None,
            retry: DEFAULT_RETRY,
        }
    }
}

/// The HTTP details of one exchange as they become known, handed over once.
struct Record {
    details: HttpExchange,
    started: Instant,
    handed_over: bool,
}

impl Record {
    fn new(request: &reqwest::Request, request_id: Option<Id>) -> Self {
        Self {
            details: HttpExchange {
                method: request.method().to_string(),
                url: request.url().to_string(),
                request_id,
                request_headers: header_list(request.headers()),
                ..HttpExchange::default()
            },
            started: Instant::now(),
            handed_over: false,
        }
    }

    fn response(&mut self, response: &reqwest::Response) {
        self.details.status = Some(response.status().as_u16());
        self.details.response_headers = header_list(response.headers());
        self.details.headers_ms = Some(millis(self.started.elapsed()));
    }

    fn event(&mut self, id: Option<&str>) {
        self.details.events += 1;
        if let Some(id) = id {
            self.saw_id(id);
        }
    }

    fn saw_id(&mut self, id: &str) {
        let ids = &mut self.details.event_ids;
        if ids.last().map(String::as_str) != Some(id) && ids.len() < HTTP_EVENT_IDS_KEPT {
            ids.push(id.to_owned());
        }
    }

    /// The details so far, the first time only.
    fn finish(&mut self, error: Option<String>) -> Option<Arc<HttpExchange>> {
        if std::mem::replace(&mut self.handed_over, true) {
            return None;
        }
        self.details.took_ms = millis(self.started.elapsed());
        self.details.error = error;
        Some(Arc::new(self.details.clone()))
    }
}

fn header_list(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_owned(), value)
        })
        .collect()
}

fn millis(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

fn is_event_stream(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|kind| kind.to_ascii_lowercase().starts_with("text/event-stream"))
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
    /// No line: a stream the client did not ask for by a request.
    fn none() -> Outgoing {
        Outgoing {
            method: None,
            id: None,
            name: None,
            modern_version: None,
        }
    }

    /// `#3 (tools/call): `, to open a line about this request.
    fn label(&self) -> String {
        match (&self.id, &self.method) {
            (Some(id), Some(method)) => format!("#{id} ({method}): "),
            _ => String::new(),
        }
    }

    fn read(line: &str) -> Outgoing {
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
        // A refused token refreshed, then more scope asked for: two at most.
        self.post_as(line, 2).await;
    }

    /// The headers of every request: the user's, and the OAuth token once there is one (a
    /// user's own `Authorization` wins).
    fn headers(&self) -> HeaderMap {
        let mut headers = self.headers.clone();
        if let Some(token) = self.access_token()
            && !headers.contains_key(AUTHORIZATION)
            && let Ok(value) = HeaderValue::try_from(format!("Bearer {token}"))
        {
            headers.insert(AUTHORIZATION, value);
        }
        headers
    }

    /// Whether a response calls for (another) authorization: a 401, or a 403
    /// `insufficient_scope` (RFC 6750 §3.1) naming a scope not yet asked for; not when the user
    /// gave the `Authorization`, or none are left.
    fn wants_authorization(
        &self,
        status: reqwest::StatusCode,
        challenges: &[String],
        authorizations: u8,
    ) -> Option<Reauthorize> {
        if authorizations == 0 || self.headers.contains_key(AUTHORIZATION) {
            return None;
        }
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Some(Reauthorize::Token);
        }
        let challenge = oauth::bearer(challenges.iter().map(String::as_str))?;
        let granted = self.granted_scope();
        let insufficient = status == reqwest::StatusCode::FORBIDDEN
            && challenge.error() == Some("insufficient_scope");
        insufficient
            .then(|| step_up_scope(challenge.scope(), granted.clone()))
            .filter(|scope| Some(scope) != granted.as_ref())
            .map(Reauthorize::Scope)
    }

    fn granted_scope(&self) -> Option<String> {
        let tokens = self.token.lock().unwrap_or_else(PoisonError::into_inner);
        tokens.as_ref().and_then(|tokens| tokens.scope.clone())
    }

    fn access_token(&self) -> Option<String> {
        let tokens = self.token.lock().unwrap_or_else(PoisonError::into_inner);
        tokens.as_ref().map(|tokens| tokens.access.clone())
    }

    /// After a 401, or a 403 asking for `more` scope: a token that may pass, from this flow or
    /// from one that ran while this request was out (`used` is the token it carried). A refused
    /// token is refreshed first; more scope takes a new authorization.
    async fn authorized(
        &self,
        used: Option<String>,
        challenges: &[String],
        again: Reauthorize,
    ) -> Result<(), String> {
        let more = match again {
            Reauthorize::Token => None,
            Reauthorize::Scope(scope) => {
                self.note(format!(
                    "authorization: the token's scope is not enough; asking again for {scope:?}"
                ))
                .await;
                Some(scope)
            }
        };
        let _one_at_a_time = self.authorizing.lock().await;
        let current = self
            .token
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let access = current.as_ref().map(|tokens| tokens.access.clone());
        if access.is_some() && access != used {
            return Ok(());
        }
        let refreshed = match (&current, &more) {
            (Some(tokens), None) => self.refresh(tokens).await.ok(),
            _ => None,
        };
        let tokens = match refreshed {
            Some(tokens) => tokens,
            None => self.authorize(challenges, more).await?,
        };
        if let Some(path) = &self.token_cache {
            let resource = oauth::canonical_resource(&self.url);
            if let Err(error) = authorize::cache::save(path, &resource, &tokens) {
                self.note(format!(
                    "authorization: the token could not be kept in {}: {error}",
                    path.display()
                ))
                .await;
            }
        }
        *self.token.lock().unwrap_or_else(PoisonError::into_inner) = Some(tokens);
        Ok(())
    }

    /// Posts a line; on a 401, or a 403 asking for more scope (while `authorizations` are left,
    /// and the user gave no `Authorization`), gets a token (refreshed, or by the OAuth flow) and
    /// posts it once more with it. A scope already asked for is not asked again: no loops.
    async fn post_as(self, line: Arc<str>, authorizations: u8) {
        let outgoing = Outgoing::read(&line);
        let endpoint = self.session_state().sse_endpoint.clone();
        if let Some(endpoint) = endpoint {
            return self.post_deprecated(&outgoing, &line, endpoint).await;
        }
        let carried_session =
            outgoing.modern_version.is_none() && self.session_state().id.is_some();
        let request = match self.request(&outgoing, &line).build() {
            Ok(request) => request,
            Err(error) => return self.fail(&outgoing, words(&error)).await,
        };
        let mut record = Record::new(&request, outgoing.id.clone());
        let used = self.access_token();
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(error) => {
                let reason = words(&error);
                self.emit_http(&mut record, Some(reason.clone())).await;
                return self.fail(&outgoing, reason).await;
            }
        };
        record.response(&response);
        let status = response.status();
        let challenges = authorize::challenges(response.headers());
        if let Some(again) = self.wants_authorization(status, &challenges, authorizations) {
            let said = describe_status(status, response.headers(), "");
            drop(response);
            self.emit_http(&mut record, Some(said.clone())).await;
            return match self.authorized(used, &challenges, again).await {
                Ok(()) => Box::pin(self.post_as(line, authorizations - 1)).await,
                Err(reason) => self.fail(&outgoing, format!("{said}; {reason}")).await,
            };
        }
        // The server has the line: what the protocol orders after it may go now.
        self.accepted.tell();
        self.track_session(&outgoing, &response, carried_session)
            .await;
        if status.is_success() && is_event_stream(&response) {
            return self.read_stream(&outgoing, response, record).await;
        }
        if status == reqwest::StatusCode::ACCEPTED && outgoing.id.is_none() {
            self.emit_http(&mut record, None).await;
            if outgoing.method.as_deref() == Some("notifications/initialized") {
                // The legacy handshake is over: the server may now talk on its own stream.
                self.listen().await;
            }
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
        let answer = if whole && !text.trim().is_empty() {
            Some(decode(Line::Text(text.trim().into()), self.max_frame_bytes))
        } else {
            None
        };
        // The spec's fallback to the deprecated HTTP+SSE transport: `initialize` refused with
        // 400, 404 or 405, and no modern JSON-RPC error in the body.
        let refused = matches!(status.as_u16(), 400 | 404 | 405);
        if refused
            && outgoing.method.as_deref() == Some("initialize")
            && !answer.as_ref().is_some_and(is_modern_error)
        {
            let reason = describe_status(status, &headers, &text);
            self.emit_http(&mut record, Some(reason)).await;
            if self.open_deprecated(&outgoing, &line).await {
                return;
            }
        }
        match answer {
            Some(Ok(frame)) if status.is_success() || is_response(&frame.message) => {
                self.emit_http(&mut record, None).await;
                if !status.is_success() {
                    self.note(format!(
                        "HTTP {status}: the server's JSON-RPC answer came with this status"
                    ))
                    .await;
                }
                self.remember_version(&outgoing, &frame.message);
                self.learn_header_params(&outgoing, &frame.message);
                self.deliver_body(vec![Ok(frame)], outgoing.id.clone())
                    .await;
            }
            line => {
                // No answer in the body: its own text is logged as the line it is (a 200 that
                // is not JSON-RPC), and the request fails with the status in words.
                let reason = describe_status(status, &headers, &text);
                self.emit_http(&mut record, Some(reason.clone())).await;
                if let Some(line @ Err(_)) = line.filter(|_| status.is_success()) {
                    self.deliver(vec![line]).await;
                }
                self.fail(&outgoing, reason).await;
            }
        }
    }

    /// The legacy session as this response leaves it: expired by a 404 to a request that
    /// carried its id, started by the id on an `initialize` answer.
    async fn track_session(
        &self,
        outgoing: &Outgoing,
        response: &reqwest::Response,
        carried_session: bool,
    ) {
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
    }

    fn request(&self, outgoing: &Outgoing, line: &Arc<str>) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.url.clone())
            .headers(self.headers())
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json");
        if let Some(version) = &outgoing.modern_version {
            // 2026-07-28: no session; the version and the method on every request.
            request = request.header("MCP-Protocol-Version", version.as_str());
            if let Some(method) = &outgoing.method {
                request = request.header("Mcp-Method", encode_value(method));
            }
            if let Some(name) = &outgoing.name {
                request = request.header("Mcp-Name", encode_value(name));
                if outgoing.method.as_deref() == Some("tools/call") {
                    for (header, value) in self.param_headers(name, line) {
                        request = request.header(header, value);
                    }
                }
            }
        } else {
            request = self.with_session(request);
        }
        let overrides = outgoing.id.as_ref().and_then(|id| {
            self.overrides
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(id)
        });
        if let Some(overrides) = overrides {
            // `headers` replaces the values of the names it sets (`header` would append).
            let mut replaced = HeaderMap::new();
            for (name, value) in overrides {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::try_from(name.as_str()),
                    HeaderValue::try_from(value.as_str()),
                ) {
                    replaced.append(name, value);
                }
            }
            request = request.headers(replaced);
        }
        request.body(line.to_string())
    }

    /// Tries the deprecated HTTP+SSE transport (2024-11-05): a GET whose first event is
    /// `endpoint`, then `initialize` posted there. On success this task goes on reading the
    /// stream, where every answer comes, until it ends; `false` when the server offers no such
    /// stream (the refusal of `initialize` then stands).
    async fn open_deprecated(&self, outgoing: &Outgoing, line: &Arc<str>) -> bool {
        let request = self
            .client
            .get(self.url.clone())
            .headers(self.headers())
            .header(ACCEPT, "text/event-stream")
            .build();
        let Ok(request) = request else {
            return false;
        };
        let mut record = Record::new(&request, None);
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(error) => {
                self.emit_http(&mut record, Some(words(&error))).await;
                return false;
            }
        };
        record.response(&response);
        if !(response.status().is_success() && is_event_stream(&response)) {
            let reason = "no HTTP+SSE stream here either".to_owned();
            self.emit_http(&mut record, Some(reason)).await;
            return false;
        }
        self.emit_http(&mut record, None).await;
        let mut parser = SseParser::new(self.max_frame_bytes);
        let mut body = response.bytes_stream();
        let mut pending = Vec::new();
        let endpoint = loop {
            if let Some(event) = pending.iter().find_map(|item| match item {
                SseItem::Event(event) if event.kind == "endpoint" => Some(event.data.clone()),
                _ => None,
            }) {
                break event;
            }
            if !pending.is_empty() {
                self.note(
                    "the GET stream did not open with an `endpoint` event: not the \
                           HTTP+SSE transport"
                        .into(),
                )
                .await;
                return false;
            }
            match body.next().await {
                Some(Ok(chunk)) => pending = parser.push(&chunk),
                _ => return false,
            }
        };
        let endpoint = match self.url.join(endpoint.trim()) {
            Ok(url) if url.origin() == self.url.origin() => url,
            Ok(url) => {
                self.note(format!(
                    "the HTTP+SSE endpoint {url} is on another origin than {}: not followed",
                    self.url
                ))
                .await;
                return false;
            }
            Err(error) => {
                self.note(format!("the HTTP+SSE endpoint is not a URL: {error}"))
                    .await;
                return false;
            }
        };
        self.note(format!(
            "initialize was refused, and the server offers the deprecated HTTP+SSE transport \
             (2024-11-05): messages go to {endpoint}, answers come on the GET stream"
        ))
        .await;
        self.session_state().sse_endpoint = Some(endpoint.clone());
        // Events after `endpoint` in the same read are answers too.
        let rest = pending
            .into_iter()
            .skip_while(|item| !matches!(item, SseItem::Event(event) if event.kind == "endpoint"))
            .skip(1)
            .collect();
        self.deliver_deprecated(rest).await;
        // `initialize` again, to the endpoint, while its answer waits on the stream.
        let posted = self.post_deprecated(outgoing, line, endpoint);
        let read = async {
            while let Some(chunk) = body.next().await {
                let Ok(chunk) = chunk else { break };
                self.deliver_deprecated(parser.push(&chunk)).await;
            }
        };
        let ((), ()) = tokio::join!(posted, read);
        let closed = TransportEvent::Closed {
            status: "the server ended its HTTP+SSE event stream".into(),
            stderr_tail: Vec::new(),
            at: now(),
        };
        let _ = self.events.send(closed).await;
        true
    }

    /// The `message` events of the HTTP+SSE stream, as lines.
    async fn deliver_deprecated(&self, items: Vec<SseItem>) {
        let lines: Vec<_> = items
            .into_iter()
            .filter_map(|item| match item {
                SseItem::Event(event) if event.kind == "message" => {
                    Some(decode(Line::Text(event.data.into()), self.max_frame_bytes))
                }
                SseItem::Oversized(len) => {
                    Some(decode(Line::Oversized { len }, self.max_frame_bytes))
                }
                SseItem::Event(_) | SseItem::Retry(_) => None,
            })
            .collect();
        if !lines.is_empty() {
            self.deliver(lines).await;
        }
    }

    /// A message for the HTTP+SSE transport: posted to its endpoint; any 2xx takes it, and
    /// the answer comes on the stream.
    async fn post_deprecated(&self, outgoing: &Outgoing, line: &Arc<str>, endpoint: reqwest::Url) {
        let request = self
            .client
            .post(endpoint)
            .headers(self.headers())
            .header(CONTENT_TYPE, "application/json")
            .body(line.to_string())
            .build();
        let request = match request {
            Ok(request) => request,
            Err(error) => return self.fail(outgoing, words(&error)).await,
        };
        let mut record = Record::new(&request, outgoing.id.clone());
        match self.client.execute(request).await {
            Ok(response) if response.status().is_success() => {
                record.response(&response);
                self.emit_http(&mut record, None).await;
            }
            Ok(response) => {
                record.response(&response);
                let status = response.status();
                let headers = response.headers().clone();
                let (body, _) = read_body(response, ERROR_BODY_BYTES).await;
                let reason = describe_status(status, &headers, &String::from_utf8_lossy(&body));
                self.emit_http(&mut record, Some(reason.clone())).await;
                self.fail(outgoing, reason).await;
            }
            Err(error) => {
                let reason = words(&error);
                self.emit_http(&mut record, Some(reason.clone())).await;
                self.fail(outgoing, reason).await;
            }
        }
    }

    /// `Mcp-Param-*` for a call of tool `name`, from the arguments in `line`.
    fn param_headers(&self, name: &str, line: &str) -> Vec<(String, String)> {
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
    fn learn_header_params(&self, outgoing: &Outgoing, message: &Message) {
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
        for tool in page.tools {
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

    /// The legacy session's headers: its id and the negotiated version, once there are.
    fn with_session(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let state = self.session_state();
        if let Some(id) = &state.id {
            request = request.header("Mcp-Session-Id", id.as_str());
        }
        if let Some(version) = &state.protocol_version {
            request = request.header("MCP-Protocol-Version", version.as_str());
        }
        request
    }

    /// A GET for an event stream (legacy era): the server's own stream, or the resumption of a
    /// broken one after `last_event_id`.
    fn get_stream(&self, last_event_id: Option<&str>) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .get(self.url.clone())
            .headers(self.headers())
            .header(ACCEPT, "text/event-stream");
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        self.with_session(request)
    }

    /// The legacy era's optional stream of server-initiated messages: opened once the handshake
    /// is over, read until it ends. A 405 (no such stream) is an answer the spec allows.
    async fn listen(&self) {
        let request = match self.get_stream(None).build() {
            Ok(request) => request,
            Err(error) => return self.note(format!("no GET stream: {}", words(&error))).await,
        };
        let mut record = Record::new(&request, None);
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(error) => return self.emit_http(&mut record, Some(words(&error))).await,
        };
        record.response(&response);
        let status = response.status();
        if !(status.is_success() && is_event_stream(&response)) {
            let reason = if status == reqwest::StatusCode::METHOD_NOT_ALLOWED {
                "the server offers no stream of its own (405, as it may)".to_owned()
            } else {
                let headers = response.headers().clone();
                let (body, _) = read_body(response, ERROR_BODY_BYTES).await;
                describe_status(status, &headers, &String::from_utf8_lossy(&body))
            };
            return self.emit_http(&mut record, Some(reason)).await;
        }
        self.emit_http(&mut record, None).await;
        let mut stream = Stream::default();
        let outgoing = Outgoing::none();
        let broke = self
            .read_events(&outgoing, response, &mut record, &mut stream)
            .await;
        let why = broke.unwrap_or_else(|| "the server closed it".to_owned());
        self.note(format!("the server's GET stream ended: {why}"))
            .await;
    }

    /// An event stream: each event's data is a line, delivered as it comes. A legacy stream
    /// that breaks before the answer is resumed with GET and `Last-Event-ID` after the `retry`
    /// the server asked for; a modern one is lost, for the client to re-issue.
    async fn read_stream(
        &self,
        outgoing: &Outgoing,
        mut response: reqwest::Response,
        mut record: Record,
    ) {
        let mut stream = Stream::default();
        let mut fruitless = 0;
        let mut resumptions = 0;
        loop {
            let events_before = record.details.events;
            let id_before = stream.last_event_id.clone();
            let broke = self
                .read_events(outgoing, response, &mut record, &mut stream)
                .await;
            if stream.answered {
                return;
            }
            let reason = broke.unwrap_or_else(|| "the stream ended before the response".into());
            self.emit_http(&mut record, Some(reason.clone())).await;
            let legacy = outgoing.modern_version.is_none();
            let progressed =
                record.details.events > events_before || stream.last_event_id != id_before;
            fruitless = if progressed { 0 } else { fruitless + 1 };
            resumptions += 1;
            let resume_after = stream.last_event_id.clone().filter(|_| {
                legacy && fruitless <= MAX_FRUITLESS_RESUMPTIONS && resumptions <= MAX_RESUMPTIONS
            });
            let Some(last_event_id) = resume_after else {
                return match (&outgoing.id, legacy) {
                    (Some(id), false) => {
                        let lost = TransportEvent::StreamLost {
                            id: id.clone(),
                            reason,
                            at: now(),
                        };
                        let _ = self.events.send(lost).await;
                    }
                    _ => self.fail(outgoing, reason).await,
                };
            };
            let wait = stream.retry.max(MIN_RETRY);
            self.note(format!(
                "{}{reason}: resuming with GET and Last-Event-ID: {last_event_id} in {} ms",
                outgoing.label(),
                wait.as_millis()
            ))
            .await;
            tokio::time::sleep(wait).await;
            let request = match self.get_stream(Some(&last_event_id)).build() {
                Ok(request) => request,
                Err(error) => {
                    let reason = format!("{reason}; resuming failed: {}", words(&error));
                    return self.fail(outgoing, reason).await;
                }
            };
            record = Record::new(&request, outgoing.id.clone());
            response = match self.client.execute(request).await {
                Ok(response) => response,
                Err(error) => {
                    let reason = format!("{reason}; resuming failed: {}", words(&error));
                    self.emit_http(&mut record, Some(reason.clone())).await;
                    return self.fail(outgoing, reason).await;
                }
            };
            record.response(&response);
            let status = response.status();
            if !(status.is_success() && is_event_stream(&response)) {
                let headers = response.headers().clone();
                let (body, _) = read_body(response, ERROR_BODY_BYTES).await;
                let text = String::from_utf8_lossy(&body);
                let status = describe_status(status, &headers, &text);
                self.emit_http(&mut record, Some(status.clone())).await;
                let reason = format!("{reason}; resuming failed: {status}");
                return self.fail(outgoing, reason).await;
            }
        }
    }

    /// Reads one response's events to its end; the HTTP details go out just before the line
    /// that answers `outgoing`. Returns why the stream broke, if it did.
    async fn read_events(
        &self,
        outgoing: &Outgoing,
        response: reqwest::Response,
        record: &mut Record,
        stream: &mut Stream,
    ) -> Option<String> {
        let mut parser = SseParser::new(self.max_frame_bytes);
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => return Some(format!("the event stream broke: {}", words(&error))),
            };
            let mut lines = Vec::new();
            let mut answers_here = false;
            for item in parser.push(&chunk) {
                let line = match item {
                    SseItem::Event(event) => {
                        record.event(event.id.as_deref());
                        Line::Text(event.data.into())
                    }
                    SseItem::Oversized(len) => Line::Oversized { len },
                    SseItem::Retry(ms) => {
                        stream.retry = Duration::from_millis(ms).min(MAX_RETRY);
                        continue;
                    }
                };
                let line = decode(line, self.max_frame_bytes);
                if let Ok(frame) = &line
                    && answers(&frame.message, outgoing.id.as_ref())
                {
                    answers_here = true;
                    self.remember_version(outgoing, &frame.message);
                    self.learn_header_params(outgoing, &frame.message);
                }
                lines.push(line);
            }
            if let Some(id) = parser.last_event_id() {
                // A priming event (an id and empty data) counts as a place to resume from.
                record.saw_id(id);
                if stream.last_event_id.as_deref() != Some(id) {
                    stream.last_event_id = Some(id.to_owned());
                }
            }
            if answers_here && !stream.answered {
                stream.answered = true;
                self.emit_http(record, None).await;
            }
            if !lines.is_empty() {
                self.deliver(lines).await;
            }
        }
        None
    }

    async fn emit_http(&self, record: &mut Record, error: Option<String>) {
        if let Some(exchange) = record.finish(error) {
            let event = TransportEvent::Http {
                exchange,
                at: now(),
            };
            let _ = self.events.send(event).await;
        }
    }

    /// Ends the legacy session with `DELETE` (a 405 is an answer the spec allows); says how it
    /// went.
    async fn delete_session(&self, id: &str) -> String {
        let request = self
            .client
            .delete(self.url.clone())
            .headers(self.headers())
            .header("Mcp-Session-Id", id)
            .timeout(DELETE_TIMEOUT)
            .build();
        let request = match request {
            Ok(request) => request,
            Err(error) => return format!("session not deleted: {}", words(&error)),
        };
        let mut record = Record::new(&request, None);
        match self.client.execute(request).await {
            Ok(response) => {
                record.response(&response);
                self.emit_http(&mut record, None).await;
                format!("session deleted: HTTP {}", response.status())
            }
            Err(error) => {
                let reason = format!("session not deleted: {}", words(&error));
                self.emit_http(&mut record, Some(reason.clone())).await;
                reason
            }
        }
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
        self.deliver_body(lines, None).await;
    }

    /// Lines that are the JSON body of the POST of request `body_of`.
    async fn deliver_body(
        &self,
        lines: Vec<Result<crate::mcp::jsonrpc::Frame, crate::mcp::framing::InvalidLine>>,
        body_of: Option<Id>,
    ) {
        let _ = self
            .events
            .send(TransportEvent::Received {
                lines,
                at: now(),
                mark: super::wire_mark(),
                body_of,
            })
            .await;
    }

    async fn note(&self, text: String) {
        let _ = self
            .events
            .send(TransportEvent::Note { text, at: now() })
            .await;
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

/// A JSON-RPC error with one of the 2026-07-28 codes: a modern server refusing, not an old one.
fn is_modern_error(
    line: &Result<crate::mcp::jsonrpc::Frame, crate::mcp::framing::InvalidLine>,
) -> bool {
    use crate::mcp::era::{
        HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
    };
    matches!(
        line,
        Ok(frame) if matches!(
            &frame.message,
            Message::Response { reply: Reply::Error(error), .. }
                if [HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION]
                    .contains(&error.code)
        )
    )
}

fn is_response(message: &Message) -> bool {
    matches!(message, Message::Response { .. })
}

fn answers(message: &Message, id: Option<&Id>) -> bool {
    matches!(message, Message::Response { id: Some(answered), .. } if Some(answered) == id)
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
/// Why a request needs authorizing again.
enum Reauthorize {
    /// A 401: no token, or a refused one.
    Token,
    /// A 403 asking for more scope: these scopes.
    Scope(String),
}

/// The scopes to ask for when stepping up: those held and those the challenge names, once
/// each (the challenge alone may drop a scope an earlier request needed).
fn step_up_scope(challenged: Option<&str>, held: Option<String>) -> String {
    let held = held.unwrap_or_default();
    let mut scopes: Vec<&str> = Vec::new();
    for scope in held
        .split_whitespace()
        .chain(challenged.unwrap_or_default().split_whitespace())
    {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes.join(" ")
}

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

    #[test]
    fn step_up_asks_for_what_is_held_and_what_is_missing() {
        assert_eq!(
            step_up_scope(Some("flights bookings:cancel"), Some("flights".into())),
            "flights bookings:cancel"
        );
        assert_eq!(step_up_scope(Some("b"), Some("a b".into())), "a b");
        assert_eq!(step_up_scope(None, None), "");
    }

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
    fn only_the_2026_07_28_error_codes_keep_a_refused_initialize_from_the_sse_fallback() {
        let answer = |code: i64| {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"}}}}"#);
            decode(Line::Text(line.into()), 1024)
        };
        assert!(is_modern_error(&answer(-32022)));
        assert!(is_modern_error(&answer(-32020)));
        assert!(!is_modern_error(&answer(-32600)));
        assert!(!is_modern_error(&decode(Line::Text("<html>".into()), 1024)));
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
