//! The demo server's questions to the client: the 2026-07-28 `input_required` round trip with
//! its request state, and the legacy server requests kept until the client answers them.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::{DemoServer, tools};
use crate::mcp::era::{self, META_CLIENT_CAPABILITIES};
use crate::mcp::jsonrpc::{ErrorObject, Id, Message};

impl DemoServer {
    /// 2026-07-28 multi round-trip: `input_required` with the question and a state bound to
    /// this call; the retry carrying the answer (and that state) finishes the call. A retry
    /// without the answer is taken as the client's refusal, so that a client that cannot
    /// answer is not asked forever.
    pub(super) fn ask_modern(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        params: &Value,
        ask: &tools::Ask,
    ) -> Result<Value, ErrorObject> {
        let state = request_state(name, arguments);
        let given = params.get("requestState").and_then(Value::as_str);
        let response = params.pointer(&format!("/inputResponses/{}", ask.key));
        match (given, response) {
            (Some(given), _) if given != state => Err(ErrorObject {
                code: -32602,
                message: "Invalid params: requestState does not belong to this call".into(),
                data: None,
            }),
            (Some(_), Some(response)) => {
                self.finish(name, tools::resume(name, arguments, Ok(response)))
            }
            (Some(_), None) => {
                let refused = tools::resume(name, arguments, Err("no answer in inputResponses"));
                self.finish(name, refused)
            }
            (None, _) => {
                if let Some(missing) = missing_capability(params, ask) {
                    return Err(missing);
                }
                let request = json!({"method": ask.method, "params": ask.params});
                Ok(json!({
                    "resultType": "input_required",
                    "inputRequests": {ask.key: request},
                    "requestState": state,
                }))
            }
        }
    }
}

/// The state a multi round-trip call carries: bound to the tool and its arguments, so that a
/// state from another call is refused. (Tampering can only fail the call: no integrity needed.)
fn request_state(name: &str, arguments: &Map<String, Value>) -> String {
    let call = format!("{name} {}", Value::Object(arguments.clone()));
    format!("demo1.{:016x}", tools::fnv(call.as_bytes()))
}

/// -32021 when the client did not declare what the question needs (2026-07-28 servers MUST NOT
/// ask for it then).
fn missing_capability(params: &Value, ask: &tools::Ask) -> Option<ErrorObject> {
    let capabilities = params
        .pointer("/_meta")
        .and_then(|meta| meta.get(META_CLIENT_CAPABILITIES))
        .cloned()
        .unwrap_or(Value::Null);
    let url = ask.params.get("mode").and_then(Value::as_str) == Some("url");
    let (declared, needed) = match ask.method {
        "elicitation/create" if url => (
            capabilities.pointer("/elicitation/url").is_some(),
            json!({"elicitation": {"url": {}}}),
        ),
        "elicitation/create" => (
            capabilities.get("elicitation").is_some(),
            json!({"elicitation": {}}),
        ),
        "sampling/createMessage" => (
            capabilities.get("sampling").is_some(),
            json!({"sampling": {}}),
        ),
        _ => (capabilities.get("roots").is_some(), json!({"roots": {}})),
    };
    (!declared).then(|| ErrorObject {
        code: era::MISSING_CLIENT_CAPABILITY,
        message: format!("Missing required client capability for {}", ask.method),
        data: Some(json!({"requiredCapabilities": needed}).into()),
    })
}

/// Legacy calls waiting for the client's answer to the server's question, by the question's id.
#[derive(Debug, Default)]
pub struct Asking {
    next: u64,
    waiting: HashMap<Id, (Id, String, Map<String, Value>)>,
}

impl Asking {
    /// The server request to send for call `id`, remembered until answered.
    pub fn ask(
        &mut self,
        id: Id,
        name: String,
        arguments: Map<String, Value>,
        ask: tools::Ask,
    ) -> Message {
        self.next += 1;
        let question = Id::String(format!("demo-ask-{}", self.next));
        self.waiting.insert(question.clone(), (id, name, arguments));
        Message::Request {
            id: question,
            method: ask.method.to_owned(),
            params: Some(ask.params),
        }
    }

    /// The final reply of the call a client's response answers, if it answers one.
    pub fn answered(&mut self, server: &DemoServer, message: &Message) -> Option<Message> {
        let Message::Response {
            id: Some(question),
            reply,
        } = message
        else {
            return None;
        };
        let (id, name, arguments) = self.waiting.remove(question)?;
        Some(server.resume(id, &name, &arguments, reply))
    }
}
