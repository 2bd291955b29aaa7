//! What the server says, recorded in order and correlated: every line of a read, stderr, HTTP
//! details, the server's end; a reply ends its request, an unreadable one too when it names
//! it, and a legacy server's requests are answered.

use std::sync::Arc;

use serde_json::{Value, json};

use super::Output;
use super::requests::{Core, ServerEnd};
use crate::mcp::Timestamp;
use crate::mcp::framing::InvalidLine;
use crate::mcp::input::{self, Answer, InputRequest};
use crate::mcp::jsonrpc::{self, ErrorObject, Frame, FrameError, Id, Message, Reply};
use crate::mcp::log::{LogEvent, Role};
use crate::mcp::session::{Correlation, End, Exchange, Failure};
use crate::mcp::wire::TransportEvent;

impl Core {
    /// Records one transport event; returns the exchange for `waiting` if this event ended it.
    /// Every line of a read is recorded, also those after the one that ended it.
    pub(super) fn ingest(
        &mut self,
        event: TransportEvent,
        waiting: Option<&Id>,
    ) -> Option<Exchange> {
        match event {
            TransportEvent::Received {
                lines,
                at,
                mark,
                body_of,
            } => {
                let mut ended = None;
                self.output_read.1 += lines.len() as u64;
                for line in lines {
                    let this = match line {
                        Ok(frame) => self.on_frame(frame, at, mark, body_of.as_ref(), waiting),
                        Err(invalid) => {
                            let this = self.on_invalid(&invalid, at, waiting);
                            self.record_at(at, LogEvent::Invalid(invalid));
                            this
                        }
                    };
                    ended = ended.or(this);
                }
                ended
            }
            TransportEvent::StderrLines { text, at } => {
                self.output_read.0 += text.len() as u64;
                self.record_at(at, LogEvent::Stderr(text));
                None
            }
            TransportEvent::WriteFailed { reason, at } => {
                self.record_at(at, LogEvent::WriteFailed(reason.clone()));
                let end = End::Failed(Failure::SendFailed { reason });
                self.session.abandon(waiting?, end, at)
            }
            TransportEvent::RequestFailed { id, reason, at } => {
                self.record_at(at, LogEvent::Note(format!("#{id}: {reason}")));
                let ended =
                    self.session
                        .abandon(&id, End::Failed(Failure::Rejected { reason }), at)?;
                self.route_end(ended, waiting)
            }
            TransportEvent::StreamLost { id, reason, at } => {
                self.record_at(at, LogEvent::Note(format!("#{id}: {reason}")));
                let failure = Failure::Rejected {
                    reason: format!("{reason}; the request was lost with its stream"),
                };
                let ended = self.session.abandon(&id, End::Failed(failure), at)?;
                self.lost_stream = Some(id);
                self.route_end(ended, waiting)
            }
            TransportEvent::Note { text, at } => {
                self.record_at(at, LogEvent::Note(text));
                None
            }
            TransportEvent::Authorization { fact, at } => {
                self.record_at(at, LogEvent::Authorization(fact));
                None
            }
            TransportEvent::Http { exchange, at } => {
                if let Some(id) = &exchange.request_id {
                    self.session.attach_http(id, Arc::clone(&exchange));
                }
                self.record_at(at, LogEvent::Http(exchange));
                None
            }
            TransportEvent::SessionStarted { id, at } => {
                self.record_at(at, LogEvent::Note(format!("HTTP session {id}")));
                self.http_session = Some(id);
                None
            }
            TransportEvent::SessionExpired { at } => {
                let text = "the server ended the HTTP session (404 to a request with its \
                            Mcp-Session-Id): the next request starts a new one";
                self.record_at(at, LogEvent::Note(text.into()));
                self.session_expired = true;
                self.http_session = None;
                None
            }
            TransportEvent::Closed {
                status,
                stderr_tail,
                at,
            } => {
                if self.closed.is_some() {
                    // Said once: a second end (the runner's own, after the transport's) adds
                    // nothing.
                    return None;
                }
                self.record_at(
                    at,
                    LogEvent::Closed {
                        status: status.clone(),
                    },
                );
                let end = ServerEnd {
                    status,
                    stderr_tail,
                };
                self.closed = Some(end.clone());
                self.push(Output::Gone);
                self.server_exited(waiting, end)
            }
        }
    }

    pub(super) fn server_exited(
        &mut self,
        waiting: Option<&Id>,
        end: ServerEnd,
    ) -> Option<Exchange> {
        let end = End::Failed(Failure::ServerExited {
            status: end.status,
            stderr_tail: end.stderr_tail,
        });
        let ended = self.session.abandon_all(&end, self.now.wall);
        let mut awaited = None;
        for exchange in ended {
            awaited = awaited.or(self.route_end(exchange, waiting));
        }
        awaited
    }

    /// A reply we cannot read ends its request at once instead of leaving it to time out: when
    /// it names the request's id, or when it is too large to read and only one request waits.
    fn on_invalid(
        &mut self,
        invalid: &InvalidLine,
        at: Timestamp,
        waiting: Option<&Id>,
    ) -> Option<Exchange> {
        let target = match &invalid.error {
            FrameError::NotJsonRpc { id: Some(id), .. } => Some(id.clone()),
            FrameError::Oversized { .. } => self.session.only_pending().cloned(),
            // Unreadable, but naming a request: that request has its (broken) answer.
            FrameError::NotJsonRpc { id: None, .. }
            | FrameError::NotJson { .. }
            | FrameError::InvalidUtf8 { .. } => jsonrpc::scan_id(&invalid.raw),
        }?;
        let failure = Failure::MalformedReply {
            raw: invalid.raw.clone(),
            reason: invalid.error.to_string(),
        };
        let ended = self.session.abandon(&target, End::Failed(failure), at)?;
        self.route_end(ended, waiting)
    }

    fn on_frame(
        &mut self,
        frame: Frame,
        at: Timestamp,
        mark: u64,
        body_of: Option<&Id>,
        waiting: Option<&Id>,
    ) -> Option<Exchange> {
        let correlation = match &frame.message {
            // Read before its request went out: an answer to no request of ours (a server that
            // predicts the next id), never taken for the request's own.
            Message::Response { id: Some(id), .. } if self.session.sent_after(id, mark) => {
                Correlation::UnknownId { id: id.clone() }
            }
            _ => self.session.on_frame(frame.clone(), at),
        };
        let (role, ended) = match correlation {
            Correlation::Completed(exchange) => (
                Role::Reply {
                    method: exchange.method.clone(),
                },
                Some(*exchange),
            ),
            Correlation::Late { method, .. } => {
                if method == "server/discover"
                    && let Message::Response {
                        reply: Reply::Result(result),
                        ..
                    } = &frame.message
                {
                    self.late_discover = Some(result.clone());
                }
                (Role::Late { method }, None)
            }
            Correlation::Duplicate { method, .. } => (Role::Duplicate { method }, None),
            Correlation::UnknownId { .. } => (Role::UnknownId, None),
            // An error about no request (JSON-RPC's null id): logged and classified, it ends
            // no call; each waits for its own id, or its deadline. Only as the body of a
            // request's own POST (HTTP) is it that request's answer.
            Correlation::Unaddressed => (
                Role::Unaddressed,
                body_of.and_then(|id| self.session.answer_with(id, frame.clone(), at)),
            ),
            Correlation::ServerRequest { .. } => (Role::ServerRequest, None),
            Correlation::Notification => {
                if frame.message.method() == Some("notifications/tools/list_changed") {
                    self.tools_changed = true;
                }
                (Role::Notification, None)
            }
        };
        let server_request = match (&role, &frame.message) {
            (Role::ServerRequest, Message::Request { id, method, params }) => Some((
                id.clone(),
                method.clone(),
                params.clone().unwrap_or(Value::Null),
            )),
            _ => None,
        };
        let unaddressed = role == Role::Unaddressed;
        self.record_at(at, LogEvent::Received { frame, role });
        if let Some(exchange) = ended.as_ref().filter(|_| unaddressed) {
            self.note(format!(
                "an error without an id, as the body of the POST of #{} ({}): its answer",
                exchange.id, exchange.method
            ));
        } else if unaddressed && self.session.pending_ids().next().is_some() {
            self.note(
                "an error about no request (its id is null): it answers none of the calls \
                 waiting, which wait for their own answers"
                    .into(),
            );
        }
        if let Some((id, method, params)) = server_request {
            self.answer_server_request(id, &method, params);
        }
        self.route_end(ended?, waiting)
    }

    /// Legacy servers may ask us things: `ping`; elicitation, sampling and roots as the
    /// answers given say (each kept as a round of the call); the rest -32601.
    fn answer_server_request(&mut self, id: Id, method: &str, params: Value) {
        if self.modern() {
            self.note(format!(
                "not answered: in 2026-07-28 servers must not send requests ('{method}') and \
                 clients must not send responses on stdio"
            ));
            return;
        }
        let reply = if method == "ping" {
            Reply::Result(json!({}).into())
        } else if input::INPUT_METHODS.contains(&method) {
            let request = InputRequest {
                key: None,
                method: method.to_owned(),
                params,
            };
            if !self.options.ask {
                let answer = input::answer(&request, &self.options.answers);
                self.reply_to_question(id, request, answer);
            } else if self.questions.for_server() < input::MAX_QUESTIONS {
                // Answered once the user has.
                let proposed = input::answer(&request, &self.options.answers);
                self.questions.ask_for_server(id, request, proposed);
            } else {
                // A server asking faster than anyone can answer: refused, not queued.
                let refused = Answer::Refused(ErrorObject {
                    code: -32603,
                    message: format!(
                        "{} questions already wait for the user: not asked",
                        input::MAX_QUESTIONS
                    ),
                    data: None,
                });
                self.reply_to_question(id, request, refused);
            }
            return;
        } else {
            Reply::Error(ErrorObject {
                code: -32601,
                message: format!("Method not found: sightline does not support '{method}'"),
                data: None,
            })
        };
        self.write(Frame::encode(Message::Response {
            id: Some(id),
            reply,
        }));
    }
}
