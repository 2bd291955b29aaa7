//! Events to lines and back, pure: the record of each session event, the event of each record.

use std::sync::Arc;

use serde_json::Value;

use super::format::{
    CallRecord, EndRecord, Header, Judged, Record, RoleRecord, RoundRecord, ServerRecord,
    TaskRecord, ToolRecord,
};
use super::legacy;
use super::redact::Redactor;
use crate::classify::findings::Finding;
use crate::classify::{Class, Outcome, oauth};
use crate::mcp::Timestamp;
use crate::mcp::framing::InvalidLine;
use crate::mcp::input::{Answer, InputRequest, Round};
use crate::mcp::jsonrpc::{self, Reply};
use crate::mcp::log::{Connection, LogEntry, LogEvent, Role, SessionEvent};
use crate::mcp::messages::{ServerInfo, Tool};
use crate::mcp::session::{End, Exchange, Failure, TaskRun};
use crate::mcp::verdict::Finished;

impl<'a> Record<'a> {
    /// The record of one event (`None` for events that are not facts of the wire: a question
    /// put to the user). Text borrows from the event unless a secret had to be masked.
    pub fn of(
        event: &'a SessionEvent,
        redactor: &Redactor,
        judged: Option<Judged>,
    ) -> Option<Self> {
        Some(match event {
            SessionEvent::Connecting { transport } => Record::Connecting {
                transport: redactor.text(transport),
            },
            SessionEvent::Logged(entry) => Record::of_log(entry, redactor),
            SessionEvent::Connected(connection) => Record::Connected {
                era: connection.era,
                protocol_version: connection.protocol_version.clone(),
                server: ServerRecord {
                    name: connection.server.name.clone(),
                    version: connection.server.version.clone(),
                },
                capabilities: connection
                    .capabilities
                    .as_ref()
                    .map(crate::mcp::json::Json::value),
                http_session: connection.http_session.clone(),
                probe: connection.probe.clone(),
            },
            SessionEvent::ConnectFailed { stage, reason } => Record::ConnectFailed {
                stage: *stage,
                reason: redactor.text(reason).into_owned(),
            },
            SessionEvent::ToolsListed(tools) => Record::Tools {
                tools: tools
                    .iter()
                    .filter_map(|tool| ToolRecord::owned(&tool))
                    .collect(),
            },
            SessionEvent::ToolsFailed(reason) => Record::ToolsFailed {
                reason: redactor.text(reason).into_owned(),
            },
            SessionEvent::CallFinished(finished) => Record::Call(Box::new(CallRecord::of(
                &finished.exchange,
                redactor,
                judged,
            ))),
            SessionEvent::Disconnected => Record::Disconnected,
            // Its frames are recorded as they went and came; the transcript's call records
            // are `tools/call`s.
            SessionEvent::Asked { .. }
            | SessionEvent::Requested(_)
            | SessionEvent::Listened { .. } => return None,
        })
    }

    fn of_log(entry: &'a LogEntry, redactor: &Redactor) -> Self {
        let at = entry.at.0;
        match &entry.event {
            LogEvent::Sent(frame) => Record::Sent {
                at,
                raw: redactor.text(&frame.raw),
            },
            LogEvent::Received { frame, role } => Record::Received {
                at,
                raw: redactor.text(&frame.raw),
                role: RoleRecord::of(role),
            },
            LogEvent::Invalid(invalid) => Record::Invalid {
                at,
                raw: redactor.text(&invalid.raw),
                error: invalid.error.clone(),
            },
            LogEvent::Stderr(text) => Record::Stderr {
                at,
                text: redactor.text(text),
            },
            LogEvent::TimedOut {
                id,
                method,
                after_ms,
            } => Record::TimedOut {
                at,
                id: id.clone(),
                method: method.clone(),
                after_ms: *after_ms,
            },
            LogEvent::WriteFailed(reason) => Record::WriteFailed {
                at,
                reason: redactor.text(reason).into_owned(),
            },
            LogEvent::Closed { status } => Record::Closed {
                at,
                status: status.clone(),
            },
            LogEvent::Note(text) => Record::Note {
                at,
                text: redactor.text(text),
                authorization: None,
            },
            LogEvent::Authorization(fact) => Record::Note {
                at,
                text: redactor.text(&oauth::line(fact)).into_owned().into(),
                authorization: serde_json::to_value(fact)
                    .ok()
                    .map(|value| redactor.json(value)),
            },
            LogEvent::Http(exchange) => Record::Http {
                at,
                exchange: redactor.http(exchange),
            },
        }
    }

    /// The event this record stands for, sharing the text of a frame read moments ago (a
    /// call's line repeats its frames: read back, they are one copy in memory, as live).
    pub fn into_event(self, recent: &mut Frames) -> Result<SessionEvent, String> {
        let logged = |at: u64, event: LogEvent| {
            SessionEvent::Logged(LogEntry {
                at: Timestamp(at),
                event,
            })
        };
        Ok(match self {
            Record::Connecting { transport } => SessionEvent::Connecting {
                transport: transport.into_owned(),
            },
            Record::Sent { at, raw } => logged(at, LogEvent::Sent(recent.frame(&raw)?)),
            Record::Received { at, raw, role } => {
                let frame = recent.frame(&raw)?;
                recent.received = Some(frame.clone());
                logged(
                    at,
                    LogEvent::Received {
                        frame,
                        role: role.into_role()?,
                    },
                )
            }
            Record::Invalid { at, raw, error } => logged(
                at,
                LogEvent::Invalid(InvalidLine {
                    raw: Arc::new(raw.into_owned()),
                    error,
                }),
            ),
            Record::Stderr { at, text } => logged(at, LogEvent::Stderr(text.into_owned())),
            Record::TimedOut {
                at,
                id,
                method,
                after_ms,
            } => logged(
                at,
                LogEvent::TimedOut {
                    id,
                    method,
                    after_ms,
                },
            ),
            Record::WriteFailed { at, reason } => logged(at, LogEvent::WriteFailed(reason)),
            Record::Closed { at, status } => logged(at, LogEvent::Closed { status }),
            Record::Note {
                at,
                text,
                authorization,
            } => logged(at, note(text, authorization)),
            Record::Http { at, exchange } => logged(at, LogEvent::Http(Arc::new(exchange))),
            Record::Connected {
                era,
                protocol_version,
                server,
                capabilities,
                http_session,
                probe,
            } => SessionEvent::Connected(Box::new(Connection {
                era,
                protocol_version,
                server: ServerInfo {
                    name: server.name,
                    version: server.version,
                },
                capabilities: capabilities
                    .as_ref()
                    .map(crate::mcp::json::Json::from_value),
                http_session,
                probe,
            })),
            Record::ConnectFailed { stage, reason } => {
                SessionEvent::ConnectFailed { stage, reason }
            }
            Record::Tools { tools } => SessionEvent::ToolsListed(Arc::new(
                tools
                    .iter()
                    .map(|record| Tool {
                        rejected: record.rejected.as_deref().map(Box::from),
                        ..Tool::from_value(&record.tool.value())
                    })
                    .collect(),
            )),
            Record::ToolsFailed { reason } => SessionEvent::ToolsFailed(reason),
            Record::Call(call) => {
                let above = recent.received.clone();
                let exchange = call.into_exchange(&mut |raw| recent.frame(raw), above)?;
                SessionEvent::CallFinished(Box::new(Finished::unjudged(exchange)))
            }
            Record::Disconnected => SessionEvent::Disconnected,
            // The reader keeps these beside the session's events.
            Record::Model(_) => return Err("a model turn is not an event of the session".into()),
        })
    }
}

/// The frames read last, to share with the `call` line that repeats them, and the last frame
/// received (a `call` line's reply may be that frame, not written again).
#[derive(Debug, Default)]
pub struct Frames {
    recent: std::collections::VecDeque<jsonrpc::Frame>,
    received: Option<jsonrpc::Frame>,
}

/// Frames remembered: a call's request and reply are among the last few read.
const RECENT_FRAMES: usize = 8;

impl Frames {
    /// A frame from its recorded text (it parsed when it was recorded, so it parses again),
    /// the one read moments ago when the text is the same.
    fn frame(&mut self, raw: &str) -> Result<jsonrpc::Frame, String> {
        if let Some(seen) = self.recent.iter().find(|seen| seen.raw.as_str() == raw) {
            return Ok(seen.clone());
        }
        let frame = jsonrpc::parse_line(Arc::new(raw.to_owned()))
            .map_err(|(_, error)| format!("a recorded frame does not parse: {error}"))?;
        if self.recent.len() == RECENT_FRAMES {
            self.recent.pop_front();
        }
        self.recent.push_back(frame.clone());
        Ok(frame)
    }
}

impl RoleRecord {
    fn of(role: &Role) -> Self {
        let (kind, method) = match role {
            Role::Reply { method } => ("reply", Some(method)),
            Role::Late { method } => ("late", Some(method)),
            Role::Duplicate { method } => ("duplicate", Some(method)),
            Role::UnknownId => ("unknown_id", None),
            Role::Unaddressed => ("unaddressed", None),
            Role::ServerRequest => ("server_request", None),
            Role::Notification => ("notification", None),
        };
        Self {
            kind: kind.to_owned(),
            method: method.cloned(),
        }
    }

    fn into_role(self) -> Result<Role, String> {
        let method = || self.method.clone().unwrap_or_default();
        Ok(match self.kind.as_str() {
            "reply" => Role::Reply { method: method() },
            "late" => Role::Late { method: method() },
            "duplicate" => Role::Duplicate { method: method() },
            "unknown_id" => Role::UnknownId,
            "unaddressed" => Role::Unaddressed,
            "server_request" => Role::ServerRequest,
            "notification" => Role::Notification,
            other => return Err(format!("unknown role '{other}'")),
        })
    }
}

impl<'a> CallRecord<'a> {
    fn of(exchange: &'a Exchange, redactor: &Redactor, recorded: Option<Judged>) -> Self {
        let end = match &exchange.end {
            End::Replied(frame) => EndRecord::Replied {
                raw: redactor.text(&frame.raw),
            },
            End::TimedOut { after_ms } => EndRecord::TimedOut {
                after_ms: *after_ms,
            },
            End::Failed(failure) => match failure {
                Failure::ServerExited {
                    status,
                    stderr_tail,
                } => EndRecord::ServerExited {
                    status: status.clone(),
                    stderr_tail: stderr_tail
                        .iter()
                        .map(|line| redactor.text(line).into_owned())
                        .collect(),
                },
                Failure::MalformedReply { raw, reason } => EndRecord::MalformedReply {
                    raw: redactor.text(raw).into_owned(),
                    reason: reason.clone(),
                },
                Failure::SendFailed { reason } => EndRecord::SendFailed {
                    reason: redactor.text(reason).into_owned(),
                },
                Failure::Rejected { reason } => EndRecord::Rejected {
                    reason: redactor.text(reason).into_owned(),
                },
                Failure::CancelledByUser => EndRecord::CancelledByUser,
            },
        };
        Self {
            id: exchange.id.clone(),
            method: exchange.method.clone(),
            sent_at: exchange.sent_at.0,
            ended_at: exchange.ended_at.0,
            request: redactor.text(&exchange.request.raw),
            end,
            http: exchange.http.as_deref().map(|http| redactor.http(http)),
            rounds: exchange.rounds.iter().map(RoundRecord::of).collect(),
            task: exchange.task.as_deref().map(TaskRecord::of),
            recorded,
        }
    }

    /// The exchange recorded; `above` is the frame received last before it.
    fn into_exchange(
        self,
        frame: &mut impl FnMut(&str) -> Result<jsonrpc::Frame, String>,
        above: Option<jsonrpc::Frame>,
    ) -> Result<Exchange, String> {
        let end = match self.end {
            EndRecord::Replied { raw } => End::Replied(frame(&raw)?),
            EndRecord::RepliedAbove => End::Replied(above.ok_or(
                "a call whose reply is the frame received above it, with no frame received",
            )?),
            EndRecord::TimedOut { after_ms } => End::TimedOut { after_ms },
            EndRecord::ServerExited {
                status,
                stderr_tail,
            } => End::Failed(Failure::ServerExited {
                status,
                stderr_tail,
            }),
            EndRecord::MalformedReply { raw, reason } => End::Failed(Failure::MalformedReply {
                raw: raw.into(),
                reason,
            }),
            EndRecord::SendFailed { reason } => End::Failed(Failure::SendFailed { reason }),
            EndRecord::Rejected { reason } => End::Failed(Failure::Rejected { reason }),
            EndRecord::CancelledByUser => End::Failed(Failure::CancelledByUser),
        };
        Ok(Exchange {
            id: self.id,
            method: self.method,
            request: frame(&self.request)?,
            sent_at: Timestamp(self.sent_at),
            end,
            ended_at: Timestamp(self.ended_at),
            http: self.http.map(Arc::new),
            rounds: self
                .rounds
                .into_iter()
                .map(RoundRecord::into_round)
                .collect(),
            task: self.task.map(|task| Box::new(task.into_task())),
        })
    }
}

impl RoundRecord {
    fn of(round: &Round) -> Self {
        let (result, error) = match &round.answer {
            Answer::Result(value) => (Some(value.clone()), None),
            Answer::Refused(error) => (None, Some(error.clone())),
        };
        Self {
            asked_by: round.asked_by.clone(),
            key: round.request.key.clone(),
            method: round.request.method.clone(),
            params: round.request.params.clone(),
            result,
            error,
        }
    }

    fn into_round(self) -> Round {
        let answer = match (self.result, self.error) {
            (_, Some(error)) => Answer::Refused(error),
            (result, None) => Answer::Result(result.unwrap_or(Value::Null)),
        };
        Round {
            asked_by: self.asked_by,
            request: InputRequest {
                key: self.key,
                method: self.method,
                params: self.params,
            },
            answer,
        }
    }
}

impl TaskRecord {
    fn of(task: &TaskRun) -> Self {
        let (result, error) = match &task.reply {
            Some(Reply::Result(json)) => (Some(json.text().to_owned()), None),
            Some(Reply::Error(error)) => (None, Some(error.clone())),
            None => (None, None),
        };
        Self {
            id: task.id.clone(),
            form: task.form,
            status: task.status.clone(),
            polls: task.polls,
            ended_at: task.ended_at.map(|at| at.0),
            result,
            error,
        }
    }

    fn into_task(self) -> TaskRun {
        let reply = match (self.result, self.error) {
            (_, Some(error)) => Some(Reply::Error(error)),
            (Some(result), None) => {
                let value = serde_json::from_str(&result).unwrap_or(Value::Null);
                Some(Reply::Result(crate::mcp::json::Json::from_value(&value)))
            }
            (None, None) => None,
        };
        TaskRun {
            id: self.id,
            form: self.form,
            status: self.status,
            polls: self.polls,
            reply,
            ended_at: self.ended_at.map(crate::mcp::Timestamp),
        }
    }
}

impl Judged {
    pub fn of(outcome: &Outcome, findings: &[Finding]) -> Self {
        Self {
            class: class_name(outcome.class),
            detail: outcome.detail.clone(),
            findings: findings
                .iter()
                .map(|finding| finding.id.to_owned())
                .collect(),
        }
    }
}

/// A note read back: the OAuth fact it carries, or whose words it has exactly (as sightlines
/// before typed facts wrote one), else a note. A fact this sightline does not know (from a newer
/// one) stays its words.
fn note(text: std::borrow::Cow<'_, str>, authorization: Option<Value>) -> LogEvent {
    let fact = match authorization {
        Some(value) => serde_json::from_value(value).ok(),
        None => legacy::fact(&text),
    };
    fact.map_or_else(
        || LogEvent::Note(text.into_owned()),
        LogEvent::Authorization,
    )
}

/// The class as `call --json` names it (its serde name, so the two cannot drift apart).
pub fn class_name(class: Class) -> String {
    match serde_json::to_value(class) {
        Ok(Value::String(name)) => name,
        _ => String::new(),
    }
}

/// The last frame a transcript's `received` line holds: a call whose reply is that very frame
/// says so (`replied_above`) instead of writing it again, so a large answer is written once.
/// Weak: it must not keep a large answer alive once everything else is done with it (nor can
/// another frame take its place in memory while it is held).
#[derive(Debug, Default)]
pub struct LastReceived(Option<std::sync::Weak<String>>);

impl LastReceived {
    /// The record of `event` to write, given the lines written before it.
    pub fn shorten<'a>(&mut self, event: &SessionEvent, mut record: Record<'a>) -> Record<'a> {
        match event {
            SessionEvent::Logged(LogEntry {
                event: LogEvent::Received { frame, .. },
                ..
            }) => self.0 = Some(Arc::downgrade(&frame.raw)),
            SessionEvent::Connecting { .. } => self.0 = None,
            SessionEvent::CallFinished(finished) => {
                if let (End::Replied(reply), Some(last), Record::Call(call)) =
                    (&finished.exchange.end, &self.0, &mut record)
                    && std::ptr::eq(Arc::as_ptr(&reply.raw), last.as_ptr())
                {
                    call.end = EndRecord::RepliedAbove;
                }
            }
            _ => {}
        }
        record
    }
}

/// A whole transcript as text: the header, then one line per event (for exports and tests;
/// a live session is written line by line by the recorder).
pub fn to_text(
    header: &Header,
    events: &[(SessionEvent, Option<Judged>)],
    redactor: &Redactor,
) -> String {
    let line = |value: String| crate::sanitize::json(&value).into_owned() + "\n";
    let mut text = line(serde_json::to_string(header).unwrap_or_default());
    let mut last = LastReceived::default();
    for (event, judged) in events {
        if let Some(record) = Record::of(event, redactor, judged.clone()) {
            let record = last.shorten(event, record);
            text.push_str(&line(serde_json::to_string(&record).unwrap_or_default()));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Remembering the last frame received must not keep it (a 50 MiB answer) alive.
    #[test]
    fn the_last_received_frame_is_remembered_without_being_kept() {
        let frame = jsonrpc::parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap();
        let event = SessionEvent::Logged(LogEntry {
            at: Timestamp(1),
            event: LogEvent::Received {
                frame,
                role: Role::UnknownId,
            },
        });
        let mut last = LastReceived::default();
        let record = Record::of(&event, &Redactor::default(), None).unwrap();
        let _ = last.shorten(&event, record);
        assert!(last.0.as_ref().is_some_and(|last| last.strong_count() > 0));
        drop(event);
        assert_eq!(last.0.as_ref().map(std::sync::Weak::strong_count), Some(0));
    }

    #[test]
    fn a_question_to_the_user_is_not_a_fact_of_the_wire() {
        let asked = SessionEvent::Asked {
            number: 1,
            request: Box::new(InputRequest {
                key: None,
                method: "roots/list".into(),
                params: json!({}),
            }),
            proposed: Box::new(Answer::Result(json!({}))),
        };
        assert_eq!(Record::of(&asked, &Redactor::default(), None), None);
    }

    #[test]
    fn a_class_is_named_as_call_json_names_it() {
        assert_eq!(class_name(Class::ToolError), "tool_error");
        assert_eq!(class_name(Class::TransportFailure), "transport_failure");
    }
}
