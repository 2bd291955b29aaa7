//! Reading one response's event stream: each event's data a line, delivered as it comes, the
//! server's `retry` and last event id kept for a resumption.

use std::time::Duration;

use futures_util::StreamExt;

use super::posted::Posted;
use super::poster::Poster;
use super::record::Record;
use super::status::words;
use crate::mcp::framing::{Line, decode};
use crate::mcp::jsonrpc::{Id, Message};
use crate::mcp::sse::{SseItem, SseParser};

/// How long to wait before resuming a broken stream when the server named no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// The longest `retry` honoured: a server asking for more is resumed after this.
const MAX_RETRY: Duration = Duration::from_secs(30);

/// Where reading a request's event streams has got to, across resumptions.
#[derive(Debug)]
pub(super) struct Stream {
    pub(super) answered: bool,
    pub(super) last_event_id: Option<String>,
    /// The server's `retry`, for the next resumption.
    pub(super) retry: Duration,
}

impl Default for Stream {
    fn default() -> Self {
        Self {
            answered: false,
            last_event_id: None,
            retry: DEFAULT_RETRY,
        }
    }
}

impl Poster {
    /// Reads one response's events to its end; the HTTP details go out just before the line
    /// that answers `outgoing`. Returns why the stream broke, if it did.
    pub(super) async fn read_events(
        &self,
        outgoing: &Posted,
        response: reqwest::Response,
        record: &mut Record,
        stream: &mut Stream,
    ) -> Option<String> {
        let mut parser = SseParser::new(self.max_frame_bytes);
        let mut body = response.bytes_stream();
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(error) => return Some(format!("the event stream broke: {}", words(&error))),
            };
            let mut lines = Vec::new();
            let mut answers_here = false;
            for item in parser.push(&chunk) {
                let line = match item {
                    SseItem::Event(event) => {
                        record.event(event.id.as_deref());
                        Line::Text(event.data.into())
                    }
                    SseItem::Oversized(len) => Line::Oversized { len },
                    SseItem::Retry(ms) => {
                        stream.retry = Duration::from_millis(ms).min(MAX_RETRY);
                        continue;
                    }
                };
                let line = decode(line, self.max_frame_bytes);
                if let Ok(frame) = &line
                    && answers(&frame.message, outgoing.id.as_ref())
                {
                    answers_here = true;
                    self.remember_version(outgoing, &frame.message);
                    self.learn_header_params(outgoing, &frame.message);
                }
                lines.push(line);
            }
            if let Some(id) = parser.last_event_id() {
                // A priming event (an id and empty data) counts as a place to resume from.
                record.saw_id(id);
                if stream.last_event_id.as_deref() != Some(id) {
                    stream.last_event_id = Some(id.to_owned());
                }
            }
            if answers_here && !stream.answered {
                stream.answered = true;
                self.emit_http(record, None).await;
            }
            if !lines.is_empty() {
                self.deliver(lines).await;
            }
        }
        None
    }
}

fn answers(message: &Message, id: Option<&Id>) -> bool {
    matches!(message, Message::Response { id: Some(answered), .. } if Some(answered) == id)
}
