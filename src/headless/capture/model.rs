//! The mock model `capture` gives a host: the `OpenAI` Responses API on loopback (what the Agents
//! SDK speaks), answering the first request with a call of the chosen tool and the follow-up
//! with a final text, keeping every request it was sent.

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

/// One request the host sent the model.
#[derive(Debug, Clone)]
pub struct ModelRequest {
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
    // Other APIs (Chat Completions…) come with the hosts that use them, and their tests.
    if (request.method(), request.uri().path()) != (&Method::POST, "/v1/responses") {
        let (method, path) = (request.method(), request.uri().path());
        return Ok(reply(
            StatusCode::NOT_FOUND,
            &error_body(&format!("the mock model has no {method} {path}")),
        ));
    }
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
    let follow_up = tool_output(&body).is_some();
    requests
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(ModelRequest { body: body.clone() });
    let answer = if follow_up {
        responses(&json!([{
            "type": "message", "id": "msg_sightline", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
        }]))
    } else {
        responses(&json!([{
            "type": "function_call", "id": "fc_sightline", "call_id": CALL_ID,
            "name": *tool, "arguments": *arguments, "status": "completed",
        }]))
    };
    Ok(reply(StatusCode::OK, &answer))
}

/// The result of the mock's call as the host sent it, the `output` of its
/// `function_call_output`; a request that holds one is the follow-up.
pub fn tool_output(body: &Value) -> Option<&Value> {
    body.get("input")?.as_array()?.iter().find_map(|item| {
        let ours = item.get("type").and_then(Value::as_str) == Some("function_call_output")
            && item.get("call_id").and_then(Value::as_str) == Some(CALL_ID);
        ours.then(|| item.get("output")).flatten()
    })
}

/// The definition of `tool` in a request's tool list, as the host wrote it.
pub fn tool_definition<'a>(body: &'a Value, tool: &str) -> Option<&'a Value> {
    body.get("tools")?
        .as_array()?
        .iter()
        .find(|definition| definition.get("name").and_then(Value::as_str) == Some(tool))
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
