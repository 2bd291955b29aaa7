//! The transport's task: `connect` starts it; it posts each line as it comes, in the order the
//! protocol asks, closes a modern request's POST to cancel it, and ends the legacy session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};

use super::posted::Posted;
use super::poster::Poster;
use super::poster::Shared;
use super::status::words;
use super::{HttpTarget, order, tokens};
use crate::mcp::jsonrpc::Id;
use crate::mcp::oauth;
use crate::transport::{
    EVENT_CAPACITY, OUTGOING_CAPACITY, Outgoing, Transport, TransportError, TransportEvent, now,
};

/// How long connecting may take; an answer itself may take as long as the client waits.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

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
    let (outgoing, lines) = mpsc::channel::<Outgoing>(OUTGOING_CAPACITY);
    let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
    let (stop, stopped) = oneshot::channel();
    let cached = target
        .token_cache
        .as_deref()
        .and_then(|path| tokens::cache::load(path, &oauth::canonical_resource(&url)));
    let poster = Poster {
        client,
        url,
        headers,
        session: Shared::default(),
        header_params: Arc::default(),
        overrides: Vec::new(),
        events: events_tx,
        max_frame_bytes,
        token: Arc::new(Mutex::new(cached)),
        authorizing: Arc::default(),
        oauth_client: target.client.clone(),
        token_cache: target.token_cache.clone(),
        client_metadata_url: target.client_metadata_url.clone(),
        grant: target.grant.clone(),
        dpop: target.dpop.clone(),
        dpop_nonces: Arc::default(),
        accepted: order::Accepted::default(),
    };
    tokio::spawn(dispatch(poster, lines, stopped));
    Ok(Transport {
        outgoing: Some(outgoing),
        events,
        stop: Some(stop),
        group: None,
        ledger: None,
        http: true,
        description: target.display(),
    })
}

/// Posts each line as it comes, answers running side by side, and closes the stream a
/// cancellation names; at the end, the session is deleted (legacy) and `Closed` follows.
async fn dispatch(
    poster: Poster,
    mut lines: mpsc::Receiver<Outgoing>,
    mut stopped: oneshot::Receiver<()>,
) {
    let mut running = JoinSet::new();
    // The open POSTs of 2026-07-28 requests, by id: closing one is how that era cancels.
    let mut modern: HashMap<Id, AbortHandle> = HashMap::new();
    let mut order = order::Order::default();
    loop {
        tokio::select! {
            outgoing = lines.recv() => match outgoing {
                Some(Outgoing::CloseStream(id)) => {
                    if let Some(post) = modern.remove(&id) {
                        post.abort();
                    }
                }
                Some(Outgoing::Line(line)) => post(&poster, &mut running, &mut modern, &mut order, line, Vec::new()),
                Some(Outgoing::WithHeaders { line, headers }) => {
                    post(&poster, &mut running, &mut modern, &mut order, line, headers);
                }
                None => break,
            },
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

/// Posts `line` in the turn the protocol gives it, with `overrides` for its headers.
fn post(
    poster: &Poster,
    running: &mut JoinSet<()>,
    modern: &mut HashMap<Id, AbortHandle>,
    order: &mut order::Order,
    line: crate::mcp::SharedText,
    overrides: Vec<(String, String)>,
) {
    let facts = Posted::read(&line);
    let ordered = order::orders_what_follows(facts.method.as_deref(), facts.id.is_some());
    let mut turn = order.next(ordered);
    let mut poster = poster.clone();
    poster.accepted = std::mem::take(&mut turn.accepted);
    poster.overrides = overrides;
    let post = running.spawn(async move {
        turn.wait().await;
        poster.post(line).await;
    });
    if let (Some(id), Some(_)) = (facts.id, facts.modern_version) {
        modern.retain(|_, post| !post.is_finished());
        modern.insert(id, post);
    }
}
