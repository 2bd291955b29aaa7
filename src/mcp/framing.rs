//! Newline-delimited framing, pure: bytes in, complete lines out. Memory stays bounded by the
//! frame limit: an oversized line is measured and skipped, never buffered whole.

use std::sync::Arc;

use super::SharedText;
use super::jsonrpc::{self, Frame, FrameError};

/// The default limit on one line: 64 MiB.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

/// One line read from the peer, before JSON-RPC parsing (without `\n` or a trailing `\r`).
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A line of UTF-8 text, in the one allocation the frame will keep.
    Text(SharedText),
    /// A line that is not UTF-8, as its bytes.
    Bytes(Vec<u8>),
    /// A line longer than the limit; `len` bytes were skipped.
    Oversized { len: usize },
}

/// A line buffer larger than this is not kept for the next line.
const KEPT_BUFFER: usize = 64 * 1024;

/// Splits a byte stream into lines.
#[derive(Debug)]
pub struct LineFramer {
    buffer: Vec<u8>,
    max: usize,
    /// Bytes of an oversized line skipped so far; `Some` until its newline arrives.
    skipping: Option<usize>,
}

impl LineFramer {
    pub fn new(max_frame_bytes: usize) -> Self {
        Self {
            buffer: Vec::new(),
            max: max_frame_bytes.max(1),
            skipping: None,
        }
    }

    /// Feeds bytes as read; returns every line they complete, in order.
    pub fn push(&mut self, mut bytes: &[u8]) -> Vec<Line> {
        let mut lines = Vec::new();
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            let (chunk, rest) = match newline {
                Some(at) => (&bytes[..at], Some(&bytes[at + 1..])),
                None => (bytes, None),
            };
            if let Some(skipped) = &mut self.skipping {
                *skipped += chunk.len();
            } else if self.buffer.len() + chunk.len() > self.max {
                self.skipping = Some(self.buffer.len() + chunk.len());
                self.buffer = Vec::new();
            } else {
                self.buffer.extend_from_slice(chunk);
            }
            match rest {
                Some(rest) => {
                    lines.extend(self.end_line());
                    bytes = rest;
                }
                None => break,
            }
        }
        lines
    }

    /// At end of stream: the last line if it had no newline.
    pub fn finish(&mut self) -> Option<Line> {
        self.end_line()
    }

    fn end_line(&mut self) -> Option<Line> {
        if let Some(len) = self.skipping.take() {
            return Some(Line::Oversized { len });
        }
        if self.buffer.last() == Some(&b'\r') {
            self.buffer.pop();
        }
        // Blank lines carry no message; skipping them loses nothing.
        let line = if self.buffer.iter().all(u8::is_ascii_whitespace) {
            None
        } else if self.buffer.capacity() > KEPT_BUFFER {
            // A long line is taken over whole (trimmed in place), never copied.
            Some(match String::from_utf8(std::mem::take(&mut self.buffer)) {
                Ok(mut text) => {
                    text.shrink_to_fit();
                    Line::Text(Arc::new(text))
                }
                Err(error) => Line::Bytes(error.into_bytes()),
            })
        } else {
            // A short one is copied to its size, and the buffer serves the next line.
            Some(match std::str::from_utf8(&self.buffer) {
                Ok(text) => Line::Text(Arc::new(text.to_owned())),
                Err(_) => Line::Bytes(self.buffer.clone()),
            })
        };
        if self.buffer.capacity() > KEPT_BUFFER {
            self.buffer = Vec::new();
        } else {
            self.buffer.clear();
        }
        line
    }

    /// Bytes of the line not yet ended (skipped ones included): what the next newline ends.
    pub fn pending(&self) -> usize {
        self.skipping.unwrap_or(self.buffer.len())
    }

    pub fn limit(&self) -> usize {
        self.max
    }
}

/// The raw text of a line that could not be parsed (decoded lossily when it is not UTF-8).
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidLine {
    pub raw: SharedText,
    pub error: FrameError,
}

/// Decodes and parses one line; failures keep the (lossily decoded) text beside the reason.
pub fn decode(line: Line, limit: usize) -> Result<Frame, InvalidLine> {
    match line {
        Line::Oversized { len } => Err(InvalidLine {
            raw: Arc::default(),
            error: FrameError::Oversized { len, limit },
        }),
        Line::Text(text) => {
            jsonrpc::parse_line(text).map_err(|(raw, error)| InvalidLine { raw, error })
        }
        Line::Bytes(bytes) => {
            let valid_up_to = std::str::from_utf8(&bytes)
                .err()
                .map_or(bytes.len(), |error| error.valid_up_to());
            Err(InvalidLine {
                raw: Arc::new(String::from_utf8_lossy(&bytes).into_owned()),
                error: FrameError::InvalidUtf8 { valid_up_to },
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(text: &str) -> Line {
        Line::Text(Arc::new(text.into()))
    }

    #[test]
    fn a_frame_split_across_reads_is_joined() {
        let mut framer = LineFramer::new(1024);
        assert!(framer.push(b"{\"jsonrpc\":").is_empty());
        assert!(framer.push(b"\"2.0\"").is_empty());
        assert_eq!(framer.push(b"}\n"), vec![complete(r#"{"jsonrpc":"2.0"}"#)]);
    }

    #[test]
    fn many_frames_in_one_read_come_out_in_order() {
        let mut framer = LineFramer::new(1024);
        let lines = framer.push(b"a\nb\r\n\n  \nc\nd");
        assert_eq!(lines, vec![complete("a"), complete("b"), complete("c")]);
        assert_eq!(framer.finish(), Some(complete("d")));
        assert_eq!(framer.finish(), None);
    }

    #[test]
    fn an_oversized_line_is_measured_skipped_and_reading_resumes() {
        let mut framer = LineFramer::new(8);
        assert!(framer.push(b"12345").is_empty());
        assert!(framer.push(b"6789abcdef").is_empty());
        assert!(
            framer.buffer.capacity() <= 8,
            "the oversized line must not be buffered"
        );
        let lines = framer.push(b"gh\nok\n");
        assert_eq!(lines, vec![Line::Oversized { len: 17 }, complete("ok")]);
    }

    #[test]
    fn pending_counts_the_bytes_the_next_newline_ends() {
        let mut framer = LineFramer::new(8);
        framer.push(b"ab\ncd");
        assert_eq!(framer.pending(), 2);
        framer.push(b"efghijk");
        assert_eq!(
            framer.pending(),
            9,
            "an oversized line's skipped bytes count"
        );
        framer.push(b"\n");
        assert_eq!(framer.pending(), 0);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        let mut framer = LineFramer::new(4);
        assert_eq!(
            framer.push(b"abcd\nabcde\n"),
            vec![complete("abcd"), Line::Oversized { len: 5 }]
        );
    }

    #[test]
    fn decode_reports_invalid_utf8_non_json_and_oversize() {
        let mut framer = LineFramer::new(10);
        let [bad] = &framer.push(b"{\xff}\n")[..] else {
            panic!("one line")
        };
        let bad = decode(bad.clone(), 10).unwrap_err();
        assert_eq!(bad.error, FrameError::InvalidUtf8 { valid_up_to: 1 });
        assert_eq!(&*bad.raw, "{\u{fffd}}");
        let garbage = decode(complete("Server started on stdio"), 100).unwrap_err();
        assert!(matches!(garbage.error, FrameError::NotJson { .. }));
        assert_eq!(&*garbage.raw, "Server started on stdio");
        let big = decode(Line::Oversized { len: 99 }, 10).unwrap_err();
        assert_eq!(big.error, FrameError::Oversized { len: 99, limit: 10 });
        let ok = decode(complete(r#"{"jsonrpc":"2.0","method":"x"}"#), 100).unwrap();
        assert_eq!(ok.message.method(), Some("x"));
    }
}
