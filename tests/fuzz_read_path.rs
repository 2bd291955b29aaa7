//! A bounded, seeded fuzz of the read path: byte mutations of valid replies go through
//! framing, JSON-RPC parsing, correlation and classification. Nothing panics, every line is
//! kept as it came (a frame with its exact text, or the text with a reason), and a reply
//! that still names our id ends our request.

#![allow(clippy::unwrap_used)]

use sightline::classify::classify;
use sightline::mcp::Timestamp;
use sightline::mcp::framing::{LineFramer, decode};
use sightline::mcp::jsonrpc::scan_id;
use sightline::mcp::session::{Correlation, Session};

/// A small, seeded generator (xorshift64*): the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }
}

const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"bad date"}],"isError":true}}"#,
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"field":"date"}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
    r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#,
];

/// Bytes that make interesting mutations: structure, escapes, controls, UTF-8 pieces.
const ALPHABET: &[u8] = b"{}[]\":,\\ 0123456789-eE.tfnul\x1b\x07\r\t\x00\xff\xc3\xa9\xe2\x80\xae";

fn mutate(rng: &mut Rng, seed: &str) -> Vec<u8> {
    let mut bytes = seed.as_bytes().to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(3) {
            0 if at < bytes.len() => {
                bytes.remove(at);
            }
            1 if at < bytes.len() => bytes[at] = ALPHABET[rng.below(ALPHABET.len())],
            _ => bytes.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
        }
    }
    bytes.retain(|&b| b != b'\n');
    bytes
}

#[test]
fn mutated_replies_never_panic_and_are_each_read_or_explained() {
    let mut rng = Rng(0x5eed_1303);
    let mut answered = 0;
    let mut explained = 0;
    for case in 0..20_000 {
        let seed = SEEDS[case % SEEDS.len()];
        let line = mutate(&mut rng, seed);
        let mut session = Session::new();
        let (id, _) = session.start_request("tools/call", None, Timestamp(0));
        let mut framer = LineFramer::new(1 << 16);
        let mut wire = line.clone();
        wire.push(b'\n');
        let lines = framer.push(&wire);
        assert!(lines.len() <= 1, "one line in, at most one line out");
        // The framer drops a trailing CR and blank lines; what it hands on is kept whole.
        let expected = String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(&line));
        for line in lines {
            match decode(line, framer.limit()) {
                Ok(frame) => {
                    assert_eq!(frame.raw, expected, "a frame keeps its exact text");
                    if let Correlation::Completed(exchange) = session.on_frame(frame, Timestamp(1))
                    {
                        assert_eq!(exchange.id, id);
                        let _ = classify(&exchange);
                        answered += 1;
                    }
                }
                Err(invalid) => {
                    assert_eq!(invalid.raw, expected, "{}: the line is kept", invalid.error);
                    let _ = scan_id(&invalid.raw);
                    explained += 1;
                }
            }
        }
    }
    // The mutations exercise both sides of the path.
    assert!(answered > 1_000, "{answered} answered");
    assert!(explained > 1_000, "{explained} explained");
}
