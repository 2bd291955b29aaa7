//! Argument checks in another validator's words: sightline's validator finds the errors, and a
//! host's dialect (`checks.validator`) picks the one its validator reports and words it so.

use serde_json::Value;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, paths::Location};

/// An argument error as Ajv reports it: `instance_path` is the JSON pointer of the value
/// (empty at the root), `message` Ajv's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AjvError {
    pub instance_path: String,
    pub message: String,
}

/// What Ajv (v8, `allErrors` off, as Gemini CLI's `SchemaValidator` runs it) reports for
/// `arguments` against `schema`: the errors `errorsText` joins, first the one it stops at (for
/// `anyOf`/`oneOf`, each branch's first error and then the combinator's). Empty when they
/// conform, and when the schema cannot be compiled (Ajv's host then skips the check).
pub fn ajv(schema: &Value, arguments: &Value) -> Vec<AjvError> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    let errors: Vec<ValidationError> = validator.iter_errors(arguments).collect();
    first_in_ajv_order(schema, &errors)
        .map(|error| with_branches(schema, error))
        .unwrap_or_default()
}

/// `value` as Ajv's `coerceTypes` leaves it before checking: each scalar where the schema names
/// one scalar `type` that it is not, turned into that type where Ajv can (a number or boolean
/// into its text, `null` into `""`; a numeric text, a boolean or `null` into a number; `"true"`,
/// `"false"`, 1, 0 or `null` into a boolean), through `properties` and `items`.
pub fn ajv_coerced(schema: &Value, value: &Value) -> Value {
    match value {
        Value::Object(members) => {
            let properties = schema.get("properties");
            Value::Object(
                members
                    .iter()
                    .map(|(key, member)| {
                        let coerced = match properties.and_then(|p| p.get(key)) {
                            Some(property) => ajv_coerced(property, member),
                            None => member.clone(),
                        };
                        (key.clone(), coerced)
                    })
                    .collect(),
            )
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) if item.is_object() => {
                Value::Array(items.iter().map(|each| ajv_coerced(item, each)).collect())
            }
            _ => value.clone(),
        },
        scalar => match schema.get("type").and_then(Value::as_str) {
            Some(wanted) => coerced_scalar(wanted, scalar).unwrap_or_else(|| scalar.clone()),
            None => scalar.clone(),
        },
    }
}

/// One scalar as type `wanted`, when Ajv coerces it.
fn coerced_scalar(wanted: &str, scalar: &Value) -> Option<Value> {
    match (wanted, scalar) {
        ("string", Value::Number(number)) => Some(Value::String(number.to_string())),
        ("string", Value::Bool(flag)) => Some(Value::String(flag.to_string())),
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("number" | "integer", Value::String(text)) => {
            let number: f64 = text
                .trim()
                .parse()
                .ok()
                .filter(|_| !text.trim().is_empty())?;
            if wanted == "integer" && number.fract() != 0.0 {
                return None;
            }
            serde_json::Number::from_f64(number).map(|n| {
                // An integral value stays an integer, as JavaScript prints it.
                if number.fract() == 0.0 && number.abs() < 9.0e15 {
                    #[allow(clippy::cast_possible_truncation)]
                    Value::from(number as i64)
                } else {
                    Value::Number(n)
                }
            })
        }
        ("number" | "integer", Value::Bool(flag)) => Some(Value::from(u8::from(*flag))),
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("boolean", Value::String(text)) if text == "true" || text == "false" => {
            Some(Value::Bool(text == "true"))
        }
        ("boolean", Value::Number(number)) if number.as_f64() == Some(1.0) => {
            Some(Value::Bool(true))
        }
        ("boolean", Value::Number(number)) if number.as_f64() == Some(0.0) => {
            Some(Value::Bool(false))
        }
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        _ => None,
    }
}

/// Ajv's `errorsText`: each error as `DATA_VAR/path message`, joined by ", ".
pub fn ajv_text(errors: &[AjvError], data_var: &str) -> String {
    errors
        .iter()
        .map(|error| format!("{data_var}{} {}", error.instance_path, error.message))
        .collect::<Vec<_>>()
        .join(", ")
}

fn first_in_ajv_order<'e, 'a>(
    schema: &Value,
    errors: &'e [ValidationError<'a>],
) -> Option<&'e ValidationError<'a>> {
    errors
        .iter()
        .min_by_key(|error| ajv_rank(schema, error.schema_path()))
}

/// The error, preceded by its branches' when it is an `anyOf` or a `oneOf` no branch matched.
fn with_branches(schema: &Value, error: &ValidationError) -> Vec<AjvError> {
    let mut out = Vec::new();
    if let ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } =
        error.kind()
    {
        for branch in context {
            if let Some(first) = first_in_ajv_order(schema, branch) {
                out.extend(with_branches(schema, first));
            }
        }
    }
    out.push(AjvError {
        instance_path: error.instance_path().as_str().to_owned(),
        message: message(error),
    });
    out
}

/// Where Ajv evaluates a keyword among a schema's others: the keywords for any type first, in
/// its vocabularies' order, then those of numbers, strings, arrays and objects.
const KEYWORDS: &[&str] = &[
    "$ref",
    "const",
    "enum",
    "not",
    "anyOf",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
    // numbers
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
    // strings
    "maxLength",
    "minLength",
    "pattern",
    "format",
    // arrays
    "maxItems",
    "minItems",
    "uniqueItems",
    "prefixItems",
    "additionalItems",
    "items",
    "contains",
    // objects
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "propertyNames",
    "additionalProperties",
    "dependencies",
    "properties",
    "patternProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// The order Ajv meets the failing keyword at `path` in: at each level the keyword's place
/// (a `type` that fails is met first, or where its type's keywords are when the schema has
/// any of them), then the property's or item's place.
fn ajv_rank(schema: &Value, path: &Location) -> Vec<usize> {
    let segments: Vec<String> = path
        .as_str()
        .split('/')
        .skip(1)
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect();
    let mut rank = Vec::new();
    let mut at = schema;
    let mut i = 0;
    while let Some(keyword) = segments.get(i) {
        let place = KEYWORDS.iter().position(|k| k == keyword);
        let place = match (keyword.as_str(), place) {
            ("type", _) => type_place(at),
            (_, Some(place)) => place + 1,
            (_, None) => KEYWORDS.len() + 1,
        };
        rank.push(place);
        let next = segments.get(i + 1);
        let child = at.get(keyword);
        match (keyword.as_str(), child, next) {
            (
                "properties" | "patternProperties" | "$defs" | "definitions",
                Some(Value::Object(map)),
                Some(name),
            ) => {
                rank.push(map.keys().position(|key| key == name).unwrap_or(usize::MAX));
                at = map.get(name).unwrap_or(&Value::Null);
                i += 2;
            }
            ("required", Some(_), Some(index))
            | (
                "items" | "prefixItems" | "allOf" | "anyOf" | "oneOf",
                Some(Value::Array(_)),
                Some(index),
            ) => {
                let index: usize = index.parse().unwrap_or(usize::MAX);
                rank.push(index);
                at = child.and_then(|c| c.get(index)).unwrap_or(&Value::Null);
                i += 2;
            }
            (_, Some(child), _) => {
                at = child;
                i += 1;
            }
            (_, None, _) => i += 1,
        }
    }
    rank
}

/// Where a failing `type` is reported: before every keyword when the schema names several
/// types or has no keyword of its one type (Ajv checks it up front), else in the place of
/// that type's keywords, after the ones for any type.
fn type_place(schema: &Value) -> usize {
    let typed: &[(&str, &str)] = &[
        ("number", "maximum"),
        ("integer", "maximum"),
        ("string", "maxLength"),
        ("array", "maxItems"),
        ("object", "maxProperties"),
    ];
    let Some(Value::String(one)) = schema.get("type") else {
        return 0;
    };
    let Some((_, first)) = typed.iter().find(|(kind, _)| kind == one) else {
        return 0;
    };
    let start = KEYWORDS.iter().position(|k| k == first).unwrap_or(0);
    let group_end = match one.as_str() {
        "number" | "integer" => "maxLength",
        "string" => "maxItems",
        "array" => "maxProperties",
        _ => "unevaluatedItems",
    };
    let end = KEYWORDS
        .iter()
        .position(|k| *k == group_end)
        .unwrap_or(KEYWORDS.len());
    let has_rules = KEYWORDS[start..end]
        .iter()
        .any(|keyword| schema.get(*keyword).is_some());
    // Just before the group's first keyword: `place + 1` is a keyword's place.
    if has_rules { start } else { 0 }
}

/// Ajv's English message for one error (ajv/lib/vocabularies/*).
fn message(error: &ValidationError) -> String {
    use ValidationErrorKind as Kind;
    match error.kind() {
        Kind::Type { kind } => {
            let names: Vec<String> = match kind {
                TypeKind::Single(one) => vec![one.to_string()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
            };
            format!("must be {}", names.join(","))
        }
        Kind::Required { property } => format!(
            "must have required property '{}'",
            property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned)
        ),
        Kind::Pattern { pattern } => format!("must match pattern \"{pattern}\""),
        Kind::Format { format } => format!("must match format \"{format}\""),
        Kind::Enum { .. } => "must be equal to one of the allowed values".to_owned(),
        Kind::Constant { .. } => "must be equal to constant".to_owned(),
        Kind::MinLength { limit } => format!("must NOT have fewer than {limit} characters"),
        Kind::MaxLength { limit } => format!("must NOT have more than {limit} characters"),
        Kind::Minimum { limit } => format!("must be >= {}", number(limit)),
        Kind::Maximum { limit } => format!("must be <= {}", number(limit)),
        Kind::ExclusiveMinimum { limit } => format!("must be > {}", number(limit)),
        Kind::ExclusiveMaximum { limit } => format!("must be < {}", number(limit)),
        Kind::MultipleOf { multiple_of, .. } => {
            format!("must be multiple of {}", number(&Value::from(*multiple_of)))
        }
        Kind::MinItems { limit } => format!("must NOT have fewer than {limit} items"),
        Kind::MaxItems { limit } => format!("must NOT have more than {limit} items"),
        Kind::AdditionalItems { limit } => {
            format!("must NOT have more than {limit} items")
        }
        Kind::MinProperties { limit } => format!("must NOT have fewer than {limit} properties"),
        Kind::MaxProperties { limit } => format!("must NOT have more than {limit} properties"),
        Kind::AdditionalProperties { .. } => "must NOT have additional properties".to_owned(),
        Kind::UnevaluatedProperties { .. } => "must NOT have unevaluated properties".to_owned(),
        Kind::UniqueItems => duplicate_items(error.instance()),
        Kind::AnyOf { .. } => "must match a schema in anyOf".to_owned(),
        Kind::OneOfNotValid { .. } | Kind::OneOfMultipleValid { .. } => {
            "must match exactly one schema in oneOf".to_owned()
        }
        Kind::Not { .. } => "must NOT be valid".to_owned(),
        Kind::FalseSchema => "boolean schema is false".to_owned(),
        Kind::Contains => "must contain at least 1 valid item(s)".to_owned(),
        Kind::PropertyNames { .. } => "property name must be valid".to_owned(),
        // Nothing Ajv words alike: sightline's own words.
        _ => error.to_string(),
    }
}

/// A JSON number as JavaScript prints it: `1.0` as `1`.
fn number(value: &Value) -> String {
    match value.as_f64() {
        #[allow(clippy::cast_possible_truncation)] // only whole numbers in i64's range get here
        Some(float) if value.is_f64() && float.fract() == 0.0 && float.abs() < 9e15 => {
            (float as i64).to_string()
        }
        _ => value.to_string(),
    }
}

/// Ajv's `uniqueItems` message: the last pair of equal items it finds, scanning from the end.
fn duplicate_items(instance: &Value) -> String {
    let items = instance.as_array().map(Vec::as_slice).unwrap_or_default();
    for i in (0..items.len()).rev() {
        if let Some(j) = (0..i).rev().find(|&j| items[j] == items[i]) {
            return format!("must NOT have duplicate items (items ## {j} and {i} are identical)");
        }
    }
    "must NOT have duplicate items".to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{ajv, ajv_coerced, ajv_text};

    fn text(schema: &serde_json::Value, arguments: &serde_json::Value) -> String {
        ajv_text(&ajv(schema, arguments), "params")
    }

    #[test]
    fn errors_are_worded_and_chosen_as_ajv_reports_them() {
        let schema = json!({
            "type": "object",
            "properties": {
                "departureDate": {"type": "string", "pattern": "^\\d{2}/\\d{2}/\\d{4}$"},
                "seats": {"type": "integer", "minimum": 1.0}
            },
            "required": ["departureDate"]
        });
        assert_eq!(
            text(&schema, &json!({"destination": "Paris"})),
            "params must have required property 'departureDate'"
        );
        assert_eq!(
            text(&schema, &json!({"departureDate": "2099-12-12"})),
            "params/departureDate must match pattern \"^\\d{2}/\\d{2}/\\d{4}$\""
        );
        assert_eq!(
            text(&schema, &json!({"departureDate": 20_991_212})),
            "params/departureDate must be string"
        );
        // `required` comes before `properties` in Ajv's order.
        assert_eq!(
            text(&schema, &json!({"seats": 0})),
            "params must have required property 'departureDate'"
        );
        assert_eq!(
            text(&schema, &json!({"departureDate": "12/12/2099", "seats": 0})),
            "params/seats must be >= 1"
        );
        assert!(text(&schema, &json!({"departureDate": "12/12/2099"})).is_empty());
    }

    #[test]
    fn an_any_of_lists_each_branch_then_itself_and_a_broken_schema_checks_nothing() {
        let schema =
            json!({"properties": {"x": {"anyOf": [{"type": "string"}, {"type": "number"}]}}});
        assert_eq!(
            text(&schema, &json!({"x": true})),
            "params/x must be string, params/x must be number, params/x must match a schema in anyOf"
        );
        assert!(ajv(&json!({"type": 12}), &json!({})).is_empty());
    }

    #[test]
    fn ajv_coerces_scalars_to_the_schema_s_type_before_it_checks() {
        let schema = json!({"type": "object", "properties": {
            "date": {"type": "string", "pattern": "^\\d{2}/\\d{2}/\\d{4}$"},
            "seats": {"type": "integer"},
            "window": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
        }});
        let coerced = ajv_coerced(
            &schema,
            &json!({"date": 20_991_212, "seats": "2", "window": "true", "tags": [1, true], "other": 5}),
        );
        assert_eq!(
            coerced,
            json!({"date": "20991212", "seats": 2, "window": true, "tags": ["1", "true"], "other": 5})
        );
        // Not coercible: kept, and reported as the type it is not.
        assert_eq!(
            ajv_coerced(&schema, &json!({"seats": "two"}))["seats"],
            "two"
        );
        assert_eq!(
            ajv_coerced(&schema, &json!({"seats": "2.5"}))["seats"],
            "2.5"
        );
        // Checked after coercion, the number is a text that breaks the pattern.
        let errors = ajv(&schema, &coerced);
        assert_eq!(
            ajv_text(&errors, "params"),
            "params/date must match pattern \"^\\d{2}/\\d{2}/\\d{4}$\""
        );
    }
}
