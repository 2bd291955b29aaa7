//! The input-request panel, pure: what the server asks (an elicitation form built from its
//! `requestedSchema`, a URL, a sampling request, roots) as fields the user edits, and the answer
//! they make. Nothing is sent until the user says so; a URL is never opened.

use serde_json::{Map, Value, json};

use crate::mcp::input::{Answer, InputRequest};
use crate::mcp::jsonrpc::ErrorObject;

/// A question on screen, and what the user has made of it so far.
#[derive(Debug, Clone, PartialEq)]
pub struct AskPanel {
    /// The number the answer goes back under.
    pub number: u64,
    pub request: InputRequest,
    pub kind: AskKind,
    /// The field the keys act on (forms).
    pub selected: usize,
    /// What accepting sends, compact, for review: made when the panel changes, not when drawn.
    pub preview: String,
}

/// What is asked.
#[derive(Debug, Clone, PartialEq)]
pub enum AskKind {
    /// Elicitation, form mode: the fields of `requestedSchema`.
    Form { message: String, fields: Vec<Field> },
    /// Elicitation, URL mode: the user consents (or not) to go there; sightline never opens it.
    Url {
        message: String,
        url: String,
        host: String,
    },
    /// Sampling: the conversation, and the reply the user types as the model.
    Sample {
        messages: Vec<String>,
        reply: String,
    },
    /// Roots: the ones `--root` gave, shown before they are sent.
    Roots { roots: Vec<String> },
}

/// One field of an elicitation form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub title: String,
    pub required: bool,
    pub value: FieldValue,
}

/// A field's value as edited.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// A string, or a number typed as text (`numeric`: integer or number).
    Text {
        text: String,
        numeric: Option<Numeric>,
    },
    Bool(bool),
    /// One of `options` (value, title).
    Choice {
        options: Vec<(String, String)>,
        at: usize,
    },
    /// Any of `options`; `at` is the option the keys act on.
    Many {
        options: Vec<(String, String)>,
        chosen: Vec<bool>,
        at: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numeric {
    Integer,
    Number,
}

/// A key the panel understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PanelKey {
    Up,
    Down,
    Left,
    Right,
    /// Space: toggle a boolean or a multi-select option; next option of a choice.
    Toggle,
    Char(char),
    Backspace,
}

impl AskPanel {
    /// The panel for `request`; `proposed` is what sightline would answer without the user
    /// (the roots it would give come from there).
    pub fn new(number: u64, request: InputRequest, proposed: &Answer) -> Self {
        let params = &request.params;
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let kind = match request.method.as_str() {
            "elicitation/create" if params.get("mode").and_then(Value::as_str) == Some("url") => {
                let url = params
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                AskKind::Url {
                    message,
                    url: url.to_owned(),
                    host: host_of(url),
                }
            }
            "elicitation/create" => AskKind::Form {
                message,
                fields: fields(params.get("requestedSchema").unwrap_or(&Value::Null)),
            },
            "sampling/createMessage" => AskKind::Sample {
                messages: conversation(params),
                reply: String::new(),
            },
            _ => AskKind::Roots {
                roots: proposed_roots(proposed),
            },
        };
        let mut panel = Self {
            number,
            request,
            kind,
            selected: 0,
            preview: String::new(),
        };
        panel.preview = panel.describe_accept();
        panel
    }

    /// Applies one key.
    pub fn key(&mut self, key: PanelKey) {
        self.apply(key);
        self.preview = self.describe_accept();
    }

    fn apply(&mut self, key: PanelKey) {
        match &mut self.kind {
            AskKind::Form { fields, .. } => {
                let last = fields.len().saturating_sub(1);
                match key {
                    PanelKey::Up => self.selected = self.selected.saturating_sub(1),
                    PanelKey::Down => self.selected = (self.selected + 1).min(last),
                    key => {
                        if let Some(field) = fields.get_mut(self.selected) {
                            field.value.key(key);
                        }
                    }
                }
            }
            AskKind::Sample { reply, .. } => match key {
                PanelKey::Char(c) => reply.push(c),
                PanelKey::Toggle => reply.push(' '),
                PanelKey::Backspace => {
                    reply.pop();
                }
                _ => {}
            },
            AskKind::Url { .. } | AskKind::Roots { .. } => {}
        }
    }

    /// What "accept" (Enter) sends.
    pub fn accept(&self) -> Answer {
        match &self.kind {
            AskKind::Form { fields, .. } => {
                Answer::Result(json!({"action": "accept", "content": content(fields)}))
            }
            AskKind::Url { .. } => Answer::Result(json!({"action": "accept"})),
            AskKind::Sample { reply, .. } => {
                let text = if reply.trim().is_empty() {
                    CANNED_REPLY
                } else {
                    reply.as_str()
                };
                Answer::Result(json!({
                    "role": "assistant",
                    "content": {"type": "text", "text": text},
                    "model": "sightline (typed by the user)",
                    "stopReason": "endTurn",
                }))
            }
            AskKind::Roots { roots } if !roots.is_empty() => Answer::Result(json!({
                "roots": roots.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>(),
            })),
            AskKind::Roots { .. } => refusal(-32601, "roots/list: no --root was given"),
        }
    }

    /// What "decline" (Ctrl-D) sends: an elicitation declined, anything else refused.
    pub fn decline(&self) -> Answer {
        match &self.kind {
            AskKind::Form { .. } | AskKind::Url { .. } => {
                Answer::Result(json!({"action": "decline"}))
            }
            AskKind::Sample { .. } => refusal(-1, "the user declined to sample"),
            AskKind::Roots { .. } => refusal(-1, "the user declined to share roots"),
        }
    }

    /// What "cancel" (Esc) sends: an elicitation dismissed, anything else refused.
    pub fn cancel(&self) -> Answer {
        match &self.kind {
            AskKind::Form { .. } | AskKind::Url { .. } => {
                Answer::Result(json!({"action": "cancel"}))
            }
            AskKind::Sample { .. } | AskKind::Roots { .. } => self.decline(),
        }
    }

    /// The answer accepting sends, compact.
    fn describe_accept(&self) -> String {
        match self.accept() {
            Answer::Result(result) => result.to_string(),
            Answer::Refused(error) => format!("refused: {}", error.message),
        }
    }
}

/// The root URIs of a proposed `roots/list` answer.
fn proposed_roots(proposed: &Answer) -> Vec<String> {
    let Answer::Result(result) = proposed else {
        return Vec::new();
    };
    result
        .get("roots")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|root| Some(root.get("uri")?.as_str()?.to_owned()))
        .collect()
}

/// The sampling reply sent when the user types none.
pub const CANNED_REPLY: &str = "I have nothing to add.";

fn refusal(code: i64, message: &str) -> Answer {
    Answer::Refused(ErrorObject {
        code,
        message: message.to_owned(),
        data: None,
    })
}

impl FieldValue {
    fn key(&mut self, key: PanelKey) {
        match self {
            FieldValue::Text { text, numeric } => match key {
                PanelKey::Char(c)
                    if numeric.is_none() || c.is_ascii_digit() || "-+.eE".contains(c) =>
                {
                    text.push(c);
                }
                PanelKey::Toggle if numeric.is_none() => text.push(' '),
                PanelKey::Backspace => {
                    text.pop();
                }
                _ => {}
            },
            FieldValue::Bool(on) => {
                if matches!(key, PanelKey::Toggle | PanelKey::Left | PanelKey::Right) {
                    *on = !*on;
                }
            }
            FieldValue::Choice { options, at } => {
                let count = options.len().max(1);
                match key {
                    PanelKey::Right | PanelKey::Toggle => *at = (*at + 1) % count,
                    PanelKey::Left => *at = (*at + count - 1) % count,
                    _ => {}
                }
            }
            FieldValue::Many {
                options,
                chosen,
                at,
            } => match key {
                PanelKey::Right => *at = (*at + 1).min(options.len().saturating_sub(1)),
                PanelKey::Left => *at = at.saturating_sub(1),
                PanelKey::Toggle => {
                    if let Some(on) = chosen.get_mut(*at) {
                        *on = !*on;
                    }
                }
                _ => {}
            },
        }
    }

    /// The JSON value sent; `None` leaves the field out (empty text, or a number that is not
    /// one: the server's validation decides).
    fn json(&self) -> Option<Value> {
        match self {
            FieldValue::Text { text, numeric } if text.is_empty() && numeric.is_some() => None,
            FieldValue::Text {
                text,
                numeric: None,
            } => Some(Value::String(text.clone())),
            FieldValue::Text {
                text,
                numeric: Some(_),
            } => serde_json::from_str(text).ok(),
            FieldValue::Bool(on) => Some(Value::Bool(*on)),
            FieldValue::Choice { options, at } => options
                .get(*at)
                .map(|(value, _)| Value::String(value.clone())),
            FieldValue::Many {
                options, chosen, ..
            } => Some(Value::Array(
                options
                    .iter()
                    .zip(chosen)
                    .filter(|(_, on)| **on)
                    .map(|((value, _), _)| Value::String(value.clone()))
                    .collect(),
            )),
        }
    }

    /// The value as the panel shows it.
    pub fn shown(&self) -> String {
        match self {
            FieldValue::Text { text, .. } => format!("{text}▏"),
            FieldValue::Bool(on) => if *on { "[x] yes" } else { "[ ] no" }.to_owned(),
            FieldValue::Choice { options, at } => options
                .iter()
                .enumerate()
                .map(|(i, (_, title))| {
                    if i == *at {
                        format!("‹{title}›")
                    } else {
                        title.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
            FieldValue::Many {
                options,
                chosen,
                at,
            } => options
                .iter()
                .zip(chosen)
                .enumerate()
                .map(|(i, ((_, title), on))| {
                    let mark = if *on { "[x]" } else { "[ ]" };
                    if i == *at {
                        format!("‹{mark} {title}›")
                    } else {
                        format!("{mark} {title}")
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// The `content` of an accepted form: every field with a value (an optional text left empty
/// is left out, not sent as "").
fn content(fields: &[Field]) -> Value {
    let content: Map<String, Value> = fields
        .iter()
        .filter(|field| {
            field.required
                || !matches!(&field.value, FieldValue::Text { text, .. } if text.is_empty())
        })
        .filter_map(|field| Some((field.name.clone(), field.value.json()?)))
        .collect();
    Value::Object(content)
}

/// The fields of a flat elicitation schema, defaults filled in.
pub fn fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| Field {
            name: name.clone(),
            title: property
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or(name)
                .to_owned(),
            required: required.contains(&name.as_str()),
            value: value_of(property),
        })
        .collect()
}

fn value_of(property: &Value) -> FieldValue {
    let default = property.get("default");
    let kind = property
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    match kind {
        "boolean" => FieldValue::Bool(default.and_then(Value::as_bool).unwrap_or(false)),
        "array" => {
            let items = property.get("items").unwrap_or(&Value::Null);
            let options = options(items);
            let defaults: Vec<&str> = default
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let chosen = options
                .iter()
                .map(|(value, _)| defaults.contains(&value.as_str()))
                .collect();
            FieldValue::Many {
                options,
                chosen,
                at: 0,
            }
        }
        _ => {
            let options = options(property);
            if !options.is_empty() {
                let wanted = default.and_then(Value::as_str);
                let at = options
                    .iter()
                    .position(|(value, _)| Some(value.as_str()) == wanted)
                    .unwrap_or(0);
                return FieldValue::Choice { options, at };
            }
            let numeric = match kind {
                "integer" => Some(Numeric::Integer),
                "number" => Some(Numeric::Number),
                _ => None,
            };
            let text = match default {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Number(number)) => number.to_string(),
                _ => String::new(),
            };
            FieldValue::Text { text, numeric }
        }
    }
}

/// The choices of an enum schema: `enum` (titles from `enumNames` when given), or `oneOf` /
/// `anyOf` of `{const, title}`.
fn options(schema: &Value) -> Vec<(String, String)> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .filter_map(|(i, value)| {
                let value = value.as_str()?.to_owned();
                let title = names
                    .and_then(|names| names.get(i)?.as_str())
                    .map_or_else(|| value.clone(), str::to_owned);
                Some((value, title))
            })
            .collect();
    }
    schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)
        .map(|choices| {
            choices
                .iter()
                .filter_map(|choice| {
                    let value = choice.get("const")?.as_str()?.to_owned();
                    let title = choice
                        .get("title")
                        .and_then(Value::as_str)
                        .map_or_else(|| value.clone(), str::to_owned);
                    Some((value, title))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The conversation of a sampling request, a line per message.
fn conversation(params: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(system) = params.get("systemPrompt").and_then(Value::as_str) {
        lines.push(format!("system: {system}"));
    }
    for message in params
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
        let text = message
            .pointer("/content/text")
            .and_then(Value::as_str)
            .map_or_else(|| "(not text)".to_owned(), str::to_owned);
        lines.push(format!("{role}: {text}"));
    }
    lines
}

/// The host of a URL, shown on its own so that the user sees where it goes.
fn host_of(url: &str) -> String {
    url.split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default()
        .rsplit('@')
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nothing given in advance.
    fn none() -> Answer {
        refusal(-32601, "nothing given")
    }

    fn form(schema: &Value) -> AskPanel {
        let request = InputRequest {
            key: None,
            method: "elicitation/create".into(),
            params: json!({"message": "Book?", "requestedSchema": schema}),
        };
        AskPanel::new(1, request, &none())
    }

    #[test]
    fn every_field_type_starts_at_its_default_and_is_edited_by_keys() {
        let mut panel = form(&json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "Ada"},
            "count": {"type": "integer", "default": 2},
            "agree": {"type": "boolean", "default": true},
            "seat": {"type": "string", "enum": ["window", "aisle"], "enumNames": ["Window", "Aisle"], "default": "aisle"},
            "color": {"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}]},
            "extras": {"type": "array", "items": {"anyOf": [{"const": "bag", "title": "Bag"}, {"const": "meal", "title": "Meal"}]}, "default": ["meal"]},
        }, "required": ["name"]}));
        assert_eq!(
            panel.accept(),
            Answer::Result(json!({"action": "accept", "content": {
                "name": "Ada", "count": 2, "agree": true, "seat": "aisle", "color": "#f00", "extras": ["meal"],
            }}))
        );
        // name: type; count: digits only; agree: toggle; seat: cycle; color: left wraps;
        // extras: move to bag and choose it.
        for key in [
            PanelKey::Char('!'),
            PanelKey::Down,
            PanelKey::Backspace,
            PanelKey::Char('x'),
            PanelKey::Char('5'),
        ] {
            panel.key(key);
        }
        for key in [
            PanelKey::Down,
            PanelKey::Toggle,
            PanelKey::Down,
            PanelKey::Right,
            PanelKey::Down,
            PanelKey::Left,
        ] {
            panel.key(key);
        }
        for key in [
            PanelKey::Down,
            PanelKey::Left,
            PanelKey::Toggle,
            PanelKey::Down,
        ] {
            panel.key(key);
        }
        assert_eq!(
            panel.accept(),
            Answer::Result(json!({"action": "accept", "content": {
                "name": "Ada!", "count": 5, "agree": false, "seat": "window", "color": "#0f0", "extras": ["bag", "meal"],
            }}))
        );
        let AskKind::Form { fields, .. } = &panel.kind else {
            panic!()
        };
        assert!(fields[0].required && !fields[1].required);
        assert_eq!(fields[3].value.shown(), "‹Window› Aisle");
        assert_eq!(
            panel.decline(),
            Answer::Result(json!({"action": "decline"}))
        );
        assert_eq!(panel.cancel(), Answer::Result(json!({"action": "cancel"})));
    }

    #[test]
    fn a_url_shows_its_host_and_accepting_sends_no_content() {
        let request = InputRequest {
            key: None,
            method: "elicitation/create".into(),
            params: json!({"mode": "url", "message": "Pay", "url": "https://user@pay.example.com:8443/checkout?ref=1"}),
        };
        let panel = AskPanel::new(2, request, &none());
        let AskKind::Url { host, .. } = &panel.kind else {
            panic!()
        };
        assert_eq!(host, "pay.example.com:8443");
        assert_eq!(panel.accept(), Answer::Result(json!({"action": "accept"})));
    }

    #[test]
    fn sampling_sends_what_the_user_typed_or_the_canned_reply() {
        let request = InputRequest {
            key: None,
            method: "sampling/createMessage".into(),
            params: json!({"systemPrompt": "Be brief.", "messages": [{"role": "user", "content": {"type": "text", "text": "Sum up"}}]}),
        };
        let mut panel = AskPanel::new(3, request, &none());
        let AskKind::Sample { messages, .. } = &panel.kind else {
            panic!()
        };
        assert_eq!(messages, &["system: Be brief.", "user: Sum up"]);
        let Answer::Result(canned) = panel.accept() else {
            panic!()
        };
        assert_eq!(canned["content"]["text"], CANNED_REPLY);
        for c in "Fine".chars() {
            panel.key(PanelKey::Char(c));
        }
        let Answer::Result(typed) = panel.accept() else {
            panic!()
        };
        assert_eq!(typed["content"]["text"], "Fine");
        assert!(matches!(panel.decline(), Answer::Refused(_)));
    }

    #[test]
    fn roots_are_the_given_ones_or_a_refusal() {
        let request = InputRequest {
            key: None,
            method: "roots/list".into(),
            params: Value::Null,
        };
        let proposed = Answer::Result(json!({"roots": [{"uri": "file:///a"}]}));
        let given = AskPanel::new(4, request.clone(), &proposed);
        assert_eq!(
            given.accept(),
            Answer::Result(json!({"roots": [{"uri": "file:///a"}]}))
        );
        assert!(matches!(
            AskPanel::new(5, request, &none()).accept(),
            Answer::Refused(_)
        ));
    }
}
