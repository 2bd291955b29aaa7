//! Requests held open beside everything else: sent at once, ended by the server, the user or
//! the connection's end, each told to its caller under its key.

use serde_json::json;

use super::*;

const BOARD: &str = "demo://departures";

fn listen() -> Command {
    Command::Listen {
        key: BOARD.into(),
        method: "subscriptions/listen".into(),
        params: Some(json!({"notifications": {"resourceSubscriptions": [BOARD]}})),
    }
}

/// The end of the held-open request told at `indices`, if any.
fn listened<'a>(h: &'a Harness, indices: &[usize]) -> Option<(&'a str, &'a Exchange)> {
    h.done(indices).into_iter().find_map(|done| match done {
        Done::Listened { key, exchange } => Some((key.as_str(), &**exchange)),
        _ => None,
    })
}

#[test]
fn a_listen_goes_out_while_a_call_waits_and_neither_ends_the_other() {
    let mut h = Harness::modern(false);
    h.command(call("slow"));
    let out = h.command(listen());
    let sent = h.sent(&out);
    assert_eq!(sent.len(), 1, "sent at once, beside the call: {sent:?}");
    assert_eq!(sent[0]["method"], "subscriptions/listen");
    assert_eq!(sent[0]["id"], 3);
    assert_eq!(
        sent[0]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
        "the era's _meta, like every request"
    );
    assert!(h.timers(&out).is_empty(), "held open: no deadline");
    let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 3}}});
    let out = h.server(&ack.to_string());
    assert!(h.done(&out).is_empty(), "a notification ends nothing");
    let out = h.reply(2, &json!({"content": [], "resultType": "complete"}));
    assert!(
        matches!(h.done(&out)[..], [Done::Called(_)]),
        "the call ends alone"
    );
    let out = h.reply(3, &json!({"resultType": "complete"}));
    let (key, exchange) = listened(&h, &out).expect("the listen ended");
    assert_eq!(key, BOARD);
    assert_eq!(exchange.method, "subscriptions/listen");
    assert!(matches!(exchange.end, End::Replied(_)));
}

#[test]
fn a_call_after_a_listen_is_not_held_behind_it() {
    let mut h = Harness::modern(false);
    h.command(listen());
    let out = h.command(call("quick"));
    assert_eq!(h.sent(&out)[0]["method"], "tools/call");
    let out = h.reply(3, &json!({"content": [], "resultType": "complete"}));
    assert!(matches!(h.done(&out)[..], [Done::Called(_)]));
}

#[test]
fn stopping_a_listen_cancels_it_the_way_the_transport_cancels() {
    // stdio: notifications/cancelled naming the request.
    let mut h = Harness::modern(false);
    h.command(listen());
    let out = h.command(Command::StopListening { key: BOARD.into() });
    let sent = h.sent(&out);
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[0]["params"]["requestId"], 2);
    let (key, exchange) = listened(&h, &out).expect("ended at once");
    assert_eq!(key, BOARD);
    assert_eq!(exchange.end, End::Failed(Failure::CancelledByUser));
    // A late answer is late, not a second end.
    let out = h.reply(2, &json!({"resultType": "complete"}));
    assert!(h.done(&out).is_empty());

    // HTTP: its stream is closed.
    let mut h = Harness::modern(true);
    h.command(listen());
    let out = h.command(Command::StopListening { key: BOARD.into() });
    assert!(out.iter().any(|&i| matches!(
        &h.seen[i],
        Output::Send { outgoing: Outgoing::CloseStream(id), .. } if *id == Id::Number(2)
    )));
    assert!(listened(&h, &out).is_some());
}

#[test]
fn the_same_key_is_not_held_open_twice_and_an_unknown_one_is_said() {
    let mut h = Harness::modern(false);
    h.command(listen());
    let out = h.command(listen());
    assert!(h.sent(&out).is_empty(), "one stream per key");
    let out = h.command(Command::StopListening { key: "nope".into() });
    assert!(h.sent(&out).is_empty() && h.done(&out).is_empty());
    assert!(
        h.notes()
            .iter()
            .any(|note| note.contains("nothing to cancel"))
    );
}

#[test]
fn the_servers_end_ends_every_listen_and_the_call() {
    let mut h = Harness::modern(false);
    h.command(listen());
    h.command(call("slow"));
    let closed = TransportEvent::Closed {
        status: "exit code 1".into(),
        stderr_tail: Vec::new(),
        at: Timestamp(0),
    };
    let out = h.feed(Input::Transport(closed));
    let (key, exchange) = listened(&h, &out).expect("the listen ended");
    assert_eq!(key, BOARD);
    assert!(matches!(
        exchange.end,
        End::Failed(Failure::ServerExited { .. })
    ));
    assert!(
        h.done(&out)
            .iter()
            .any(|done| matches!(done, Done::Called(_)))
    );
    // Asked after the end: ended at once, never sent.
    let out = h.command(listen());
    assert!(h.sent(&out).is_empty());
    assert!(listened(&h, &out).is_some());
}

#[test]
fn a_listen_asked_for_while_connecting_goes_out_after_the_era_is_known() {
    let mut h = Harness::new(crate::mcp::era::EraChoice::Modern, false, false);
    h.command(Command::Connect);
    let out = h.command(listen());
    assert!(h.sent(&out).is_empty(), "waits for server/discover");
    let discover = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}});
    let out = h.reply(1, &discover);
    let sent = h.sent(&out);
    assert_eq!(sent[0]["method"], "subscriptions/listen");
    assert!(sent[0]["params"]["_meta"].is_object());
}

#[test]
fn a_refused_listen_ends_with_its_error() {
    let mut h = Harness::modern(false);
    h.command(listen());
    let out = h.error(2, -32602, "Invalid params: unknown resource");
    let (_, exchange) = listened(&h, &out).expect("ended");
    assert!(matches!(exchange.end, End::Replied(_)));
}
