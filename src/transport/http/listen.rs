//! The legacy era's GET: the server's own stream of messages, opened once the handshake is
//! over, and the request that resumes a broken stream.

use std::time::Duration;

use reqwest::header::ACCEPT;

use super::events::Stream;
use super::posted::Posted;
use super::poster::Poster;
use super::record::Record;
use super::status::{ERROR_BODY_BYTES, describe_status, is_event_stream, read_body, words};

/// How long the session's first request waits for the GET stream to open.
const STREAM_GRACE: Duration = Duration::from_secs(1);

impl Poster {
    /// A GET for an event stream (legacy era): the server's own stream, or the resumption of a
    /// broken one after `last_event_id`.
    pub(super) fn get_stream(&self, last_event_id: Option<&str>) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .get(self.url.clone())
            .headers(self.headers("GET", &self.url))
            .header(ACCEPT, "text/event-stream");
        if let Some(id) = last_event_id {
            request = request.header("Last-Event-ID", id);
        }
        self.with_session(request)
    }

    /// The legacy era's optional stream of server-initiated messages: opened once the handshake
    /// is over, read until it ends. A 405 (no such stream) is an answer the spec allows.
    ///
    /// The session's first request waits until the GET is answered (or for `STREAM_GRACE`): a
    /// server may send a request of its own outside any request's stream, and one built on the
    /// official TypeScript SDK drops it when no GET stream is open yet.
    pub(super) async fn listen(&self) {
        let request = match self.get_stream(None).build() {
            Ok(request) => request,
            Err(error) => {
                self.accepted.tell();
                return self.note(format!("no GET stream: {}", words(&error))).await;
            }
        };
        let mut record = Record::new(&request, None);
        let opening = self.client.execute(request);
        tokio::pin!(opening);
        let opened = if let Ok(opened) = tokio::time::timeout(STREAM_GRACE, &mut opening).await {
            opened
        } else {
            self.accepted.tell();
            self.note(format!(
                "the GET stream has not opened after {} ms: requests go on without it",
                STREAM_GRACE.as_millis()
            ))
            .await;
            opening.await
        };
        self.accepted.tell();
        let response = match opened {
            Ok(response) => response,
            Err(error) => return self.emit_http(&mut record, Some(words(&error))).await,
        };
        record.response(&response);
        let status = response.status();
        if !(status.is_success() && is_event_stream(&response)) {
            let reason = if status == reqwest::StatusCode::METHOD_NOT_ALLOWED {
                "the server offers no stream of its own (405, as it may)".to_owned()
            } else {
                let headers = response.headers().clone();
                let (body, _) = read_body(response, ERROR_BODY_BYTES).await;
                describe_status(status, &headers, &String::from_utf8_lossy(&body))
            };
            return self.emit_http(&mut record, Some(reason)).await;
        }
        self.emit_http(&mut record, None).await;
        let mut stream = Stream::default();
        let outgoing = Posted::none();
        let broke = self
            .read_events(&outgoing, response, &mut record, &mut stream)
            .await;
        let why = broke.unwrap_or_else(|| "the server closed it".to_owned());
        self.note(format!("the server's GET stream ended: {why}"))
            .await;
    }
}
