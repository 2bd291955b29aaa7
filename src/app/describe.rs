//! What a log line says in one row, pure: summaries of frames sent and received, and the
//! console's view of stderr lines and log notifications. Computed on arrival for most lines;
//! for small notifications and stderr lines, when the row is drawn.

use std::borrow::Cow;

use serde_json::Value;

use super::state::{ConsoleLine, LineKind, LogLine, LogState, Raw};
use crate::mcp::jsonrpc::{self, Message};
use crate::mcp::log::Role;
use crate::present::log::{self as words, Received};
pub use crate::present::log::{clip_line, id_label, short_session};
use crate::sanitize;

impl LogState {
    /// Row `line`'s text: kept since arrival, or derived from its own text (a stderr run from
    /// its last line).
    pub fn summary<'a>(&'a self, line: &'a LogLine) -> Cow<'a, str> {
        match line.raw {
            Some(Raw::Stderr { first, count }) => {
                let last = self.stderr.line(first + count.saturating_sub(1));
                let more = match count {
                    0 | 1 => String::new(),
                    2 => "  (+1 line before; ` shows all)".to_owned(),
                    _ => format!("  (+{} lines before; ` shows all)", count - 1),
                };
                Cow::Owned(clip_line(&format!("{}{more}", words::stderr(last))))
            }
            _ => line.summary(),
        }
    }
}

impl LogLine {
    /// The row's text: kept since arrival, or derived from the line's own text.
    fn summary(&self) -> Cow<'_, str> {
        if let Some(summary) = &self.summary {
            return Cow::Borrowed(summary);
        }
        let derived = match (&self.kind, &self.raw) {
            (_, Some(raw)) => match jsonrpc::parse(raw.as_str()) {
                // The role matters for responses only, which are never derived.
                Ok(frame) => words::received(&frame, &Role::Notification, self.session).1,
                Err(error) => format!("✗ {error}: {}", raw.as_str()),
            },
            (_, None) => String::new(),
        };
        Cow::Owned(clip_line(&derived))
    }

    /// How the console shows a `notifications/message` line.
    pub fn console(&self) -> ConsoleLine {
        let text = self.raw.as_ref().map_or("", Raw::as_str);
        let params = jsonrpc::parse(text)
            .ok()
            .and_then(|frame| match &frame.message {
                Message::Notification { params, .. } => params.clone(),
                Message::Request { .. } | Message::Response { .. } => None,
            });
        console_message(self.at, params.map(|params| params.value()).as_ref())
    }
}

fn console_message(at: crate::mcp::Timestamp, params: Option<&Value>) -> ConsoleLine {
    let level = params
        .and_then(|p| p.get("level"))
        .and_then(Value::as_str)
        .unwrap_or("log");
    let logger = params
        .and_then(|p| p.get("logger"))
        .and_then(Value::as_str)
        .map(|l| format!(" {l}"))
        .unwrap_or_default();
    let data = params
        .and_then(|p| p.get("data"))
        .map_or_else(String::new, |d| {
            d.as_str().map_or_else(|| d.to_string(), str::to_owned)
        });
    ConsoleLine {
        at,
        source: sanitize::text(&format!("{level}{logger}")).into_owned(),
        text: sanitize::text(&clip_line(&data)).into_owned(),
    }
}

/// A frame from the server as a row: its kind, its words, and the id linking it to its call.
pub(super) fn describe_received(
    frame: &jsonrpc::Frame,
    role: &Role,
    session: u32,
) -> (LineKind, String, Option<jsonrpc::Id>) {
    let (received, summary, id) = words::received(frame, role, session);
    let kind = match received {
        Received::ServerRequest => LineKind::ServerRequest,
        Received::Notification => LineKind::Notification,
        Received::Response(class) => LineKind::Response(class),
    };
    (kind, summary, id)
}
