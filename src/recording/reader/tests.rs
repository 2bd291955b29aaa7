//! The reader's tests: transcripts written by the recorder and read back.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::classify::fixtures::call;
use crate::transcript::Redactor;
use crate::transcript::fixtures::{entry, every_event, write};

fn read(text: &str) -> Result<Vec<Result<SessionEvent, TranscriptError>>, TranscriptError> {
    Ok(Reader::new(text.as_bytes(), "t.jsonl")?.collect())
}

#[test]
fn every_event_reads_back_as_it_was_written() {
    let events = every_event();
    let text = write(&events, &Redactor::default());
    assert_eq!(text.lines().count(), events.len() + 1, "one line per event");
    let back: Vec<SessionEvent> = read(&text)
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(back, events);
}

#[test]
fn an_oauth_fact_reads_back_typed_from_its_note_and_from_an_older_sightlines_note() {
    use crate::mcp::oauth::{AuthFact, AuthStep};
    let fact = AuthFact::Step(AuthStep::OpenUrl {
        url: "http://127.0.0.1:9/authorize?state=s3cr3t-state".into(),
    });
    let text = write(
        &[entry(5, LogEvent::Authorization(fact.clone()))],
        &Redactor::default(),
    );
    let line: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    // Its words stay in `text`, so an older sightline reads it as the note it always was.
    assert_eq!(line["type"], "note");
    assert_eq!(
        line["text"],
        "authorization: open this URL to authorize: http://127.0.0.1:9/authorize?state=s3cr3t-state"
    );
    assert_eq!(line["authorization"]["step"]["step"], "open_url");
    let typed = LogEvent::Authorization(fact);
    let back = |text: &str| -> Vec<SessionEvent> {
        read(text)
            .unwrap()
            .into_iter()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(back(&text), [entry(5, typed.clone())]);
    // As sightline wrote it before facts were typed: a note, and only its words.
    let header = text.lines().next().unwrap();
    let older = format!(
        "{header}\n{}\n{}\n",
        r#"{"type":"note","at":5,"text":"authorization: open this URL to authorize: http://127.0.0.1:9/authorize?state=s3cr3t-state"}"#,
        r#"{"type":"note","at":6,"text":"⚑ auth.no-pkce-s256: 2025-11-25 authorization: `code_challenge_methods_supported` must list S256; without it MCP clients MUST refuse to proceed"}"#,
    );
    let problem = crate::mcp::oauth::AuthProblem::NoPkceS256;
    assert_eq!(
        back(&older),
        [
            entry(5, typed),
            entry(6, LogEvent::Authorization(AuthFact::Problem(problem)))
        ]
    );
    // A fact a newer sightline knows and this one does not stays its words.
    let newer = format!(
        "{header}\n{}\n",
        r#"{"type":"note","at":7,"text":"authorization: teleporting","authorization":{"step":{"step":"teleport"}}}"#
    );
    assert_eq!(
        back(&newer),
        [entry(
            7,
            LogEvent::Note("authorization: teleporting".into())
        )]
    );
}

#[test]
fn an_oauth_fact_is_redacted_in_its_words_and_its_data() {
    use crate::mcp::oauth::{AuthFact, AuthStep};
    let fact = AuthFact::Step(AuthStep::GivenClient {
        client_id: "client-with-s3cr3t-inside".into(),
    });
    let redactor = Redactor::new(true, &[("x-key".into(), "s3cr3t".into())], &[]);
    let text = write(&[entry(1, LogEvent::Authorization(fact))], &redactor);
    assert!(!text.contains("s3cr3t"), "{text}");
    assert_eq!(text.matches("client-with-****-inside").count(), 2, "{text}");
}

/// A call's reply is the frame received just before its `call` line: written once, read
/// back whole, in the stream and when the call is read again on its own.
#[test]
fn a_calls_reply_is_written_once_and_read_back_whole() {
    use crate::mcp::session::End;
    use crate::mcp::verdict::Finished;
    let exchange = call("book_flight", json!({})).text("booked on the 12th");
    let End::Replied(reply) = &exchange.end else {
        panic!("a reply")
    };
    let events = [
        entry(1, LogEvent::Sent(exchange.request.clone())),
        entry(
            2,
            LogEvent::Received {
                frame: reply.clone(),
                role: Role::Reply {
                    method: "tools/call".into(),
                },
            },
        ),
        SessionEvent::CallFinished(Box::new(Finished::unjudged(exchange.clone()))),
    ];
    let path = std::env::temp_dir().join(format!("sightline-above-{}.jsonl", std::process::id()));
    let path = path.to_str().unwrap();
    let recorder =
        crate::recording::Recorder::create(path, "call", "stdio: x", Redactor::default()).unwrap();
    let tap = recorder.tap();
    for event in &events {
        tap(event);
    }
    drop((tap, recorder));
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.matches("booked on the 12th").count(), 1, "{text}");
    assert!(text.contains(r#""end":{"kind":"replied_above"}"#), "{text}");

    let mut reader = open(path).unwrap();
    let mut places = Places::default();
    let mut back = Vec::new();
    // The offset is read between events: no `for` over the reader.
    while let Some(event) = Iterator::next(&mut reader) {
        let event = event.unwrap();
        places.note(&event, reader.offset());
        back.push(event);
    }
    assert_eq!(back, events);
    assert_eq!(places.call(path, 0).unwrap(), exchange);
    assert_eq!(load(path).unwrap().calls[0].exchange, exchange);
    // A call line that names a reply above it with none above cannot be read.
    let alone: Vec<&str> = text
        .lines()
        .filter(|line| !line.contains(r#""type":"received""#))
        .collect();
    let alone = alone.join("\n") + "\n";
    assert!(error_of(&alone).message.contains("no frame received"));
    let _ = std::fs::remove_file(path);
}

fn error_of(text: &str) -> TranscriptError {
    match read(text) {
        Err(error) => error,
        Ok(events) => events
            .into_iter()
            .find_map(Result::err)
            .unwrap_or_else(|| panic!("no error in {text:?}")),
    }
}

#[test]
fn a_broken_transcript_is_read_up_to_the_line_that_breaks_and_names_it() {
    let good = write(&every_event()[..3], &Redactor::default());
    let cases = [
        ("", 1, "empty: not a sightline transcript"),
        ("hello\n", 1, "not a sightline transcript (not JSON"),
        ("{\"a\":1}\n", 1, "no \"sightline_transcript\" version"),
        (
            "{\"sightline_transcript\":2}\n",
            1,
            "transcript format version 2 is newer than this sightline reads (1)",
        ),
    ];
    for (text, line, message) in cases {
        let error = error_of(text);
        assert_eq!(error.line, line, "{text:?}");
        assert!(error.message.contains(message), "{error}");
    }
    let events_before = |text: &str| {
        read(text)
            .unwrap()
            .into_iter()
            .take_while(Result::is_ok)
            .count()
    };
    // Killed mid-line: the last line has no newline and does not parse.
    let cut = format!("{good}{{\"type\":\"sent\",\"at\":9,\"raw\":\"{{\\\"jso");
    let error = error_of(&cut);
    assert_eq!(error.line, 5);
    assert!(error.message.starts_with("cut short"), "{error}");
    assert_eq!(events_before(&cut), 3);
    let garbage = format!("{good}not json at all\n{{\"type\":\"disconnected\"}}\n");
    let error = error_of(&garbage);
    assert_eq!(error.line, 5);
    assert!(error.message.starts_with("not JSON"), "{error}");
    assert_eq!(events_before(&garbage), 3, "nothing after the bad line");
    let unknown = format!("{good}{{\"type\":\"teleport\"}}\n");
    assert!(
        error_of(&unknown)
            .message
            .starts_with("not an event this sightline reads")
    );
    assert_eq!(
        error_of(&unknown).to_string(),
        format!(
            "transcript 't.jsonl', line 5: {}",
            error_of(&unknown).message
        )
    );
}

#[test]
fn a_call_read_back_shares_its_frames_with_the_lines_before_it() {
    let call = call("x", json!({})).text("one copy");
    let sent = entry(1, LogEvent::Sent(call.request.clone()));
    let received = entry(
        2,
        LogEvent::Received {
            frame: call.response().unwrap().clone(),
            role: Role::Reply {
                method: "tools/call".into(),
            },
        },
    );
    let finished =
        SessionEvent::CallFinished(Box::new(crate::mcp::verdict::Finished::unjudged(call)));
    let text = write(&[sent, received, finished], &Redactor::default());
    let back: Vec<SessionEvent> = read(&text)
        .unwrap()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let (
        SessionEvent::Logged(sent),
        SessionEvent::Logged(received),
        SessionEvent::CallFinished(call),
    ) = (&back[0], &back[1], &back[2])
    else {
        panic!("{back:?}");
    };
    let (
        LogEvent::Sent(sent),
        LogEvent::Received {
            frame: received, ..
        },
    ) = (&sent.event, &received.event)
    else {
        panic!();
    };
    assert!(Arc::ptr_eq(&sent.raw, &call.exchange.request.raw));
    assert!(Arc::ptr_eq(
        &received.raw,
        &call.exchange.response().unwrap().raw
    ));
}
