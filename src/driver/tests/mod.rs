//! The driver's decisions, fed inputs by hand: no runtime, no transport, no clock but the one
//! given.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use crate::mcp::era::EraChoice;
use crate::mcp::input::Elicit;
use crate::mcp::jsonrpc::{self, Frame};
use crate::mcp::log::{LogEvent, Probe, ProbeAnswer, Role};
use crate::mcp::session::{End, Failure};

/// A driver and the clock it is fed.
struct Harness {
    driver: Driver,
    now: Duration,
    mark: u64,
    /// Every output so far, in order.
    seen: Vec<Output>,
}

impl Harness {
    fn new(era: EraChoice, http: bool, ask: bool) -> Self {
        let options = SessionOptions {
            era,
            timeout: Duration::from_secs(10),
            ask,
            ..SessionOptions::default()
        };
        Self::with(options, http)
    }

    fn with(options: SessionOptions, http: bool) -> Self {
        Self {
            driver: Driver::new(options, Wire { http }),
            now: Duration::ZERO,
            mark: 0,
            seen: Vec::new(),
        }
    }

    fn at(&mut self) -> Now {
        self.mark += 1;
        Now {
            mono: self.now,
            wall: Timestamp(1_000 + u64::try_from(self.now.as_millis()).unwrap()),
            mark: self.mark,
        }
    }

    /// Feeds one input; the outputs it led to.
    fn feed(&mut self, input: Input) -> Vec<usize> {
        let now = self.at();
        let outputs = self.driver.handle(now, [input]);
        let first = self.seen.len();
        self.seen.extend(outputs);
        (first..self.seen.len()).collect()
    }

    fn command(&mut self, command: Command) -> Vec<usize> {
        self.feed(Input::Command(command))
    }

    /// The server says `line`.
    fn server(&mut self, line: &str) -> Vec<usize> {
        let frame = jsonrpc::parse(line).unwrap();
        let event = TransportEvent::Received {
            lines: vec![Ok(frame)],
            at: Timestamp(0),
            mark: self.at().mark,
            body_of: None,
        };
        self.feed(Input::Transport(event))
    }

    fn reply(&mut self, id: u64, result: &Value) -> Vec<usize> {
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
        self.server(&line)
    }

    fn error(&mut self, id: u64, code: i64, message: &str) -> Vec<usize> {
        let error = json!({"code": code, "message": message});
        let line = json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string();
        self.server(&line)
    }

    /// The messages sent by the outputs at `indices` (lines, in order).
    fn sent(&self, indices: &[usize]) -> Vec<Value> {
        indices
            .iter()
            .filter_map(|&i| match &self.seen[i] {
                Output::Send {
                    outgoing: Outgoing::Line(line) | Outgoing::WithHeaders { line, .. },
                    ..
                } => Some(serde_json::from_str(line).unwrap()),
                _ => None,
            })
            .collect()
    }

    /// The last request sent so far.
    fn last_request(&self) -> Value {
        let all: Vec<usize> = (0..self.seen.len()).collect();
        self.sent(&all)
            .into_iter()
            .rev()
            .find(|message| message.get("id").is_some() && message.get("method").is_some())
            .expect("a request was sent")
    }

    /// The timers set by the outputs at `indices`.
    fn timers(&self, indices: &[usize]) -> Vec<(TimerId, Duration)> {
        indices
            .iter()
            .filter_map(|&i| match &self.seen[i] {
                Output::Timer { id, at } => Some((*id, *at)),
                _ => None,
            })
            .collect()
    }

    fn notes(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter_map(|output| match output {
                Output::Event(SessionEvent::Logged(entry)) => match &entry.event {
                    LogEvent::Note(text) => Some(text.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    fn done(&self, indices: &[usize]) -> Vec<&Done> {
        indices
            .iter()
            .filter_map(|&i| match &self.seen[i] {
                Output::Done(done) => Some(done),
                _ => None,
            })
            .collect()
    }

    /// Connects a legacy server (`initialize` answered).
    fn legacy(ask: bool) -> Self {
        let mut harness = Self::new(EraChoice::Legacy, false, ask);
        harness.command(Command::Connect);
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}});
        let out = harness.reply(1, &init);
        assert!(matches!(harness.done(&out)[..], [Done::Connected(Ok(_))]));
        harness
    }

    /// Connects a 2026-07-28 server (`server/discover` answered).
    fn modern(http: bool) -> Self {
        let mut harness = Self::new(EraChoice::Modern, http, false);
        harness.command(Command::Connect);
        let discover = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}});
        let out = harness.reply(1, &discover);
        assert!(matches!(harness.done(&out)[..], [Done::Connected(Ok(_))]));
        harness
    }
}

fn call(tool: &str) -> Command {
    Command::Call {
        tool: tool.into(),
        arguments: json!({}),
    }
}

#[test]
fn auto_probes_then_falls_back_to_initialize_when_the_probe_timer_fires() {
    let mut h = Harness::new(EraChoice::Auto, false, false);
    let out = h.command(Command::Connect);
    assert_eq!(h.sent(&out)[0]["method"], "server/discover");
    let [(probe, at)] = h.timers(&out)[..] else {
        panic!("one deadline")
    };
    assert_eq!(
        at,
        Duration::from_secs(2),
        "the probe timeout, not the request timeout"
    );
    h.now = at;
    let out = h.feed(Input::Timer(probe));
    let sent = h.sent(&out);
    assert_eq!(
        sent.len(),
        1,
        "a probe's timeout sends no cancellation: {sent:?}"
    );
    assert_eq!(sent[0]["method"], "initialize");
    assert!(
        h.notes()
            .iter()
            .any(|n| n.contains("falling back to initialize"))
    );
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {}});
    let out = h.reply(2, &init);
    assert_eq!(h.sent(&out)[0]["method"], "notifications/initialized");
    let [Done::Connected(Ok(connection))] = h.done(&out)[..] else {
        panic!("connected")
    };
    assert_eq!(connection.protocol_version, "2025-06-18");
    assert_eq!(
        connection.probe,
        Some(Probe {
            id: jsonrpc::Id::Number(1),
            answer: ProbeAnswer::Unanswered
        })
    );
}

/// The negotiation says which request was the probe and how it ended: the log's rows of it
/// are labelled from that, never guessed from the rows.
#[test]
fn the_connection_says_how_the_probe_ended_and_only_after_a_probe() {
    let connect = |h: &mut Harness, refuse: &dyn Fn(&mut Harness)| {
        h.command(Command::Connect);
        refuse(h);
        let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}});
        let out = h.reply(2, &init);
        let [Done::Connected(Ok(connection))] = h.done(&out)[..] else {
            panic!("connected")
        };
        connection.probe.clone()
    };
    let mut h = Harness::new(EraChoice::Auto, false, false);
    let probe = connect(&mut h, &|h| {
        h.error(1, -32601, "Method not found");
    });
    let refused = |addressed| {
        Some(Probe {
            id: jsonrpc::Id::Number(1),
            answer: ProbeAnswer::Refused {
                code: -32601,
                addressed,
            },
        })
    };
    assert_eq!(probe, refused(true));

    // Over HTTP: an error of id null, the body of the probe's POST.
    let mut h = Harness::new(EraChoice::Auto, true, false);
    let probe = connect(&mut h, &|h| {
        let line = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}"#;
        let event = TransportEvent::Received {
            lines: vec![Ok(jsonrpc::parse(line).unwrap())],
            at: Timestamp(0),
            mark: h.at().mark,
            body_of: Some(jsonrpc::Id::Number(1)),
        };
        h.feed(Input::Transport(event));
    });
    assert_eq!(probe, refused(false));

    // `--era legacy` sends no probe.
    let mut h = Harness::new(EraChoice::Legacy, false, false);
    h.command(Command::Connect);
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}});
    let out = h.reply(1, &init);
    let [Done::Connected(Ok(connection))] = h.done(&out)[..] else {
        panic!("connected")
    };
    assert_eq!(connection.probe, None);
}

#[test]
fn a_stale_timer_does_nothing() {
    let mut h = Harness::legacy(false);
    let out = h.command(call("x"));
    let [(deadline, _)] = h.timers(&out)[..] else {
        panic!("one deadline")
    };
    h.reply(2, &json!({"content": []}));
    let out = h.feed(Input::Timer(deadline));
    assert!(out.is_empty(), "the call had ended: {:?}", &h.seen[out[0]]);
}

#[test]
fn a_deadline_times_the_call_out_and_cancels_it() {
    let mut h = Harness::legacy(false);
    let out = h.command(call("slow"));
    let [(deadline, at)] = h.timers(&out)[..] else {
        panic!("one deadline")
    };
    assert_eq!(at, Duration::from_secs(10));
    h.now = at;
    let out = h.feed(Input::Timer(deadline));
    let sent = h.sent(&out);
    assert_eq!(sent[0]["method"], "notifications/cancelled");
    assert_eq!(sent[0]["params"]["requestId"], 2);
    let [Done::Called(exchange)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let exchange = &exchange.exchange;
    assert_eq!(exchange.end, End::TimedOut { after_ms: 10_000 });
    // The stream carries the call judged, once, by the session.
    let judged = out.iter().find_map(|&i| match &h.seen[i] {
        Output::Event(SessionEvent::CallFinished(finished)) => finished.judged.clone(),
        _ => None,
    });
    assert_eq!(
        judged.expect("judged").outcome.class,
        crate::classify::Class::TransportFailure
    );
}

#[test]
fn tasks_switched_on_during_a_pending_call_apply_to_its_handle_at_once() {
    let mut h = Harness::modern(false);
    h.command(call("long"));
    // The user presses `t` while the call waits: nothing waits for the call to end.
    let out = h.command(Command::SetTasks(true));
    assert!(out.is_empty(), "a setting sends nothing by itself");
    let handle =
        json!({"resultType": "task", "taskId": "t1", "status": "working", "pollIntervalMs": 100});
    let out = h.reply(2, &handle);
    assert!(
        h.done(&out).is_empty(),
        "the handle is followed, not the end"
    );
    let [(poll, at)] = h.timers(&out)[..] else {
        panic!("a poll timer")
    };
    assert_eq!(at, Duration::from_millis(100), "the server's interval");
    h.now = at;
    h.feed(Input::Timer(poll));
    let get = h.last_request();
    assert_eq!(get["method"], "tasks/get");
    let capabilities = &get["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"];
    assert!(
        capabilities["extensions"]["io.modelcontextprotocol/tasks"].is_object(),
        "the poll declares the extension: {capabilities}"
    );
    let out = h.reply(
        3,
        &json!({"taskId": "t1", "status": "completed", "result": {"content": []}}),
    );
    let [Done::Called(exchange)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let exchange = &exchange.exchange;
    assert_eq!(exchange.task.as_ref().unwrap().status, "completed");
}

#[test]
fn without_tasks_a_handle_ends_the_call() {
    let mut h = Harness::modern(false);
    h.command(call("long"));
    let handle = json!({"resultType": "task", "taskId": "t1", "status": "working"});
    let out = h.reply(2, &handle);
    assert!(matches!(h.done(&out)[..], [Done::Called(_)]));
}

#[test]
fn a_server_question_is_asked_and_one_answer_replies_to_it_and_moves_the_deadline() {
    let mut h = Harness::legacy(true);
    let out = h.command(call("book"));
    let [(deadline, at)] = h.timers(&out)[..] else {
        panic!("one deadline")
    };
    let ask = json!({"jsonrpc": "2.0", "id": "q", "method": "elicitation/create", "params": {"message": "seat?"}});
    let out = h.server(&ask.to_string());
    let number = out
        .iter()
        .find_map(|&i| match &h.seen[i] {
            Output::Event(SessionEvent::Asked { number, .. }) => Some(*number),
            _ => None,
        })
        .expect("asked");
    // The user thinks past the call's deadline: the time is the user's, not the server's.
    h.now = at + Duration::from_secs(5);
    assert!(h.feed(Input::Timer(deadline)).is_empty());
    let answer = Answer::Result(json!({"action": "accept", "content": {"seat": "1A"}}));
    let out = h.command(Command::Answer { number, answer });
    let sent = h.sent(&out);
    assert_eq!(sent[0]["id"], "q");
    assert_eq!(sent[0]["result"]["content"]["seat"], "1A");
    let [(_, moved)] = h.timers(&out)[..] else {
        panic!("the deadline is set again")
    };
    // Asked at 0 s, answered at 15 s: the 10 s deadline moves to 25 s.
    assert_eq!(moved, at + h.now, "moved by the time spent answering");
    let out = h.reply(2, &json!({"content": []}));
    let [Done::Called(exchange)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let exchange = &exchange.exchange;
    assert_eq!(
        exchange.rounds.len(),
        1,
        "the question is a round of the call"
    );
}

#[test]
fn without_someone_to_ask_the_answers_given_in_advance_reply_at_once() {
    let mut h = Harness::legacy(false);
    h.command(call("book"));
    let ask = json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {"message": "seat?"}});
    let out = h.server(&ask.to_string());
    let sent = h.sent(&out);
    assert_eq!(sent[0]["id"], 7);
    assert_eq!(sent[0]["result"]["action"], "decline");
}

#[test]
fn an_input_round_is_answered_and_the_call_retried_under_a_new_id_with_its_state() {
    let mut h = Harness::modern(false);
    h.driver.core.options.answers.elicit = Elicit::Accept(Some(r#"{"ok": true}"#.into()));
    h.command(call("book"));
    let asks = json!({"resultType": "input_required", "requestState": "s0", "inputRequests": {"k": {"method": "elicitation/create", "params": {"message": "sure?"}}}});
    h.reply(2, &asks);
    let retry = h.last_request();
    assert_eq!(retry["id"], 3);
    assert_eq!(retry["params"]["requestState"], "s0");
    assert_eq!(
        retry["params"]["inputResponses"]["k"]["content"]["ok"],
        true
    );
    let out = h.reply(3, &json!({"content": []}));
    let [Done::Called(exchange)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let exchange = &exchange.exchange;
    assert_eq!(exchange.id, Id::Number(3));
    assert_eq!(exchange.rounds[0].asked_by, Some(Id::Number(2)));
}

#[test]
fn a_header_mismatch_lists_the_tools_again_and_retries_once() {
    let mut h = Harness::modern(true);
    h.command(call("x"));
    h.error(2, -32020, "HeaderMismatch");
    assert_eq!(h.last_request()["method"], "tools/list");
    let out = h.reply(3, &json!({"tools": []}));
    assert!(
        out.iter()
            .any(|&i| matches!(&h.seen[i], Output::Event(SessionEvent::ToolsListed(_))))
    );
    assert_eq!(h.last_request()["method"], "tools/call");
    let out = h.error(4, -32020, "HeaderMismatch");
    assert!(
        matches!(h.done(&out)[..], [Done::Called(_)]),
        "retried once only"
    );
}

#[test]
fn a_lost_stream_is_reissued_under_a_new_id() {
    let mut h = Harness::modern(true);
    h.command(call("x"));
    let lost = TransportEvent::StreamLost {
        id: Id::Number(2),
        reason: "the stream ended".into(),
        at: Timestamp(0),
    };
    let out = h.feed(Input::Transport(lost));
    assert!(h.done(&out).is_empty());
    let again = h.last_request();
    assert_eq!(
        (again["id"].clone(), again["method"].clone()),
        (json!(3), json!("tools/call"))
    );
    assert!(
        h.notes()
            .iter()
            .any(|n| n.contains("re-issuing the request under a new id"))
    );
}

#[test]
fn the_users_cancel_over_modern_http_closes_the_stream() {
    let mut h = Harness::modern(true);
    h.command(call("slow"));
    let out = h.command(Command::Cancel);
    assert!(out.iter().any(|&i| matches!(
        &h.seen[i],
        Output::Send {
            outgoing: Outgoing::CloseStream(Id::Number(2)),
            ..
        }
    )));
    let [Done::Called(exchange)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let exchange = &exchange.exchange;
    assert_eq!(exchange.end, End::Failed(Failure::CancelledByUser));
}

#[test]
fn a_shutdown_during_a_call_reports_the_call_then_ends_when_the_server_is_gone() {
    let mut h = Harness::legacy(false);
    h.command(call("slow"));
    let out = h.command(Command::Shutdown);
    let finished = out
        .iter()
        .position(|&i| matches!(&h.seen[i], Output::Event(SessionEvent::CallFinished(_))));
    let close = out
        .iter()
        .position(|&i| matches!(&h.seen[i], Output::Close));
    assert!(
        finished.unwrap() < close.unwrap(),
        "the call is reported before the server is stopped"
    );
    assert!(
        !h.done(&out)
            .iter()
            .any(|done| matches!(done, Done::ShutDown))
    );
    let closed = TransportEvent::Closed {
        status: "exit code 0".into(),
        stderr_tail: Vec::new(),
        at: Timestamp(0),
    };
    let out = h.feed(Input::Transport(closed));
    assert!(matches!(h.done(&out)[..], [Done::ShutDown]));
}

#[test]
fn a_request_to_a_server_already_gone_ends_at_once() {
    let mut h = Harness::legacy(false);
    let closed = TransportEvent::Closed {
        status: "exit code 3".into(),
        stderr_tail: vec!["boom".into()],
        at: Timestamp(0),
    };
    let out = h.feed(Input::Transport(closed));
    assert!(out.iter().any(|&i| matches!(h.seen[i], Output::Gone)));
    let out = h.command(call("x"));
    let [Done::Called(exchange)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let exchange = &exchange.exchange;
    assert!(
        matches!(&exchange.end, End::Failed(Failure::ServerExited { status, .. }) if status == "exit code 3")
    );
}

#[test]
fn a_legacy_http_session_that_ended_is_initialized_again_before_the_next_request() {
    let mut h = Harness::legacy(false);
    h.feed(Input::Transport(TransportEvent::SessionExpired {
        at: Timestamp(0),
    }));
    let out = h.command(call("x"));
    assert_eq!(h.sent(&out)[0]["method"], "initialize");
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": {}});
    let out = h.reply(2, &init);
    let methods: Vec<Value> = h.sent(&out).iter().map(|m| m["method"].clone()).collect();
    assert_eq!(
        methods,
        [json!("notifications/initialized"), json!("tools/call")]
    );
}

#[test]
fn a_request_the_transport_refuses_ends_as_not_sent() {
    let mut h = Harness::legacy(false);
    h.command(call("x"));
    let out = h.feed(Input::NotSent {
        request: Some(Id::Number(2)),
        reason: "the server is not reading its input".into(),
    });
    let [Done::Called(exchange)] = h.done(&out)[..] else {
        panic!("the call ended")
    };
    let exchange = &exchange.exchange;
    assert!(matches!(
        &exchange.end,
        End::Failed(Failure::SendFailed { .. })
    ));
}

#[test]
fn lines_handled_together_are_recorded_before_what_they_lead_to() {
    let mut h = Harness::legacy(false);
    h.command(Command::ListTools);
    let page = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [], "nextCursor": "c"}});
    let stray = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {}});
    let now = h.at();
    // Two reads, handed over together (as the runner does with what is ready).
    let reads = [page, stray].map(|line| {
        Input::Transport(TransportEvent::Received {
            lines: vec![Ok::<Frame, _>(jsonrpc::parse(&line.to_string()).unwrap())],
            at: Timestamp(0),
            mark: now.mark,
            body_of: None,
        })
    });
    let outputs = h.driver.handle(now, reads);
    let order: Vec<&str> = outputs
        .iter()
        .filter_map(|output| match output {
            Output::Event(SessionEvent::Logged(entry)) => match &entry.event {
                LogEvent::Received {
                    role: Role::Notification,
                    ..
                } => Some("notification"),
                LogEvent::Received { .. } => Some("page"),
                LogEvent::Sent(_) => Some("next page sent"),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(order, ["page", "notification", "next page sent"]);
}

mod ends;
mod listens;
mod tasks;
