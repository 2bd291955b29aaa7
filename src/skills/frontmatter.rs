//! A SKILL.md's YAML frontmatter (the block between its first two `---` lines) as JSON, so it
//! can be compared with the frontmatter object of its `skills/list` entry.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// The frontmatter of `text`: a mapping, as JSON; why there is none otherwise.
pub fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let block = block(text).ok_or("SKILL.md does not begin with a `---` delimited block")?;
    let documents =
        YamlLoader::load_from_str(block).map_err(|error| format!("not YAML: {error}"))?;
    match documents.into_iter().next().map(json) {
        Some(Value::Object(map)) => Ok(map),
        _ => Err("the block is not a mapping".into()),
    }
}

/// The text between a first line `---` and the next line that is `---` (trailing blanks
/// allowed), as the suite reads it.
fn block(text: &str) -> Option<&str> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line
            .trim_end_matches(['\n', '\r'])
            .trim_end_matches([' ', '\t']);
        if bare == "---" {
            return Some(rest[..at].trim_end_matches(['\n', '\r']));
        }
        at += line.len();
    }
    None
}

/// YAML as JSON: keys as text, a number as a number; what JSON cannot say becomes `null`.
fn json(yaml: Yaml) -> Value {
    match yaml {
        Yaml::String(text) => Value::String(text),
        Yaml::Integer(number) => Value::Number(number.into()),
        Yaml::Real(text) => text
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or(Value::String(text), Value::Number),
        Yaml::Boolean(flag) => Value::Bool(flag),
        Yaml::Array(items) => Value::Array(items.into_iter().map(json).collect()),
        Yaml::Hash(pairs) => Value::Object(
            pairs
                .into_iter()
                .map(|(key, value)| (key_text(key), json(value)))
                .collect(),
        ),
        Yaml::Null | Yaml::Alias(_) | Yaml::BadValue => Value::Null,
    }
}

fn key_text(key: Yaml) -> String {
    match key {
        Yaml::String(text) | Yaml::Real(text) => text,
        Yaml::Integer(number) => number.to_string(),
        Yaml::Boolean(flag) => flag.to_string(),
        other => json(other).to_string(),
    }
}

/// Whether two values are the same content: objects whatever their key order, numbers by value.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, value)| y.get(key).is_some_and(|other| same(value, other)))
        }
        _ => a == b,
    }
}
