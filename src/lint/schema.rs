//! The schema walk: the spellings clients refuse or mishandle, node by node.

use serde_json::{Map, Value};

use super::Rule;

/// Keywords that constrain an instance; anything else only annotates it.
const CONSTRAINING: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "items",
    "prefixItems",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentSchemas",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "$ref",
    "$dynamicRef",
];

/// Keywords whose value may be a bare boolean: `"additionalProperties": false` is ordinary.
const BOOLEAN_VALUED: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];

/// Keywords holding one subschema, a list of them, or a map of them.
const ONE: &[&str] = &[
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// JSON Schema's type names: a `type` array of these is a union.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// Deeper than this the walk stops: a schema is data from the server.
const MAX_DEPTH: usize = 64;

pub(super) fn walk(
    node: &Value,
    path: &str,
    keyword: Option<&str>,
    depth: usize,
    emit: &mut impl FnMut(Rule, String, String),
) {
    if depth > MAX_DEPTH {
        return;
    }
    let object = match node {
        Value::Bool(value) => {
            if !keyword.is_some_and(|keyword| BOOLEAN_VALUED.contains(&keyword)) {
                let instead = if *value {
                    "the type the value really has (`{}` says the same to a validator)"
                } else {
                    "`{\"not\": {}}`"
                };
                emit(
                    Rule::BooleanSchema,
                    path.to_owned(),
                    format!("a bare `{value}` where a schema object is expected; write {instead}"),
                );
            }
            return;
        }
        Value::Object(object) => object,
        _ => return,
    };
    lint_node(object, path, keyword, emit);
    for (key, tail, child) in subschemas(object) {
        walk(child, &format!("{path}{tail}"), Some(key), depth + 1, emit);
    }
}

/// A schema object's subschemas: each with the keyword it stands under and its path's tail.
fn subschemas(object: &Map<String, Value>) -> Vec<(&'static str, String, &Value)> {
    let mut found = Vec::new();
    for key in MAP {
        if let Some(Value::Object(map)) = object.get(*key) {
            found.extend(
                map.iter()
                    .map(|(name, child)| (*key, format!(".{key}.{name}"), child)),
            );
        }
    }
    for key in LIST.iter().chain(ONE) {
        match object.get(*key) {
            Some(Value::Array(list)) if LIST.contains(key) || *key == "items" => found.extend(
                list.iter()
                    .enumerate()
                    .map(|(index, child)| (*key, format!(".{key}[{index}]"), child)),
            ),
            Some(child) if ONE.contains(key) => found.push((*key, format!(".{key}"), child)),
            _ => {}
        }
    }
    found
}

/// The rules one schema object breaks by itself.
fn lint_node(
    object: &Map<String, Value>,
    path: &str,
    keyword: Option<&str>,
    emit: &mut impl FnMut(Rule, String, String),
) {
    if let Some(Value::Array(types)) = object.get("type")
        && !types.is_empty()
        && types
            .iter()
            .all(|entry| entry.as_str().is_some_and(|name| TYPES.contains(&name)))
    {
        emit(
            Rule::TypeUnion,
            path.to_owned(),
            format!(
                "`type` is an array ({}): several clients read `type` as one string and drop \
                 the constraint or refuse the tool; write `anyOf` branches",
                Value::Array(types.clone())
            ),
        );
    }
    if let Some(Value::String(reference)) = object.get("$ref")
        && !reference.is_empty()
        && !reference.starts_with('#')
    {
        emit(
            Rule::RemoteRef,
            path.to_owned(),
            format!(
                "`$ref` points outside the document ({reference}): clients do not fetch it; \
                 inline it or move it into `$defs`"
            ),
        );
    }
    let constrains = object
        .keys()
        .any(|key| CONSTRAINING.contains(&key.as_str()))
        || (object.contains_key("if")
            && (object.contains_key("then") || object.contains_key("else")));
    if !constrains && keyword != Some("not") {
        emit(
            Rule::UntypedSchema,
            path.to_owned(),
            "no validation keyword: it accepts any value (the object spelling of a bare \
             `true`), which some clients refuse or mishandle; give it its type"
                .into(),
        );
    }
    if let Some(Value::Array(required)) = object.get("required") {
        let defined = object.get("properties").and_then(Value::as_object);
        for name in required.iter().filter_map(Value::as_str) {
            if !defined.is_some_and(|properties| properties.contains_key(name)) {
                emit(
                    Rule::RequiredUndefined,
                    format!("{path}.required"),
                    format!(
                        "'{name}' is required but `properties` does not define it: a host that \
                         builds a form or a function signature from the schema cannot offer it"
                    ),
                );
            }
        }
    }
}
