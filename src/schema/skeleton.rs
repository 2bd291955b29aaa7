//! An argument skeleton from a tool's `inputSchema`: required properties first, placeholders
//! typed by schema, enums and descriptions listed as hints. Pure.

use serde_json::{Map, Value, json};

/// The skeleton as pretty JSON text, and one hint line per property.
pub fn skeleton(schema: Option<&Value>) -> (String, Vec<String>) {
    let Some(schema) = schema else {
        return ("{}".into(), Vec::new());
    };
    let mut hints = Vec::new();
    let value = object_skeleton(schema, "", &mut hints, 0);
    let text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "{}".into());
    (text, hints)
}

const MAX_DEPTH: usize = 4;

fn object_skeleton(schema: &Value, prefix: &str, hints: &mut Vec<String>, depth: usize) -> Value {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return json!({});
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut ordered: Vec<(&String, &Value)> = properties.iter().collect();
    // Stable: required first, each group in the schema's own order.
    ordered.sort_by_key(|(name, _)| !required.contains(&name.as_str()));
    let mut object = Map::new();
    for (name, property) in ordered {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        hints.push(hint(&path, property, required.contains(&name.as_str())));
        object.insert(name.clone(), placeholder(property, &path, hints, depth));
    }
    Value::Object(object)
}

fn placeholder(property: &Value, path: &str, hints: &mut Vec<String>, depth: usize) -> Value {
    if let Some(default) = property.get("default") {
        return default.clone();
    }
    if let Some(first) = property
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
    {
        return first.clone();
    }
    if let Some(constant) = property.get("const") {
        return constant.clone();
    }
    let kind = match property.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null")
            .unwrap_or("null"),
        _ => "",
    };
    match kind {
        "string" => json!(""),
        "integer" | "number" => property.get("minimum").cloned().unwrap_or(json!(0)),
        "boolean" => json!(false),
        "array" => json!([]),
        "object" if depth < MAX_DEPTH => object_skeleton(property, path, hints, depth + 1),
        "object" => json!({}),
        _ => Value::Null,
    }
}

fn hint(path: &str, property: &Value, required: bool) -> String {
    let mut parts = vec![path.to_owned()];
    let kind = match property.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".into(),
    };
    parts.push(if required {
        format!("{kind}, required")
    } else {
        kind
    });
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(Value::to_string).collect();
        parts.push(format!("one of {}", values.join(" | ")));
    }
    for bound in ["minimum", "maximum", "pattern", "format"] {
        if let Some(value) = property.get(bound) {
            parts.push(format!(
                "{bound} {}",
                value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned)
            ));
        }
    }
    let mut line = parts.join(" · ");
    if let Some(description) = property.get("description").and_then(Value::as_str) {
        line.push_str(" — ");
        line.push_str(description);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_first_typed_placeholders_and_hints() {
        let schema = json!({
            "type": "object",
            "properties": {
                "destination": {"type": "string"},
                "seats": {"type": "integer", "minimum": 1},
                "class": {"type": "string", "enum": ["economy", "business"]},
                "departureDate": {"type": "string", "description": "dd/mm/yyyy", "pattern": "^\\d{2}$"},
                "meta": {"type": "object", "properties": {"vip": {"type": "boolean"}}}
            },
            "required": ["departureDate", "class"]
        });
        let (text, hints) = skeleton(Some(&schema));
        let value: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["class", "departureDate", "destination", "seats", "meta"]
        );
        assert_eq!(value["class"], "economy");
        assert_eq!(value["seats"], 1);
        assert_eq!(value["meta"], json!({"vip": false}));
        assert_eq!(
            hints[0],
            r#"class · string, required · one of "economy" | "business""#
        );
        assert_eq!(
            hints[1],
            r"departureDate · string, required · pattern ^\d{2}$ — dd/mm/yyyy"
        );
        assert!(hints.contains(&"meta.vip · boolean".to_owned()));
    }

    #[test]
    fn no_schema_or_no_properties_gives_an_empty_object() {
        assert_eq!(skeleton(None).0, "{}");
        assert_eq!(skeleton(Some(&json!({"type": "object"}))).0, "{}");
    }
}
