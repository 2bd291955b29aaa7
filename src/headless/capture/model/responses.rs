//! The `OpenAI` Responses API as the mock speaks it: a `function_call` item, then a final
//! message; the host's `function_call_output` is the tool result. A request with
//! `"stream": true` (Codex) is answered with the server-sent events the API streams:
//! `response.created`, each output item's `response.output_item.added` and `.done` (a message's
//! text as one `response.output_text.delta` between them), and `response.completed` with the
//! whole response.
//!
//! A tool may be listed inside a `namespace` tool (Codex puts each MCP server's tools in one,
//! `mcp__SERVER`): the mock names it `NAMESPACE__NAME`, and calls it by its `name` with the
//! `namespace` beside it, as the API does.

use serde_json::{Value, json};

use super::{Answer, CALL_ID, FINAL_TEXT, ToolResult, Turn, output_text};

/// The tools a request lists, by the name the mock calls them: a namespace's by
/// `NAMESPACE__NAME`, the others by their name.
pub fn listed(body: &Value) -> Vec<(String, &Value)> {
    let mut listed = Vec::new();
    for definition in super::tools_of(body) {
        let Some(name) = super::named(definition) else {
            continue;
        };
        match namespaced(definition) {
            Some(inner) => listed.extend(inner.iter().filter_map(|tool| {
                Some((
                    format!("{name}{NAMESPACE_JOIN}{}", super::named(tool)?),
                    tool,
                ))
            })),
            None => listed.push((name.to_owned(), definition)),
        }
    }
    listed
}

/// What joins a namespace's name and its tool's in the mock's name for the tool.
const NAMESPACE_JOIN: &str = "__";

/// The tools of a `namespace` tool.
fn namespaced(definition: &Value) -> Option<&Vec<Value>> {
    if definition.get("type").and_then(Value::as_str) != Some("namespace") {
        return None;
    }
    definition.get("tools").and_then(Value::as_array)
}

/// A name the mock calls as the request's namespace and the name in it: the longest listed
/// namespace it starts with (a tool the namespace does not list stays in it: the host answers).
fn split_namespace<'a>(body: &'a Value, name: &'a str) -> Option<(&'a str, &'a str)> {
    super::tools_of(body)
        .into_iter()
        .filter(|definition| namespaced(definition).is_some())
        .filter_map(super::named)
        .filter_map(|namespace| {
            let inner = name.strip_prefix(namespace)?.strip_prefix(NAMESPACE_JOIN)?;
            (!inner.is_empty()).then_some((namespace, inner))
        })
        .max_by_key(|(namespace, _)| namespace.len())
}

/// The `output` of the host's `function_call_output` for the mock's call (it has no flag).
pub fn tool_result(body: &Value) -> Option<ToolResult> {
    let item = body.get("input")?.as_array()?.iter().find(|item| {
        item.get("type").and_then(Value::as_str) == Some("function_call_output")
            && item.get("call_id").and_then(Value::as_str) == Some(CALL_ID)
    })?;
    let output = item.get("output")?;
    Some(ToolResult {
        verbatim: item.clone(),
        text: output_text(output),
        error_flag: None,
    })
}

pub fn answer(turn: &Turn, body: &Value) -> Answer {
    let item = match turn {
        Turn::Call {
            id,
            name,
            arguments,
        } => {
            let mut call = json!({
                "type": "function_call", "id": "fc_sightline", "call_id": id,
                "name": name, "arguments": arguments, "status": "completed",
            });
            // A namespace's tool is called by its name in it (a tool of that very name outside
            // any namespace is called as it is).
            let top_level = super::tools_of(body)
                .iter()
                .any(|d| namespaced(d).is_none() && super::named(d) == Some(name));
            if !top_level && let Some((namespace, inner)) = split_namespace(body, name) {
                call["namespace"] = json!(namespace);
                call["name"] = json!(inner);
            }
            call
        }
        Turn::Finish | Turn::Other => json!({
            "type": "message", "id": "msg_sightline", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
        }),
    };
    let response = response(&json!([item]), "completed");
    if body.get("stream").and_then(Value::as_bool) != Some(true) {
        return Answer::json(&response);
    }
    Answer::sse(&events(&item, &response))
}

/// The response object, with its `output` and `status`.
fn response(output: &Value, status: &str) -> Value {
    json!({
        "id": "resp_sightline", "object": "response", "created_at": 0, "model": "sightline-mock",
        "status": status, "output": output, "parallel_tool_calls": false,
        "tool_choice": "auto", "tools": [],
        "usage": {
            "input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    })
}

/// The stream of one response with one output item, each event named by its `type` and
/// numbered (`sequence_number`) as the API numbers them.
fn events(item: &Value, completed: &Value) -> Vec<(Option<&'static str>, Value)> {
    let mut added = item.clone();
    let text = item.get("content").map(|_| FINAL_TEXT);
    if let Some(content) = added.get_mut("content") {
        *content = json!([]);
    }
    if let Some(status) = added.get_mut("status") {
        *status = json!("in_progress");
    }
    let mut events = vec![
        (
            "response.created",
            json!({"response": response(&json!([]), "in_progress")}),
        ),
        (
            "response.output_item.added",
            json!({"output_index": 0, "item": added}),
        ),
    ];
    if let Some(text) = text {
        events.push((
            "response.output_text.delta",
            json!({"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": text}),
        ));
    }
    events.push((
        "response.output_item.done",
        json!({"output_index": 0, "item": item}),
    ));
    events.push(("response.completed", json!({"response": completed})));
    events
        .into_iter()
        .enumerate()
        .map(|(number, (name, mut data))| {
            if let Some(object) = data.as_object_mut() {
                object.insert("type".to_owned(), json!(name));
                object.insert("sequence_number".to_owned(), json!(number));
            }
            (Some(name), data)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Turn, answer};

    fn events(body: &str) -> Vec<Value> {
        body.split("\n\n")
            .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
            .map(|data| serde_json::from_str(data).unwrap())
            .collect()
    }

    #[test]
    fn a_streaming_request_gets_the_events_of_one_response() {
        let call = Turn::Call {
            id: super::super::CALL_ID,
            name: "mcp__srv__x",
            arguments: "{}",
        };
        let streamed = answer(&call, &json!({"stream": true}));
        assert_eq!(streamed.content_type, "text/event-stream");
        let got = events(&streamed.body);
        let kinds: Vec<&str> = got.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "response.created",
                "response.output_item.added",
                "response.output_item.done",
                "response.completed"
            ]
        );
        assert_eq!(got[2]["item"]["name"], "mcp__srv__x");
        assert_eq!(got[3]["response"]["output"][0]["call_id"], "call_sightline");
        assert!(streamed.body.starts_with("event: response.created\ndata: "));

        let finish = events(&answer(&Turn::Finish, &json!({"stream": true})).body);
        assert_eq!(finish[2]["type"], "response.output_text.delta");
        assert_eq!(finish[2]["delta"], "Done.");
        assert_eq!(finish[3]["item"]["content"][0]["text"], "Done.");
    }

    #[test]
    fn a_namespaced_tool_is_listed_by_its_joined_name_and_called_in_its_namespace() {
        let body = json!({"tools": [
            {"type": "function", "name": "exec_command"},
            {"type": "namespace", "name": "mcp__srv", "tools": [
                {"type": "function", "name": "book_flight"},
            ]},
        ]});
        let names: Vec<String> = super::listed(&body).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["exec_command", "mcp__srv__book_flight"]);
        for (called, namespace, name) in [
            ("mcp__srv__book_flight", Some("mcp__srv"), "book_flight"),
            // Not listed: still in the namespace (the host answers for it).
            ("mcp__srv__no_such_tool", Some("mcp__srv"), "no_such_tool"),
            ("exec_command", None, "exec_command"),
            ("mcp__other__x", None, "mcp__other__x"),
        ] {
            let turn = Turn::Call {
                id: super::super::CALL_ID,
                name: called,
                arguments: "{}",
            };
            let response: Value = serde_json::from_str(&answer(&turn, &body).body).unwrap();
            let item = &response["output"][0];
            assert_eq!(item["namespace"].as_str(), namespace, "{called}");
            assert_eq!(item["name"], name, "{called}");
        }
    }

    #[test]
    fn a_request_without_stream_gets_one_json_response() {
        let plain = answer(&Turn::Finish, &json!({"stream": false}));
        assert_eq!(plain.content_type, "application/json");
        let response: Value = serde_json::from_str(&plain.body).unwrap();
        assert_eq!(response["output"][0]["content"][0]["text"], "Done.");
    }
}
