//! One wording for what the session log holds, pure: the TUI's log rows and the headless `-v`
//! log say each event in the same words, clipped and made terminal-safe the same way.

use serde_json::Value;

use crate::classify::{Class, classify_reply};
use crate::mcp::framing::InvalidLine;
use crate::mcp::input::{ResultType, result_type};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{Frame, Id, Message, Reply};
use crate::mcp::log::{HttpExchange, LogEvent, Role};
use crate::sanitize;

/// Longest summary of one log line, in characters.
pub const SUMMARY_CHARS: usize = 240;

/// What a frame from the server is, as its row shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Received {
    ServerRequest,
    Notification,
    Response(Class),
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

/// A request the server sent, and sightline's answer to it: `srv#1` (`srv2#1` on a later
/// connection), so that its numbers, counted by the server, never read as one of ours.
pub fn server_id_label(session: u32, id: &Id) -> String {
    format!("srv{}", id_label(session, id))
}

/// A frame sightline sent, in one row; the id it links to its call.
pub fn sent(frame: &Frame, session: u32) -> (String, Option<Id>) {
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
                // What a catalog request is about, as `tools/call` names its tool.
                (
                    "resources/read"
                    | "resources/subscribe"
                    | "resources/unsubscribe"
                    | "resources/directory/read",
                    Some(params),
                ) => params
                    .get("uri")
                    .and_then(Value::as_str)
                    .map(|uri| format!(" {uri}"))
                    .unwrap_or_default(),
                ("prompts/get", Some(params)) => params
                    .get("name")
                    .and_then(Value::as_str)
                    .map(|name| format!(" {name}"))
                    .unwrap_or_default(),
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
                .map_or_else(|| "srv#null".to_owned(), |id| server_id_label(session, id));
            (format!("→ {id} our answer: {what}"), None)
        }
    }
}

/// A frame from the server, in one row: its kind, its words, the id that links it to its call.
pub fn received(frame: &Frame, role: &Role, session: u32) -> (Received, String, Option<Id>) {
    match &frame.message {
        Message::Request { id, method, .. } => (
            Received::ServerRequest,
            format!(
                "← {} {method} (request from the server)",
                server_id_label(session, id)
            ),
            None,
        ),
        Message::Notification { method, params } => {
            let detail = params
                .as_ref()
                .map(|p| format!(" {}", clip_line(p.text())))
                .unwrap_or_default();
            (Received::Notification, format!("← {method}{detail}"), None)
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
            let handle = match reply {
                Reply::Result(result) if method == "tools/call" => task_handle(result),
                _ => None,
            };
            let summary = if asks {
                // A round of a call, not its end: the retry follows.
                format!("← {id_text} input required{note} · the server asks before it answers")
            } else if let Some(handle) = &handle {
                // A step of a call, not its end: its polling follows.
                format!("← {id_text} task created{note} · {handle}")
            } else {
                format!("← {id_text} {}{note} · {detail}", outcome.class.label())
            };
            let linked = matches!(role, Role::Reply { .. })
                .then(|| id.clone())
                .flatten();
            let kind = if asks || handle.is_some() {
                Received::ServerRequest
            } else {
                Received::Response(outcome.class)
            };
            (kind, summary, linked)
        }
    }
}

/// `ID STATUS` of a task handle: a `resultType: "task"` result (2026-07-28) or a
/// `CreateTaskResult` (2025-11-25, its task under `task`, no `content`).
fn task_handle(result: &Json) -> Option<String> {
    let task = if result_type(result) == ResultType::Task {
        result.clone()
    } else if result.get("content").is_none() {
        result.get("task").filter(Json::is_object)?
    } else {
        return None;
    };
    let member = |name| {
        task.get(name)
            .and_then(|value| value.as_str().map(|text| clip_line(&text)))
            .unwrap_or_else(|| "?".into())
    };
    Some(format!("{} {}", member("taskId"), member("status")))
}

/// A line that is not a frame.
pub fn invalid(invalid: &InvalidLine) -> String {
    format!("✗ {}: {}", invalid.error, invalid.raw)
}

/// sightline's own deadline passed.
pub fn timed_out(session: u32, id: &Id, method: &str, after_ms: u64) -> String {
    format!(
        "⏱ {} {method}: no reply within {after_ms} ms (sightline's own timeout)",
        id_label(session, id)
    )
}

/// The user cancelled the call: its end, in the log, beside our `notifications/cancelled`.
pub fn cancelled_by_user(session: u32, id: &Id, method: &str) -> String {
    format!(
        "⊘ {} {method}: cancelled by you · transport failure (no reply will be read)",
        id_label(session, id)
    )
}

pub fn write_failed(reason: &str) -> String {
    format!("✗ write failed: {reason}")
}

pub fn closed(status: &str) -> String {
    format!("■ server output closed ({status})")
}

pub fn note(text: &str) -> String {
    format!("• {text}")
}

pub fn http(http: &HttpExchange) -> String {
    format!("⇄ {}", http.summary())
}

/// One line of the server's stderr.
pub fn stderr(line: &str) -> String {
    format!("stderr │ {line}")
}

/// What `event` says, one line per line of it (stderr may bring several), not yet clipped:
/// a row clips to [`SUMMARY_CHARS`], a line-oriented log less.
pub fn summaries(event: &LogEvent, session: u32) -> Vec<String> {
    let text = match event {
        LogEvent::Sent(frame) => sent(frame, session).0,
        LogEvent::Received { frame, role } => received(frame, role, session).1,
        LogEvent::Invalid(line) => invalid(line),
        LogEvent::Stderr(text) => {
            return text.split('\n').map(stderr).collect();
        }
        LogEvent::TimedOut {
            id,
            method,
            after_ms,
        } => timed_out(session, id, method, *after_ms),
        LogEvent::WriteFailed(reason) => write_failed(reason),
        LogEvent::Closed { status } => closed(status),
        LogEvent::Note(text) => note(text),
        LogEvent::Authorization(fact) => note(&crate::classify::oauth::line(fact)),
        LogEvent::Http(exchange) => http(exchange),
    };
    vec![text]
}

/// One display line: sanitised, without newlines, at most `SUMMARY_CHARS` characters.
pub fn clip_line(text: &str) -> String {
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

    /// The server counts its requests from 1 too: its `#1` and ours are told apart, in the
    /// request's row and in the row of our answer to it.
    #[test]
    fn a_server_request_and_our_answer_carry_the_servers_mark() {
        let request = crate::mcp::jsonrpc::parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{}}"#,
        )
        .unwrap();
        let (_, row, _) = received(&request, &Role::ServerRequest, 1);
        assert_eq!(row, "← srv#1 elicitation/create (request from the server)");
        let answer = Frame::encode(Message::Response {
            id: Some(Id::Number(1)),
            reply: Reply::Result(serde_json::json!({"action": "accept"}).into()),
        });
        assert_eq!(sent(&answer, 2).0, "→ srv2#1 our answer: result");
        let ours = crate::mcp::jsonrpc::parse(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .unwrap();
        assert_eq!(sent(&ours, 1).0, "→ #1 tools/list");
    }
}
