//! Property tests of the read path, a bounded number of cases per run (proptest; a failure
//! prints the smallest case it found):
//! - byte mutations of valid replies go through framing, JSON-RPC parsing, correlation and
//!   classification: nothing panics, every line is kept as it came (a frame with its exact
//!   text, or the text with a reason), a line is a frame only if a full JSON parse accepts it,
//!   and the class read lazily from the text is the class the parsed tree gives;
//! - the lazy JSON reader splits any JSON text exactly as a parser reads it.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::{Map, Value};
use sightline::classify::{Class, classify};
use sightline::mcp::Timestamp;
use sightline::mcp::framing::{LineFramer, decode};
use sightline::mcp::json::{self, Compact};
use sightline::mcp::jsonrpc::scan_id;
use sightline::mcp::session::{Correlation, Session};

const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"bad date"}],"isError":true}}"#,
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"field":"date"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
    r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#,
    r#"{ "isError" : true , "jsonrpc":"2.0", "result" : { "isError":false, "content":[] , "isError" : true }, "id" : 1 }"#,
];

/// Bytes that make interesting mutations: structure, escapes, controls, UTF-8 pieces.
const ALPHABET: &[u8] = b"{}[]\":,\\ 0123456789-eE.tfnul\x1b\x07\r\t\x00\xff\xc3\xa9\xe2\x80\xae";

#[derive(Debug, Clone)]
enum Edit {
    Remove(usize),
    Replace(usize, u8),
    Insert(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = proptest::sample::select(ALPHABET);
    prop_oneof![
        any::<usize>().prop_map(Edit::Remove),
        (any::<usize>(), byte.clone()).prop_map(|(at, b)| Edit::Replace(at, b)),
        (any::<usize>(), byte).prop_map(|(at, b)| Edit::Insert(at, b)),
    ]
}

fn mutate(seed: &str, edits: &[Edit]) -> Vec<u8> {
    let mut bytes = seed.as_bytes().to_vec();
    for edit in edits {
        let len = bytes.len();
        match *edit {
            Edit::Remove(at) if len > 0 => {
                bytes.remove(at % len);
            }
            Edit::Replace(at, byte) if len > 0 => bytes[at % len] = byte,
            Edit::Remove(_) | Edit::Replace(..) => {}
            Edit::Insert(at, byte) => bytes.insert(at % (len + 1), byte),
        }
    }
    bytes.retain(|&b| b != b'\n');
    bytes
}

/// The class a full parse gives a reply to a `tools/call`.
fn class_from_tree(line: &str) -> Class {
    let tree: Value = serde_json::from_str(line).unwrap();
    match (tree.get("result"), tree.get("error")) {
        (Some(result), None) if result.get("isError") == Some(&Value::Bool(true)) => {
            Class::ToolError
        }
        (Some(_), None) => Class::Success,
        _ => Class::ProtocolError,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_replies_are_each_read_or_explained(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec(edit(), 0..5),
    ) {
        let line = mutate(SEEDS[seed], &edits);
        let mut session = Session::new();
        let (id, _) = session.start_request("tools/call", None, Timestamp(0));
        let mut framer = LineFramer::new(1 << 16);
        let mut wire = line.clone();
        wire.push(b'\n');
        let lines = framer.push(&wire);
        prop_assert!(lines.len() <= 1, "one line in, at most one line out");
        // The framer drops a trailing CR and blank lines; what it hands on is kept whole.
        let expected = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(&line));
        for line in lines {
            match decode(line, framer.limit()) {
                Ok(frame) => {
                    prop_assert_eq!(&*frame.raw, &*expected, "a frame keeps its exact text");
                    prop_assert!(
                        serde_json::from_str::<Value>(&frame.raw).is_ok(),
                        "a frame is JSON a full parse accepts"
                    );
                    let raw = frame.raw.clone();
                    if let Correlation::Completed(exchange) = session.on_frame(frame, Timestamp(1)) {
                        prop_assert_eq!(&exchange.id, &id);
                        prop_assert_eq!(classify(&exchange).class, class_from_tree(&raw));
                    }
                }
                Err(invalid) => {
                    prop_assert_eq!(&*invalid.raw, &*expected, "{}: the line is kept", invalid.error);
                    let _ = scan_id(&invalid.raw);
                }
            }
        }
    }
}

/// Any JSON value, nested a few levels, with keys that need escapes and may repeat.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z\"\\\\\u{1}\u{e9}\u{202e} ,:\\[\\]{}]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(("[a-c\"\\\\]{0,3}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_lazy_reader_splits_json_as_a_parser_reads_it(value in json_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            value.to_string()
        };
        json::check(&text).unwrap();
        prop_assert_eq!(Compact(&text).to_string(), value.to_string());
        prop_assert!(json::same(&text, &value.to_string()));
        match &value {
            Value::Object(object) => {
                let members: Vec<_> = json::members(&text).unwrap().collect();
                prop_assert_eq!(members.len(), object.len());
                for ((key, part), (name, member)) in members.iter().zip(object) {
                    prop_assert_eq!(json::string(key).unwrap(), name.as_str());
                    prop_assert_eq!(&serde_json::from_str::<Value>(part).unwrap(), member);
                    let found = json::member(&text, name).unwrap();
                    prop_assert_eq!(&serde_json::from_str::<Value>(found).unwrap(), member);
                }
            }
            Value::Array(items) => {
                let elements: Vec<_> = json::elements(&text).unwrap().collect();
                prop_assert_eq!(elements.len(), items.len());
                for (part, item) in elements.iter().zip(items) {
                    prop_assert_eq!(&serde_json::from_str::<Value>(part).unwrap(), item);
                }
            }
            Value::String(string) => prop_assert_eq!(json::string(&text).unwrap(), string.as_str()),
            Value::Null | Value::Bool(_) | Value::Number(_) => {
                prop_assert!(json::members(&text).is_none() && json::elements(&text).is_none());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any split of a stream into reads gives the same events as reading it whole.
    #[test]
    fn any_split_of_an_event_stream_parses_to_the_same_events(
        events in proptest::collection::vec(("[a-z{}\":, ]{0,12}", 0..3usize, any::<bool>()), 1..6),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        bom in any::<bool>(),
    ) {
        use std::fmt::Write as _;
        use sightline::mcp::sse::SseParser;
        let ends = ["\n", "\r\n", "\r"];
        let mut stream = String::from(if bom { "\u{feff}" } else { "" });
        for (n, (data, end, with_id)) in events.iter().enumerate() {
            let end = ends[*end];
            if *with_id {
                let _ = write!(stream, "id: {n}{end}");
            }
            let _ = write!(stream, ": comment{end}data: {data}{end}data:{end}{end}");
        }
        let bytes = stream.as_bytes();
        let whole = SseParser::new(1 << 16).push(bytes);
        let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        points.sort_unstable();
        let mut parser = SseParser::new(1 << 16);
        let mut split = Vec::new();
        let mut from = 0;
        for to in points.into_iter().chain([bytes.len()]) {
            split.extend(parser.push(&bytes[from..to]));
            from = to;
        }
        prop_assert_eq!(&split, &whole);
        prop_assert_eq!(whole.len(), events.len(), "one event per data block");
    }
}
