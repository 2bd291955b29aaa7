//! A streamed answer, sans I/O: the server-sent events of Chat Completions and the Responses and
//! Messages APIs (`stream: true`) and of Gemini's `streamGenerateContent`, fed as the bytes
//! arrive, give the text so far and, at the end, the body the API would have answered without
//! streaming (so one parser reads both, and a transcript keeps one response body per turn).

use serde_json::{Map, Value, json};

use super::Api;

/// The request body asking for the answer as a stream (the usage included where the API needs
/// asking); Gemini asks by its URL instead ([`streaming_url`]).
pub fn streaming(api: Api, body: &Value) -> Value {
    let mut body = body.clone();
    match api {
        Api::Chat => {
            body["stream"] = Value::Bool(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        Api::Anthropic | Api::Responses => body["stream"] = Value::Bool(true),
        Api::Gemini => {}
    }
    body
}

/// The URL a streamed request goes to: Gemini's `:streamGenerateContent?alt=sse` for its
/// `:generateContent`; the same URL for the others.
pub fn streaming_url(api: Api, url: &str) -> String {
    match api {
        Api::Gemini => url.replace(":generateContent", ":streamGenerateContent?alt=sse"),
        Api::Chat | Api::Anthropic | Api::Responses => url.to_owned(),
    }
}

/// A stream being read: its events so far, put together.
#[derive(Debug)]
pub struct Assembler {
    api: Api,
    /// Bytes of an event not yet ended by a blank line.
    pending: Vec<u8>,
    text: String,
    /// Chat Completions: each tool call by its index (id, name, the arguments' text).
    /// Messages: each content block by its index.
    parts: Vec<(Option<usize>, Value)>,
    usage: Map<String, Value>,
    error: Option<Value>,
    stop: Option<Value>,
    /// Responses: the whole response its `response.completed` event carries.
    completed: Option<Value>,
}

impl Assembler {
    pub fn new(api: Api) -> Self {
        Assembler {
            api,
            pending: Vec::new(),
            text: String::new(),
            parts: Vec::new(),
            usage: Map::new(),
            error: None,
            stop: None,
            completed: None,
        }
    }

    /// The model's text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Takes the next bytes of the stream; whether the text grew.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        self.pending.extend_from_slice(bytes);
        let before = self.text.len();
        // Events end with a blank line; a `\r\n` stream too.
        while let Some(end) = event_end(&self.pending) {
            let event: Vec<u8> = self.pending.drain(..end.1).collect();
            self.event(&String::from_utf8_lossy(&event[..end.0]));
        }
        self.text.len() != before
    }

    fn event(&mut self, event: &str) {
        let data: String = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim_start)
            .collect::<Vec<_>>()
            .join("\n");
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        let Ok(data) = serde_json::from_str::<Value>(&data) else {
            return;
        };
        if let Some(error) = data.get("error").filter(|error| !error.is_null()) {
            self.error = Some(error.clone());
            return;
        }
        match self.api {
            Api::Chat => self.chat_chunk(&data),
            Api::Anthropic => self.messages_event(&data),
            Api::Responses => self.responses_event(&data),
            Api::Gemini => self.gemini_chunk(&data),
        }
    }

    fn responses_event(&mut self, event: &Value) {
        match event.get("type").and_then(Value::as_str) {
            Some("response.output_text.delta") => {
                if let Some(text) = event.get("delta").and_then(Value::as_str) {
                    self.text.push_str(text);
                }
            }
            Some("response.completed" | "response.incomplete") => {
                self.completed = event.get("response").cloned();
            }
            Some("response.failed") => {
                self.error = event.pointer("/response/error").cloned();
            }
            _ => {}
        }
    }

    fn gemini_chunk(&mut self, chunk: &Value) {
        if let Some(usage) = chunk.get("usageMetadata").and_then(Value::as_object) {
            self.usage.clone_from(usage);
        }
        if let Some(reason) = chunk.pointer("/candidates/0/finishReason") {
            self.stop = Some(reason.clone());
        }
        for part in chunk
            .pointer("/candidates/0/content/parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match part.get("text").and_then(Value::as_str) {
                // Text comes in pieces; a function call whole, each its own part.
                Some(text) if !part.get("thought").is_some_and(|t| t == true) => {
                    self.text.push_str(text);
                }
                _ => self.parts.push((None, part.clone())),
            }
        }
    }

    fn chat_chunk(&mut self, chunk: &Value) {
        if let Some(usage) = chunk.get("usage").and_then(Value::as_object) {
            self.usage.clone_from(usage);
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return;
        };
        if let Some(reason) = choice.get("finish_reason").filter(|r| !r.is_null()) {
            self.stop = Some(reason.clone());
        }
        let Some(delta) = choice.get("delta") else {
            return;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(text);
        }
        for call in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let index = call
                .get("index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok());
            let part = self.part(
                index,
                || json!({"id": "", "type": "function", "function": {"name": "", "arguments": ""}}),
            );
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                part["id"] = Value::from(id);
            }
            for field in ["name", "arguments"] {
                if let Some(more) = call
                    .pointer(&format!("/function/{field}"))
                    .and_then(Value::as_str)
                {
                    let so_far = part["function"][field].as_str().unwrap_or_default();
                    part["function"][field] = Value::from(format!("{so_far}{more}"));
                }
            }
        }
    }

    fn messages_event(&mut self, event: &Value) {
        let index = event
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok());
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(usage) = event.pointer("/message/usage").and_then(Value::as_object) {
                    self.usage.clone_from(usage);
                }
            }
            Some("content_block_start") => {
                let mut block = event.get("content_block").cloned().unwrap_or(Value::Null);
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    // Its input comes as JSON text in pieces.
                    block["input"] = Value::from("");
                }
                *self.part(index, || Value::Null) = block;
            }
            Some("content_block_delta") => {
                let delta = event.get("delta").cloned().unwrap_or(Value::Null);
                let part = self.part(index, || json!({"type": "text", "text": ""}));
                if let Some(text) = delta.get("text").and_then(Value::as_str) {
                    let so_far = part["text"].as_str().unwrap_or_default().to_owned();
                    part["text"] = Value::from(format!("{so_far}{text}"));
                    self.text.push_str(text);
                } else if let Some(json) = delta.get("partial_json").and_then(Value::as_str) {
                    let so_far = part["input"].as_str().unwrap_or_default().to_owned();
                    part["input"] = Value::from(format!("{so_far}{json}"));
                }
            }
            Some("message_delta") => {
                if let Some(reason) = event.pointer("/delta/stop_reason") {
                    self.stop = Some(reason.clone());
                }
                if let Some(usage) = event.get("usage").and_then(Value::as_object) {
                    for (key, value) in usage {
                        self.usage.insert(key.clone(), value.clone());
                    }
                }
            }
            _ => {}
        }
    }

    /// The part at `index` (a new one, made by `make`, if there is none yet).
    fn part(&mut self, index: Option<usize>, make: impl FnOnce() -> Value) -> &mut Value {
        let at = self
            .parts
            .iter()
            .position(|(at, _)| *at == index)
            .unwrap_or_else(|| {
                self.parts.push((index, make()));
                self.parts.len() - 1
            });
        &mut self.parts[at].1
    }

    /// The body the API would have answered without streaming.
    pub fn finish(self) -> Value {
        if let Some(error) = self.error {
            return match self.api {
                Api::Anthropic => json!({"type": "error", "error": error}),
                Api::Chat | Api::Responses | Api::Gemini => json!({"error": error}),
            };
        }
        let usage = Value::Object(self.usage);
        match self.api {
            Api::Responses => self.completed.unwrap_or_else(|| {
                json!({"error": {"message": "the stream ended before the response was completed"}})
            }),
            Api::Gemini => {
                let mut parts = Vec::new();
                if !self.text.is_empty() {
                    parts.push(json!({"text": self.text}));
                }
                parts.extend(self.parts.into_iter().map(|(_, part)| part));
                json!({
                    "candidates": [{
                        "content": {"role": "model", "parts": parts},
                        "finishReason": self.stop,
                        "index": 0,
                    }],
                    "usageMetadata": usage,
                })
            }
            Api::Chat => {
                let calls: Vec<Value> = self.parts.into_iter().map(|(_, call)| call).collect();
                let mut message = json!({"role": "assistant", "content": self.text});
                if !calls.is_empty() {
                    message["tool_calls"] = Value::Array(calls);
                }
                json!({
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": self.stop}],
                    "usage": usage,
                })
            }
            Api::Anthropic => {
                let content: Vec<Value> = self
                    .parts
                    .into_iter()
                    .map(|(_, mut block)| {
                        if let Some(input) = block.get("input").and_then(Value::as_str) {
                            let input = if input.trim().is_empty() {
                                json!({})
                            } else {
                                serde_json::from_str(input).unwrap_or_else(|_| Value::from(input))
                            };
                            block["input"] = input;
                        }
                        block
                    })
                    .collect();
                json!({
                    "type": "message",
                    "role": "assistant",
                    "content": content,
                    "stop_reason": self.stop,
                    "usage": usage,
                })
            }
        }
    }
}

/// Where the first event in `bytes` ends: the end of its text and of its blank line.
fn event_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let lf = bytes
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|at| (at, at + 2));
    let crlf = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| (at, at + 4));
    match (lf, crlf) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (one, other) => one.or(other),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// `events` as the API sends them, cut into pieces of `size` bytes.
    fn streamed(api: Api, events: &str, size: usize) -> (Assembler, Vec<String>) {
        let mut assembler = Assembler::new(api);
        let mut seen = Vec::new();
        for piece in events.as_bytes().chunks(size) {
            if assembler.feed(piece) {
                seen.push(assembler.text().to_owned());
            }
        }
        (assembler, seen)
    }

    #[test]
    fn chat_completions_chunks_become_the_body_a_plain_request_gets() {
        let events = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Book\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ing.\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"book_flight\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"departureDate\\\":\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"12/12/2024\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":3}}\n\n",
            "data: [DONE]\n\n",
        );
        for (size, texts) in [(1, 2), (7, 2), (4096, 1)] {
            let (assembler, seen) = streamed(Api::Chat, events, size);
            assert_eq!(seen.len(), texts, "cut every {size} bytes: {seen:?}");
            assert_eq!(seen.last().map(String::as_str), Some("Booking."));
            let turn = super::super::chat::turn(&assembler.finish()).unwrap();
            assert_eq!(turn.text, "Booking.");
            assert_eq!(turn.calls.len(), 1);
            assert_eq!(turn.calls[0].id, "call_1");
            assert_eq!(turn.calls[0].name, "book_flight");
            assert_eq!(
                turn.calls[0].arguments,
                json!({"departureDate": "12/12/2024"})
            );
            assert_eq!((turn.usage.input, turn.usage.output), (12, 3));
        }
    }

    #[test]
    fn messages_events_become_the_body_a_plain_request_gets() {
        let events = concat!(
            "event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":40,\"output_tokens\":1}}}\r\n\r\n",
            "event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\n\r\n",
            "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me book.\"}}\r\n\r\n",
            "event: content_block_start\r\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"mcp__srv__book_flight\",\"input\":{}}}\r\n\r\n",
            "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"departureDate\\\": \\\"12/12\"}}\r\n\r\n",
            "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"/2024\\\"}\"}}\r\n\r\n",
            "event: message_delta\r\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":30}}\r\n\r\n",
            "event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n",
        );
        let (assembler, seen) = streamed(Api::Anthropic, events, 5);
        assert_eq!(seen, ["Let me book."]);
        let turn = super::super::anthropic::turn(&assembler.finish()).unwrap();
        assert_eq!(turn.text, "Let me book.");
        assert_eq!(turn.calls[0].name, "mcp__srv__book_flight");
        assert_eq!(
            turn.calls[0].arguments,
            json!({"departureDate": "12/12/2024"})
        );
        assert_eq!((turn.usage.input, turn.usage.output), (40, 30));
    }

    #[test]
    fn an_error_in_the_stream_is_the_apis_refusal() {
        let events = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
        let (assembler, _) = streamed(Api::Anthropic, events, 3);
        let why = super::super::anthropic::turn(&assembler.finish()).unwrap_err();
        assert!(why.contains("Overloaded"), "{why}");
    }

    #[test]
    fn responses_events_end_with_the_whole_response() {
        let events = concat!(
            "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"status\":\"in_progress\"}}\n\n",
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Done\"}\n\n",
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\". Booked.\"}\n\n",
            "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"Done. Booked.\"}]}],\"usage\":{\"input_tokens\":9,\"output_tokens\":4}}}\n\n",
        );
        let (assembler, seen) = streamed(Api::Responses, events, 11);
        assert_eq!(seen, ["Done", "Done. Booked."]);
        let turn = super::super::responses::turn(&assembler.finish()).unwrap();
        assert_eq!(turn.text, "Done. Booked.");
        assert_eq!((turn.usage.input, turn.usage.output), (9, 4));
        let (cut, _) = streamed(Api::Responses, &events[..200], 11);
        assert!(
            super::super::responses::turn(&cut.finish()).is_err(),
            "never completed"
        );
    }

    #[test]
    fn gemini_chunks_put_text_together_and_keep_each_call() {
        let events = concat!(
            "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Book\"}]}}]}\r\n\r\n",
            "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ing.\"},{\"functionCall\":{\"name\":\"mcp_srv_book_flight\",\"args\":{\"departureDate\":\"12/12/2024\"}}}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":7,\"candidatesTokenCount\":2}}\r\n\r\n",
        );
        let (assembler, seen) = streamed(Api::Gemini, events, 9);
        assert_eq!(seen, ["Book", "Booking."]);
        let turn = super::super::gemini::turn(&assembler.finish()).unwrap();
        assert_eq!(turn.text, "Booking.");
        assert_eq!(turn.calls[0].name, "mcp_srv_book_flight");
        assert_eq!((turn.usage.input, turn.usage.output), (7, 2));
    }

    #[test]
    fn each_api_is_asked_for_a_stream_its_own_way() {
        let body = json!({"model": "m"});
        assert_eq!(streaming(Api::Chat, &body)["stream"], true);
        assert_eq!(
            streaming(Api::Chat, &body)["stream_options"]["include_usage"],
            true
        );
        assert_eq!(streaming(Api::Anthropic, &body)["stream"], true);
        assert_eq!(streaming(Api::Responses, &body)["stream"], true);
        assert_eq!(streaming(Api::Gemini, &body), body);
        assert_eq!(
            streaming_url(Api::Gemini, "https://g/v1beta/models/m:generateContent"),
            "https://g/v1beta/models/m:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            streaming_url(Api::Chat, "http://x/v1/chat/completions"),
            "http://x/v1/chat/completions"
        );
    }
}
