//! JSON-RPC 2.0 messages as MCP uses them. Parsing keeps the raw text beside the parsed value and
//! says precisely why a line is not a message, so nothing a peer sends is ever lost or rewritten.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::SharedText;
use super::json::{self as text, Json};

/// A request id: MCP allows strings and integers, never `null`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    /// An integer id, as sightline allocates them.
    Number(i64),
    /// A string id, as some peers use.
    String(String),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Number(n) => write!(f, "{n}"),
            Id::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<Id> for Value {
    fn from(id: Id) -> Self {
        match id {
            Id::Number(n) => Value::from(n),
            Id::String(s) => Value::String(s),
        }
    }
}

/// The `error` member of a JSON-RPC response, with `data` kept verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Json>,
}

/// The two ways a response can end a request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The `result` member, as received.
    Result(Json),
    /// The `error` member.
    Error(ErrorObject),
}

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A call that expects a response with the same id.
    Request {
        id: Id,
        method: String,
        params: Option<Value>,
    },
    /// A one-way message: no id, no response. Its params stay text until asked for: most
    /// notifications are only ever shown, and a flood of them must cost little more than its
    /// bytes.
    Notification {
        method: String,
        params: Option<Params>,
    },
    /// The answer to a request; `id` is `None` only for an error that could not name its request.
    Response { id: Option<Id>, reply: Reply },
}

impl Message {
    /// The JSON value of this message, members in the order JSON-RPC examples use.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("jsonrpc".into(), "2.0".into());
        match self {
            Message::Request { id, method, params } => {
                object.insert("id".into(), id.clone().into());
                object.insert("method".into(), method.clone().into());
                if let Some(params) = params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Notification { method, params } => {
                object.insert("method".into(), method.clone().into());
                if let Some(params) = params {
                    object.insert("params".into(), params.value());
                }
            }
            Message::Response { id, reply } => {
                object.insert("id".into(), id.clone().map_or(Value::Null, Value::from));
                match reply {
                    Reply::Result(result) => object.insert("result".into(), result.value()),
                    Reply::Error(error) => object.insert("error".into(), json!(error)),
                };
            }
        }
        Value::Object(object)
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            Message::Response { .. } => None,
        }
    }
}

/// The `params` of a notification as JSON text (an object or an array), parsed on demand.
#[derive(Debug, Clone)]
pub struct Params(Box<RawValue>);

impl Params {
    /// The params as JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The params parsed (`null` in the impossible case that the text is not JSON).
    pub fn value(&self) -> Value {
        serde_json::from_str(self.0.get()).unwrap_or(Value::Null)
    }
}

impl From<Value> for Params {
    fn from(value: Value) -> Self {
        let raw =
            serde_json::value::to_raw_value(&value).unwrap_or_else(|_| RawValue::NULL.to_owned());
        Params(raw)
    }
}

impl Params {
    /// Params from text known to be JSON (an object or an array).
    fn from_text(text: &str) -> Params {
        Params(RawValue::from_string(text.to_owned()).unwrap_or_else(|_| RawValue::NULL.to_owned()))
    }
}

/// Equal when they mean the same JSON (the wire's spacing aside).
impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text() || self.value() == other.value()
    }
}

/// A message together with its exact text on the wire (without the newline). Clones share it,
/// and so does a reply's `result`: a 50 MB reply is held once by the log, the session, the UI
/// and the analysis, never copied between them.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame(Arc<FrameData>);

/// What a [`Frame`] holds.
#[derive(Debug, PartialEq)]
pub struct FrameData {
    pub raw: SharedText,
    pub message: Message,
}

impl Deref for Frame {
    type Target = FrameData;

    fn deref(&self) -> &FrameData {
        &self.0
    }
}

impl Frame {
    pub fn new(raw: impl Into<String>, message: Message) -> Frame {
        Frame::shared(Arc::new(raw.into()), message)
    }

    /// A frame of text already shared (a line as read).
    pub fn shared(raw: SharedText, message: Message) -> Frame {
        Frame(Arc::new(FrameData { raw, message }))
    }

    /// The frame's text, shared.
    pub fn into_raw(self) -> SharedText {
        Arc::clone(&self.raw)
    }

    /// Serialises a message we send; the raw text is what goes on the wire.
    pub fn encode(message: Message) -> Frame {
        Frame::new(message.to_value().to_string(), message)
    }
}

/// Why a line from the peer is not a JSON-RPC message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FrameError {
    /// The bytes are not UTF-8, which MCP requires.
    #[error("not UTF-8 at byte {valid_up_to}")]
    InvalidUtf8 { valid_up_to: usize },
    /// The text is not JSON; `line` and `column` point at where it breaks.
    #[error("not JSON: {reason} at line {line} column {column}")]
    NotJson {
        reason: String,
        line: usize,
        column: usize,
    },
    /// Valid JSON that is not a JSON-RPC 2.0 message. `id` is the id it named, if readable.
    #[error("not a JSON-RPC message: {reason}")]
    NotJsonRpc { reason: String, id: Option<Id> },
    /// A line longer than the frame limit; only its length was kept.
    #[error("frame of {len} bytes exceeds the {limit}-byte limit; skipped to the next newline")]
    Oversized { len: usize, limit: usize },
}

/// Parses one line of text into a frame.
pub fn parse(raw: &str) -> Result<Frame, FrameError> {
    parse_line(Arc::new(raw.to_owned())).map_err(|(_, error)| error)
}

/// Parses a line read from the wire, keeping it as the frame's raw text without a copy; on
/// failure the line comes back beside the reason.
pub fn parse_line(raw: SharedText) -> Result<Frame, (SharedText, FrameError)> {
    if let Some(message) = notification(&raw) {
        return Ok(Frame::shared(raw, message));
    }
    if let Err(error) = text::check(&raw) {
        let error = FrameError::NotJson {
            reason: error_reason(&error),
            line: error.line(),
            column: error.column(),
        };
        return Err((raw, error));
    }
    match message_from_text(&raw) {
        Ok(message) => Ok(Frame::shared(raw, message)),
        Err(error) => Err((raw, error)),
    }
}

/// The members a notification may have; anything else is read by the general path.
#[derive(Deserialize)]
struct NotificationMembers<'a> {
    #[serde(borrow)]
    jsonrpc: Option<&'a str>,
    #[serde(borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    /// Present at all, `null` included.
    #[serde(default, deserialize_with = "present")]
    id: bool,
    #[serde(default, deserialize_with = "present")]
    result: bool,
    #[serde(default, deserialize_with = "present")]
    error: bool,
}

fn present<'de, D: serde::Deserializer<'de>>(member: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(member).map(|_| true)
}

/// The fast path for the most numerous messages: a well-formed notification, read without
/// building a JSON tree. Anything unusual (duplicate members, a non-string method, ...) is
/// left to the general path, which says what is wrong.
fn notification(raw: &str) -> Option<Message> {
    // Requests and responses name an `id`: they skip this path at the cost of a scan.
    if raw.contains(r#""id""#) {
        return None;
    }
    let members: NotificationMembers = serde_json::from_str(raw).ok()?;
    let structured = |params: &RawValue| params.get().starts_with(['{', '[']);
    match members {
        NotificationMembers {
            jsonrpc: Some("2.0"),
            method: Some(method),
            params,
            id: false,
            result: false,
            error: false,
        } if params.is_none_or(structured) => Some(Message::Notification {
            method: method.into_owned(),
            params: params.map(|params| Params(params.to_owned())),
        }),
        NotificationMembers { .. } => None,
    }
}

fn error_reason(error: &serde_json::Error) -> String {
    let text = error.to_string();
    // serde_json appends " at line L column C"; we report the position separately.
    match text.rfind(" at line ") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

/// Interprets checked JSON text as a JSON-RPC 2.0 message. Only the envelope is read: a
/// `result` or error `data` stays text, shared with `source`.
fn message_from_text(source: &SharedText) -> Result<Message, FrameError> {
    let not_rpc = |reason: &str, id: Option<Id>| FrameError::NotJsonRpc {
        reason: reason.into(),
        id,
    };
    let Some(members) = text::members(source) else {
        let reason = if source.trim_start().starts_with('[') {
            "a batch array (JSON-RPC batching was removed from MCP in 2025-06-18)"
        } else {
            "not a JSON object"
        };
        return Err(not_rpc(reason, None));
    };
    // The last of a repeated member wins, as JSON parsers keep it.
    let mut envelope = Envelope::default();
    for (key, value) in members {
        let slot = match text::string(key).as_deref() {
            Some("jsonrpc") => &mut envelope.jsonrpc,
            Some("id") => &mut envelope.id,
            Some("method") => &mut envelope.method,
            Some("params") => &mut envelope.params,
            Some("result") => &mut envelope.result,
            Some("error") => &mut envelope.error,
            _ => continue,
        };
        *slot = Some(value);
    }
    let id = match envelope.id {
        None => None,
        Some("null") => Some(None),
        Some(id) if id.starts_with('"') => Some(text::string(id).map(|s| Id::String(s.into()))),
        Some(id) if id.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']) => {
            match serde_json::from_str::<i64>(id) {
                Ok(n) => Some(Some(Id::Number(n))),
                Err(_) => return Err(not_rpc("`id` is a number that is not an integer", None)),
            }
        }
        Some(_) => return Err(not_rpc("`id` must be a string or an integer", None)),
    };
    let readable_id = id.clone().flatten();
    if envelope.jsonrpc.and_then(text::string).as_deref() != Some("2.0") {
        return Err(not_rpc("`jsonrpc` must be \"2.0\"", readable_id));
    }
    if let Some(method) = envelope.method {
        let Some(method) = text::string(method) else {
            return Err(not_rpc("`method` must be a string", readable_id));
        };
        let method = method.into_owned();
        let params = envelope.params;
        if params.is_some_and(|p| !p.starts_with(['{', '['])) {
            return Err(not_rpc(
                "`params` must be an object or an array",
                readable_id,
            ));
        }
        return match id {
            None => Ok(Message::Notification {
                method,
                params: params.map(Params::from_text),
            }),
            Some(Some(id)) => Ok(Message::Request {
                id,
                method,
                params: params.and_then(|p| serde_json::from_str(p).ok()),
            }),
            Some(None) => Err(not_rpc("a request `id` must not be null", None)),
        };
    }
    let reply = match (envelope.result, envelope.error) {
        (Some(result), None) => match Json::within(source, result) {
            Some(result) => Reply::Result(result),
            None => return Err(not_rpc("unreadable `result`", readable_id)),
        },
        (None, Some(error)) => {
            let Some(error) = error_object(source, error) else {
                let reason =
                    "`error` must be an object with an integer `code` and a string `message`";
                return Err(not_rpc(reason, readable_id));
            };
            Reply::Error(error)
        }
        (Some(_), Some(_)) => {
            return Err(not_rpc(
                "a response has both `result` and `error`",
                readable_id,
            ));
        }
        (None, None) => {
            return Err(not_rpc(
                "no `method`, `result` or `error` member",
                readable_id,
            ));
        }
    };
    match (id, &reply) {
        (None, _) => Err(not_rpc("a response must have an `id`", None)),
        (Some(None), Reply::Result(_)) => Err(not_rpc("a result must name its request `id`", None)),
        (Some(id), _) => Ok(Message::Response { id, reply }),
    }
}

/// The members of a message's envelope, as text.
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a str>,
    method: Option<&'a str>,
    params: Option<&'a str>,
    result: Option<&'a str>,
    error: Option<&'a str>,
}

/// An `error` member: an object with an integer `code` and a string `message`; `data` stays
/// text.
fn error_object(source: &SharedText, error: &str) -> Option<ErrorObject> {
    let code = text::member(error, "code")?;
    // An integer, as JSON-RPC requires: `-32602.0` or `1e3` are not error codes.
    if code.contains(['.', 'e', 'E']) {
        return None;
    }
    Some(ErrorObject {
        code: serde_json::from_str(code).ok()?,
        message: text::string(text::member(error, "message")?)?.into_owned(),
        data: match text::member(error, "data") {
            Some(data) => Some(Json::within(source, data)?),
            None => None,
        },
    })
}

/// The request id a line names, read without parsing it (for lines that cannot be parsed): the
/// value of the first `"id"` member, when it is an integer or a plain string.
pub fn scan_id(raw: &str) -> Option<Id> {
    let mut rest = raw;
    loop {
        rest = &rest[rest.find(r#""id""#)? + 4..];
        // `"id"` as a value (`"x": "id"`) is not a member: look further.
        if let Some(value) = rest.trim_start().strip_prefix(':').map(str::trim_start) {
            return id_at(value);
        }
    }
}

fn id_at(value: &str) -> Option<Id> {
    if let Some(text) = value.strip_prefix('"') {
        let end = text.find(['"', '\\'])?;
        return text[end..]
            .starts_with('"')
            .then(|| Id::String(text[..end].to_owned()));
    }
    let digits = value
        .char_indices()
        .take_while(|&(i, c)| c.is_ascii_digit() || (i == 0 && c == '-'))
        .count();
    value[..digits].parse().ok().map(Id::Number)
}

/// Standard and MCP error codes with the names the spec gives them.
pub fn error_code_name(code: i64) -> &'static str {
    match code {
        -32700 => "parse error",
        -32600 => "invalid request",
        -32601 => "method not found",
        -32602 => "invalid params",
        -32603 => "internal error",
        -32020 => "header mismatch",
        -32021 => "missing required client capability",
        -32022 => "unsupported protocol version",
        -32002 => "resource not found (legacy code)",
        -32042 => "URL elicitation required (retired)",
        _ => "server-defined",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_rpc(raw: &str) -> String {
        match parse(raw) {
            Err(FrameError::NotJsonRpc { reason, .. }) => reason,
            other => panic!("expected NotJsonRpc for {raw}, got {other:?}"),
        }
    }

    #[test]
    fn parses_each_message_kind() {
        let request = parse(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#).unwrap();
        assert_eq!(
            request.message,
            Message::Request {
                id: Id::Number(7),
                method: "tools/list".into(),
                params: None
            }
        );
        let note = parse(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#);
        assert!(matches!(
            note.unwrap().message,
            Message::Notification { .. }
        ));
        let ok = parse(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#).unwrap();
        assert_eq!(
            ok.message,
            Message::Response {
                id: Some(Id::String("a".into())),
                reply: Reply::Result(json!({}).into())
            }
        );
    }

    #[test]
    fn keeps_error_code_message_and_data() {
        let raw = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad","data":[1]}}"#;
        let frame = parse(raw).unwrap();
        let Message::Response {
            reply: Reply::Error(error),
            ..
        } = &frame.message
        else {
            panic!("not an error");
        };
        assert_eq!(
            *error,
            ErrorObject {
                code: -32602,
                message: "bad".into(),
                data: Some(json!([1]).into())
            }
        );
        assert_eq!(&*frame.raw, raw);
    }

    #[test]
    fn error_with_null_id_is_a_response_without_id() {
        let frame =
            parse(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
        assert!(matches!(frame.message, Message::Response { id: None, .. }));
    }

    #[test]
    fn rejects_what_is_not_json_rpc_with_a_reason() {
        assert!(not_rpc("[1,2]").contains("batch"));
        assert!(not_rpc("42").contains("not a JSON object"));
        assert!(not_rpc(r#"{"id":1,"result":{}}"#).contains("jsonrpc"));
        assert!(not_rpc(r#"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#).contains("both"));
        assert!(not_rpc(r#"{"jsonrpc":"2.0","id":1}"#).contains("no `method`"));
        assert!(not_rpc(r#"{"jsonrpc":"2.0","id":1.5,"result":1}"#).contains("integer"));
        assert!(not_rpc(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).contains("null"));
        assert!(not_rpc(r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#).contains("code"));
        assert!(not_rpc(r#"{"jsonrpc":"2.0","result":{}}"#).contains("`id`"));
    }

    #[test]
    fn a_malformed_reply_still_names_its_id() {
        let error = parse(r#"{"jsonrpc":"1.0","id":3,"result":{}}"#).unwrap_err();
        assert_eq!(
            error,
            FrameError::NotJsonRpc {
                reason: "`jsonrpc` must be \"2.0\"".into(),
                id: Some(Id::Number(3))
            }
        );
    }

    #[test]
    fn not_json_reports_the_position() {
        let error = parse(r#"{"jsonrpc": "2.0", "id": 1,, }"#).unwrap_err();
        let FrameError::NotJson { line, column, .. } = error else {
            panic!("{error:?}")
        };
        assert_eq!((line, column), (1, 28));
    }

    #[test]
    fn the_notification_fast_path_reads_what_the_general_path_reads() {
        let same = [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}"#,
            r#"{"method":"notifications\/progress","params":[1,{"a":"\u00e9"}],"jsonrpc":"2.0","extra":true}"#,
        ];
        for raw in same {
            let fast = notification(raw).unwrap_or_else(|| panic!("not fast: {raw}"));
            let general = message_from_text(&Arc::new(raw.to_owned())).unwrap();
            assert_eq!(fast, general, "{raw}");
            assert_eq!(fast.to_value(), general.to_value(), "{raw}");
            assert_eq!(parse(raw).unwrap().message, general);
        }
        let Some(Message::Notification { method, params }) = notification(same[2]) else {
            panic!()
        };
        assert_eq!(method, "notifications/progress");
        assert_eq!(params.unwrap().value(), json!([1, {"a": "é"}]));
        // Unusual shapes go the general way, which names what is wrong.
        let general = [
            r#"{"jsonrpc":"2.0","method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","method":7}"#,
            r#"{"jsonrpc":"2.0","method":"m","params":3}"#,
            r#"{"jsonrpc":"1.0","method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
        ];
        for raw in general {
            assert_eq!(notification(raw), None, "{raw}");
        }
        assert!(parse(general[2]).is_err());
        assert!(parse(general[3]).is_err());
        assert!(
            parse(general[5]).is_err(),
            "a null id is not a notification"
        );
    }

    #[test]
    fn an_error_member_that_is_not_an_object_is_malformed() {
        let error = parse(r#"{"jsonrpc":"2.0","id":4,"error":[-32602,"Invalid params"]}"#);
        assert_eq!(
            error.unwrap_err(),
            FrameError::NotJsonRpc {
                reason: "`error` must be an object with an integer `code` and a string `message`"
                    .into(),
                id: Some(Id::Number(4))
            }
        );
    }

    #[test]
    fn scan_id_finds_the_id_of_a_line_that_cannot_be_parsed() {
        let cases = [
            (
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"\u{1b}\"}",
                Some(Id::Number(3)),
            ),
            (
                r#"[{"jsonrpc":"2.0","id" : 12,"result":{}}]"#,
                Some(Id::Number(12)),
            ),
            (
                r#"{"id":"abc","error":{"code":1e400}}"#,
                Some(Id::String("abc".into())),
            ),
            (r#"{"id":-7,"result":{}} {"id":8}"#, Some(Id::Number(-7))),
            (r#"{"id":null,"error":{}, "params": {"id": 5}}"#, None),
            (r#"{"name":"id", "id": 5}"#, Some(Id::Number(5))),
            (r#"{"jsonrpc":"2.0","method":"x","params":{"idx":1}}"#, None),
            (r#"{"id":"a\"b"}"#, None),
            ("not json at all", None),
        ];
        for (raw, id) in cases {
            assert_eq!(scan_id(raw), id, "{raw}");
        }
    }

    #[test]
    fn encode_round_trips() {
        let message = Message::Request {
            id: Id::Number(1),
            method: "tools/call".into(),
            params: Some(json!({"name": "x", "arguments": {"b": 1, "a": 2}})),
        };
        let frame = Frame::encode(message.clone());
        assert_eq!(
            &*frame.raw,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"b":1,"a":2}}}"#
        );
        assert_eq!(parse(&frame.raw).unwrap().message, message);
    }
}
