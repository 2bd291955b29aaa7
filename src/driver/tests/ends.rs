//! Each command's end is said once, by the driver: on the stream, and to a caller only when one
//! awaits it.

use super::*;

/// A session with a legacy server whose ends go to `ends`, `initialize` sent.
fn connecting(ends: Ends) -> Harness {
    let options = SessionOptions {
        era: EraChoice::Legacy,
        ends,
        ..SessionOptions::default()
    };
    let mut h = Harness::with(options, false);
    h.command(Command::Connect);
    h
}

/// [`connecting`], answered: connected.
fn connected(ends: Ends) -> Harness {
    let mut h = connecting(ends);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}});
    let out = h.reply(1, &init);
    assert!(matches!(h.done(&out)[..], [Done::Connected(Ok(_))]));
    h
}

/// The ends among the outputs at `indices`, as the stream says them.
fn ends_said(h: &Harness, indices: &[usize]) -> Vec<String> {
    indices
        .iter()
        .filter_map(|&i| match &h.seen[i] {
            Output::Event(SessionEvent::CallFinished(finished)) => {
                Some(format!("call {}", finished.exchange.id))
            }
            Output::Event(SessionEvent::Requested(exchange)) => {
                Some(format!("request {}", exchange.id))
            }
            Output::Event(SessionEvent::ConnectFailed { .. }) => Some("connect failed".into()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_live_sessions_call_and_request_end_on_the_stream_once_and_nowhere_else() {
    let mut h = connected(Ends::OnStream);
    h.command(call("book"));
    let out = h.reply(2, &json!({"content": []}));
    assert_eq!(ends_said(&h, &out), ["call 2"]);
    assert!(h.done(&out).is_empty(), "nobody awaits the end");
    h.command(Command::Request {
        method: "resources/list".into(),
        params: None,
    });
    let out = h.reply(3, &json!({"resources": []}));
    assert_eq!(ends_said(&h, &out), ["request 3"]);
    assert!(h.done(&out).is_empty(), "nobody awaits the end");
}

#[test]
fn an_awaited_end_is_on_the_stream_and_handed_to_the_caller() {
    let mut h = connected(Ends::Awaited);
    h.command(call("book"));
    let out = h.reply(2, &json!({"content": [], "isError": true}));
    assert_eq!(ends_said(&h, &out), ["call 2"]);
    let [Done::Called(finished)] = h.done(&out)[..] else {
        panic!("the call's end, handed back")
    };
    assert_eq!(finished.exchange.id, Id::Number(2));
    assert!(finished.judged.is_some(), "judged once, for both");
    h.command(Command::Request {
        method: "ping".into(),
        params: None,
    });
    let out = h.reply(3, &json!({}));
    assert_eq!(ends_said(&h, &out), ["request 3"]);
    assert!(matches!(h.done(&out)[..], [Done::Requested(_)]));
}

#[test]
fn a_failed_connection_is_said_by_the_driver_and_still_ends_the_command() {
    for ends in [Ends::OnStream, Ends::Awaited] {
        let mut h = connecting(ends);
        let out = h.error(1, -32600, "no");
        assert_eq!(ends_said(&h, &out), ["connect failed"], "{ends:?}");
        assert!(matches!(h.done(&out)[..], [Done::Connected(Err(_))]));
    }
}
