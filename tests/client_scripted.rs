//! The client against a scripted peer over `tokio::io::duplex`: era negotiation and fallback,
//! pagination, server requests, and every kind of stray or broken frame.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::time::Duration;

use serde_json::{Value, json};
use sightline::classify::{Class, classify};
use sightline::mcp::era::{Era, EraChoice};
use sightline::runner::{LogEvent, Role, SessionError, SessionOptions, SessionRunner, Stage};
use sightline::stream::{Collector, EventSink};
use sightline::transport::stdio::connect_io;
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::task::JoinHandle;

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The far end of the duplex: reads what the client sends, writes what the script says.
struct Peer {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    /// Everything the client emitted, in order.
    log: Collector,
}

impl Peer {
    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("the client sent nothing")
            .unwrap()
            .expect("the client closed its output");
        serde_json::from_str(&line).unwrap()
    }

    async fn send(&mut self, raw: &str) {
        self.writer.write_all(raw.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
    }

    async fn reply(&mut self, request: &Value, result: Value) {
        let response = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        self.send(&response.to_string()).await;
    }

    async fn fail(&mut self, request: &Value, code: i64, message: &str, data: Option<Value>) {
        let mut error = json!({"code": code, "message": message});
        if let Some(data) = data {
            error["data"] = data;
        }
        let response = json!({"jsonrpc": "2.0", "id": request["id"], "error": error});
        self.send(&response.to_string()).await;
    }

    /// Answers `initialize` at `version` and swallows `notifications/initialized`.
    async fn handshake(&mut self, version: &str) {
        let initialize = self.recv().await;
        assert_eq!(initialize["method"], "initialize");
        assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
        let result = json!({"protocolVersion": version, "capabilities": {}, "serverInfo": {"name": "scripted", "version": "1"}});
        self.reply(&initialize, result).await;
        assert_eq!(self.recv().await["method"], "notifications/initialized");
    }
}

fn options(era: EraChoice) -> SessionOptions {
    SessionOptions {
        era,
        timeout: Duration::from_secs(10),
        probe_timeout: Duration::from_millis(300),
        max_frame_bytes: 1 << 20,
        ..SessionOptions::default()
    }
}

fn pair_with(options: SessionOptions, max_frame_bytes: usize) -> (SessionRunner, Peer) {
    let (client_end, peer_end) = tokio::io::duplex(1 << 16);
    let (reader, writer) = tokio::io::split(client_end);
    let log = Collector::default();
    let sink = EventSink::taps_only().with_tap(log.tap());
    let client = SessionRunner::new(connect_io(reader, writer, max_frame_bytes), options, sink);
    let (peer_reader, peer_writer) = tokio::io::split(peer_end);
    (
        client,
        Peer {
            lines: BufReader::new(peer_reader).lines(),
            writer: peer_writer,
            log,
        },
    )
}

fn pair(era: EraChoice) -> (SessionRunner, Peer) {
    pair_with(options(era), 1 << 20)
}

fn negotiate(mut client: SessionRunner) -> JoinHandle<(SessionRunner, Result<Era, String>)> {
    tokio::spawn(async move {
        let result = client
            .negotiate()
            .await
            .map(|c| c.era)
            .map_err(|e| e.to_string());
        (client, result)
    })
}

fn notes(peer: &Peer) -> Vec<String> {
    peer.log
        .log()
        .iter()
        .filter_map(|entry| match &entry.event {
            LogEvent::Note(text) => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn auto_falls_back_to_initialize_when_discover_is_refused() {
    let (client, mut peer) = pair(EraChoice::Auto);
    let task = negotiate(client);
    let probe = peer.recv().await;
    assert_eq!(probe["method"], "server/discover");
    assert_eq!(probe["params"]["_meta"][META_VERSION], "2026-07-28");
    assert!(probe["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].is_object());
    assert_eq!(
        probe["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
        "sightline"
    );
    // Not -32601: the fallback must not be keyed to one specific code.
    peer.fail(&probe, -32600, "Server not initialized", None)
        .await;
    peer.handshake("2025-06-18").await;
    let (client, era) = task.await.unwrap();
    assert_eq!(era, Ok(Era::Legacy));
    let connection = client.connection().unwrap();
    assert_eq!(connection.protocol_version, "2025-06-18");
    assert_eq!(connection.server.name, "scripted");
    assert!(
        notes(&peer)[0].contains("falling back to initialize"),
        "{:?}",
        notes(&peer)
    );
}

#[tokio::test]
async fn auto_falls_back_when_the_probe_gets_no_answer_and_logs_a_late_reply() {
    let (client, mut peer) = pair(EraChoice::Auto);
    let task = negotiate(client);
    let probe = peer.recv().await;
    // Silence: the next thing the client sends after the probe timeout is initialize.
    peer.handshake("2025-11-25").await;
    let (mut client, era) = task.await.unwrap();
    assert_eq!(era, Ok(Era::Legacy));
    assert!(notes(&peer)[0].contains("no answer within the probe timeout"));
    // The legacy server answers the probe at last: recorded as late, and the session goes on.
    peer.fail(&probe, -32601, "Method not found", None).await;
    let list = tokio::spawn(async move {
        let tools = client.list_tools().await.map_err(|e| e.to_string());
        (client, tools)
    });
    let request = peer.recv().await;
    assert!(
        request["params"].get("_meta").is_none(),
        "legacy requests carry no modern _meta"
    );
    peer.reply(&request, json!({"tools": []})).await;
    let (_client, tools) = list.await.unwrap();
    assert_eq!(tools.map(|tools| tools.len()), Ok(0));
    assert!(peer.log.log().into_iter().any(|entry| matches!(
        &entry.event,
        LogEvent::Received { role: Role::Late { method }, .. } if method == "server/discover"
    )));
}

#[tokio::test]
async fn auto_falls_back_when_discover_gets_an_empty_result_and_says_why() {
    let (client, mut peer) = pair(EraChoice::Auto);
    let task = negotiate(client);
    let probe = peer.recv().await;
    // A server that answers every method it does not know with `{}`.
    peer.reply(&probe, json!({})).await;
    peer.handshake("2025-11-25").await;
    let (client, era) = task.await.unwrap();
    assert_eq!(era, Ok(Era::Legacy));
    assert_eq!(client.connection().unwrap().protocol_version, "2025-11-25");
    let notes = notes(&peer);
    assert!(
        notes[0].contains("no DiscoverResult (it has no supportedVersions)")
            && notes[0].contains("falling back to initialize"),
        "{notes:?}"
    );
}

#[tokio::test]
async fn a_version_refused_though_listed_is_retried_once_then_named() {
    let (client, mut peer) = pair(EraChoice::Auto);
    let task = negotiate(client);
    let data = json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
    for _ in 0..2 {
        let probe = peer.recv().await;
        assert_eq!(probe["params"]["_meta"][META_VERSION], "2026-07-28");
        peer.fail(
            &probe,
            -32022,
            "Unsupported protocol version",
            Some(data.clone()),
        )
        .await;
    }
    let (_client, era) = task.await.unwrap();
    let error = era.unwrap_err();
    assert!(
        error.contains("refused protocol version '2026-07-28' twice") && !error.contains("--era"),
        "{error}"
    );
}

#[tokio::test]
async fn auto_stays_modern_on_a_discover_result() {
    let (client, mut peer) = pair(EraChoice::Auto);
    let task = negotiate(client);
    let probe = peer.recv().await;
    let result = json!({
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "9"}}
    });
    peer.reply(&probe, result).await;
    let (client, era) = task.await.unwrap();
    assert_eq!(era, Ok(Era::Modern));
    assert_eq!(client.connection().unwrap().server.name, "modern");
    assert_eq!(client.connection().unwrap().protocol_version, "2026-07-28");
}

#[tokio::test]
async fn unsupported_version_without_a_shared_one_is_a_clear_error_and_no_fallback() {
    let (client, mut peer) = pair(EraChoice::Auto);
    let task = negotiate(client);
    let probe = peer.recv().await;
    let data = json!({"supported": ["2027-03-01"], "requested": "2026-07-28"});
    peer.fail(&probe, -32022, "Unsupported protocol version", Some(data))
        .await;
    let (_client, era) = task.await.unwrap();
    let error = era.unwrap_err();
    assert!(
        error.contains("2027-03-01") && error.contains("2026-07-28"),
        "{error}"
    );
    // A recognised modern error: the client must not try initialize.
    let sent: Vec<_> = peer
        .log
        .log()
        .into_iter()
        .filter(|e| matches!(e.event, LogEvent::Sent(_)))
        .collect();
    assert_eq!(sent.len(), 1);
}

#[tokio::test]
async fn legacy_rejects_an_initialize_reply_with_an_unknown_version_naming_both() {
    let (client, mut peer) = pair(EraChoice::Legacy);
    let task = negotiate(client);
    let initialize = peer.recv().await;
    peer.reply(
        &initialize,
        json!({"protocolVersion": "2099-01-01", "capabilities": {}, "serverInfo": {}}),
    )
    .await;
    let (_, era) = task.await.unwrap();
    let error = era.unwrap_err();
    assert!(
        error.contains("'2099-01-01'") && error.contains("'2025-11-25'"),
        "{error}"
    );
}

#[tokio::test]
async fn modern_sends_meta_on_every_request_and_follows_an_empty_cursor() {
    let (client, mut peer) = pair(EraChoice::Modern);
    let task = negotiate(client);
    let probe = peer.recv().await;
    peer.reply(
        &probe,
        json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
    )
    .await;
    let (mut client, _) = task.await.unwrap();
    let list = tokio::spawn(async move { client.list_tools().await.map_err(|e| e.to_string()) });
    let first = peer.recv().await;
    assert_eq!(first["params"]["_meta"][META_VERSION], "2026-07-28");
    assert!(first["params"].get("cursor").is_none());
    peer.reply(&first, json!({"tools": [{"name": "a"}], "nextCursor": ""}))
        .await;
    let second = peer.recv().await;
    assert_eq!(
        second["params"]["cursor"], "",
        "an empty cursor is not the end in 2026-07-28"
    );
    assert_eq!(second["params"]["_meta"][META_VERSION], "2026-07-28");
    peer.reply(&second, json!({"tools": [{"name": "b"}]})).await;
    let names: Vec<String> = list
        .await
        .unwrap()
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["a", "b"]);
}

#[tokio::test]
async fn modern_refuses_a_legacy_server_clearly() {
    let (client, mut peer) = pair(EraChoice::Modern);
    let task = negotiate(client);
    let probe = peer.recv().await;
    peer.fail(&probe, -32601, "Method not found", None).await;
    let error = task.await.unwrap().1.unwrap_err();
    assert!(
        error.contains("--era") && error.contains("-32601"),
        "{error}"
    );
}

async fn legacy_session() -> (SessionRunner, Peer) {
    let (client, mut peer) = pair(EraChoice::Legacy);
    let task = negotiate(client);
    peer.handshake("2025-11-25").await;
    (task.await.unwrap().0, peer)
}

#[tokio::test]
async fn legacy_pagination_follows_opaque_cursors_and_refetches_on_list_changed() {
    let (mut client, mut peer) = legacy_session().await;
    let list = tokio::spawn(async move {
        let tools = client.list_tools().await.map_err(|e| e.to_string());
        (client, tools)
    });
    let page1 = peer.recv().await;
    peer.reply(
        &page1,
        json!({"tools": [{"name": "a"}], "nextCursor": "c/2=="}),
    )
    .await;
    let page2 = peer.recv().await;
    assert_eq!(page2["params"]["cursor"], "c/2==");
    peer.send(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#)
        .await;
    peer.reply(&page2, json!({"tools": [{"name": "b"}]})).await;
    let again = peer.recv().await;
    assert_eq!(again["method"], "tools/list");
    assert!(
        again["params"].is_null(),
        "a re-fetch starts from the first page"
    );
    peer.reply(
        &again,
        json!({"tools": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}),
    )
    .await;
    let (_, tools) = list.await.unwrap();
    assert_eq!(tools.unwrap().len(), 3);
}

#[tokio::test]
async fn a_repeated_cursor_stops_instead_of_looping() {
    let (mut client, mut peer) = legacy_session().await;
    let list = tokio::spawn(async move { client.list_tools().await.map_err(|e| e.to_string()) });
    for _ in 0..2 {
        let page = peer.recv().await;
        peer.reply(&page, json!({"tools": [], "nextCursor": "same"}))
            .await;
    }
    assert!(
        list.await
            .unwrap()
            .unwrap_err()
            .contains("'same' came back twice")
    );
}

#[tokio::test]
async fn server_requests_are_answered_and_stray_frames_are_named_while_a_call_completes() {
    let (mut client, mut peer) = legacy_session().await;
    let call = tokio::spawn(async move {
        let exchange = client
            .call_tool("book_flight", json!({"departureDate": "12/12/2024"}))
            .await;
        (client, exchange)
    });
    let request = peer.recv().await;
    assert_eq!(
        request["params"]["arguments"],
        json!({"departureDate": "12/12/2024"})
    );
    peer.send(r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#)
        .await;
    assert_eq!(
        peer.recv().await,
        json!({"jsonrpc": "2.0", "id": "p1", "result": {}})
    );
    peer.send(r#"{"jsonrpc":"2.0","id":7,"method":"roots/list"}"#)
        .await;
    let declined = peer.recv().await;
    assert_eq!(
        (declined["id"].clone(), declined["error"]["code"].clone()),
        (json!(7), json!(-32601))
    );
    peer.send("Server listening on stdio").await;
    peer.send(r#"{"jsonrpc":"2.0","id":999,"result":{}}"#).await;
    peer.send(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#).await;
    peer.send(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#).await;
    let text = "Invalid departure date: must be in the future.";
    peer.reply(
        &request,
        json!({"content": [{"type": "text", "text": text}], "isError": true}),
    )
    .await;
    peer.reply(&request, json!({"content": []})).await;
    let (mut client, exchange) = call.await.unwrap();
    assert_eq!(classify(&exchange).class, Class::ToolError);
    // The duplicate arrives after the call ended; read it by making one more request.
    let next = tokio::spawn(async move {
        let exchange = client.request("ping", None).await;
        (client, exchange)
    });
    let ping = peer.recv().await;
    peer.reply(&ping, json!({})).await;
    let (_client, _) = next.await.unwrap();
    let roles: Vec<Role> = peer
        .log
        .log()
        .into_iter()
        .filter_map(|entry| match &entry.event {
            LogEvent::Received { role, .. } => Some(role.clone()),
            _ => None,
        })
        .collect();
    assert!(roles.contains(&Role::UnknownId));
    assert!(roles.contains(&Role::Duplicate {
        method: "tools/call".into()
    }));
    assert_eq!(
        roles.iter().filter(|r| **r == Role::Notification).count(),
        2
    );
    assert!(peer.log.log().into_iter().any(|e| matches!(
        &e.event,
        LogEvent::Invalid(invalid) if &*invalid.raw == "Server listening on stdio"
    )));
}

#[tokio::test]
async fn an_error_about_no_request_ends_no_call_which_gets_its_own_reply() {
    let (mut client, mut peer) = legacy_session().await;
    let call = tokio::spawn(async move {
        let exchange = client.call_tool("x", json!({})).await;
        (client, exchange)
    });
    let request = peer.recv().await;
    // A parse error about some line, then the call's own success.
    peer.send(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
        .await;
    peer.reply(
        &request,
        json!({"content": [{"type": "text", "text": "booked"}]}),
    )
    .await;
    let (_client, exchange) = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("answered by its own reply")
        .unwrap();
    assert_eq!(classify(&exchange).class, Class::Success);
    let log = peer.log.log();
    assert!(log.iter().any(|e| matches!(
        &e.event,
        LogEvent::Received {
            role: Role::Unaddressed,
            ..
        }
    )));
    assert!(log.iter().any(
        |e| matches!(&e.event, LogEvent::Note(note) if note.contains("an error about no request"))
    ));
}

#[tokio::test]
async fn a_reply_written_before_its_request_is_never_its_answer() {
    let mut opts = options(EraChoice::Legacy);
    opts.timeout = Duration::from_millis(400);
    let (client, mut peer) = pair_with(opts, 1 << 20);
    let mut client = {
        let task = negotiate(client);
        peer.handshake("2025-11-25").await;
        task.await.unwrap().0
    };
    // Reads enough to fill the transport's event queue, each its own read, so that the reader
    // is left holding the last one (read, not yet handed over) when the call goes out.
    for _ in 0..sightline::transport::EVENT_CAPACITY {
        peer.send(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#)
            .await;
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    // The handshake used id 1 (initialize); the next request will be 2: answer it first.
    peer.send(r#"{"jsonrpc":"2.0","id":2,"result":{"content":[],"isError":true}}"#)
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let call = tokio::spawn(async move { client.call_tool("x", json!({})).await });
    let request = peer.recv().await;
    assert_eq!(request["id"], 2);
    peer.reply(&request, json!({"content": []})).await;
    let exchange = call.await.unwrap();
    assert_eq!(
        classify(&exchange).class,
        Class::Success,
        "the early isError reply was not taken"
    );
    assert!(peer.log.log().iter().any(|e| matches!(
        &e.event,
        LogEvent::Received {
            role: Role::UnknownId,
            ..
        }
    )));
}

#[tokio::test]
async fn a_timeout_is_local_sends_cancelled_and_a_late_reply_is_recorded_as_late() {
    let mut opts = options(EraChoice::Legacy);
    opts.timeout = Duration::from_millis(200);
    let (client, mut peer) = pair_with(opts, 1 << 20);
    let task = negotiate(client);
    peer.handshake("2025-11-25").await;
    let (mut client, _) = task.await.unwrap();
    let call = tokio::spawn(async move {
        let exchange = client
            .call_tool("slow_search", json!({"seconds": 60}))
            .await;
        (client, exchange)
    });
    let request = peer.recv().await;
    let cancelled = peer.recv().await;
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert_eq!(cancelled["params"]["requestId"], request["id"]);
    let (mut client, exchange) = call.await.unwrap();
    let outcome = classify(&exchange);
    assert_eq!(outcome.class, Class::TransportFailure);
    assert!(
        outcome.detail.contains("sightline's own timeout"),
        "{}",
        outcome.detail
    );
    assert!(exchange.response().is_none());
    peer.reply(&request, json!({"content": []})).await;
    let next = tokio::spawn(async move {
        let exchange = client.request("ping", None).await;
        (client, exchange)
    });
    let ping = peer.recv().await;
    peer.reply(&ping, json!({})).await;
    let (_client, _) = next.await.unwrap();
    assert!(peer.log.log().into_iter().any(|e| matches!(
        &e.event,
        LogEvent::Received { role: Role::Late { method }, .. } if method == "tools/call"
    )));
}

#[tokio::test]
async fn an_oversized_reply_ends_the_call_as_a_transport_failure_and_reading_resumes() {
    let (client, mut peer) = pair_with(options(EraChoice::Legacy), 4096);
    let task = negotiate(client);
    peer.handshake("2025-11-25").await;
    let (mut client, _) = task.await.unwrap();
    let call = tokio::spawn(async move {
        let exchange = client.call_tool("big", json!({})).await;
        (client, exchange)
    });
    let request = peer.recv().await;
    let huge = "x".repeat(100_000);
    peer.reply(
        &request,
        json!({"content": [{"type": "text", "text": huge}]}),
    )
    .await;
    let (mut client, exchange) = call.await.unwrap();
    let outcome = classify(&exchange);
    assert_eq!(outcome.class, Class::TransportFailure);
    assert!(
        outcome.detail.contains("exceeds the 4096-byte limit"),
        "{}",
        outcome.detail
    );
    let next = tokio::spawn(async move { client.request("ping", None).await });
    let ping = peer.recv().await;
    peer.reply(&ping, json!({})).await;
    assert_eq!(classify(&next.await.unwrap()).class, Class::Success);
}

#[tokio::test]
async fn a_malformed_reply_naming_our_id_ends_the_call_at_once() {
    let (mut client, mut peer) = legacy_session().await;
    let call = tokio::spawn(async move { client.call_tool("x", json!({})).await });
    let request = peer.recv().await;
    peer.send(&format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{}},"error":{{"code":1,"message":"m"}}}}"#,
        request["id"]
    ))
    .await;
    let exchange = call.await.unwrap();
    let outcome = classify(&exchange);
    assert_eq!(outcome.class, Class::TransportFailure);
    assert!(
        outcome.detail.contains("both `result` and `error`"),
        "{}",
        outcome.detail
    );
}

#[tokio::test]
async fn a_peer_that_closes_mid_call_ends_it_as_a_transport_failure() {
    let (mut client, peer) = legacy_session().await;
    let call = tokio::spawn(async move { client.call_tool("x", json!({})).await });
    drop(peer);
    let exchange = call.await.unwrap();
    assert_eq!(classify(&exchange).class, Class::TransportFailure);
    assert!(classify(&exchange).detail.contains("server exited"));
}

#[test]
fn client_errors_have_a_class_and_a_stage() {
    let error = SessionError::NoSharedVersion { supported: vec![] };
    assert_eq!(error.outcome().class, Class::ProtocolError);
    assert_eq!(error.stage(), Stage::Discover);
    let error = SessionError::UnsupportedVersion {
        offered: "a".into(),
        answered: "b".into(),
    };
    assert_eq!(error.outcome().class, Class::TransportFailure);
    assert_eq!(error.stage(), Stage::Initialize);
}

#[tokio::test]
async fn a_modern_server_slow_to_answer_the_probe_is_still_found_modern() {
    let (client, mut peer) = pair(EraChoice::Auto);
    let task = negotiate(client);
    let probe = peer.recv().await;
    // The probe times out (the server was starting); then it answers both requests in order.
    let initialize = peer.recv().await;
    assert_eq!(initialize["method"], "initialize");
    let result = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}, "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "slow", "version": "1"}}});
    peer.reply(&probe, result).await;
    let data = json!({"supported": ["2026-07-28"], "requested": "2025-11-25"});
    peer.fail(
        &initialize,
        -32022,
        "the initialize handshake is not accepted",
        Some(data),
    )
    .await;
    let (client, era) = task.await.unwrap();
    assert_eq!(era, Ok(Era::Modern));
    assert_eq!(client.connection().unwrap().server.name, "slow");
    assert!(
        notes(&peer)
            .iter()
            .any(|n| n.contains("answered after the probe timeout"))
    );
}

/// A hostile 2026-07-28 server: twenty questions in one round, and `input_required` forever.
/// sightline answers the first sixteen, leaves the rest out, and stops after eight rounds.
#[tokio::test]
async fn input_required_rounds_and_questions_are_bounded() {
    let (client, mut peer) = pair(EraChoice::Modern);
    let task = negotiate(client);
    let probe = peer.recv().await;
    peer.reply(
        &probe,
        json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
    )
    .await;
    let (mut client, _) = task.await.unwrap();
    let call = tokio::spawn(async move { client.call_tool("ask", json!({})).await });
    let questions: serde_json::Map<String, Value> = (0..20)
        .map(|n| {
            let ask =
                json!({"method": "elicitation/create", "params": {"message": format!("q{n}")}});
            (format!("q{n:02}"), ask)
        })
        .collect();
    let mut ids = Vec::new();
    for round in 0..=8 {
        let request = peer.recv().await;
        assert_eq!(request["method"], "tools/call");
        ids.push(request["id"].clone());
        if round > 0 {
            let answered = request["params"]["inputResponses"].as_object().unwrap();
            assert_eq!(answered.len(), 16, "the first sixteen, declined");
            assert_eq!(request["params"]["requestState"], format!("s{}", round - 1));
        }
        let asks = json!({"resultType": "input_required", "inputRequests": questions, "requestState": format!("s{round}")});
        peer.reply(&request, asks).await;
    }
    let exchange = call.await.unwrap();
    ids.dedup();
    assert_eq!(
        ids.len(),
        9,
        "the call and eight retries, each under its own id"
    );
    assert_eq!(classify(&exchange).class, Class::TransportFailure);
    assert!(
        notes(&peer)
            .iter()
            .any(|note| note.contains("still answered input_required after 8 rounds")),
        "{:?}",
        notes(&peer)
    );
}
