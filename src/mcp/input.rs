//! "The server needs input", pure, for both eras: a legacy server request (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`) and a 2026-07-28 `input_required` result become the
//! same [`InputRequest`]s; [`Answers`] say what to answer, and the retry of a modern call
//! carries them as `inputResponses` with the server's `requestState` echoed.

use serde_json::{Map, Value, json};

use super::json::Json;
use super::jsonrpc::ErrorObject;

/// Rounds of `input_required` one call may take before sightline stops retrying.
pub const MAX_ROUNDS: usize = 8;

/// Questions put to the user at once, at most (one round, or legacy requests waiting): a
/// server asking more is refused, not queued.
pub const MAX_QUESTIONS: usize = 16;

/// The methods a server may ask the client, in either era.
pub const INPUT_METHODS: [&str; 3] = ["elicitation/create", "sampling/createMessage", "roots/list"];

/// One thing the server asks of the client.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    /// The key in `inputRequests` (2026-07-28); `None` for a legacy server request.
    pub key: Option<String>,
    pub method: String,
    pub params: Value,
}

/// How to answer an elicitation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Elicit {
    /// Accept with this content (a JSON object), or with the schema's defaults when `None`.
    Accept(Option<String>),
    /// Decline: the default when no answer was given.
    #[default]
    Decline,
    Cancel,
}

/// What sightline answers, fixed in advance (`--elicit`, `--sample`, `--root`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answers {
    pub elicit: Elicit,
    /// The text the "model" replies to a sampling request; refused when `None`.
    pub sample: Option<String>,
    /// Root URIs; `roots/list` is refused when empty.
    pub roots: Vec<String>,
}

/// The answer to one input request: a result, or a refusal (legacy: a JSON-RPC error; modern:
/// the request left out of `inputResponses`).
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Result(Value),
    Refused(ErrorObject),
}

/// One thing asked and answered in the course of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// 2026-07-28: the request whose `input_required` result asked (the call was then retried
    /// under a new id); `None` for a legacy server request, answered during the call.
    pub asked_by: Option<super::jsonrpc::Id>,
    pub request: InputRequest,
    pub answer: Answer,
}

impl Round {
    /// One line: what was asked and what was answered.
    pub fn describe(&self) -> String {
        describe(&self.request, &self.answer)
    }

    /// The `rounds` element of `call --json`.
    pub fn to_json(&self) -> Value {
        let (answer, refused) = match &self.answer {
            Answer::Result(result) => (result.clone(), Value::Null),
            Answer::Refused(error) => (
                Value::Null,
                json!({"code": error.code, "message": error.message}),
            ),
        };
        json!({
            "asked_by": self.asked_by.clone().map(Value::from),
            "key": self.request.key,
            "method": self.request.method,
            "params": self.request.params,
            "answer": answer,
            "refused": refused,
        })
    }
}

/// A 2026-07-28 result that asks for input before the call can complete.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequired {
    pub requests: Vec<InputRequest>,
    /// The server's opaque state, exactly as received (a JSON string's text), to echo.
    pub request_state: Option<Json>,
}

/// What the `resultType` of a result says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultType {
    /// `complete`, or absent (servers of earlier versions).
    Complete,
    InputRequired,
    /// A task handle (the tasks extension): the result comes by polling `tasks/get`.
    Task,
    /// A type this client does not know: the result is invalid.
    Unknown(String),
}

/// Reads `resultType`.
pub fn result_type(result: &Json) -> ResultType {
    match result.get("resultType") {
        None => ResultType::Complete,
        Some(kind) => match kind.as_str().as_deref() {
            Some("complete") => ResultType::Complete,
            Some("input_required") => ResultType::InputRequired,
            Some("task") => ResultType::Task,
            Some(other) => ResultType::Unknown(other.to_owned()),
            None => ResultType::Unknown(kind.text().to_owned()),
        },
    }
}

/// The input requests and state of an `input_required` result.
pub fn input_required(result: &Json) -> InputRequired {
    let requests = match result.get("inputRequests").map(|map| map.value()) {
        Some(Value::Object(map)) => map
            .into_iter()
            .map(|(key, request)| InputRequest {
                key: Some(key),
                method: request
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                params: request.get("params").cloned().unwrap_or(Value::Null),
            })
            .collect(),
        _ => Vec::new(),
    };
    InputRequired {
        requests,
        request_state: result.get("requestState"),
    }
}

/// The answer `answers` give to `request`.
pub fn answer(request: &InputRequest, answers: &Answers) -> Answer {
    let refuse = |message: &str| {
        Answer::Refused(ErrorObject {
            code: -32601,
            message: message.to_owned(),
            data: None,
        })
    };
    match request.method.as_str() {
        "elicitation/create" => Answer::Result(elicit_result(&request.params, &answers.elicit)),
        "sampling/createMessage" => match &answers.sample {
            Some(text) => Answer::Result(json!({
                "role": "assistant",
                "content": {"type": "text", "text": text},
                "model": "sightline (--sample)",
                "stopReason": "endTurn",
            })),
            None => Answer::Refused(ErrorObject {
                code: -1,
                message: "sampling declined: no --sample reply was given".into(),
                data: None,
            }),
        },
        "roots/list" if !answers.roots.is_empty() => Answer::Result(json!({
            "roots": answers.roots.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>(),
        })),
        "roots/list" => refuse("roots/list: no --root was given"),
        other => refuse(&format!(
            "Method not found: sightline does not answer '{other}'"
        )),
    }
}

/// An `ElicitResult`: URL mode accepts with no content (sightline never opens the URL itself).
fn elicit_result(params: &Value, elicit: &Elicit) -> Value {
    let url_mode = params.get("mode").and_then(Value::as_str) == Some("url");
    match elicit {
        Elicit::Decline => json!({"action": "decline"}),
        Elicit::Cancel => json!({"action": "cancel"}),
        Elicit::Accept(_) if url_mode => json!({"action": "accept"}),
        Elicit::Accept(Some(content)) => {
            let content = serde_json::from_str::<Value>(content).unwrap_or(Value::Null);
            json!({"action": "accept", "content": content})
        }
        Elicit::Accept(None) => {
            let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
            json!({"action": "accept", "content": defaults(schema)})
        }
    }
}

/// The `default` of each property of a flat elicitation schema that declares one.
pub fn defaults(schema: &Value) -> Value {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Value::Object(Map::new());
    };
    let content: Map<String, Value> = properties
        .iter()
        .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
        .collect();
    Value::Object(content)
}

/// The params of the retried call: the original ones, `inputResponses` for what was answered
/// (a refused request is left out), and `requestState` exactly as the server sent it.
pub fn retry_params(
    original: &Value,
    required: &InputRequired,
    answers: &[(InputRequest, Answer)],
) -> Value {
    let mut params = match original {
        Value::Object(params) => params.clone(),
        _ => Map::new(),
    };
    let responses: Map<String, Value> = answers
        .iter()
        .filter_map(|(request, answer)| match answer {
            Answer::Result(result) => Some((request.key.clone()?, result.clone())),
            Answer::Refused(_) => None,
        })
        .collect();
    params.remove("inputResponses");
    params.remove("requestState");
    if !responses.is_empty() {
        params.insert("inputResponses".into(), Value::Object(responses));
    }
    if let Some(state) = &required.request_state {
        params.insert("requestState".into(), state.value());
    }
    Value::Object(params)
}

/// One line: what was asked and what was answered.
pub fn describe(request: &InputRequest, answer: &Answer) -> String {
    let asked = match request.method.as_str() {
        "elicitation/create" => {
            let message = request.params.get("message").and_then(Value::as_str);
            let url = request.params.get("url").and_then(Value::as_str);
            match (url, message) {
                (Some(url), _) => format!("elicitation (URL {url})"),
                (None, Some(message)) => format!("elicitation \"{message}\""),
                (None, None) => "elicitation".into(),
            }
        }
        "sampling/createMessage" => "sampling".into(),
        "roots/list" => "roots".into(),
        other => other.to_owned(),
    };
    let answered = match answer {
        Answer::Result(result) => match result.get("action").and_then(Value::as_str) {
            Some(action) => match result.get("content") {
                Some(content) => format!("{action} {content}"),
                None => action.to_owned(),
            },
            None => result.to_string(),
        },
        Answer::Refused(error) => format!("refused: {}", error.message),
    };
    format!("{asked} → {answered}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, params: Value) -> InputRequest {
        InputRequest {
            key: Some("k".into()),
            method: method.into(),
            params,
        }
    }

    #[test]
    fn result_types_complete_input_required_and_unknown() {
        let read =
            |text: &str| result_type(&Json::from_value(&serde_json::from_str(text).unwrap()));
        assert_eq!(read(r#"{"content":[]}"#), ResultType::Complete);
        assert_eq!(read(r#"{"resultType":"complete"}"#), ResultType::Complete);
        assert_eq!(
            read(r#"{"resultType":"input_required"}"#),
            ResultType::InputRequired
        );
        assert_eq!(read(r#"{"resultType":"task"}"#), ResultType::Task);
        assert_eq!(
            read(r#"{"resultType":"stream"}"#),
            ResultType::Unknown("stream".into())
        );
        assert_eq!(read(r#"{"resultType":7}"#), ResultType::Unknown("7".into()));
    }

    #[test]
    fn every_elicitation_field_type_gets_its_default() {
        let schema = json!({"type": "object", "properties": {
            "email": {"type": "string", "default": "user@example.com"},
            "count": {"type": "integer", "default": 50},
            "ratio": {"type": "number", "default": 0.5},
            "agree": {"type": "boolean", "default": false},
            "color": {"type": "string", "enum": ["Red", "Green"], "default": "Red"},
            "titled": {"type": "string", "oneOf": [{"const": "#FF0000", "title": "Red"}], "default": "#FF0000"},
            "many": {"type": "array", "items": {"type": "string", "enum": ["Red", "Green"]}, "default": ["Red", "Green"]},
            "none": {"type": "string"},
        }});
        let accepted = answer(
            &request(
                "elicitation/create",
                json!({"message": "m", "requestedSchema": schema}),
            ),
            &Answers {
                elicit: Elicit::Accept(None),
                ..Answers::default()
            },
        );
        assert_eq!(
            accepted,
            Answer::Result(json!({"action": "accept", "content": {
                "email": "user@example.com", "count": 50, "ratio": 0.5, "agree": false,
                "color": "Red", "titled": "#FF0000", "many": ["Red", "Green"],
            }}))
        );
    }

    #[test]
    fn elicitation_is_declined_unless_answered_and_urls_are_accepted_without_content() {
        let form = request("elicitation/create", json!({"message": "Book?"}));
        assert_eq!(
            answer(&form, &Answers::default()),
            Answer::Result(json!({"action": "decline"}))
        );
        let given = Answers {
            elicit: Elicit::Accept(Some(r#"{"confirm":true}"#.into())),
            ..Answers::default()
        };
        assert_eq!(
            answer(&form, &given),
            Answer::Result(json!({"action": "accept", "content": {"confirm": true}}))
        );
        let url = request(
            "elicitation/create",
            json!({"mode": "url", "url": "https://x"}),
        );
        assert_eq!(
            answer(&url, &given),
            Answer::Result(json!({"action": "accept"}))
        );
        let cancel = Answers {
            elicit: Elicit::Cancel,
            ..Answers::default()
        };
        assert_eq!(
            answer(&url, &cancel),
            Answer::Result(json!({"action": "cancel"}))
        );
    }

    #[test]
    fn sampling_and_roots_are_refused_without_an_answer() {
        let sampling = request("sampling/createMessage", json!({"messages": []}));
        assert!(matches!(
            answer(&sampling, &Answers::default()),
            Answer::Refused(_)
        ));
        let roots = request("roots/list", Value::Null);
        assert!(matches!(
            answer(&roots, &Answers::default()),
            Answer::Refused(_)
        ));
        let given = Answers {
            sample: Some("Paris.".into()),
            roots: vec!["file:///work".into()],
            ..Answers::default()
        };
        let Answer::Result(sampled) = answer(&sampling, &given) else {
            panic!("answered")
        };
        assert_eq!(sampled["content"]["text"], "Paris.");
        assert_eq!(
            answer(&roots, &given),
            Answer::Result(json!({"roots": [{"uri": "file:///work"}]}))
        );
    }

    #[test]
    fn the_retry_echoes_request_state_exactly_and_answers_by_key() {
        let text = r#"{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Book?"}},"sum":{"method":"sampling/createMessage","params":{}}},"requestState":"eyJhIjoxfQ==.sig\u00e9\/x"}"#;
        let result = Json::from(serde_json::from_str::<Value>(text).unwrap());
        let required = input_required(&result);
        assert_eq!(required.requests.len(), 2);
        let answered: Vec<_> = required
            .requests
            .iter()
            .map(|request| (request.clone(), answer(request, &Answers::default())))
            .collect();
        let original =
            json!({"name": "confirm_booking", "arguments": {"d": 1}, "requestState": "stale"});
        let retry = retry_params(&original, &required, &answered);
        assert_eq!(retry["name"], "confirm_booking");
        assert_eq!(
            retry["inputResponses"],
            json!({"confirm": {"action": "decline"}})
        );
        // The value is the server's, to the last character, whatever escapes it came in.
        assert_eq!(retry["requestState"], "eyJhIjoxfQ==.sigé/x");
        let plain =
            Json::from(json!({"resultType": "input_required", "requestState": "abc.def-_"}));
        let retry = retry_params(&original, &input_required(&plain), &[]);
        assert_eq!(retry["requestState"].to_string(), r#""abc.def-_""#);
        assert!(retry.get("inputResponses").is_none());
        // No state received: none sent, not even the stale one of the original params.
        let stateless = Json::from(json!({"resultType": "input_required", "inputRequests": {}}));
        assert!(
            retry_params(&original, &input_required(&stateless), &[])
                .get("requestState")
                .is_none()
        );
    }
}
