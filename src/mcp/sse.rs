//! Server-sent events, pure and incremental: bytes in as they arrive, whole events out, by the
//! WHATWG event-stream rules (CR, LF or CRLF line ends; a leading BOM; `:` comments; `data`,
//! `event`, `id`, `retry` fields). Memory stays bounded: a line longer than the limit is measured
//! and skipped, and an event's data never grows past it.

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// `message` unless the stream named another type.
    pub kind: String,
    /// The data lines, joined by `\n`.
    pub data: String,
    /// The last event id seen on the stream so far (ids persist across events).
    pub id: Option<String>,
}

/// What reading a chunk yields, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    Event(SseEvent),
    /// A `retry:` field: the reconnection time, in milliseconds.
    Retry(u64),
    /// A line or an event's data past the limit: its length, dropped.
    Oversized(usize),
}

/// The incremental parser of one stream.
#[derive(Debug)]
pub struct SseParser {
    limit: usize,
    line: Vec<u8>,
    /// Bytes of an oversized line skipped so far.
    skipping: Option<usize>,
    /// The previous chunk ended in CR: an LF starting this one belongs to that line end.
    after_cr: bool,
    /// Whether the stream's first bytes (a BOM is dropped there) have been seen.
    started: bool,
    /// The first bytes, until they are known not to be (part of) a BOM.
    head: Vec<u8>,
    kind: String,
    data: String,
    has_data: bool,
    last_id: Option<String>,
}

impl SseParser {
    /// A parser whose lines and event data are at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            limit: limit.max(1),
            line: Vec::new(),
            skipping: None,
            after_cr: false,
            started: false,
            head: Vec::new(),
            kind: String::new(),
            data: String::new(),
            has_data: false,
            last_id: None,
        }
    }

    /// The last event id, for `Last-Event-ID` when resuming.
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// Feeds bytes as they arrive; returns what they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseItem> {
        if self.started {
            return self.push_started(bytes);
        }
        // The stream's first bytes may be a BOM, itself split across reads.
        self.head.extend_from_slice(bytes);
        if self.head.len() < BOM.len() && BOM.starts_with(&self.head) {
            return Vec::new();
        }
        self.started = true;
        let head = std::mem::take(&mut self.head);
        self.push_started(head.strip_prefix(BOM).unwrap_or(&head))
    }

    fn push_started(&mut self, mut bytes: &[u8]) -> Vec<SseItem> {
        let mut items = Vec::new();
        // A CR ended the last read: an LF opening this one (not an empty read) ends nothing.
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            bytes = bytes.strip_prefix(b"\n").unwrap_or(bytes);
        }
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\r' || b == b'\n');
            let Some(at) = end else {
                self.extend_line(bytes);
                break;
            };
            self.extend_line(&bytes[..at]);
            let crlf = bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n');
            if bytes[at] == b'\r' && at + 1 == bytes.len() {
                self.after_cr = true;
            }
            bytes = &bytes[at + if crlf { 2 } else { 1 }..];
            self.end_line(&mut items);
        }
        items
    }

    fn extend_line(&mut self, part: &[u8]) {
        if let Some(skipped) = &mut self.skipping {
            *skipped += part.len();
        } else if self.line.len() + part.len() > self.limit {
            self.skipping = Some(self.line.len() + part.len());
            self.line = Vec::new();
        } else {
            self.line.extend_from_slice(part);
        }
    }

    fn end_line(&mut self, items: &mut Vec<SseItem>) {
        if let Some(len) = self.skipping.take() {
            items.push(SseItem::Oversized(len));
            return;
        }
        let line = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if line.is_empty() {
            self.dispatch(items);
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    items.push(SseItem::Oversized(self.data.len() + value.len()));
                    self.data.clear();
                    self.has_data = false;
                    return;
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => value.clone_into(&mut self.kind),
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    items.push(SseItem::Retry(ms));
                }
            }
            _ => {}
        }
    }

    /// A blank line: the buffered event, unless its data is empty (a priming event, `data:`
    /// and nothing else, only sets the id).
    fn dispatch(&mut self, items: &mut Vec<SseItem>) {
        let kind = std::mem::take(&mut self.kind);
        let has_data = std::mem::take(&mut self.has_data);
        if !has_data || self.data.is_empty() {
            self.data.clear();
            return;
        }
        items.push(SseItem::Event(SseEvent {
            kind: if kind.is_empty() {
                "message".to_owned()
            } else {
                kind
            },
            data: std::mem::take(&mut self.data),
            id: self.last_id.clone(),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(stream: &[u8]) -> Vec<SseItem> {
        SseParser::new(1024).push(stream)
    }

    fn event(kind: &str, data: &str, id: Option<&str>) -> SseItem {
        SseItem::Event(SseEvent {
            kind: kind.into(),
            data: data.into(),
            id: id.map(Into::into),
        })
    }

    #[test]
    fn a_priming_event_comments_and_data_lines_as_servers_send_them() {
        let stream = b"\xEF\xBB\xBFid: 0\ndata:\n\n: keep-alive\r\nretry: 3000\r\nevent: message\r\ndata: {\"a\":1}\r\ndata:  two\r\nid: 7\r\n\r\ndata: x\r\r";
        assert_eq!(
            events(stream),
            [
                SseItem::Retry(3000),
                event("message", "{\"a\":1}\n two", Some("7")),
                event("message", "x", Some("7")),
            ]
        );
    }

    #[test]
    fn fields_follow_the_whatwg_rules() {
        let stream = b"data\nevent: custom\ndata:y\nretry: 1s\nid: a\0b\n\n";
        assert_eq!(events(stream), [event("custom", "\ny", None)]);
    }

    #[test]
    fn a_line_past_the_limit_is_measured_and_skipped() {
        let mut parser = SseParser::new(8);
        let mut items = parser.push(b"data: 0123456789");
        items.extend(parser.push(b"abc\n\ndata: ok\n\n"));
        assert_eq!(
            items,
            [SseItem::Oversized(19), event("message", "ok", None)]
        );
    }

    #[test]
    fn a_crlf_split_between_chunks_is_one_line_end() {
        let mut parser = SseParser::new(64);
        let mut items = parser.push(b"data: a\r");
        items.extend(parser.push(b""));
        items.extend(parser.push(b"\ndata: b\r\n\r\n"));
        assert_eq!(items, [event("message", "a\nb", None)]);
    }
}
