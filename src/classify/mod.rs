//! The outcome class of an exchange (product.md §2), pure. Every exchange ends in exactly one
//! class; a protocol error is never turned into a tool error or the reverse.

pub mod findings;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod oauth;
pub mod stand_in;
pub mod stdout;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use crate::mcp::catalog::Catalog;
use crate::mcp::input::{ResultType, Round, result_type};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{Reply, error_code_name};
use crate::mcp::messages::CallResult;
use crate::mcp::session::{End, Exchange, Failure, TaskRun};

pub use crate::mcp::verdict::{Class, Judgement, Outcome};

/// The class and the findings of a finished exchange, under the negotiated `version` and the
/// tools the server listed (when it did).
pub fn judge(exchange: &Exchange, version: &str, catalog: Option<&Catalog>) -> Judgement {
    let outcome = classify(exchange);
    let findings = findings::findings(&findings::Context::new(
        exchange, &outcome, version, catalog,
    ));
    Judgement { outcome, findings }
}

/// Classifies a finished exchange; a call that needed input says so, with what was answered.
pub fn classify(exchange: &Exchange) -> Outcome {
    let mut outcome = classify_end(exchange);
    if !exchange.rounds.is_empty() {
        let asked: Vec<String> = exchange.rounds.iter().map(Round::describe).collect();
        outcome.detail = format!(
            "{} · the call needed input: {}",
            outcome.detail,
            asked.join("; ")
        );
    }
    outcome
}

fn classify_end(exchange: &Exchange) -> Outcome {
    if let Some(task) = &exchange.task {
        return classify_task(task);
    }
    match &exchange.end {
        End::Replied(_) => match exchange.reply() {
            Some(reply) => classify_reply(&exchange.method, reply),
            None => unreachable_reply(),
        },
        End::TimedOut { after_ms } => Outcome {
            class: Class::TransportFailure,
            code: None,
            detail: format!(
                "timeout: no reply within {} (sightline's own timeout; the server sent no answer to it)",
                seconds(*after_ms)
            ),
        },
        End::Failed(failure) => Outcome {
            class: Class::TransportFailure,
            code: None,
            detail: failure_detail(failure),
        },
    }
}

/// A task is classified by what it ended with: its result like any `tools/call` result, its
/// JSON-RPC error as the protocol error it is.
fn classify_task(task: &TaskRun) -> Outcome {
    let Some(reply) = &task.reply else {
        let why = if task.status == "cancelled" {
            "was cancelled: no result".to_owned()
        } else {
            format!("was still {} when sightline stopped polling", task.status)
        };
        return Outcome {
            class: Class::TransportFailure,
            code: None,
            detail: format!("task {} {why}", task.id),
        };
    };
    let mut outcome = classify_reply("tools/call", reply);
    outcome.detail = format!("task {} {}: {}", task.id, task.status, outcome.detail);
    outcome
}

/// Classifies a reply to a request of `method`.
pub fn classify_reply(method: &str, reply: &Reply) -> Outcome {
    match reply {
        Reply::Result(result) => classify_result(method, result),
        Reply::Error(error) => Outcome {
            class: Class::ProtocolError,
            code: Some(error.code),
            detail: format!(
                "{} {}{}: {}",
                error.code,
                error_code_name(error.code),
                if stand_in::made_up(error) {
                    " from sightline's replay stand-in, not the recorded server"
                } else {
                    ""
                },
                error.message
            ),
        },
    }
}

fn classify_result(method: &str, result: &Json) -> Outcome {
    if method != "tools/call" {
        return Outcome {
            class: Class::Success,
            code: None,
            detail: "result".to_owned(),
        };
    }
    match result_type(result) {
        ResultType::Complete => {}
        ResultType::InputRequired => {
            return Outcome {
                class: Class::TransportFailure,
                code: None,
                detail: "input_required: the call still needed input when sightline stopped \
                         answering (nothing reached the model)"
                    .to_owned(),
            };
        }
        ResultType::Task => {
            return Outcome {
                class: Class::TransportFailure,
                code: None,
                detail: "a task handle (resultType 'task'), never polled: sightline declares the \
                         tasks extension only with --tasks, and a server must not send a task \
                         to a client that did not"
                    .to_owned(),
            };
        }
        ResultType::Unknown(kind) => {
            return Outcome {
                class: Class::TransportFailure,
                code: None,
                detail: format!(
                    "invalid result: resultType '{kind}' is not one this client knows, and \
                     2026-07-28 says such a result MUST be treated as invalid"
                ),
            };
        }
    }
    let call = CallResult::read(result);
    if call.is_error {
        Outcome {
            class: Class::ToolError,
            code: None,
            detail: call
                .texts()
                .next()
                .map_or_else(|| "isError: true, without text".to_owned(), Cow::into_owned),
        }
    } else {
        let blocks = call.blocks().count();
        let structured = if call.structured.is_some() {
            ", structured content"
        } else {
            ""
        };
        let plural = if blocks == 1 { "" } else { "s" };
        Outcome {
            class: Class::Success,
            code: None,
            detail: format!("{blocks} content block{plural}{structured}"),
        }
    }
}

fn failure_detail(failure: &Failure) -> String {
    match failure {
        Failure::ServerExited {
            status,
            stderr_tail,
        } => {
            let mut detail = format!("server exited before answering ({status})");
            if let Some(last) = stderr_tail.last() {
                detail.push_str("; last stderr line: ");
                detail.push_str(last);
            }
            detail
        }
        Failure::MalformedReply { reason, .. } => format!("malformed reply: {reason}"),
        Failure::SendFailed { reason } => format!("could not send the request: {reason}"),
        Failure::Rejected { reason } => format!("no answer: {reason}"),
        Failure::CancelledByUser => {
            "cancelled by you: sightline cancelled the request (the log says how) and stopped waiting"
                .to_owned()
        }
    }
}

fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

fn unreachable_reply() -> Outcome {
    // `End::Replied` always holds a response frame; kept total rather than panicking.
    Outcome {
        class: Class::TransportFailure,
        code: None,
        detail: "reply without a response".into(),
    }
}

#[cfg(test)]
mod class_tests {
    use super::*;
    use crate::mcp::Timestamp;
    use crate::mcp::jsonrpc::{Frame, Id, Message, parse};
    use serde_json::json;

    fn exchange(method: &str, end: End) -> Exchange {
        let request = Frame::encode(Message::Request {
            id: Id::Number(1),
            method: method.into(),
            params: None,
        });
        Exchange {
            id: Id::Number(1),
            method: method.into(),
            request,
            sent_at: Timestamp(0),
            end,
            ended_at: Timestamp(5),
            http: None,
            rounds: Vec::new(),
            task: None,
        }
    }

    fn replied(method: &str, body: &str) -> Outcome {
        let frame = parse(&format!(r#"{{"jsonrpc":"2.0","id":1,{body}}}"#)).unwrap();
        classify(&exchange(method, End::Replied(frame)))
    }

    #[test]
    fn a_result_without_is_error_is_success() {
        let outcome = replied(
            "tools/call",
            r#""result":{"content":[{"type":"text","text":"ok"}]}"#,
        );
        assert_eq!(outcome.class, Class::Success);
        assert_eq!(outcome.detail, "1 content block");
        let outcome = replied("tools/call", r#""result":{"content":[],"isError":false}"#);
        assert_eq!(outcome.class, Class::Success);
    }

    #[test]
    fn is_error_true_is_a_tool_error_carrying_its_text() {
        let body = r#""result":{"content":[{"type":"text","text":"Invalid departure date"}],"isError":true}"#;
        let outcome = replied("tools/call", body);
        assert_eq!(outcome.class, Class::ToolError);
        assert_eq!(outcome.detail, "Invalid departure date");
        assert_eq!(outcome.code, None);
    }

    #[test]
    fn is_error_must_be_the_boolean_true() {
        let outcome = replied("tools/call", r#""result":{"content":[],"isError":"true"}"#);
        assert_eq!(outcome.class, Class::Success);
    }

    #[test]
    fn is_error_only_means_something_on_tools_call() {
        assert_eq!(
            replied("tools/list", r#""result":{"isError":true}"#).class,
            Class::Success
        );
    }

    #[test]
    fn an_error_object_is_a_protocol_error_with_its_code_named() {
        let outcome = replied(
            "tools/call",
            r#""error":{"code":-32602,"message":"Invalid params"}"#,
        );
        assert_eq!(outcome.class, Class::ProtocolError);
        assert_eq!(outcome.code, Some(-32602));
        assert_eq!(outcome.detail, "-32602 invalid params: Invalid params");
        let custom = replied("tools/call", r#""error":{"code":-31999,"message":"x"}"#);
        assert_eq!(custom.detail, "-31999 server-defined: x");
        let json = custom.to_json();
        assert_eq!(
            json,
            json!({"class": "protocol_error", "code": -31999, "detail": "-31999 server-defined: x"})
        );
    }

    #[test]
    fn timeouts_and_failures_are_transport_failures() {
        let timeout = classify(&exchange("tools/call", End::TimedOut { after_ms: 30_000 }));
        assert_eq!(timeout.class, Class::TransportFailure);
        assert!(timeout.detail.contains("timeout") && timeout.detail.contains("30 s"));
        assert!(timeout.detail.contains("sightline's own"));
        let exited = Failure::ServerExited {
            status: "exit status: 3".into(),
            stderr_tail: vec!["panic: boom".into()],
        };
        let outcome = classify(&exchange("tools/call", End::Failed(exited)));
        assert_eq!(outcome.class, Class::TransportFailure);
        assert!(
            outcome.detail.contains("exit status: 3") && outcome.detail.contains("panic: boom")
        );
        let malformed = Failure::MalformedReply {
            raw: std::sync::Arc::new("x".into()),
            reason: "not JSON".into(),
        };
        let outcome = classify(&exchange("tools/call", End::Failed(malformed)));
        assert_eq!(outcome.to_json()["class"], "transport_failure");
    }
}
