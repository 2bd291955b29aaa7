//! A server from a recording: each request is answered with the reply recorded for the same
//! method and params (in order when a request repeats), on stdio or over HTTP, so a session
//! runs anywhere without its server.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};

use crate::classify::stand_in;
use crate::http_listener;
use crate::recording::Loaded;

/// The recorded replies, by method and params.
#[derive(Debug)]
pub struct Recorded {
    file: String,
    replies: HashMap<(String, String), Replies>,
}

#[derive(Debug, Default)]
struct Replies {
    /// The recorded `result`/`error` members' replies, in the order they were recorded.
    frames: Vec<Value>,
    /// How many were given out; past the last, the last is given again.
    given: usize,
}

/// Methods whose params name the client, not the question: matched by method alone.
const ANY_PARAMS: [&str; 3] = ["initialize", "server/discover", "ping"];

/// What makes two requests the same: the method, and the params without `_meta` (which names
/// the client, its progress token and its version, not what it asks).
fn key(method: &str, params: Option<&Value>) -> (String, String) {
    if ANY_PARAMS.contains(&method) {
        return (method.to_owned(), String::new());
    }
    let params = match params {
        Some(Value::Object(map)) => {
            let mut map = map.clone();
            map.remove("_meta");
            Value::Object(map)
        }
        Some(other) => other.clone(),
        None => Value::Object(serde_json::Map::new()),
    };
    (method.to_owned(), params.to_string())
}

impl Recorded {
    pub fn new(loaded: &Loaded, file: &str) -> Self {
        let mut replies: HashMap<(String, String), Replies> = HashMap::new();
        for (request, reply) in &loaded.replies {
            let request: Value = serde_json::from_str(&request.raw).unwrap_or(Value::Null);
            let Some(method) = request.get("method").and_then(Value::as_str) else {
                continue;
            };
            replies
                .entry(key(method, request.get("params")))
                .or_default()
                .frames
                .push(serde_json::from_str(&reply.raw).unwrap_or(Value::Null));
        }
        Self {
            file: file.to_owned(),
            replies,
        }
    }

    /// The answer to one message from the client: `None` for notifications and responses.
    pub fn answer(&mut self, text: &str) -> Option<String> {
        let Ok(message) = serde_json::from_str::<Value>(text) else {
            let error = json!({"code": -32700, "message": "Parse error: not JSON"});
            return Some(json!({"jsonrpc": "2.0", "id": null, "error": error}).to_string());
        };
        let id = message.get("id")?.clone();
        let method = message.get("method")?.as_str()?;
        let key = key(method, message.get("params"));
        if let Some(replies) = self.replies.get_mut(&key)
            && !replies.frames.is_empty()
        {
            let index = replies.given.min(replies.frames.len() - 1);
            replies.given += 1;
            let mut reply = replies.frames[index].clone();
            reply["id"] = id;
            return Some(reply.to_string());
        }
        // Marked and worded as the stand-in's own, so that no client (sightline least of all)
        // takes the refusal for an answer of the recorded server.
        let recorded = self.replies.keys().any(|(recorded, _)| recorded == method);
        let (code, message) = if recorded {
            (
                -32602,
                format!(
                    "sightline's replay stand-in: '{method}' was recorded in {}, but not with these params; the stand-in answers only what was recorded",
                    self.file
                ),
            )
        } else {
            (
                -32601,
                format!(
                    "sightline's replay stand-in: '{method}' was not recorded in {}",
                    self.file
                ),
            )
        };
        let reply = json!({"code": code, "message": message, "data": stand_in::data(&self.file)});
        Some(json!({"jsonrpc": "2.0", "id": id, "error": reply}).to_string())
    }
}

/// Serves newline-delimited JSON-RPC on stdin and stdout until stdin ends.
pub fn serve_stdio(mut recorded: Recorded) -> std::io::Result<()> {
    eprintln!("sightline replay: serving {} on stdio", recorded.file);
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(answer) = recorded.answer(&line) {
            writeln!(stdout, "{answer}")?;
            stdout.flush()?;
        }
    }
    Ok(())
}

/// The largest request body taken.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// Serves Streamable HTTP (JSON answers, POST only) on `/mcp` until the process ends; prints
/// the endpoint's URL on stdout first.
pub async fn serve_http(recorded: Recorded, address: SocketAddr) -> std::io::Result<()> {
    let (listener, url) = http_listener::listen(address).await?;
    eprintln!("sightline replay: serving {} on {url}", recorded.file);
    let recorded = Arc::new(Mutex::new(recorded));
    http_listener::serve(listener, move |request| {
        answer_http(Arc::clone(&recorded), request)
    })
    .await
}

async fn answer_http(
    recorded: Arc<Mutex<Recorded>>,
    request: Request<hyper::body::Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let respond = |status: StatusCode, body: String, json: bool| {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        let kind = if json {
            "application/json"
        } else {
            "text/plain"
        };
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(kind));
        response
    };
    if request.uri().path() != "/mcp" {
        return Ok(respond(
            StatusCode::NOT_FOUND,
            "the MCP endpoint is /mcp".into(),
            false,
        ));
    }
    if request.method() != Method::POST {
        let text = "a replay offers no GET stream and ends no sessions".into();
        return Ok(respond(StatusCode::METHOD_NOT_ALLOWED, text, false));
    }
    let Ok(body) = Limited::new(request.into_body(), MAX_BODY).collect().await else {
        return Ok(respond(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body too large".into(),
            false,
        ));
    };
    let text = String::from_utf8_lossy(&body.to_bytes()).into_owned();
    let answer = recorded
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .answer(text.trim());
    Ok(match answer {
        Some(answer) => respond(StatusCode::OK, answer, true),
        None => respond(StatusCode::ACCEPTED, String::new(), false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::jsonrpc::parse;

    fn recorded() -> Recorded {
        let pair = |request: &str, reply: &str| (parse(request).unwrap(), parse(reply).unwrap());
        let loaded = Loaded {
            header: crate::transcript::Header {
                sightline_transcript: 1,
                sightline: "0".into(),
                started: String::new(),
                started_ms: 0,
                command: "call".into(),
                transport: String::new(),
                redacted: true,
            },
            tools: None,
            calls: Vec::new(),
            replies: vec![
                pair(
                    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"a"}}}"#,
                    r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#,
                ),
                pair(
                    r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"a":1},"_meta":{"progressToken":3}}}"#,
                    r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"n":1}}"#,
                ),
                pair(
                    r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}"#,
                    r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"second"}}"#,
                ),
            ],
            model_turns: Vec::new(),
            stopped: None,
        };
        Recorded::new(&loaded, "s.jsonl")
    }

    #[test]
    fn a_request_gets_the_recorded_reply_under_its_own_id_in_order() {
        let mut recorded = recorded();
        let answer = |recorded: &mut Recorded, text: &str| -> Value {
            serde_json::from_str(&recorded.answer(text).unwrap()).unwrap()
        };
        let init = answer(
            &mut recorded,
            r#"{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"clientInfo":{"name":"other"}}}"#,
        );
        assert_eq!(init["id"], "x");
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":{"a":1},"_meta":{"progressToken":9}}}"#;
        assert_eq!(answer(&mut recorded, call)["result"]["n"], 1);
        assert_eq!(answer(&mut recorded, call)["error"]["message"], "second");
        assert_eq!(
            answer(&mut recorded, call)["error"]["message"],
            "second",
            "the last again"
        );
        let other = answer(
            &mut recorded,
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"t","arguments":{"a":2}}}"#,
        );
        assert_eq!(other["error"]["code"], -32602);
        assert!(
            other["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not with these params")
        );
        let unknown = answer(
            &mut recorded,
            r#"{"jsonrpc":"2.0","id":11,"method":"prompts/list"}"#,
        );
        assert_eq!(unknown["error"]["code"], -32601);
        assert_eq!(
            recorded.answer(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        assert_eq!(answer(&mut recorded, "{oops")["error"]["code"], -32700);
    }
}
