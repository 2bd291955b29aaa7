//! A request's event stream to its answer: a legacy stream that breaks is resumed with GET and
//! `Last-Event-ID` after the server's `retry`, within limits; a modern one is lost.

use std::time::Duration;

use super::events::Stream;
use super::posted::Posted;
use super::poster::Poster;
use super::record::Record;
use super::status::{ERROR_BODY_BYTES, describe_status, is_event_stream, read_body, words};
use crate::transport::{TransportEvent, now};

/// Resumptions in a row that bring no event and no new event id, after which the request
/// fails. (A server that polls — closing each stream after a fresh priming id — goes on.)
const MAX_FRUITLESS_RESUMPTIONS: u32 = 3;
/// Resumptions of one request, at most, however lively the server.
const MAX_RESUMPTIONS: u32 = 600;
/// The shortest wait before resuming: a `retry: 0` must not become a busy loop.
const MIN_RETRY: Duration = Duration::from_millis(100);

impl Poster {
    /// An event stream: each event's data is a line, delivered as it comes. A legacy stream
    /// that breaks before the answer is resumed with GET and `Last-Event-ID` after the `retry`
    /// the server asked for; a modern one is lost, for the client to re-issue.
    pub(super) async fn read_stream(
        &self,
        outgoing: &Posted,
        mut response: reqwest::Response,
        mut record: Record,
    ) {
        let mut stream = Stream::default();
        let mut fruitless = 0;
        let mut resumptions = 0;
        loop {
            let events_before = record.details.events;
            let id_before = stream.last_event_id.clone();
            let broke = self
                .read_events(outgoing, response, &mut record, &mut stream)
                .await;
            if stream.answered {
                return;
            }
            let reason = broke.unwrap_or_else(|| "the stream ended before the response".into());
            self.emit_http(&mut record, Some(reason.clone())).await;
            let legacy = outgoing.modern_version.is_none();
            let progressed =
                record.details.events > events_before || stream.last_event_id != id_before;
            fruitless = if progressed { 0 } else { fruitless + 1 };
            resumptions += 1;
            let resume_after = stream.last_event_id.clone().filter(|_| {
                legacy && fruitless <= MAX_FRUITLESS_RESUMPTIONS && resumptions <= MAX_RESUMPTIONS
            });
            let Some(last_event_id) = resume_after else {
                return match (&outgoing.id, legacy) {
                    (Some(id), false) => {
                        let lost = TransportEvent::StreamLost {
                            id: id.clone(),
                            reason,
                            at: now(),
                        };
                        let _ = self.events.send(lost).await;
                    }
                    _ => self.fail(outgoing, reason).await,
                };
            };
            let wait = stream.retry.max(MIN_RETRY);
            self.note(format!(
                "{}{reason}: resuming with GET and Last-Event-ID: {last_event_id} in {} ms",
                outgoing.label(),
                wait.as_millis()
            ))
            .await;
            tokio::time::sleep(wait).await;
            let request = match self.get_stream(Some(&last_event_id)).build() {
                Ok(request) => request,
                Err(error) => {
                    let reason = format!("{reason}; resuming failed: {}", words(&error));
                    return self.fail(outgoing, reason).await;
                }
            };
            record = Record::new(&request, outgoing.id.clone());
            response = match self.client.execute(request).await {
                Ok(response) => response,
                Err(error) => {
                    let reason = format!("{reason}; resuming failed: {}", words(&error));
                    self.emit_http(&mut record, Some(reason.clone())).await;
                    return self.fail(outgoing, reason).await;
                }
            };
            record.response(&response);
            let status = response.status();
            if !(status.is_success() && is_event_stream(&response)) {
                let headers = response.headers().clone();
                let (body, _) = read_body(response, ERROR_BODY_BYTES).await;
                let text = String::from_utf8_lossy(&body);
                let status = describe_status(status, &headers, &text);
                self.emit_http(&mut record, Some(status.clone())).await;
                let reason = format!("{reason}; resuming failed: {status}");
                return self.fail(outgoing, reason).await;
            }
        }
    }
}
