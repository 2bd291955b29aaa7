//! The demo server's answers that depend on the connection and the clock, around the pure
//! `DemoServer::handle`: the departures board, subscriptions (legacy `resources/subscribe`,
//! 2026-07-28 `subscriptions/listen`), `logging/setLevel` and the log messages of a tool call,
//! and `completion/complete`.

use serde_json::{Value, json};

use super::logging::{self, Level};
use super::subscriptions::{self, DEPARTURES, Peer};
use super::{DemoServer, Handled, ModernCheck, completion, modern_version, resources};
use crate::mcp::jsonrpc::{ErrorObject, Id, Message};
use crate::time::Date;

impl DemoServer {
    /// Handles one message from the connection `peer` describes, at `unix_seconds`.
    pub fn handle_on(
        &self,
        message: Message,
        today: Date,
        unix_seconds: u64,
        peer: &mut Peer,
    ) -> Handled {
        let Message::Request { id, method, params } = &message else {
            return self.handle(message, today);
        };
        let params = params.clone().unwrap_or(Value::Null);
        let modern = match modern_version(&params) {
            ModernCheck::Legacy => false,
            ModernCheck::Modern => true,
            // Refused the way every request is.
            ModernCheck::Reject(_) => return self.handle(message, today),
        };
        let id = id.clone();
        let reply = match method.as_str() {
            "resources/read" if params.get("uri").and_then(Value::as_str) == Some(DEPARTURES) => {
                Ok(resources::cacheable(
                    json!({"contents": [subscriptions::read(unix_seconds)]}),
                    modern,
                ))
            }
            // 2026-07-28 replaced both with `subscriptions/listen`.
            "resources/subscribe" if !modern => subscriptions::uri_of(&params, method)
                .and_then(|uri| known(&uri, modern).map(|()| uri))
                .map(|uri| {
                    peer.subscribed.insert(uri);
                    json!({})
                }),
            "resources/unsubscribe" if !modern => {
                subscriptions::uri_of(&params, method).map(|uri| {
                    peer.subscribed.remove(&uri);
                    json!({})
                })
            }
            "subscriptions/listen" if modern => {
                return match subscriptions::listen_filter(&params) {
                    Ok(uris) => Handled::Listen {
                        id,
                        uris: uris
                            .into_iter()
                            .filter(|uri| known(uri, modern).is_ok())
                            .collect(),
                    },
                    Err(error) => Handled::Send(self.respond(id, Err(error), modern)),
                };
            }
            // 2026-07-28 removed it; a request's `_meta` asks for its own logs instead.
            "logging/setLevel" if !modern => logging::set_level(&params).map(|level| {
                peer.level = Some(level);
                json!({})
            }),
            "completion/complete" => {
                completion::complete(&params, i64::try_from(unix_seconds).unwrap_or(i64::MAX))
            }
            "tools/call" => {
                let wanted = if modern {
                    logging::requested_level(&params)
                } else {
                    peer.level
                };
                return with_logs(self.handle(message, today), &params, wanted);
            }
            _ => return self.handle(message, today),
        };
        Handled::Send(self.respond(id, reply, modern))
    }

    /// The first message of a 2026-07-28 listen stream: what it will hear of.
    pub fn listen_acknowledged(id: &Id, uris: &[String]) -> Message {
        subscriptions::acknowledged(id, uris)
    }
}

/// A URI the demo can read (the board, a listed resource, a flight); else the era's not found.
fn known(uri: &str, modern: bool) -> Result<(), ErrorObject> {
    if uri == DEPARTURES {
        return Ok(());
    }
    resources::read(&json!({"uri": uri}), modern).map(|_| ())
}

/// A tool call's reply, after the log messages the connection asked for.
fn with_logs(handled: Handled, params: &Value, wanted: Option<Level>) -> Handled {
    let (Handled::Send(reply), Some(wanted)) = (&handled, wanted) else {
        return handled;
    };
    let name = params.get("name").and_then(Value::as_str).unwrap_or("?");
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    let mut messages = logging::tool_call_messages(name, &arguments, wanted);
    if messages.is_empty() {
        return handled;
    }
    messages.push(reply.clone());
    Handled::SendAll(messages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo_server::Style;
    use crate::mcp::era::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};

    const TODAY: Date = Date {
        year: 2026,
        month: 11,
        day: 29,
    };

    fn request(method: &str, params: Value) -> Message {
        Message::Request {
            id: Id::Number(1),
            method: method.into(),
            params: Some(params),
        }
    }

    fn modern(mut params: Value) -> Value {
        params["_meta"] =
            json!({META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {}});
        params
    }

    fn sent(handled: Handled) -> Value {
        match handled {
            Handled::Send(message) => message.to_value(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_legacy_subscription_is_kept_until_unsubscribed() {
        let server = DemoServer::new(Style::Sep1303);
        let mut peer = Peer::default();
        let subscribe = request("resources/subscribe", json!({"uri": DEPARTURES}));
        let answer = sent(server.handle_on(subscribe, TODAY, 0, &mut peer));
        assert_eq!(answer["result"], json!({}));
        assert!(peer.hears_departures());
        let unknown = request("resources/subscribe", json!({"uri": "demo://nope"}));
        assert_eq!(
            sent(server.handle_on(unknown, TODAY, 0, &mut peer))["error"]["code"],
            -32002
        );
        let unsubscribe = request("resources/unsubscribe", json!({"uri": DEPARTURES}));
        sent(server.handle_on(unsubscribe, TODAY, 0, &mut peer));
        assert!(!peer.hears_departures());
    }

    #[test]
    fn the_modern_era_listens_instead_and_has_no_set_level() {
        let server = DemoServer::new(Style::Sep1303);
        let mut peer = Peer::default();
        let listen = request(
            "subscriptions/listen",
            modern(
                json!({"notifications": {"resourceSubscriptions": [DEPARTURES, "demo://nope"]}}),
            ),
        );
        assert_eq!(
            server.handle_on(listen, TODAY, 0, &mut peer),
            Handled::Listen {
                id: Id::Number(1),
                uris: vec![DEPARTURES.to_owned()]
            }
        );
        for method in ["resources/subscribe", "logging/setLevel"] {
            let old = request(method, modern(json!({"uri": DEPARTURES, "level": "info"})));
            assert_eq!(
                sent(server.handle_on(old, TODAY, 0, &mut peer))["error"]["code"],
                -32601
            );
        }
        let legacy_listen = request("subscriptions/listen", json!({"notifications": {}}));
        assert_eq!(
            sent(server.handle_on(legacy_listen, TODAY, 0, &mut peer))["error"]["code"],
            -32601
        );
    }

    #[test]
    fn a_tool_call_logs_at_the_level_set_or_asked_for_and_not_otherwise() {
        let server = DemoServer::new(Style::Sep1303);
        let call = |params: Value| request("tools/call", params);
        let params = json!({"name": "cancel_booking", "arguments": {"bookingRef": "SL-1"}});
        let mut peer = Peer::default();
        assert!(matches!(
            server.handle_on(call(params.clone()), TODAY, 0, &mut peer),
            Handled::Send(_)
        ));
        let set = request("logging/setLevel", json!({"level": "info"}));
        sent(server.handle_on(set, TODAY, 0, &mut peer));
        let Handled::SendAll(messages) =
            server.handle_on(call(params.clone()), TODAY, 0, &mut peer)
        else {
            panic!()
        };
        assert_eq!(messages[0].method(), Some("notifications/message"));
        assert!(matches!(messages.last(), Some(Message::Response { .. })));
        let mut opted_in = modern(params);
        opted_in["_meta"][logging::META_LOG_LEVEL] = "debug".into();
        let Handled::SendAll(messages) =
            server.handle_on(call(opted_in), TODAY, 0, &mut Peer::default())
        else {
            panic!()
        };
        assert_eq!(messages.len(), 3);
    }

    #[test]
    fn the_board_reads_as_it_stands() {
        let server = DemoServer::new(Style::Sep1303);
        let read = request("resources/read", json!({"uri": DEPARTURES}));
        let answer = sent(server.handle_on(read, TODAY, 1000, &mut Peer::default()));
        assert_eq!(
            answer["result"]["contents"][0]["text"],
            subscriptions::board_text(1000)
        );
    }
}
