//! An elicitation form, pure: its fields built from the server's `requestedSchema` (defaults
//! filled in), edited by the panel's keys, the `content` accepting sends, and what each field's
//! value breaks of its schema.

use serde_json::{Map, Value};

use super::ask_check::{self, Numeric, Rules};

/// One field of an elicitation form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub title: String,
    pub required: bool,
    pub value: FieldValue,
    /// What the schema asks of the value beyond its type.
    pub rules: Rules,
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

impl Field {
    /// What is wrong with the value against its schema, in a few words; `None` when it conforms.
    pub fn problem(&self) -> Option<String> {
        match &self.value {
            FieldValue::Text { text, numeric } => {
                ask_check::text_problem(text, *numeric, self.required, &self.rules)
            }
            FieldValue::Many { chosen, .. } => {
                ask_check::count_problem(chosen.iter().filter(|on| **on).count(), &self.rules)
            }
            FieldValue::Choice { options, .. } if options.is_empty() => {
                Some("the server offers no choice".to_owned())
            }
            FieldValue::Bool(_) | FieldValue::Choice { .. } => None,
        }
    }
}

impl FieldValue {
    pub(super) fn key(&mut self, key: PanelKey) {
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
    pub(super) fn json(&self) -> Option<Value> {
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
pub(super) fn content(fields: &[Field]) -> Value {
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
            rules: Rules::of(property),
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
