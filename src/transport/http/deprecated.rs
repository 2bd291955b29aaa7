//! The deprecated HTTP+SSE transport (2024-11-05), the fallback when `initialize` is refused:
//! the GET stream's `endpoint` event, messages posted there, every answer on the stream.

use std::sync::Arc;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use super::posted::Posted;
use super::poster::Poster;
use super::record::Record;
use super::status::{ERROR_BODY_BYTES, describe_status, is_event_stream, read_body, words};
use std::time::Duration;

use tokio::sync::Notify;

use crate::mcp::framing::{Line, decode};
use crate::mcp::jsonrpc::Message;
use crate::mcp::sse::{SseItem, SseParser};
use crate::transport::{TransportEvent, now};

/// How long an answer on the stream waits for the status of its own POST.
const POST_STATUS_WAIT: Duration = Duration::from_secs(2);

impl Poster {
    /// Tries the deprecated HTTP+SSE transport (2024-11-05): a GET whose first event is
    /// `endpoint`, then `initialize` posted there. On success this task goes on reading the
    /// stream, where every answer comes, until it ends; `false` when the server offers no such
    /// stream (the refusal of `initialize` then stands).
    pub(super) async fn open_deprecated(
        &self,
        outgoing: &Posted,
        line: &crate::mcp::SharedText,
    ) -> bool {
        let request = self
            .client
            .get(self.url.clone())
            .headers(self.headers("GET", &self.url))
            .header(ACCEPT, "text/event-stream")
            .build();
        let Ok(request) = request else {
            return false;
        };
        let mut record = Record::new(&request, None);
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(error) => {
                self.emit_http(&mut record, Some(words(&error))).await;
                return false;
            }
        };
        record.response(&response);
        if !(response.status().is_success() && is_event_stream(&response)) {
            let reason = "no HTTP+SSE stream here either".to_owned();
            self.emit_http(&mut record, Some(reason)).await;
            return false;
        }
        self.emit_http(&mut record, None).await;
        let mut parser = SseParser::new(self.max_frame_bytes);
        let mut body = response.bytes_stream();
        let mut pending = Vec::new();
        let endpoint = loop {
            if let Some(event) = pending.iter().find_map(|item| match item {
                SseItem::Event(event) if event.kind == "endpoint" => Some(event.data.clone()),
                _ => None,
            }) {
                break event;
            }
            if !pending.is_empty() {
                self.note(
                    "the GET stream did not open with an `endpoint` event: not the \
                           HTTP+SSE transport"
                        .into(),
                )
                .await;
                return false;
            }
            match body.next().await {
                Some(Ok(chunk)) => pending = parser.push(&chunk),
                _ => return false,
            }
        };
        let endpoint = match self.url.join(endpoint.trim()) {
            Ok(url) if url.origin() == self.url.origin() => url,
            Ok(url) => {
                self.note(format!(
                    "the HTTP+SSE endpoint {url} is on another origin than {}: not followed",
                    self.url
                ))
                .await;
                return false;
            }
            Err(error) => {
                self.note(format!("the HTTP+SSE endpoint is not a URL: {error}"))
                    .await;
                return false;
            }
        };
        self.note(format!(
            "initialize was refused, and the server offers the deprecated HTTP+SSE transport \
             (2024-11-05): messages go to {endpoint}, answers come on the GET stream"
        ))
        .await;
        self.session_state().sse_endpoint = Some(endpoint.clone());
        // Events after `endpoint` in the same read are answers too.
        let rest = pending
            .into_iter()
            .skip_while(|item| !matches!(item, SseItem::Event(event) if event.kind == "endpoint"))
            .skip(1)
            .collect();
        self.deliver_deprecated(rest).await;
        // `initialize` again, to the endpoint, while its answer waits on the stream.
        let posted = self.post_deprecated(outgoing, line, endpoint);
        let read = async {
            while let Some(chunk) = body.next().await {
                let Ok(chunk) = chunk else { break };
                self.deliver_deprecated(parser.push(&chunk)).await;
            }
        };
        let ((), ()) = tokio::join!(posted, read);
        let closed = TransportEvent::Closed {
            status: "the server ended its HTTP+SSE event stream".into(),
            stderr_tail: Vec::new(),
            at: now(),
        };
        let _ = self.events.send(closed).await;
        true
    }

    /// The `message` events of the HTTP+SSE stream, as lines. An answer to a request whose
    /// POST is still in flight waits for that POST's status (at most [`POST_STATUS_WAIT`]): the
    /// server accepted the POST before it answered, and the exchange keeps the POST's record
    /// only if that record comes first. Without the wait, a loaded machine reads the answer
    /// off the stream before the `202`, and the call loses its HTTP details.
    async fn deliver_deprecated(&self, items: Vec<SseItem>) {
        let lines: Vec<_> = items
            .into_iter()
            .filter_map(|item| match item {
                SseItem::Event(event) if event.kind == "message" => {
                    Some(decode(Line::Text(event.data.into()), self.max_frame_bytes))
                }
                SseItem::Oversized(len) => {
                    Some(decode(Line::Oversized { len }, self.max_frame_bytes))
                }
                SseItem::Event(_) | SseItem::Retry(_) => None,
            })
            .collect();
        for line in &lines {
            if let Ok(frame) = line
                && let Message::Response { id: Some(id), .. } = &frame.message
            {
                let in_flight = self.session_state().posts_in_flight.get(id).cloned();
                if let Some(accepted) = in_flight {
                    let _ = tokio::time::timeout(POST_STATUS_WAIT, accepted.notified()).await;
                }
            }
        }
        if !lines.is_empty() {
            self.deliver(lines).await;
        }
    }

    /// A message for the HTTP+SSE transport: posted to its endpoint; any 2xx takes it, and
    /// the answer comes on the stream.
    pub(super) async fn post_deprecated(
        &self,
        outgoing: &Posted,
        line: &crate::mcp::SharedText,
        endpoint: reqwest::Url,
    ) {
        let headers = self.headers("POST", &endpoint);
        let request = self
            .client
            .post(endpoint)
            .headers(headers)
            .header(CONTENT_TYPE, "application/json")
            .body(line.to_string())
            .build();
        let request = match request {
            Ok(request) => request,
            Err(error) => return self.fail(outgoing, words(&error)).await,
        };
        let mut record = Record::new(&request, outgoing.id.clone());
        let in_flight = outgoing.id.clone().map(|id| {
            let accepted = Arc::new(Notify::new());
            let state = &mut self.session_state().posts_in_flight;
            state.insert(id.clone(), Arc::clone(&accepted));
            (id, accepted)
        });
        match self.client.execute(request).await {
            Ok(response) if response.status().is_success() => {
                record.response(&response);
                self.emit_http(&mut record, None).await;
            }
            Ok(response) => {
                record.response(&response);
                let status = response.status();
                let headers = response.headers().clone();
                let (body, _) = read_body(response, ERROR_BODY_BYTES).await;
                let reason = describe_status(status, &headers, &String::from_utf8_lossy(&body));
                self.emit_http(&mut record, Some(reason.clone())).await;
                self.fail(outgoing, reason).await;
            }
            Err(error) => {
                let reason = words(&error);
                self.emit_http(&mut record, Some(reason.clone())).await;
                self.fail(outgoing, reason).await;
            }
        }
        // After the record's event is sent: the stream's reader delivers the answer after it.
        if let Some((id, accepted)) = in_flight {
            self.session_state().posts_in_flight.remove(&id);
            accepted.notify_one();
        }
    }
}
