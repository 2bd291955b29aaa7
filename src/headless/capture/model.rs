//! The mock model `capture` gives a host: an `OpenAI`-style endpoint on loopback that answers the
//! first request with a call of the chosen tool and the follow-up with a final text, keeping
//! every request it was sent.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// The largest request body taken (a host sends its tool list and the conversation).
const MAX_BODY: usize = 16 * 1024 * 1024;
/// The id of the one function call the mock makes, for finding its output again.
pub const CALL_ID: &str = "call_sightline";
/// The text that ends the run.
const FINAL_TEXT: &str = "Done.";

/// Which API a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Responses,
    ChatCompletions,
}

/// One request the host sent the model.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub api: Api,
    pub body: Value,
}

/// The running mock: its base URL and what it was sent.
pub struct MockModel {
    pub base_url: String,
    pub requests: Arc<Mutex<Vec<ModelRequest>>>,
}

/// Binds 127.0.0.1 on a free port and serves until the process ends.
pub async fn start(tool: String, arguments: String) -> std::io::Result<MockModel> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let base_url = format!("http://{}/v1", listener.local_addr()?);
    let requests: Arc<Mutex<Vec<ModelRequest>>> = Arc::default();
    let shared = (Arc::new(tool), Arc::new(arguments), requests.clone());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (tool, arguments, requests) = shared.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    answer(tool.clone(), arguments.clone(), requests.clone(), request)
                });
                // A host that hangs up mid-answer ends its own run; the capture says so.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(MockModel { base_url, requests })
}

async fn answer(
    tool: Arc<String>,
    arguments: Arc<String>,
    requests: Arc<Mutex<Vec<ModelRequest>>>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let api = match (request.method(), request.uri().path()) {
        (&Method::POST, "/v1/responses") => Api::Responses,
        (&Method::POST, "/v1/chat/completions") => Api::ChatCompletions,
        (method, path) => {
            return Ok(reply(
                StatusCode::NOT_FOUND,
                &error_body(&format!("the mock model has no {method} {path}")),
            ));
        }
    };
    let Ok(body) = Limited::new(request.into_body(), MAX_BODY).collect().await else {
        return Ok(reply(
            StatusCode::PAYLOAD_TOO_LARGE,
            &error_body("body too large"),
        ));
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
        return Ok(reply(
            StatusCode::BAD_REQUEST,
            &error_body("the body is not JSON"),
        ));
    };
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        return Ok(reply(
            StatusCode::BAD_REQUEST,
            &error_body("the mock model does not stream; run the host non-streaming"),
        ));
    }
    let follow_up = carries_tool_output(api, &body);
    requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(ModelRequest {
            api,
            body: body.clone(),
        });
    let answer = match (api, follow_up) {
        (Api::Responses, false) => responses(&json!([{
            "type": "function_call", "id": "fc_sightline", "call_id": CALL_ID,
            "name": *tool, "arguments": *arguments, "status": "completed",
        }])),
        (Api::Responses, true) => responses(&json!([{
            "type": "message", "id": "msg_sightline", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
        }])),
        (Api::ChatCompletions, false) => chat(
            &json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": CALL_ID, "type": "function",
                "function": {"name": *tool, "arguments": *arguments},
            }]}),
            "tool_calls",
        ),
        (Api::ChatCompletions, true) => {
            chat(&json!({"role": "assistant", "content": FINAL_TEXT}), "stop")
        }
    };
    Ok(reply(StatusCode::OK, &answer))
}

/// Whether a request already holds the result of the mock's call (so it is the follow-up).
pub fn carries_tool_output(api: Api, body: &Value) -> bool {
    tool_output(api, body).is_some()
}

/// The result of the mock's call as the host sent it: a Responses `function_call_output`'s
/// `output`, or a Chat Completions `tool` message's `content`.
pub fn tool_output(api: Api, body: &Value) -> Option<&Value> {
    let (list, kind_key, kind, id_key, field) = match api {
        Api::Responses => ("input", "type", "function_call_output", "call_id", "output"),
        Api::ChatCompletions => ("messages", "role", "tool", "tool_call_id", "content"),
    };
    body.get(list)?.as_array()?.iter().find_map(|item| {
        let ours = item.get(kind_key).and_then(Value::as_str) == Some(kind)
            && item.get(id_key).and_then(Value::as_str) == Some(CALL_ID);
        ours.then(|| item.get(field)).flatten()
    })
}

/// The definition of `tool` in a request's tool list, as the host wrote it.
pub fn tool_definition<'a>(api: Api, body: &'a Value, tool: &str) -> Option<&'a Value> {
    body.get("tools")?.as_array()?.iter().find(|definition| {
        let named = match api {
            Api::Responses => definition.get("name"),
            Api::ChatCompletions => definition.get("function").and_then(|f| f.get("name")),
        };
        named.and_then(Value::as_str) == Some(tool)
    })
}

fn responses(output: &Value) -> Value {
    json!({
        "id": "resp_sightline", "object": "response", "created_at": 0, "model": "sightline-mock",
        "status": "completed", "output": output, "parallel_tool_calls": false,
        "tool_choice": "auto", "tools": [],
        "usage": {
            "input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    })
}

fn chat(message: &Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl_sightline", "object": "chat.completion", "created": 0,
        "model": "sightline-mock",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    })
}

fn error_body(message: &str) -> Value {
    json!({"error": {"message": message, "type": "invalid_request_error"}})
}

fn reply(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}
