//! Subscribing to a resource's updates (`S`): `resources/subscribe` and `unsubscribe` up to
//! 2025-11-25; in 2026-07-28 a `subscriptions/listen` stream held open for the resource, its
//! acknowledgement, and its end (closing it is how that era unsubscribes).

use serde_json::{Value, json};

use super::action::{Effect, SessionCommand};
use super::catalog::{declares, era};
use super::catalog_state::{ResourceRow, Shelf};
use super::requests::{Asker, hold_open, send};
use super::resources::uri_of;
use super::state::AppState;
use super::status::{complain, inform};
use crate::mcp::era::Era;
use crate::mcp::jsonrpc::{Frame, Message, Reply};
use crate::mcp::session::{End, Exchange, Failure};
use crate::sanitize;

/// `S`: subscribe to the selected resource, or unsubscribe.
pub(super) fn toggle_subscription(state: &mut AppState) -> Vec<Effect> {
    if state.catalog.shelf != Shelf::Resources {
        complain(
            state,
            "S subscribes on the Resources shelf (R shows it)".into(),
        );
        return Vec::new();
    }
    let uri = match state.catalog.resources.selected_row() {
        Some(ResourceRow::Resource(item)) => uri_of(item),
        Some(ResourceRow::Template(_)) => {
            complain(state, "a template is not a resource: read it first".into());
            return Vec::new();
        }
        None => None,
    };
    let Some(uri) = uri else {
        complain(state, "no resource selected".into());
        return Vec::new();
    };
    if !declares(state, "resources/subscribe") {
        complain(
            state,
            "the server does not declare resources.subscribe".into(),
        );
        return Vec::new();
    }
    if era(state) == Some(Era::Modern) {
        return toggle_listen(state, uri);
    }
    let subscribe = !state.catalog.resources.subscribed.contains(&uri);
    let method = if subscribe {
        "resources/subscribe"
    } else {
        "resources/unsubscribe"
    };
    let effects = send(
        state,
        method,
        Some(json!({"uri": uri})),
        Asker::Subscription {
            uri: uri.clone(),
            subscribe,
        },
    );
    if !effects.is_empty() {
        inform(state, format!("sent {method} {}", sanitize::text(&uri)));
    }
    effects
}

/// A subscription request ended: marked on a result; the server's refusal said as it came.
pub(super) fn subscription_finished(
    state: &mut AppState,
    uri: String,
    subscribe: bool,
    exchange: &Exchange,
) {
    let safe = sanitize::text(&uri).into_owned();
    if let Some(Reply::Result(_)) = exchange.reply() {
        if subscribe {
            inform(state, format!("subscribed to {safe}"));
            state.catalog.resources.subscribed.insert(uri);
        } else {
            inform(state, format!("unsubscribed from {safe}"));
            state.catalog.resources.subscribed.remove(&uri);
            state.catalog.resources.updated.remove(&uri);
        }
    } else {
        let outcome = crate::classify::classify(exchange);
        complain(
            state,
            format!(
                "{} {safe}: {} ({})",
                exchange.method,
                sanitize::text(&outcome.detail),
                outcome.class.label()
            ),
        );
    }
}

/// 2026-07-28: a listen stream for `uri`, or, when one is open, its cancel.
fn toggle_listen(state: &mut AppState, uri: String) -> Vec<Effect> {
    let safe = sanitize::text(&uri).into_owned();
    if state.catalog.resources.listening.contains(&uri) {
        inform(
            state,
            format!(
                "closing the listen stream of {safe} (2026-07-28 unsubscribes by cancelling it)"
            ),
        );
        return vec![Effect::Session(SessionCommand::StopListening { key: uri })];
    }
    let params = json!({"notifications": {"resourceSubscriptions": [uri]}});
    let effects = hold_open(state, &uri, "subscriptions/listen", Some(params));
    if !effects.is_empty() {
        inform(
            state,
            format!("sent subscriptions/listen {safe} (S again closes it)"),
        );
        state.catalog.resources.listening.insert(uri);
    }
    effects
}

/// A frame the server sent: a 2026-07-28 stream's acknowledgement. The URIs it names that a
/// stream was opened for are subscribed; a stream acknowledged without its URI hears nothing
/// of it, which is said.
pub(super) fn heard(state: &mut AppState, frame: &Frame) {
    if frame.message.method() != Some("notifications/subscriptions/acknowledged") {
        return;
    }
    let honoured: Vec<String> = match &frame.message {
        Message::Notification {
            params: Some(params),
            ..
        } => params
            .value()
            .pointer("/notifications/resourceSubscriptions")
            .and_then(Value::as_array)
            .map(|uris| {
                uris.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let shelf = &mut state.catalog.resources;
    let waiting: Vec<String> = shelf
        .listening
        .difference(&shelf.subscribed)
        .cloned()
        .collect();
    let newly: Vec<String> = waiting
        .iter()
        .filter(|uri| honoured.contains(uri))
        .cloned()
        .collect();
    shelf.subscribed.extend(newly.iter().cloned());
    if let Some(uri) = newly.first() {
        let safe = sanitize::text(uri).into_owned();
        inform(
            state,
            format!("subscribed to {safe} (its listen stream is acknowledged)"),
        );
    } else if let [uri] = &waiting[..] {
        // One stream waits for its acknowledgement: this is it, and it left the URI out.
        let safe = sanitize::text(uri).into_owned();
        complain(
            state,
            format!(
                "the server acknowledged the listen stream without {safe}: no updates of it \
                 will come (S closes the stream)"
            ),
        );
    }
}

/// 2026-07-28: the listen stream of `uri` ended: closed by the user (unsubscribed), ended by
/// the server, refused, or gone with the connection.
pub(super) fn listen_ended(state: &mut AppState, uri: &str, exchange: &Exchange) {
    let shelf = &mut state.catalog.resources;
    shelf.listening.remove(uri);
    shelf.subscribed.remove(uri);
    shelf.updated.remove(uri);
    let safe = sanitize::text(uri).into_owned();
    match (&exchange.end, exchange.reply()) {
        (End::Failed(Failure::CancelledByUser), _) => inform(
            state,
            format!("unsubscribed from {safe}: its listen stream is closed"),
        ),
        // The connection's end says it.
        (End::Failed(Failure::ServerExited { .. }), _) => {}
        (_, Some(Reply::Result(_))) => complain(
            state,
            format!("the server ended the listen stream of {safe}: no more updates"),
        ),
        _ => {
            let outcome = crate::classify::classify(exchange);
            complain(
                state,
                format!(
                    "subscriptions/listen {safe}: {} ({})",
                    sanitize::text(&outcome.detail),
                    outcome.class.label()
                ),
            );
        }
    }
}
