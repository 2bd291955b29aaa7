//! What the session reports: connection, tools, log entries, finished calls, questions.

use serde_json::Value;

use super::action::{Effect, SessionEvent};
use super::ask::AskPanel;
use super::audit::audited;
use super::audit_panel::Phase as AuditPhase;
use super::describe::{clip_line, describe_received, id_label};
use super::detail::refresh_detail;
use super::model_pane::{call_context, refresh_model};
use super::navigation::select_tool;
use super::pending;
use super::read_back::{replayed_frame, store_call, store_frame};
use super::state::{AppState, CallRecord, LineKind, Link, LogLine, Raw};
use super::status::{complain, inform};
use crate::analysis;
use crate::classify::Class;
use crate::mcp::jsonrpc::{Id, Message, Reply, error_code_name};
use crate::mcp::log::{LogEntry, LogEvent, Probe, ProbeAnswer, Role};
use crate::mcp::session::{End, Failure};
use crate::mcp::verdict::{Finished, Judgement};
use crate::present::log as words;
use crate::sanitize;

/// Notifications and server requests up to this size keep only their text; their row is
/// derived from it when drawn (cheap at this size), so a flood costs little more than its bytes.
const DERIVE_LIMIT: usize = 4096;

pub(super) fn on_session(state: &mut AppState, event: SessionEvent) -> Vec<Effect> {
    match event {
        SessionEvent::Connecting { transport } => {
            // A reconnect after a connection that logged something: a new connection, whose
            // ids start again at 1. One that logged nothing (a server that never started) used
            // no ids and has no time to give a boundary: the status line says what happens.
            // Nothing is known yet of how this attempt goes, so the row claims no restart.
            let logged = state
                .log
                .lines
                .last()
                .is_some_and(|line| line.session == state.session);
            if state.link != Link::Starting && logged {
                state.session += 1;
                let text = format!(
                    "── connection {0}: connecting again; its ids read {0}#1, {0}#2… ──",
                    state.session
                );
                state.log.lines.push(note_line(state, &text));
            }
            state.link = Link::Connecting;
            // The session has taken the reconnect asked (if any): the next `r` is a new one.
            state.reconnect_asked = None;
            state.requests.clear();
            state.transport = sanitize::text(&transport).into_owned();
        }
        SessionEvent::Connected(connection) => {
            state.negotiated = Some((state.session, (*connection).clone()));
            if let Some(probe) = &connection.probe {
                label_probe_answers(state, probe);
            }
            if state.session > 1 {
                inform(
                    state,
                    format!(
                        "reconnected to {} {}",
                        sanitize::text(&connection.server.name),
                        sanitize::text(&connection.server.version)
                    ),
                );
            }
            state.link = Link::Connected(*connection);
            return super::catalog::connected(state);
        }
        SessionEvent::ConnectFailed { reason, .. } => {
            let reason = sanitize::text(&reason).into_owned();
            complain(state, format!("could not connect: {reason} (r retries)"));
            // Without a target there is no `Connecting`: this ends the attempt asked for.
            state.reconnect_asked = None;
            state.link = Link::Failed(reason);
        }
        SessionEvent::ToolsListed(tools) => {
            state.tools.set(tools);
            state.tools.listed = true;
            state.tools.problem = None;
            select_tool(state, state.tools.selected);
        }
        SessionEvent::ToolsFailed(reason) => {
            state.tools.problem = Some(sanitize::text(&reason).into_owned());
        }
        SessionEvent::Logged(entry) => {
            let effects = match &entry.event {
                LogEvent::Received { frame, .. } => {
                    super::subscriptions::heard(state, frame);
                    super::catalog::heard(state, entry.at, frame)
                }
                _ => Vec::new(),
            };
            log_entry(state, entry);
            return effects;
        }
        SessionEvent::CallFinished(finished) => return finish_call(state, *finished),
        SessionEvent::Requested(exchange) => return super::answers::finished(state, &exchange),
        SessionEvent::Listened { key, exchange } => {
            super::subscriptions::listen_ended(state, &key, &exchange);
            return Vec::new();
        }
        SessionEvent::Asked {
            number,
            request,
            proposed,
        } => {
            let panel = AskPanel::new(number, *request, &proposed);
            state.asking = Some(panel);
        }
        SessionEvent::Disconnected => {
            state.link = Link::Disconnected;
            state.pending_calls = 0;
            state.pending = None;
            state.requests.clear();
            // A subscription, and a listen stream, ends with its connection.
            state.catalog.resources.subscribed.clear();
            state.catalog.resources.listening.clear();
            if let Some(audit) = state.audit.as_mut()
                && audit.pending().is_some()
            {
                audit.phase = AuditPhase::Done;
                complain(state, "the audit stopped: the server went away".into());
            }
        }
    }
    Vec::new()
}

/// A host watched through `sightline proxy` (attached, or its transcript replayed) names itself
/// in its first request: what its model sees is then judged by its profile, unless the user
/// chose one (`--host`, `h`).
fn follow_host(state: &mut AppState, message: &Message) {
    if state.replay.is_none() || state.watched.host_named || state.settings.host().name != "spec" {
        return;
    }
    if !matches!(message, Message::Request { .. }) {
        return;
    }
    state.watched.host_named = true;
    let Some(name) = crate::model_view::clients::client_name(message) else {
        return;
    };
    let chosen = crate::model_view::clients::for_client(name).and_then(|profile| {
        state
            .settings
            .hosts
            .iter()
            .position(|host| host.name == profile)
    });
    if let Some(index) = chosen {
        state.settings.host = index;
        let profile = state.settings.host().name.clone();
        inform(
            state,
            format!(
                "the host is {} (clientInfo): the model pane judges for '{profile}' (h changes it)",
                sanitize::text(name)
            ),
        );
    }
}

/// A line of sightline's own, in the current connection.
fn note_line(state: &AppState, text: &str) -> LogLine {
    LogLine {
        at: state
            .log
            .lines
            .last()
            .map_or_else(Default::default, |line| line.at),
        kind: LineKind::Note,
        summary: Some(clip_line(text).into_boxed_str()),
        raw: None,
        id: None,
        exchange: None,
        flagged: false,
        session: state.session,
    }
}

/// Once the negotiation has found a legacy server by its era probe, the probe's refusal (or
/// silence) is what was expected: its rows say so, dimmed. The frame itself is unchanged, one
/// Enter away.
fn label_probe_answers(state: &mut AppState, probe: &Probe) {
    const RECENT: usize = 256;
    let session = state.session;
    let label = id_label(session, &probe.id);
    // Over HTTP a legacy server may refuse the probe with an error of id null (the body of the
    // probe's POST, as the transport's note says): the same expected answer.
    let mut unaddressed = matches!(
        probe.answer,
        ProbeAnswer::Refused {
            addressed: false,
            ..
        }
    );
    for line in state.log.lines.iter_mut().rev().take(RECENT) {
        if line.session != session {
            continue;
        }
        let refusal = match (&line.kind, &line.raw) {
            (LineKind::Response(Class::ProtocolError), Some(Raw::Frame(frame))) => {
                match &frame.message {
                    Message::Response {
                        id,
                        reply: Reply::Error(error),
                    } => Some((id.as_ref(), error.code)),
                    _ => None,
                }
            }
            _ => None,
        };
        let answer = match (refusal, &line.kind) {
            (Some((None, code)), _) if unaddressed => {
                unaddressed = false;
                format!(
                    "← {label} server/discover refused (id null, the body of its POST): {code} {} — the era probe's expected answer from a legacy server (Enter shows it)",
                    error_code_name(code)
                )
            }
            _ if line.id.as_ref() != Some(&probe.id) => continue,
            (Some((_, code)), _) => format!(
                "← {label} server/discover refused: {code} {} — the era probe's expected answer from a legacy server (Enter shows it)",
                error_code_name(code)
            ),
            (None, LineKind::Failure) => format!(
                "⏱ {label} server/discover: no answer within the probe timeout — the era probe; treated as a legacy server"
            ),
            (None, _) => continue,
        };
        line.kind = LineKind::Probe;
        line.summary = Some(clip_line(&answer).into_boxed_str());
    }
}

fn finish_call(state: &mut AppState, finished: Finished) -> Vec<Effect> {
    state.pending_calls = state.pending_calls.saturating_sub(1);
    let Finished { exchange, judged } = finished;
    // Judged by the session that ran it; a call read back from a transcript is judged here.
    let (outcome, found) = match judged {
        Some(Judgement {
            outcome,
            mut findings,
        }) => {
            let version = call_context(state).version;
            analysis::with_measured_consequence(&mut findings, &exchange, &outcome, version);
            (outcome, findings)
        }
        None => analysis::judge(&exchange, &call_context(state)),
    };
    let tool = exchange
        .params()
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let index = state.calls.len();
    let flagged = !found.is_empty();
    // The call's lines are near the end of the log: mark them as part of this exchange.
    let session = state.session;
    // The earlier rounds of a multi round-trip call are the same logical call.
    let ids: Vec<&Id> = std::iter::once(&exchange.id)
        .chain(
            exchange
                .rounds
                .iter()
                .filter_map(|round| round.asked_by.as_ref()),
        )
        .collect();
    pending::on_finished(&mut state.pending, session, &ids, state.pending_calls);
    for line in state.log.lines.iter_mut().rev().take(4096) {
        if line.id.as_ref().is_some_and(|id| ids.contains(&id))
            && line.session == session
            && line.exchange.is_none()
        {
            line.exchange = Some(index);
            // The call record holds these frames now; one copy is enough. (An HTTP row keeps
            // its details: a resumed call had several exchanges, the record only the last.)
            if line.kind != LineKind::Http {
                line.raw = None;
            }
            if matches!(line.kind, LineKind::Response(_) | LineKind::Failure) {
                line.flagged = flagged;
            }
        }
    }
    if exchange.end == End::Failed(Failure::CancelledByUser) {
        // Nothing came from the server to end it: the row says who did, linked to the call.
        let text = words::cancelled_by_user(session, &exchange.id, &exchange.method);
        let mut row = note_line(state, &text);
        row.kind = LineKind::Failure;
        row.at = exchange.ended_at;
        row.id = Some(exchange.id.clone());
        row.exchange = Some(index);
        row.flagged = flagged;
        state.log.lines.push(row);
    }
    state.calls.push(CallRecord {
        session,
        tool,
        exchange,
        outcome,
        findings: found,
        stored: false,
    });
    // The Chat model's call is linked to its turn before the model pane says whose it was.
    let asked = super::chat::called(state, index);
    super::chat_recorded::retold(state);
    if state.log.selected.is_none() {
        refresh_detail(state);
    }
    refresh_model(state);
    if state.replay.is_some() {
        store_call(state, index);
    }
    let mut effects = audited(state, index);
    effects.extend(asked);
    effects
}

/// Adds a stderr line; consecutive lines are one row of the log, however many there are.
fn stderr_line(state: &mut AppState, text: &str, at: crate::mcp::Timestamp) {
    let Some(number) = state.log.stderr.push(text, at) else {
        return;
    };
    state.log.console_lines += 1;
    if let Some(LogLine {
        raw: Some(Raw::Stderr { count, .. }),
        ..
    }) = state.log.lines.last_mut()
    {
        *count += 1;
        return;
    }
    state.log.console.push(state.log.lines.len());
    state.log.lines.push(LogLine {
        at,
        kind: LineKind::Stderr,
        summary: None,
        raw: Some(Raw::Stderr {
            first: number,
            count: 1,
        }),
        id: None,
        exchange: None,
        flagged: false,
        session: state.session,
    });
}

fn log_entry(state: &mut AppState, entry: LogEntry) {
    if let LogEvent::Sent(frame) = &entry.event {
        follow_host(state, &frame.message);
    }
    let now = (state.session, state.ticks);
    pending::on_logged(&mut state.pending, now, &entry.event, entry.at);
    let at = entry.at;
    let session = state.session;
    let stored = replayed_frame(state, &entry.event);
    let line = |kind, summary: Option<String>, raw: Option<Raw>, id| LogLine {
        at,
        kind,
        summary: summary.map(|text| clip_line(&text).into_boxed_str()),
        raw,
        id,
        exchange: None,
        flagged: false,
        session,
    };
    let index = state.log.lines.len();
    let mut answers_call = None;
    let mut new = match entry.event {
        LogEvent::Sent(frame) => {
            let (summary, id) = words::sent(&frame, session);
            line(
                LineKind::Outgoing,
                Some(summary),
                Some(Raw::Frame(frame)),
                id,
            )
        }
        LogEvent::Received { frame, role } => {
            if frame.message.method() == Some("notifications/message") {
                state.log.console.push(index);
                state.log.console_lines += 1;
            }
            let derived = match &frame.message {
                Message::Notification { .. } => Some(LineKind::Notification),
                Message::Request { .. } => Some(LineKind::ServerRequest),
                Message::Response { .. } => None,
            };
            match derived {
                // The most numerous lines keep only their text; the row is derived when drawn.
                Some(kind) if frame.raw.len() <= DERIVE_LIMIT => {
                    line(kind, None, Some(Raw::Line(frame.into_raw())), None)
                }
                Some(_) | None => {
                    // A late or duplicate reply belongs to its call as much as the first.
                    if let (
                        Role::Late { .. } | Role::Duplicate { .. },
                        Message::Response { id: Some(id), .. },
                    ) = (&role, &frame.message)
                    {
                        answers_call = state
                            .calls
                            .iter()
                            .rposition(|call| call.session == session && &call.exchange.id == id);
                    }
                    let (kind, summary, id) = describe_received(&frame, &role, session);
                    line(kind, Some(summary), Some(Raw::Frame(frame)), id)
                }
            }
        }
        LogEvent::Invalid(invalid) => {
            let summary = words::invalid(&invalid);
            let raw = (!invalid.raw.is_empty()).then(|| Raw::Line(invalid.raw));
            line(LineKind::Invalid, Some(summary), raw, None)
        }
        LogEvent::Stderr(text) => {
            for text in text.split('\n') {
                stderr_line(state, text, at);
            }
            return;
        }
        LogEvent::TimedOut {
            id,
            method,
            after_ms,
        } => {
            let summary = words::timed_out(session, &id, &method, after_ms);
            line(LineKind::Failure, Some(summary), None, Some(id))
        }
        LogEvent::WriteFailed(reason) => line(
            LineKind::Failure,
            Some(words::write_failed(&reason)),
            None,
            None,
        ),
        LogEvent::Closed { status } => {
            line(LineKind::Failure, Some(words::closed(&status)), None, None)
        }
        LogEvent::Note(text) => note(&text, line),
        LogEvent::Authorization(fact) => note(&crate::classify::oauth::line(&fact), line),
        LogEvent::Http(http) => {
            let summary = words::http(&http);
            // Linked to its call by the request's id, like the frames it carried.
            let id = http.request_id.clone();
            line(LineKind::Http, Some(summary), Some(Raw::Http(http)), id)
        }
    };
    new.exchange = answers_call;
    store_frame(&mut new, stored);
    state.log.lines.push(new);
}

/// A note's line; a long one (an authorization URL) keeps its whole text for Detail.
fn note(
    text: &str,
    line: impl Fn(LineKind, Option<String>, Option<Raw>, Option<Id>) -> LogLine,
) -> LogLine {
    let whole =
        (text.chars().count() > 200).then(|| Raw::Line(std::sync::Arc::new(text.to_owned())));
    line(LineKind::Note, Some(words::note(text)), whole, None)
}

#[cfg(test)]
mod tests {
    use ratatui::layout::Rect;
    use serde_json::json;

    use super::*;
    use crate::classify::fixtures::call;
    use crate::classify::{Class, Outcome};
    use crate::mcp::verdict::{Finished, Judgement};

    /// Over HTTP, a legacy server refuses the era probe with an error of id null (the body of
    /// the probe's POST): once the server is known to be legacy, that row reads as the stdio
    /// refusal does, dimmed and labelled, instead of a red "#null protocol error".
    #[test]
    fn an_http_probe_refusal_without_an_id_is_labelled_like_stdios() {
        use crate::mcp::Timestamp;
        use crate::mcp::era::Era;
        use crate::mcp::jsonrpc::parse;
        use crate::mcp::log::{Connection, LogEntry};
        use crate::mcp::messages::ServerInfo;
        let mut state = AppState::new(
            crate::app::state::Settings::default(),
            Vec::new(),
            Rect::new(0, 0, 120, 40),
        );
        let log = |state: &mut AppState, event| {
            on_session(
                state,
                SessionEvent::Logged(LogEntry {
                    at: Timestamp(1),
                    event,
                }),
            );
        };
        let probe = parse(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#).unwrap();
        log(&mut state, LogEvent::Sent(probe));
        let refusal = parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}"#).unwrap();
        log(
            &mut state,
            LogEvent::Received {
                frame: refusal,
                role: Role::Unaddressed,
            },
        );
        assert_eq!(
            state.log.lines[1].kind,
            LineKind::Response(Class::ProtocolError)
        );
        let connection = Connection {
            era: Era::Legacy,
            protocol_version: "2025-11-25".into(),
            server: ServerInfo {
                name: "ts".into(),
                version: "1".into(),
            },
            capabilities: None,
            http_session: None,
            probe: Some(crate::mcp::log::Probe {
                id: Id::Number(1),
                answer: ProbeAnswer::Refused {
                    code: -32000,
                    addressed: false,
                },
            }),
        };
        on_session(&mut state, SessionEvent::Connected(Box::new(connection)));
        let row = &state.log.lines[1];
        assert_eq!(row.kind, LineKind::Probe);
        let summary = state.log.summary(row);
        assert!(
            summary.starts_with("← #1 server/discover refused (id null")
                && summary.contains("-32000")
                && summary.contains("expected answer"),
            "{summary}"
        );
    }

    /// A call the session judged is shown with that judgement: the app does not judge it again
    /// (here the judgement says otherwise than the exchange would, so a second one would show).
    #[test]
    fn a_call_judged_by_the_session_is_not_judged_again() {
        let mut state = AppState::new(
            crate::app::state::Settings::default(),
            Vec::new(),
            Rect::new(0, 0, 120, 40),
        );
        let exchange = call("book_flight", json!({})).text("booked");
        let judged = Judgement {
            outcome: Outcome {
                class: Class::ToolError,
                code: None,
                detail: "as the session judged it".into(),
            },
            findings: Vec::new(),
        };
        let finished = Finished {
            exchange: exchange.clone(),
            judged: Some(judged),
        };
        on_session(&mut state, SessionEvent::CallFinished(Box::new(finished)));
        assert_eq!(state.calls[0].outcome.detail, "as the session judged it");
        // Unjudged (read back from a transcript): judged here.
        let finished = Finished::unjudged(exchange);
        on_session(&mut state, SessionEvent::CallFinished(Box::new(finished)));
        assert_eq!(state.calls[1].outcome.class, Class::Success);
    }
}
