//! The recorder: a tap on the session stream that writes each event to a transcript as it
//! happens, one flushed line at a time, so a killed sightline loses nothing it had received.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex, PoisonError};

use crate::analysis::{CallContext, judge};
use crate::mcp::catalog::Catalog;
use crate::mcp::log::SessionEvent;
use crate::sanitize;
use crate::transcript::{
    Header, Judged, LastReceived, ModelTurn, Record, Redactor, VERSION, rfc3339,
};

/// Writes a transcript; clones share the file.
#[derive(Clone)]
pub struct Recorder(Arc<Mutex<Inner>>);

struct Inner {
    path: String,
    out: BufWriter<File>,
    redactor: Redactor,
    /// What the class and findings of a call depend on, followed from the stream.
    version: String,
    catalog: Option<Arc<Catalog>>,
    /// The first write that failed; nothing more is written after it.
    failed: Option<String>,
    last_received: LastReceived,
}

impl Recorder {
    /// Creates (or truncates) `path` and writes the header.
    pub fn create(
        path: &str,
        command: &str,
        transport: &str,
        redactor: Redactor,
    ) -> Result<Self, String> {
        let file = File::create(path)
            .map_err(|error| format!("cannot write the transcript '{path}': {error}"))?;
        let started_ms = crate::transport::now().0;
        let header = Header {
            sightline_transcript: VERSION,
            sightline: env!("CARGO_PKG_VERSION").to_owned(),
            started: rfc3339(started_ms),
            started_ms,
            command: command.to_owned(),
            transport: redactor.text(transport).into_owned(),
            redacted: redactor.on,
        };
        let mut inner = Inner {
            path: path.to_owned(),
            out: BufWriter::with_capacity(1 << 16, file),
            redactor,
            version: "unknown".to_owned(),
            catalog: None,
            failed: None,
            last_received: LastReceived::default(),
        };
        inner.write(&header);
        match inner.failed.take() {
            Some(error) => Err(error),
            None => Ok(Self(Arc::new(Mutex::new(inner)))),
        }
    }

    /// The tap that records every event.
    pub fn tap(&self) -> impl Fn(&SessionEvent) + Send + Sync + 'static + use<> {
        let inner = Arc::clone(&self.0);
        move |event| {
            inner
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .record(event);
        }
    }

    /// A model turn of `sightline agent`, written beside the wire in the order it happened
    /// (secrets masked like everything else).
    pub fn model_turn(&self, api: &str, request: &serde_json::Value, response: &serde_json::Value) {
        let mut inner = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.failed.is_some() {
            return;
        }
        let turn = ModelTurn {
            at: crate::transport::now().0,
            api: api.to_owned(),
            request: inner.redactor.json(request.clone()),
            response: inner.redactor.json(response.clone()),
        };
        inner.write(&Record::Model(Box::new(turn)));
    }

    /// Why recording stopped early, if it did.
    pub fn failure(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .failed
            .clone()
    }
}

impl Inner {
    fn record(&mut self, event: &SessionEvent) {
        if self.failed.is_some() {
            return;
        }
        let judged = match event {
            SessionEvent::ToolsListed(tools) => {
                self.catalog = Some(Arc::clone(tools));
                self.write(&crate::transcript::ToolsLine::new(tools));
                return;
            }
            SessionEvent::Connected(connection) => {
                self.version.clone_from(&connection.protocol_version);
                None
            }
            SessionEvent::CallFinished(finished) => {
                // Judged once, by the session that ran the call; else (an export) here.
                if let Some(judgement) = &finished.judged {
                    Some(Judged::of(&judgement.outcome, &judgement.findings))
                } else {
                    let context = CallContext {
                        version: &self.version,
                        catalog: self.catalog.as_deref(),
                        host: crate::model_view::hosts::spec(),
                        forward_protocol_errors: false,
                    };
                    let (outcome, findings) = judge(&finished.exchange, &context);
                    Some(Judged::of(&outcome, &findings))
                }
            }
            _ => None,
        };
        if let Some(record) = Record::of(event, &self.redactor, judged) {
            let record = self.last_received.shorten(event, record);
            self.write(&record);
        }
    }

    /// One line, flushed: what was received is on disk before the next event. Control and
    /// bidi characters are written as JSON escapes, so the file is safe to `cat`. Streamed
    /// through the escaping writer to the file: a huge reply is not copied to be written.
    fn write(&mut self, value: &impl serde::Serialize) {
        let mut safe = sanitize::JsonWriter::new(&mut self.out);
        let written = serde_json::to_writer(&mut safe, value)
            .map_err(std::io::Error::from)
            .and_then(|()| safe.write_all(b"\n"))
            .and_then(|()| safe.flush());
        if let Err(error) = written {
            self.failed = Some(format!("recording to '{}' stopped: {error}", self.path));
        }
    }
}
