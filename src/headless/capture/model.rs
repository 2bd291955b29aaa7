//! The mock model `capture` gives a host, on loopback: it speaks the host's model API (one
//! module each), answers the first request that lists tools with one call of the chosen tool,
//! answers the follow-up (the request carrying that call's result) with a final text, and keeps
//! every request it was sent.

mod anthropic;
mod chat;
mod gemini;
mod responses;

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// The largest request body taken (a host sends its tool list and the conversation).
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The id of the one tool call the mock makes, for finding its result again.
pub const CALL_ID: &str = "call_sightline";
/// The text that ends the run.
pub const FINAL_TEXT: &str = "Done.";

/// The model APIs the mock speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/responses` (`OpenAI` Responses).
    Responses,
    /// `POST /v1/chat/completions` (`OpenAI` Chat Completions).
    Chat,
    /// `POST /v1/messages` (Anthropic Messages, SSE when asked).
    Anthropic,
    /// `POST /v1beta/models/M:generateContent` and `:streamGenerateContent` (Gemini).
    Gemini,
}

/// One request the host sent the model.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub path: String,
    pub body: Value,
}

/// The result of the mock's call as the host sent it back to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The block or item that carries it, verbatim.
    pub verbatim: Value,
    /// What the model reads of it: a string as it is, parts joined one per line.
    pub text: String,
    /// The host's error flag: `Some` where its message has one, `None` where it has none.
    pub error_flag: Option<bool>,
}

/// What the mock answers one request with.
pub struct Answer {
    pub content_type: &'static str,
    pub body: String,
}

impl Answer {
    pub fn json(body: &Value) -> Answer {
        Answer {
            content_type: "application/json",
            body: body.to_string(),
        }
    }

    /// Server-sent events, one `data:` line each (with its `event:` name when given).
    pub fn sse(events: &[(Option<&str>, Value)]) -> Answer {
        let mut body = String::new();
        for (name, data) in events {
            if let Some(name) = name {
                body.push_str("event: ");
                body.push_str(name);
                body.push('\n');
            }
            body.push_str("data: ");
            body.push_str(&data.to_string());
            body.push_str("\n\n");
        }
        Answer {
            content_type: "text/event-stream",
            body,
        }
    }
}

/// What the mock does with one request.
pub enum Turn<'a> {
    /// Call the tool named so, with these arguments (a JSON object, as text), under this id
    /// ([`CALL_ID`] for the call whose result is captured).
    Call {
        id: &'a str,
        name: &'a str,
        arguments: &'a str,
    },
    /// End the turn with [`FINAL_TEXT`].
    Finish,
    /// A request that is neither a tool turn nor the follow-up (a title, a routing question).
    Other,
}

impl Api {
    /// Whether this API serves `path` (the method is always POST).
    fn serves(self, path: &str) -> bool {
        match self {
            Api::Responses => path.ends_with("/responses"),
            Api::Chat => path.ends_with("/chat/completions"),
            Api::Anthropic => path.ends_with("/v1/messages"),
            Api::Gemini => gemini::serves(path),
        }
    }

    /// The tool definitions a request lists.
    pub fn tools(self, body: &Value) -> Vec<&Value> {
        match self {
            Api::Responses | Api::Chat | Api::Anthropic => tools_of(body),
            Api::Gemini => gemini::tools(body),
        }
    }

    /// The tools a request lists, each with the name the model calls it by (a Responses
    /// tool in a `namespace` by `NAMESPACE__NAME`).
    pub fn listed(self, body: &Value) -> Vec<(String, &Value)> {
        if self == Api::Responses {
            return responses::listed(body);
        }
        self.tools(body)
            .into_iter()
            .filter_map(|definition| Some((self.tool_name(definition)?.to_owned(), definition)))
            .collect()
    }

    /// The name the model calls a listed tool by.
    pub fn tool_name(self, definition: &Value) -> Option<&str> {
        match self {
            Api::Chat => chat::tool_name(definition),
            Api::Responses | Api::Anthropic | Api::Gemini => named(definition),
        }
    }

    /// The mock call's result, when the request carries it.
    pub fn tool_result(self, body: &Value) -> Option<ToolResult> {
        match self {
            Api::Responses => responses::tool_result(body),
            Api::Chat => chat::tool_result(body),
            Api::Anthropic => anthropic::tool_result(body),
            Api::Gemini => gemini::tool_result(body),
        }
    }

    fn answer(self, turn: &Turn, path: &str, body: &Value) -> Answer {
        match self {
            Api::Responses => responses::answer(turn, body),
            Api::Chat => chat::answer(turn, body),
            Api::Anthropic => anthropic::answer(turn, body),
            Api::Gemini => gemini::answer(turn, path, body),
        }
    }
}

/// A request's `tools` array (Responses, Chat and Messages all put it there).
fn tools_of(body: &Value) -> Vec<&Value> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| tools.iter().collect())
        .unwrap_or_default()
}

/// A definition's `name` (every API but Chat, which nests it in `function`).
fn named(definition: &Value) -> Option<&str> {
    definition.get("name").and_then(Value::as_str)
}

/// What the mock is to call: the tool's names in the host's dialect, the first the host lists
/// winning (the first is called when none is listed), and the arguments; or, for a host that
/// offers server tools through tools of its own, the bridge's calls in order.
pub struct Plan {
    pub api: Api,
    pub names: Vec<String>,
    pub arguments: String,
    /// The calls through a host's bridge (Qwen Code's `tool_search`, then `tool_call`), their
    /// arguments filled in; empty: the tool is called by name.
    pub bridge: Vec<BridgeCall>,
}

/// One call through a host's bridge: the host's tool and its arguments (JSON text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeCall {
    pub tool: String,
    pub arguments: String,
}

/// The running mock: its base URL (`http://127.0.0.1:PORT`) and what it was sent.
pub struct MockModel {
    pub base_url: String,
    pub requests: Arc<Mutex<Vec<ModelRequest>>>,
}

struct Shared {
    plan: Plan,
    requests: Arc<Mutex<Vec<ModelRequest>>>,
    /// How many of the plan's calls the mock has made.
    made: Mutex<usize>,
    /// The id of each bridge call: `call_sightline_N`, the last one [`CALL_ID`] (its result is
    /// the one captured).
    bridge_ids: Vec<String>,
}

/// Binds 127.0.0.1 on a free port and serves until the process ends.
pub async fn start(plan: Plan) -> std::io::Result<MockModel> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let requests: Arc<Mutex<Vec<ModelRequest>>> = Arc::default();
    let shared = Arc::new(Shared::new(plan, requests.clone()));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let shared = shared.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| serve(shared.clone(), request));
                // A host that hangs up mid-answer ends its own run; the capture says so.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(MockModel { base_url, requests })
}

async fn serve(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let api = shared.plan.api;
    let path = request.uri().path().to_owned();
    if request.method() != hyper::Method::POST || !api.serves(&path) {
        let method = request.method().clone();
        return Ok(reply(
            StatusCode::NOT_FOUND,
            &Answer::json(&error_body(&format!(
                "the mock model ({api:?}) has no {method} {path}"
            ))),
        ));
    }
    let Ok(body) = Limited::new(request.into_body(), MAX_BODY).collect().await else {
        return Ok(reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            &Answer::json(&error_body("body too large")),
        ));
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
        return Ok(reply(
            StatusCode::BAD_REQUEST,
            &Answer::json(&error_body("the body is not JSON")),
        ));
    };
    let turn = shared.turn(&body);
    let answer = api.answer(&turn, &path, &body);
    shared
        .requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(ModelRequest { path, body });
    Ok(reply(StatusCode::OK, &answer))
}

impl Shared {
    fn new(plan: Plan, requests: Arc<Mutex<Vec<ModelRequest>>>) -> Shared {
        let calls = plan.bridge.len();
        let bridge_ids = (1..=calls)
            .map(|step| {
                if step == calls {
                    CALL_ID.to_owned()
                } else {
                    format!("{CALL_ID}_{step}")
                }
            })
            .collect();
        Shared {
            plan,
            requests,
            made: Mutex::new(0),
            bridge_ids,
        }
    }

    /// The follow-up ends the turn; the first request listing tools gets the call (through a
    /// bridge: each request listing tools the next of its calls, the last one's result ending
    /// the turn); a tool turn after that (a host retrying) ends the turn too.
    fn turn(&self, body: &Value) -> Turn<'_> {
        let api = self.plan.api;
        if api.tool_result(body).is_some() {
            return Turn::Finish;
        }
        if api.tools(body).is_empty() {
            return Turn::Other;
        }
        let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        let bridge = &self.plan.bridge;
        if *made >= bridge.len().max(1) {
            return Turn::Finish;
        }
        let step = *made;
        *made += 1;
        if let (Some(call), Some(id)) = (bridge.get(step), self.bridge_ids.get(step)) {
            return Turn::Call {
                id,
                name: &call.tool,
                arguments: &call.arguments,
            };
        }
        let listed: Vec<String> = api.listed(body).into_iter().map(|(name, _)| name).collect();
        let name = self
            .plan
            .names
            .iter()
            .find(|name| listed.contains(name))
            .or(self.plan.names.first())
            .map_or("", String::as_str);
        Turn::Call {
            id: CALL_ID,
            name,
            arguments: &self.plan.arguments,
        }
    }
}

/// The definition of the tool called, among a request's tools, by any of its names, with the
/// name it is listed by.
pub fn tool_definition<'a>(
    api: Api,
    body: &'a Value,
    names: &[String],
) -> Option<(String, &'a Value)> {
    api.listed(body)
        .into_iter()
        .find(|(name, _)| names.contains(name))
}

/// A tool output as the model reads it: a string as it is, a list of parts one per line (text
/// parts as their text, others as their JSON).
pub fn output_text(output: &Value) -> String {
    match output {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().map(part_text).collect::<Vec<_>>().join("\n"),
        other => part_text(other),
    }
}

/// One part as the model reads it: text as text; an image (in any of the APIs' shapes) by
/// sightline's label for it, as the model view names images; anything else as its JSON.
fn part_text(part: &Value) -> String {
    let kind = part.get("type").and_then(Value::as_str);
    if let Some(text) = part.get("text").and_then(Value::as_str)
        && matches!(kind, Some("text" | "input_text") | None)
    {
        return text.to_owned();
    }
    match image_data(part) {
        Some((mime, data)) => crate::model_view::media_label("image", mime, data),
        None => part.to_string(),
    }
}

/// The MIME type and base64 data of an image part: Anthropic's `source`, the Responses API's
/// `input_image` and Chat's `image_url` data URLs, Gemini's `inlineData`.
fn image_data(part: &Value) -> Option<(&str, &str)> {
    fn text<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
        value.get(key).and_then(Value::as_str)
    }
    if let Some(source) = part.get("source")
        && text(source, "type") == Some("base64")
    {
        return Some((text(source, "media_type")?, text(source, "data")?));
    }
    if let Some(inline) = part.get("inlineData") {
        return Some((text(inline, "mimeType")?, text(inline, "data")?));
    }
    let url = match part.get("image_url") {
        Some(Value::String(url)) => url.as_str(),
        Some(object) => text(object, "url")?,
        None => return None,
    };
    let (mime, data) = url.strip_prefix("data:")?.split_once(";base64,")?;
    Some((mime, data))
}

fn error_body(message: &str) -> Value {
    json!({"error": {"message": message, "type": "invalid_request_error"}})
}

fn reply(status: StatusCode, answer: &Answer) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(answer.body.clone())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(answer.content_type));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the mock answers: the call's id and tool, or `None` for the end of the turn.
    fn answered(shared: &Shared, body: &Value) -> Option<(String, String)> {
        match shared.turn(body) {
            Turn::Call { id, name, .. } => Some((id.to_owned(), name.to_owned())),
            Turn::Finish | Turn::Other => None,
        }
    }

    #[test]
    fn a_bridge_is_called_step_by_step_and_the_last_result_ends_the_turn() {
        let call = |tool: &str| BridgeCall {
            tool: tool.to_owned(),
            arguments: "{}".to_owned(),
        };
        let plan = Plan {
            api: Api::Chat,
            names: vec!["mcp__srv__book_flight".to_owned()],
            arguments: "{}".to_owned(),
            bridge: vec![call("tool_search"), call("tool_call")],
        };
        let shared = Shared::new(plan, Arc::default());
        let tools = json!([{"type": "function", "function": {"name": "tool_search"}},
                           {"type": "function", "function": {"name": "tool_call"}}]);
        let result = |id: &str| json!({"role": "tool", "tool_call_id": id, "content": "ok"});
        let first = json!({"tools": tools, "messages": [{"role": "user", "content": "go"}]});
        assert_eq!(
            answered(&shared, &first),
            Some(("call_sightline_1".to_owned(), "tool_search".to_owned()))
        );
        // The search's result is not the one captured: the next call goes out.
        let searched = json!({"tools": tools, "messages": [result("call_sightline_1")]});
        assert_eq!(
            answered(&shared, &searched),
            Some((CALL_ID.to_owned(), "tool_call".to_owned()))
        );
        let called =
            json!({"tools": tools, "messages": [result("call_sightline_1"), result(CALL_ID)]});
        assert_eq!(answered(&shared, &called), None);
        assert!(Api::Chat.tool_result(&called).is_some());
    }
}
