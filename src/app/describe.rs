//! What a log line says in one row, pure: summaries of frames sent and received, and the
//! console's view of stderr lines and log notifications. Computed on arrival for most lines;
//! for small notifications and stderr lines, when the row is drawn.

use std::borrow::Cow;

use serde_json::Value;

use super::state::{ConsoleLine, LineKind, LogLine, LogState, Raw};
use crate::classify::{Class, classify_reply};
use crate::mcp::input::{ResultType, result_type};
use crate::mcp::jsonrpc::{self, Frame, Id, Message, Reply};
use crate::mcp::log::Role;
use crate::sanitize;

/// Longest summary of one log line, in characters.
const SUMMARY_CHARS: usize = 240;

impl LogState {
    /// Row `line`'s text: kept since arrival, or derived from its own text (a stderr run from
    /// its last line).
    pub fn summary<'a>(&'a self, line: &'a LogLine) -> Cow<'a, str> {
        match line.raw {
            Some(Raw::Stderr { first, count }) => {
                let last = self.stderr.line(first + count.saturating_sub(1));
                let more = match count {
                    0 | 1 => String::new(),
                    _ => format!("  (+{} lines before; ` shows all)", count - 1),
                };
                Cow::Owned(clip_line(&format!("stderr │ {last}{more}")))
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
                Ok(frame) => describe_received(&frame, &Role::Notification, self.session).1,
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

/// A session id as the status line shows it: its first 8 characters.
pub fn short_session(id: &str) -> String {
    match id.char_indices().nth(8) {
        Some((cut, _)) => format!("{}…", &id[..cut]),
        None => id.to_owned(),
    }
}

/// `#3`, or `2#3` for an id of a later connection (see [`super::state::AppState::session`]).
pub fn id_label(session: u32, id: &Id) -> String {
    if session > 1 {
        format!("{session}#{id}")
    } else {
        format!("#{id}")
    }
}

pub(super) fn describe_sent(frame: &Frame, session: u32) -> (String, Option<Id>) {
    match &frame.message {
        Message::Request { id, method, params } => {
            let detail = match (method.as_str(), params) {
                ("tools/call", Some(params)) => {
                    let name = params.get("name").and_then(Value::as_str).unwrap_or("?");
                    let arguments = params
                        .get("arguments")
                        .map(Value::to_string)
                        .unwrap_or_default();
                    format!(" {name} {}", clip_line(&arguments))
                }
                _ => String::new(),
            };
            (
                format!("→ {} {method}{detail}", id_label(session, id)),
                Some(id.clone()),
            )
        }
        Message::Notification { method, params } => {
            let detail = params
                .as_ref()
                .and_then(|p| {
                    let id = serde_json::from_value::<Id>(p.value().get("requestId")?.clone());
                    id.ok().map(|id| format!(" {}", id_label(session, &id)))
                })
                .unwrap_or_default();
            (format!("→ {method}{detail}"), None)
        }
        Message::Response { id, reply } => {
            let what = match reply {
                Reply::Result(_) => "result".to_owned(),
                Reply::Error(error) => format!("error {}", error.code),
            };
            let id = id
                .as_ref()
                .map_or_else(|| "#null".to_owned(), |id| id_label(session, id));
            (format!("→ {id} our answer: {what}"), None)
        }
    }
}

pub(super) fn describe_received(
    frame: &Frame,
    role: &Role,
    session: u32,
) -> (LineKind, String, Option<Id>) {
    match &frame.message {
        Message::Request { id, method, .. } => (
            LineKind::ServerRequest,
            format!(
                "← {} {method} (request from the server)",
                id_label(session, id)
            ),
            None,
        ),
        Message::Notification { method, params } => {
            let detail = params
                .as_ref()
                .map(|p| format!(" {}", clip_line(p.text())))
                .unwrap_or_default();
            (LineKind::Notification, format!("← {method}{detail}"), None)
        }
        Message::Response { id, reply } => {
            let method = match role {
                Role::Reply { method } | Role::Late { method } | Role::Duplicate { method } => {
                    method.as_str()
                }
                Role::UnknownId | Role::Unaddressed | Role::ServerRequest | Role::Notification => {
                    ""
                }
            };
            let outcome = classify_reply(method, reply);
            let note = match role {
                Role::Late { .. } => " (late: we had stopped waiting)",
                Role::Duplicate { .. } => " (duplicate response)",
                Role::UnknownId => " (a reply to a request never sent)",
                Role::Unaddressed => " (an error about no request)",
                Role::Reply { .. } | Role::ServerRequest | Role::Notification => "",
            };
            let id_text = id
                .as_ref()
                .map_or_else(|| "#null".to_owned(), |id| id_label(session, id));
            let detail = if method == "tools/call" || outcome.class != Class::Success {
                outcome.detail.clone()
            } else {
                format!("{method} result")
            };
            let asks = matches!(reply, Reply::Result(result)
                if result_type(result) == ResultType::InputRequired);
            let summary = if asks {
                // A round of a call, not its end: the retry follows.
                format!("← {id_text} input required{note} · the server asks before it answers")
            } else {
                format!("← {id_text} {}{note} · {detail}", outcome.class.label())
            };
            let linked = matches!(role, Role::Reply { .. })
                .then(|| id.clone())
                .flatten();
            let kind = if asks {
                LineKind::ServerRequest
            } else {
                LineKind::Response(outcome.class)
            };
            (kind, summary, linked)
        }
    }
}

/// One display line: sanitised, without newlines, at most `SUMMARY_CHARS` characters.
pub(super) fn clip_line(text: &str) -> String {
    let clipped: String = text.chars().take(SUMMARY_CHARS + 1).collect();
    let mut safe = sanitize::text(&clipped).into_owned();
    if clipped.chars().count() > SUMMARY_CHARS {
        let cut = safe
            .char_indices()
            .nth(SUMMARY_CHARS)
            .map_or(safe.len(), |(i, _)| i);
        safe.truncate(cut);
        safe.push('…');
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_session_ids_are_shortened_and_ids_of_later_connections_numbered() {
        assert_eq!(short_session("3f2a9c1e-77b0-4c55"), "3f2a9c1e…");
        assert_eq!(short_session("short"), "short");
        assert_eq!(id_label(1, &Id::Number(3)), "#3");
        assert_eq!(id_label(2, &Id::Number(3)), "2#3");
    }
}
