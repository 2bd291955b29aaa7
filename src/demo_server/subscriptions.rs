//! The demo server's live resource and its subscriptions, pure: `demo://departures` (a board
//! that changes every two seconds), legacy `resources/subscribe`/`unsubscribe`, the 2026-07-28
//! `subscriptions/listen` filter with its acknowledgement, and the `notifications/resources/updated`
//! each kind of subscription is sent.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{Value, json};

use crate::mcp::jsonrpc::{ErrorObject, Id, Message};

/// The board's URI: the one resource of the demo that changes.
pub const DEPARTURES: &str = "demo://departures";
/// How often the board changes (and subscribers hear of it).
pub const TICK: Duration = Duration::from_secs(2);
/// The `_meta` key that ties a 2026-07-28 stream notification to its `subscriptions/listen`.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

const BOARD: &[(&str, &str, &str)] = &[
    ("LH123", "Lisbon", "A12"),
    ("BA456", "Oslo", "B3"),
    ("AF789", "Rome", "C7"),
];
const STATUSES: &[&str] = &[
    "on time",
    "boarding",
    "delayed 10 min",
    "final call",
    "departed",
];

/// The board as it stands at `unix_seconds`: each flight's status moves on every tick.
pub fn board_text(unix_seconds: u64) -> String {
    let tick = unix_seconds / TICK.as_secs();
    let mut text = format!("departures · board {tick}\nflight  to      gate  status\n");
    for (offset, (number, to, gate)) in (0u64..).zip(BOARD) {
        let index = usize::try_from((tick + offset) % STATUSES.len() as u64).unwrap_or(0);
        let _ = writeln!(text, "{number:<7} {to:<7} {gate:<5} {}", STATUSES[index]);
    }
    text
}

/// The board's entry in `resources/list`.
pub fn listed() -> Value {
    json!({
        "uri": DEPARTURES,
        "name": "departures",
        "title": "Departures board",
        "description": "The departures board: it changes every two seconds; subscribe to hear of it.",
        "mimeType": "text/plain",
    })
}

/// The board's `contents` entry, read at `unix_seconds`.
pub fn read(unix_seconds: u64) -> Value {
    json!({"uri": DEPARTURES, "mimeType": "text/plain", "text": board_text(unix_seconds)})
}

/// What one connection asked of the server: the URIs it subscribed to (legacy era) and the
/// level of log messages it wants (`logging/setLevel`; none sent before it asks).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Peer {
    pub subscribed: BTreeSet<String>,
    pub level: Option<super::logging::Level>,
}

impl Peer {
    /// Whether the board's change is news for this connection.
    pub fn hears_departures(&self) -> bool {
        self.subscribed.contains(DEPARTURES)
    }
}

/// The `uri` of a `resources/subscribe` or `unsubscribe`.
pub fn uri_of(params: &Value, method: &str) -> Result<String, ErrorObject> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorObject {
            code: -32602,
            message: format!("Invalid params: {method} needs a string `uri`"),
            data: None,
        })
}

/// The resource URIs a 2026-07-28 `subscriptions/listen` asks to hear about (its filter's
/// `resourceSubscriptions`); the filter itself is required.
pub fn listen_filter(params: &Value) -> Result<Vec<String>, ErrorObject> {
    let invalid = |message: &str| ErrorObject {
        code: -32602,
        message: format!("Invalid params: subscriptions/listen {message}"),
        data: None,
    };
    let Some(filter) = params.get("notifications").filter(|f| f.is_object()) else {
        return Err(invalid("needs a `notifications` filter object"));
    };
    match filter.get("resourceSubscriptions") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(uris)) => uris
            .iter()
            .map(|uri| {
                uri.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| invalid("`resourceSubscriptions` must hold strings"))
            })
            .collect(),
        Some(_) => Err(invalid("`resourceSubscriptions` must be an array")),
    }
}

/// The acknowledgement a listen stream starts with: the part of the filter the server honours
/// (the demo's lists never change, so only resource subscriptions are).
pub fn acknowledged(subscription: &Id, honoured: &[String]) -> Message {
    Message::Notification {
        method: "notifications/subscriptions/acknowledged".into(),
        params: Some(
            json!({
                "notifications": {"resourceSubscriptions": honoured},
                "_meta": {META_SUBSCRIPTION_ID: Value::from(subscription.clone())},
            })
            .into(),
        ),
    }
}

/// `notifications/resources/updated` for `uri`; on a 2026-07-28 listen stream it names the
/// subscription it belongs to.
pub fn updated(uri: &str, subscription: Option<&Id>) -> Message {
    let mut params = json!({"uri": uri});
    if let Some(id) = subscription {
        params["_meta"] = json!({META_SUBSCRIPTION_ID: Value::from(id.clone())});
    }
    Message::Notification {
        method: "notifications/resources/updated".into(),
        params: Some(params.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_changes_every_tick_and_not_within_one() {
        assert_eq!(board_text(100), board_text(101));
        assert_ne!(board_text(100), board_text(102));
        assert!(board_text(100).contains("LH123"));
    }

    #[test]
    fn a_listen_filter_is_required_and_its_uris_are_strings() {
        let uris =
            listen_filter(&json!({"notifications": {"resourceSubscriptions": [DEPARTURES]}}));
        assert_eq!(uris.unwrap(), vec![DEPARTURES.to_owned()]);
        assert_eq!(
            listen_filter(&json!({"notifications": {"toolsListChanged": true}})).unwrap(),
            Vec::<String>::new()
        );
        for bad in [
            json!({}),
            json!({"notifications": {"resourceSubscriptions": [1]}}),
            json!({"notifications": {"resourceSubscriptions": "x"}}),
        ] {
            assert_eq!(listen_filter(&bad).unwrap_err().code, -32602, "{bad}");
        }
    }

    #[test]
    fn stream_notifications_name_their_subscription() {
        let id = Id::Number(7);
        let note = updated(DEPARTURES, Some(&id)).to_value();
        assert_eq!(note["params"]["_meta"][META_SUBSCRIPTION_ID], 7);
        assert!(
            updated(DEPARTURES, None).to_value()["params"]
                .get("_meta")
                .is_none()
        );
        let ack = acknowledged(&id, &[DEPARTURES.to_owned()]).to_value();
        assert_eq!(
            ack["params"]["notifications"]["resourceSubscriptions"][0],
            DEPARTURES
        );
    }
}
