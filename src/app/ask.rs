//! The input-request panel, pure: what the server asks (an elicitation form built from its
//! `requestedSchema`, a URL, a sampling request, roots) as fields the user edits, and the answer
//! they make. Nothing is sent until the user says so; a URL is never opened.

use serde_json::{Value, json};

pub use super::ask_check::Numeric;
use super::ask_form::content;
pub use super::ask_form::{Field, FieldValue, PanelKey, fields};
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
    /// What breaks the form's schema: the field and why, made when the panel changes.
    pub problems: Vec<(usize, String)>,
    /// Accepting was refused once for these problems: accepting again sends anyway.
    pub warned: bool,
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
            problems: Vec::new(),
            warned: false,
        };
        panel.changed();
        panel
    }

    /// Applies one key.
    pub fn key(&mut self, key: PanelKey) {
        self.apply(key);
        // A change is a new answer: its problems are said again before it is sent anyway.
        if !matches!(key, PanelKey::Up | PanelKey::Down) {
            self.warned = false;
        }
        self.changed();
    }

    fn changed(&mut self) {
        self.preview = self.describe_accept();
        self.problems = match &self.kind {
            AskKind::Form { fields, .. } => fields
                .iter()
                .enumerate()
                .filter_map(|(i, field)| Some((i, field.problem()?)))
                .collect(),
            AskKind::Url { .. } | AskKind::Sample { .. } | AskKind::Roots { .. } => Vec::new(),
        };
    }

    /// Whether accepting now should stop to say what is wrong first: the form breaks its
    /// schema and the user has not been told yet.
    pub fn holds_back(&self) -> bool {
        !self.problems.is_empty() && !self.warned
    }

    /// The problem of field `index`, if any.
    pub fn problem_of(&self, index: usize) -> Option<&str> {
        self.problems
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, why)| why.as_str())
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
