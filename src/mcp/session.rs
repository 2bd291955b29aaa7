//! Request/response correlation, pure: ids are allocated without reuse, each response is matched
//! to its request, and every frame that matches nothing is named for what it is.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Timestamp;
use super::http::HttpExchange;
use super::input::Round;
use super::jsonrpc::{Frame, Id, Message, Reply};

/// One request and how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub id: Id,
    pub method: String,
    /// The request exactly as sent.
    pub request: Frame,
    pub sent_at: Timestamp,
    pub end: End,
    pub ended_at: Timestamp,
    /// The HTTP exchange that carried it (Streamable HTTP), when its details came first.
    pub http: Option<Arc<HttpExchange>>,
    /// What the server asked of the client on the way, and the answers (one logical call).
    pub rounds: Vec<Round>,
    /// The task the server answered with (the tasks extension), polled to its end.
    pub task: Option<Box<TaskRun>>,
}

/// A task as sightline followed it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRun {
    pub id: String,
    pub form: TaskForm,
    /// The last status seen: `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub status: String,
    /// `tasks/get` requests sent.
    pub polls: u32,
    /// What the task ended with: its `result` or its `error`, as the last `tasks/get` carried
    /// them (2026-07-28) or `tasks/result` returned them (2025-11-25); `None` while it runs, or
    /// when it was cancelled.
    pub reply: Option<Reply>,
    /// When sightline stopped following it.
    pub ended_at: Option<Timestamp>,
}

/// Which of the two designs of tasks a server ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskForm {
    /// The `io.modelcontextprotocol/tasks` extension (2026-07-28, SEP-2663): a
    /// `resultType: "task"` handle; `tasks/get` carries the end.
    #[default]
    Extension,
    /// A task-augmented request (2025-11-25, SEP-1686): `params.task`, a `CreateTaskResult`;
    /// the end fetched with `tasks/result`.
    Augmented,
}

impl TaskForm {
    /// The form in words, with the version that defines it.
    pub fn label(self) -> &'static str {
        match self {
            TaskForm::Extension => "the tasks extension (2026-07-28)",
            TaskForm::Augmented => "a task-augmented request (2025-11-25)",
        }
    }
}

impl Exchange {
    /// The response frame, when the peer answered.
    pub fn response(&self) -> Option<&Frame> {
        match &self.end {
            End::Replied(frame) => Some(frame),
            End::TimedOut { .. } | End::Failed(_) => None,
        }
    }

    /// The `result` or `error` of the response, when the peer answered.
    pub fn reply(&self) -> Option<&Reply> {
        match self.response().map(|frame| &frame.message) {
            Some(Message::Response { reply, .. }) => Some(reply),
            _ => None,
        }
    }

    /// What the call answered: the reply, or for a task its final result or error.
    pub fn answer(&self) -> Option<&Reply> {
        match &self.task {
            Some(task) => task.reply.as_ref(),
            None => self.reply(),
        }
    }

    /// The `params` of the request as sent.
    pub fn params(&self) -> Option<&Value> {
        match &self.request.message {
            Message::Request { params, .. } => params.as_ref(),
            _ => None,
        }
    }
}

/// How a request ended.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The peer sent a response (result or error).
    Replied(Frame),
    /// Our own timeout expired first; nothing came from the peer.
    TimedOut { after_ms: u64 },
    /// No usable reply will come.
    Failed(Failure),
}

/// Why no usable reply came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The server process ended (or closed its output) before answering.
    ServerExited {
        status: String,
        stderr_tail: Vec<String>,
    },
    /// The reply could not be read as JSON-RPC.
    MalformedReply {
        raw: crate::mcp::SharedText,
        reason: String,
    },
    /// The request could not be written to the server.
    SendFailed { reason: String },
    /// The transport got no answer to it (HTTP: a status without a JSON-RPC body, a refused
    /// connection, a stream that ended first); `reason` says which, in words.
    Rejected { reason: String },
    /// The user stopped waiting; `notifications/cancelled` was sent.
    CancelledByUser,
}

/// What an incoming frame means for the session.
#[derive(Debug, Clone, PartialEq)]
pub enum Correlation {
    /// A response that ended a pending request.
    Completed(Box<Exchange>),
    /// A response to a request we had already given up on (timed out or failed).
    Late { id: Id, method: String },
    /// A second response to a request that was already answered.
    Duplicate { id: Id, method: String },
    /// A response to an id we never sent.
    UnknownId { id: Id },
    /// An error response with a null id: about no request (the peer could not read some line);
    /// it ends no request.
    Unaddressed,
    /// A request from the server, which the client must answer (legacy era).
    ServerRequest { id: Id, method: String },
    /// A notification from the server.
    Notification,
}

#[derive(Debug, Clone)]
struct Pending {
    method: String,
    request: Frame,
    sent_at: Timestamp,
    /// When it was handed over to be written, in the transport's wire order.
    sent_mark: Option<u64>,
    http: Option<Arc<HttpExchange>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closed {
    Answered,
    Abandoned,
}

/// The client side of one JSON-RPC session.
#[derive(Debug, Default)]
pub struct Session {
    next_id: i64,
    pending: HashMap<Id, Pending>,
    closed: HashMap<Id, (Closed, String)>,
}

impl Session {
    pub fn new() -> Self {
        Self {
            next_id: 1,
            ..Self::default()
        }
    }

    /// Builds a request with a fresh id and records it as pending.
    pub fn start_request(
        &mut self,
        method: &str,
        params: Option<Value>,
        at: Timestamp,
    ) -> (Id, Frame) {
        let id = Id::Number(self.next_id);
        self.next_id += 1;
        let message = Message::Request {
            id: id.clone(),
            method: method.to_owned(),
            params,
        };
        let request = Frame::encode(message);
        let pending = Pending {
            method: method.to_owned(),
            request: request.clone(),
            sent_at: at,
            sent_mark: None,
            http: None,
        };
        self.pending.insert(id.clone(), pending);
        (id, request)
    }

    /// Keeps the HTTP details of a pending request, for its exchange; a request no longer
    /// pending has nothing to keep them for.
    pub fn attach_http(&mut self, id: &Id, http: Arc<HttpExchange>) {
        if let Some(pending) = self.pending.get_mut(id) {
            pending.http = Some(http);
        }
    }

    /// Notes when a pending request was handed over to be written (a transport's wire mark).
    pub fn mark_sent(&mut self, id: &Id, mark: u64) {
        if let Some(pending) = self.pending.get_mut(id) {
            pending.sent_mark = Some(mark);
        }
    }

    /// Whether pending request `id` went out after a read marked `read`: that read's reply
    /// cannot be its answer.
    pub fn sent_after(&self, id: &Id, read: u64) -> bool {
        self.pending
            .get(id)
            .and_then(|pending| pending.sent_mark)
            .is_some_and(|sent| sent > read)
    }

    /// The ids still waiting for an answer.
    pub fn pending_ids(&self) -> impl Iterator<Item = &Id> {
        self.pending.keys()
    }

    /// Ends pending request `id` with `frame`, which the transport bound to it (an error
    /// without an id in the body of that request's own HTTP POST).
    pub fn answer_with(&mut self, id: &Id, frame: Frame, at: Timestamp) -> Option<Exchange> {
        self.finish(id, End::Replied(frame), at, Closed::Answered)
    }

    /// The id waiting for an answer, when exactly one is.
    pub fn only_pending(&self) -> Option<&Id> {
        let mut pending = self.pending.keys();
        match (pending.next(), pending.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    /// Correlates one incoming frame.
    pub fn on_frame(&mut self, frame: Frame, at: Timestamp) -> Correlation {
        match &frame.message {
            Message::Request { id, method, .. } => Correlation::ServerRequest {
                id: id.clone(),
                method: method.clone(),
            },
            Message::Notification { .. } => Correlation::Notification,
            Message::Response { id: None, .. } => Correlation::Unaddressed,
            Message::Response { id: Some(id), .. } => {
                let id = id.clone();
                if self.pending.contains_key(&id) {
                    let end = End::Replied(frame);
                    return self
                        .finish(&id, end, at, Closed::Answered)
                        .map_or(Correlation::UnknownId { id }, |exchange| {
                            Correlation::Completed(Box::new(exchange))
                        });
                }
                match self.closed.get(&id) {
                    Some((Closed::Answered, method)) => Correlation::Duplicate {
                        id,
                        method: method.clone(),
                    },
                    Some((Closed::Abandoned, method)) => Correlation::Late {
                        id,
                        method: method.clone(),
                    },
                    None => Correlation::UnknownId { id },
                }
            }
        }
    }

    /// Ends a pending request without a reply (timeout or failure); a reply arriving later is late.
    pub fn abandon(&mut self, id: &Id, end: End, at: Timestamp) -> Option<Exchange> {
        self.finish(id, end, at, Closed::Abandoned)
    }

    /// Ends every pending request the same way, oldest first (e.g. the server exited).
    pub fn abandon_all(&mut self, end: &End, at: Timestamp) -> Vec<Exchange> {
        let mut ids: Vec<Id> = self.pending.keys().cloned().collect();
        ids.sort();
        ids.iter()
            .filter_map(|id| self.abandon(id, end.clone(), at))
            .collect()
    }

    fn finish(&mut self, id: &Id, end: End, at: Timestamp, how: Closed) -> Option<Exchange> {
        let pending = self.pending.remove(id)?;
        self.closed
            .insert(id.clone(), (how, pending.method.clone()));
        Some(Exchange {
            id: id.clone(),
            method: pending.method,
            request: pending.request,
            sent_at: pending.sent_at,
            end,
            ended_at: at,
            http: pending.http,
            rounds: Vec::new(),
            task: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::mcp::jsonrpc::parse;

    const T0: Timestamp = Timestamp(1_000);
    const T1: Timestamp = Timestamp(1_010);

    fn reply(id: i64) -> Frame {
        parse(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)).unwrap()
    }

    #[test]
    fn ids_are_never_reused() {
        let mut session = Session::new();
        let (_, a) = session.start_request("a", None, T0);
        session.on_frame(reply(1), T1);
        let (_, b) = session.start_request("b", None, T0);
        assert_eq!(&*a.raw, r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#);
        assert_eq!(&*b.raw, r#"{"jsonrpc":"2.0","id":2,"method":"b"}"#);
    }

    #[test]
    fn a_response_completes_its_request_with_both_frames() {
        let mut session = Session::new();
        let (_, request) = session.start_request("tools/list", Some(json!({})), T0);
        let Correlation::Completed(exchange) = session.on_frame(reply(1), T1) else {
            panic!("not completed");
        };
        assert_eq!(exchange.request, request);
        assert_eq!(exchange.method, "tools/list");
        assert_eq!((exchange.sent_at, exchange.ended_at), (T0, T1));
        assert_eq!(exchange.reply(), Some(&Reply::Result(json!({}).into())));
        assert_eq!(session.pending_ids().count(), 0);
    }

    #[test]
    fn responses_match_out_of_order() {
        let mut session = Session::new();
        session.start_request("a", None, T0);
        session.start_request("b", None, T0);
        let Correlation::Completed(second) = session.on_frame(reply(2), T1) else {
            panic!()
        };
        let Correlation::Completed(first) = session.on_frame(reply(1), T1) else {
            panic!()
        };
        assert_eq!((first.method.as_str(), second.method.as_str()), ("a", "b"));
    }

    #[test]
    fn unknown_duplicate_and_late_responses_are_named() {
        let mut session = Session::new();
        assert_eq!(
            session.on_frame(reply(9), T1),
            Correlation::UnknownId { id: Id::Number(9) }
        );
        session.start_request("a", None, T0);
        session.on_frame(reply(1), T1);
        assert_eq!(
            session.on_frame(reply(1), T1),
            Correlation::Duplicate {
                id: Id::Number(1),
                method: "a".into()
            }
        );
        session.start_request("slow", None, T0);
        let abandoned = session
            .abandon(&Id::Number(2), End::TimedOut { after_ms: 5 }, T1)
            .unwrap();
        assert_eq!(abandoned.end, End::TimedOut { after_ms: 5 });
        assert_eq!(
            session.on_frame(reply(2), T1),
            Correlation::Late {
                id: Id::Number(2),
                method: "slow".into()
            }
        );
    }

    #[test]
    fn requests_notifications_and_unaddressed_errors_pass_through() {
        let mut session = Session::new();
        let ping = parse(r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#).unwrap();
        assert_eq!(
            session.on_frame(ping, T1),
            Correlation::ServerRequest {
                id: Id::String("s1".into()),
                method: "ping".into()
            }
        );
        let note = parse(r#"{"jsonrpc":"2.0","method":"notifications/message"}"#).unwrap();
        assert_eq!(session.on_frame(note, T1), Correlation::Notification);
        let error = parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#);
        assert_eq!(
            session.on_frame(error.unwrap(), T1),
            Correlation::Unaddressed
        );
    }

    #[test]
    fn an_error_without_id_ends_no_request() {
        let mut session = Session::new();
        let (id, _) = session.start_request("tools/call", None, T0);
        let unaddressed =
            parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
        assert_eq!(session.on_frame(unaddressed, T1), Correlation::Unaddressed);
        assert_eq!(
            session.only_pending(),
            Some(&id),
            "still waiting for its own answer"
        );
        assert!(matches!(
            session.on_frame(reply(1), T1),
            Correlation::Completed(_)
        ));
    }

    #[test]
    fn a_read_before_the_request_went_out_cannot_answer_it() {
        let mut session = Session::new();
        let (id, _) = session.start_request("tools/call", None, T0);
        assert!(
            !session.sent_after(&id, 5),
            "not sent yet: no mark to compare"
        );
        session.mark_sent(&id, 10);
        assert!(session.sent_after(&id, 9));
        assert!(!session.sent_after(&id, 11));
        assert!(!session.sent_after(&Id::Number(99), 1), "not pending");
    }

    #[test]
    fn abandon_all_ends_every_pending_request_in_order() {
        let mut session = Session::new();
        session.start_request("a", None, T0);
        session.start_request("b", None, T0);
        let end = End::Failed(Failure::ServerExited {
            status: "exit status 1".into(),
            stderr_tail: vec![],
        });
        let ended = session.abandon_all(&end, T1);
        assert_eq!(
            ended.iter().map(|e| e.method.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(session.pending_ids().count(), 0);
    }
}
