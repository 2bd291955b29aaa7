//! Requests other than `tools/call`: sent as effects, each answer routed to whoever asked.

use serde_json::json;

use super::*;
use crate::app::requests::{Asker, send};
use crate::classify::fixtures::request;

fn requested(state: &mut AppState, method: &str) -> Vec<Effect> {
    let exchange = request(method).result(json!({}));
    session(state, SessionEvent::Requested(Box::new(exchange)))
}

#[test]
fn a_request_is_sent_as_given_and_its_answer_ends_the_wait() {
    let mut state = state();
    let effects = send(&mut state, "ping", Some(json!({})), Asker::Log);
    assert_eq!(
        effects,
        vec![Effect::Session(SessionCommand::Request {
            method: "ping".into(),
            params: Some(json!({})),
        })]
    );
    assert_eq!(state.requests.len(), 1);
    // An answer of another method is not this one's.
    requested(&mut state, "resources/list");
    assert_eq!(state.requests.len(), 1);
    requested(&mut state, "ping");
    assert!(state.requests.is_empty());
}

#[test]
fn answers_of_one_method_end_the_oldest_wait_first() {
    let mut state = state();
    send(&mut state, "ping", None, Asker::Log);
    send(&mut state, "resources/read", None, Asker::Log);
    send(&mut state, "ping", None, Asker::Log);
    requested(&mut state, "ping");
    assert_eq!(state.requests.len(), 2);
    assert!(state.requests.any(|method, _| method == "resources/read"));
}

#[test]
fn nothing_is_sent_in_a_replay_or_without_a_connection_and_an_ended_connection_forgets() {
    let mut state = state();
    send(&mut state, "ping", None, Asker::Log);
    session(&mut state, SessionEvent::Disconnected);
    assert!(state.requests.is_empty());
    assert!(send(&mut state, "ping", None, Asker::Log).is_empty());
    assert!(
        status(&state).contains("not connected"),
        "{}",
        status(&state)
    );

    let mut replay = super::state();
    replay.replay = Some("t.jsonl".into());
    assert!(send(&mut replay, "ping", None, Asker::Log).is_empty());
    assert!(replay.requests.is_empty());
}
