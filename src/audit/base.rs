//! The arguments every audit case starts from, pure: a value for each required property that
//! its own schema allows (its `const`, `default`, first `enum` or `examples` value, a string
//! its pattern matches, a future date in the format its description names, a number within
//! its bounds), local `$ref`s followed.

use serde_json::{Map, Value, json};

/// How deep nested objects are planned into.
pub(super) const MAX_DEPTH: usize = 3;
/// `$ref` hops followed before a schema is taken as it is.
const MAX_REFS: usize = 16;

/// A number as JSON, whole numbers written as integers (`1`, not `1.0`: a server checking for
/// an integer may refuse the other).
#[allow(clippy::cast_possible_truncation)] // a whole number well inside i64
pub(super) fn whole(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        json!(value)
    }
}

pub(super) fn declared_types(property: &Value) -> Vec<&str> {
    match property.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

pub(super) fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `schema` with its local `$ref`s followed (`#`, `#/$defs/…`, `#/definitions/…`, any JSON
/// pointer into the root); a network `$ref` is never followed.
pub(super) fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..MAX_REFS {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
            return schema;
        };
        let Some(pointer) = reference.strip_prefix('#') else {
            return schema;
        };
        match root.pointer(pointer) {
            Some(target) => schema = target,
            None => return schema,
        }
    }
    schema
}

/// Arguments that satisfy `schema` as far as they can be built: its required properties, each
/// a value its own schema allows.
pub(super) fn valid_object(root: &Value, schema: &Value, depth: usize) -> Value {
    let schema = resolve(root, schema);
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut object = Map::new();
    for name in required(schema) {
        let property = properties
            .and_then(|p| p.get(&name))
            .unwrap_or(&Value::Null);
        object.insert(name, valid_value(root, property, depth));
    }
    Value::Object(object)
}

fn valid_value(root: &Value, property: &Value, depth: usize) -> Value {
    let property = resolve(root, property);
    for key in ["const", "default"] {
        if let Some(value) = property.get(key) {
            return value.clone();
        }
    }
    for key in ["enum", "examples"] {
        if let Some(first) = property
            .get(key)
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return first.clone();
        }
    }
    let types = declared_types(property);
    match types
        .iter()
        .find(|kind| **kind != "null")
        .copied()
        .unwrap_or("")
    {
        "string" => json!(valid_string(property)),
        "integer" => whole(valid_number(property, true)),
        "number" => json!(valid_number(property, false)),
        "boolean" => json!(false),
        "array" => {
            let count = property
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(8);
            let item = property.get("items").unwrap_or(&Value::Null);
            Value::Array(
                (0..count)
                    .map(|_| valid_value(root, item, depth + 1))
                    .collect(),
            )
        }
        "object" if depth < MAX_DEPTH => valid_object(root, property, depth + 1),
        "object" => json!({}),
        "null" => Value::Null,
        // No type: a string is the likeliest to be accepted.
        _ => json!("sightline"),
    }
}

fn valid_string(property: &Value) -> String {
    let by_format = match property.get("format").and_then(Value::as_str) {
        Some("date") => Some("2030-01-01"),
        Some("date-time") => Some("2030-01-01T00:00:00Z"),
        Some("time") => Some("12:00:00Z"),
        Some("email") => Some("user@example.com"),
        Some("uri" | "url" | "iri") => Some("https://example.com/"),
        Some("uuid") => Some("123e4567-e89b-42d3-a456-426614174000"),
        Some("ipv4") => Some("192.0.2.1"),
        Some("ipv6") => Some("2001:db8::1"),
        Some("hostname") => Some("example.com"),
        _ => None,
    };
    if let Some(text) = by_format {
        return text.into();
    }
    // A date the description names the format of: one in the future, as a server that checks
    // it ("must be in the future") accepts, when the schema takes it.
    if let Some(date) = described_date(property) {
        return date;
    }
    if let Some(text) = property
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(matching_string)
    {
        return text;
    }
    let min = property
        .get("minLength")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .min(64);
    "x".repeat(usize::try_from(min).unwrap_or(1))
}

/// Date formats a description may name, and a future date in each.
const DATE_FORMATS: [(&str, &str); 6] = [
    ("dd/mm/yyyy", "25/12/2099"),
    ("mm/dd/yyyy", "12/25/2099"),
    ("yyyy-mm-dd", "2099-12-25"),
    ("dd-mm-yyyy", "25-12-2099"),
    ("dd.mm.yyyy", "25.12.2099"),
    ("yyyy/mm/dd", "2099/12/25"),
];

/// A future date in the format the property's description names, if it names one and the
/// property's own schema (its pattern) takes the date.
fn described_date(property: &Value) -> Option<String> {
    let description = property.get("description")?.as_str()?.to_lowercase();
    let (_, date) = DATE_FORMATS
        .iter()
        .find(|(format, _)| description.contains(format))?;
    let string = serde_json::json!({"type": "string"});
    let schema = match property.get("pattern") {
        Some(pattern) => serde_json::json!({"type": "string", "pattern": pattern}),
        None => string,
    };
    let fits = jsonschema::validator_for(&schema)
        .is_ok_and(|validator| validator.is_valid(&Value::from(*date)));
    fits.then(|| (*date).to_owned())
}

fn valid_number(property: &Value, integer: bool) -> f64 {
    let low = property.get("minimum").and_then(Value::as_f64);
    let exclusive_low = property.get("exclusiveMinimum").and_then(Value::as_f64);
    let high = property.get("maximum").and_then(Value::as_f64);
    let start = match (low, exclusive_low) {
        (Some(low), _) => low,
        (None, Some(low)) => low + 1.0,
        (None, None) => high.map_or(1.0, |high| high.min(1.0)),
    };
    if integer { start.ceil() } else { start }
}

/// A string that `pattern` matches, built from its syntax (the first choice of each part);
/// `None` for patterns this cannot read (look-around, back-references).
fn matching_string(pattern: &str) -> Option<String> {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn build(hir: &Hir, out: &mut String) -> Option<()> {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(literal) => out.push_str(std::str::from_utf8(&literal.0).ok()?),
            HirKind::Class(Class::Unicode(class)) => out.push(class.ranges().first()?.start()),
            HirKind::Class(Class::Bytes(class)) => {
                out.push(char::from(class.ranges().first()?.start()));
            }
            // `x*` and `x?` add nothing; `x{2,}` adds two.
            HirKind::Repetition(repetition) => {
                for _ in 0..repetition.min {
                    build(&repetition.sub, out)?;
                }
            }
            HirKind::Capture(capture) => build(&capture.sub, out)?,
            HirKind::Concat(parts) => parts.iter().try_for_each(|part| build(part, out))?,
            HirKind::Alternation(choices) => build(choices.first()?, out)?,
        }
        Some(())
    }
    let hir = regex_syntax::Parser::new().parse(pattern).ok()?;
    let mut text = String::new();
    build(&hir, &mut text)?;
    // An unanchored pattern matches anywhere: the text built is still a match.
    Some(text)
}
