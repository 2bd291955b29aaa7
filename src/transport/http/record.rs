//! The HTTP details of one exchange (headers, status, timings, event ids), gathered as they
//! become known and handed to the log once.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::HeaderMap;
use tokio::time::Instant;

use super::poster::Poster;
use crate::mcp::http::{HTTP_EVENT_IDS_KEPT, HttpExchange};
use crate::mcp::jsonrpc::Id;
use crate::transport::{TransportEvent, now};

/// The HTTP details of one exchange as they become known, handed over once.
pub(super) struct Record {
    pub(super) details: HttpExchange,
    started: Instant,
    handed_over: bool,
}

impl Record {
    pub(super) fn new(request: &reqwest::Request, request_id: Option<Id>) -> Self {
        Self {
            details: HttpExchange {
                method: request.method().to_string(),
                url: request.url().to_string(),
                request_id,
                request_headers: header_list(request.headers()),
                ..HttpExchange::default()
            },
            started: Instant::now(),
            handed_over: false,
        }
    }

    pub(super) fn response(&mut self, response: &reqwest::Response) {
        self.details.status = Some(response.status().as_u16());
        self.details.response_headers = header_list(response.headers());
        self.details.headers_ms = Some(millis(self.started.elapsed()));
    }

    pub(super) fn event(&mut self, id: Option<&str>) {
        self.details.events += 1;
        if let Some(id) = id {
            self.saw_id(id);
        }
    }

    pub(super) fn saw_id(&mut self, id: &str) {
        let ids = &mut self.details.event_ids;
        if ids.last().map(String::as_str) != Some(id) && ids.len() < HTTP_EVENT_IDS_KEPT {
            ids.push(id.to_owned());
        }
    }

    /// The details so far, the first time only.
    fn finish(&mut self, error: Option<String>) -> Option<Arc<HttpExchange>> {
        if std::mem::replace(&mut self.handed_over, true) {
            return None;
        }
        self.details.took_ms = millis(self.started.elapsed());
        self.details.error = error;
        Some(Arc::new(self.details.clone()))
    }
}

fn header_list(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
            (name.as_str().to_owned(), value)
        })
        .collect()
}

fn millis(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

impl Poster {
    pub(super) async fn emit_http(&self, record: &mut Record, error: Option<String>) {
        if let Some(exchange) = record.finish(error) {
            let event = TransportEvent::Http {
                exchange,
                at: now(),
            };
            let _ = self.events.send(event).await;
        }
    }
}
