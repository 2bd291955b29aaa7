//! The arguments every audit case starts from, pure: a value for each required property that
//! its own schema allows, the whole checked against the tool's schema, or why none can be built.

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

/// How deep nested objects are built into the base.
const MAX_BASE_DEPTH: usize = 8;
/// Values tried for one property (its enum and examples, at most this many of each).
const MAX_CANDIDATES: usize = 16;

/// Arguments that satisfy the whole of `schema`: each required property (nested objects too) a
/// value its own schema allows, and the whole checked against the tool's schema by the same
/// validator the cases are. `Err` says why no such arguments could be built (`pattern '^…$'
/// for 'code' could not be satisfied`): the audit then plans nothing for the tool rather than
/// start its cases from a guess.
pub(super) fn base(schema: &Value) -> Result<Value, String> {
    let whole = checker(schema);
    let builder = Builder { root: schema };
    let arguments = builder.object(schema, &[], 0)?;
    // A schema the validator cannot compile (a `$ref` out of the document that no required
    // property uses) is judged property by property only.
    if let Ok(validator) = whole
        && let Some(error) = validator.iter_errors(&arguments).next()
    {
        let at = error.instance_path().to_string();
        let at = if at.is_empty() {
            String::new()
        } else {
            format!(" at '{}'", at.trim_start_matches('/').replace('/', "."))
        };
        return Err(format!(
            "the arguments built fail the inputSchema{at}: {error}"
        ));
    }
    Ok(arguments)
}

/// A validator of `schema` with formats checked, as the cases are checked.
pub(super) fn checker(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|error| error.to_string())
}

struct Builder<'a> {
    root: &'a Value,
}

impl<'a> Builder<'a> {
    /// `schema` with its `$ref`s followed; `Err` for one that leaves the document or points
    /// at nothing.
    fn resolve(&self, mut schema: &'a Value, label: &str) -> Result<&'a Value, String> {
        for _ in 0..MAX_REFS {
            let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
                return Ok(schema);
            };
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| self.root.pointer(pointer));
            match target {
                Some(target) => schema = target,
                None => {
                    return Err(format!(
                        "$ref '{reference}' for '{label}' cannot be resolved (only references \
                         inside the inputSchema are followed)"
                    ));
                }
            }
        }
        Err(format!(
            "the $refs for '{label}' go round more than {MAX_REFS} times"
        ))
    }

    /// An object for `schema` at `path`: its required properties (also those an `allOf`
    /// member requires), each a value that fits its own schema.
    fn object(&self, schema: &'a Value, path: &[String], depth: usize) -> Result<Value, String> {
        let label = label(path);
        let schema = self.resolve(schema, &label)?;
        let mut parts = vec![schema];
        for member in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            parts.push(self.resolve(member, &label)?);
        }
        let mut object = Map::new();
        for part in &parts {
            for name in required(part) {
                if object.contains_key(&name) {
                    continue;
                }
                let property = parts
                    .iter()
                    .find_map(|part| part.get("properties")?.get(&name))
                    .unwrap_or(&Value::Bool(true));
                let mut at = path.to_vec();
                at.push(name.clone());
                let value = self.value(property, &at, depth)?;
                object.insert(name, value);
            }
        }
        Ok(Value::Object(object))
    }

    /// A value for `property` (at `path`) that its own schema allows: its `const`, else the
    /// first of its `default`, `enum` values, `examples` and a value built from its type that
    /// the property's schema accepts.
    fn value(&self, property: &'a Value, path: &[String], depth: usize) -> Result<Value, String> {
        let label = label(path);
        let property = self.resolve(property, &label)?;
        if let Some(reason) = contradiction(property, &label) {
            return Err(reason);
        }
        let fits = self.fits(property);
        if let Some(value) = property.get("const") {
            return if fits.check(value).is_ok() {
                Ok(value.clone())
            } else {
                Err(format!(
                    "const {value} for '{label}' does not satisfy the rest of its schema"
                ))
            };
        }
        let mut candidates: Vec<Value> = property.get("default").cloned().into_iter().collect();
        for key in ["enum", "examples"] {
            candidates.extend(
                property
                    .get(key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .take(MAX_CANDIDATES)
                    .cloned(),
            );
        }
        let enumerated = property.get("enum").is_some();
        if !enumerated {
            candidates.push(self.built(property, path, depth)?);
            // Each branch of an `anyOf`/`oneOf` offers its own value.
            for key in ["anyOf", "oneOf"] {
                for branch in property
                    .get(key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Ok(value) = self.value(branch, path, depth) {
                        candidates.push(value);
                    }
                }
            }
        }
        let mut first_error = None;
        for candidate in candidates {
            match fits.check(&candidate) {
                Ok(()) => return Ok(candidate),
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        Err(unsatisfied(property, &label, first_error))
    }

    /// A value built from `property`'s type and constraints, not yet checked.
    fn built(&self, property: &'a Value, path: &[String], depth: usize) -> Result<Value, String> {
        let types = declared_types(property);
        let kind = types
            .iter()
            .find(|kind| **kind != "null")
            .copied()
            .unwrap_or(if property.get("properties").is_some() {
                "object"
            } else {
                ""
            });
        Ok(match kind {
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
                let item = property.get("items").unwrap_or(&Value::Bool(true));
                let mut items = Vec::new();
                for index in 0..count {
                    let mut at = path.to_vec();
                    at.push(index.to_string());
                    items.push(self.value(item, &at, depth + 1)?);
                }
                Value::Array(items)
            }
            "object" if depth < MAX_BASE_DEPTH => self.object(property, path, depth + 1)?,
            "object" => json!({}),
            "null" => Value::Null,
            // No type: a string is the likeliest to be accepted.
            _ => json!("sightline"),
        })
    }

    /// Whether a value fits `property` alone (its `$ref`s into the root followed), with the
    /// validator's first complaint when not; a property schema the validator cannot compile
    /// takes anything (the whole schema is checked at the end).
    fn fits(&self, property: &Value) -> Fits {
        let mut schema = match property {
            Value::Object(object) => object.clone(),
            Value::Bool(true) => Map::new(),
            other => return Fits(checker(other).ok()),
        };
        for key in ["$defs", "definitions", "$schema"] {
            if let Some(value) = self.root.get(key) {
                schema.entry(key).or_insert_with(|| value.clone());
            }
        }
        Fits(checker(&Value::Object(schema)).ok())
    }
}

/// One property's schema as a validator (`None`: it takes anything).
struct Fits(Option<jsonschema::Validator>);

impl Fits {
    /// `Err` with the validator's first complaint when `value` does not fit.
    fn check(&self, value: &Value) -> Result<(), String> {
        match self.0.as_ref().and_then(|v| v.iter_errors(value).next()) {
            Some(error) => Err(error.to_string()),
            None => Ok(()),
        }
    }
}

/// A dotted path, or `the arguments` for the root.
fn label(path: &[String]) -> String {
    if path.is_empty() {
        "the arguments".to_owned()
    } else {
        path.join(".")
    }
}

/// Bounds no value can meet, in words.
fn contradiction(property: &Value, label: &str) -> Option<String> {
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    let (low, low_key, low_open) = match (number("minimum"), property.get("exclusiveMinimum")) {
        (Some(low), Some(Value::Bool(true))) => (Some(low), "exclusiveMinimum", true),
        (_, Some(Value::Number(low))) => (low.as_f64(), "exclusiveMinimum", true),
        (low, _) => (low, "minimum", false),
    };
    let (high, high_key, high_open) = match (number("maximum"), property.get("exclusiveMaximum")) {
        (Some(high), Some(Value::Bool(true))) => (Some(high), "exclusiveMaximum", true),
        (_, Some(Value::Number(high))) => (high.as_f64(), "exclusiveMaximum", true),
        (high, _) => (high, "maximum", false),
    };
    if let (Some(low), Some(high)) = (low, high)
        && (low > high || (low >= high && (low_open || high_open)))
    {
        return Some(format!(
            "{low_key} {} and {high_key} {} for '{label}' leave no number",
            whole(low),
            whole(high)
        ));
    }
    for (min, max) in [("minLength", "maxLength"), ("minItems", "maxItems")] {
        if let (Some(low), Some(high)) = (
            property.get(min).and_then(Value::as_u64),
            property.get(max).and_then(Value::as_u64),
        ) && low > high
        {
            return Some(format!("{min} {low} is above {max} {high} for '{label}'"));
        }
    }
    if property
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        return Some(format!("the enum for '{label}' is empty"));
    }
    if property == &Value::Bool(false) {
        return Some(format!(
            "the schema for '{label}' is false: no value is allowed"
        ));
    }
    None
}

/// Why no value built for `property` fits it, in words: the constraint the builder could not
/// meet, else the validator's complaint.
fn unsatisfied(property: &Value, label: &str, error: Option<String>) -> String {
    let said = error.map(|e| format!(" ({e})")).unwrap_or_default();
    if property.get("enum").is_some() {
        return format!("no value of the enum for '{label}' satisfies its schema{said}");
    }
    if let Some(pattern) = property.get("pattern").and_then(Value::as_str) {
        return format!("pattern '{pattern}' for '{label}' could not be satisfied{said}");
    }
    for key in ["not", "allOf", "anyOf", "oneOf"] {
        if property.get(key).is_some() {
            return format!("'{key}' for '{label}' could not be honoured{said}");
        }
    }
    format!("no value for '{label}' satisfies its schema{said}")
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
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    let draft4 = |key: &str| property.get(key) == Some(&Value::Bool(true));
    let (low, low_open) = match (number("minimum"), number("exclusiveMinimum")) {
        (Some(low), _) => (Some(low), draft4("exclusiveMinimum")),
        (None, Some(low)) => (Some(low), true),
        (None, None) => (None, false),
    };
    let (high, high_open) = match (number("maximum"), number("exclusiveMaximum")) {
        (Some(high), _) => (Some(high), draft4("exclusiveMaximum")),
        (None, Some(high)) => (Some(high), true),
        (None, None) => (None, false),
    };
    let mut value = match (low, high) {
        (Some(low), _) if !low_open => low,
        (Some(low), Some(high)) if !integer => low + (high - low) / 2.0,
        (Some(low), _) => low + 1.0,
        (None, Some(high)) if high_open => high.min(2.0) - 1.0,
        (None, Some(high)) => high.min(1.0),
        (None, None) => 1.0,
    };
    if integer {
        value = value.ceil();
    }
    if let Some(step) = number("multipleOf").filter(|step| *step > 0.0) {
        value = (value / step).ceil() * step;
        if low_open && low.is_some_and(|low| value <= low) {
            value += step;
        }
    }
    value
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::base;

    /// The base for one required property `p` of schema `property`.
    fn base_of(property: &Value) -> Result<Value, String> {
        base(&json!({"type": "object", "properties": {"p": property}, "required": ["p"]}))
    }

    #[test]
    fn a_base_satisfies_patterns_bounds_branches_and_all_of_together() {
        let schema = json!({
            "type": "object",
            "$defs": {"code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"}},
            "properties": {
                "code": {"$ref": "#/$defs/code"},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5},
                "step": {"type": "integer", "minimum": 7, "multipleOf": 5},
                "when": {"anyOf": [{"type": "integer", "minimum": 3}, {"type": "null"}]},
                "kind": {"type": "string", "enum": [1, "b"]},
                "size": {"type": "integer", "default": 99, "maximum": 9}
            },
            "required": ["code", "ratio", "step", "when", "kind", "size"],
            "allOf": [{"properties": {"tag": {"const": "x"}}, "required": ["tag"]}]
        });
        let arguments = base(&schema).unwrap();
        assert_eq!(
            arguments,
            json!({"code": "AAA-0000", "ratio": 0.25, "step": 10, "when": 3, "kind": "b",
                   "size": 1, "tag": "x"})
        );
        assert!(
            jsonschema::validator_for(&schema)
                .unwrap()
                .is_valid(&arguments)
        );
    }

    #[test]
    fn a_pattern_the_builder_cannot_meet_is_no_base() {
        let reason = base_of(&json!({"type": "string", "pattern": "^[A-Z]{2}$", "maxLength": 1}))
            .unwrap_err();
        assert!(
            reason.starts_with("pattern '^[A-Z]{2}$' for 'p' could not be satisfied"),
            "{reason}"
        );
    }

    #[test]
    fn contradictory_bounds_are_no_base() {
        for (property, said) in [
            (
                json!({"type": "integer", "minimum": 10, "maximum": 5}),
                "minimum 10 and maximum 5 for 'p' leave no number",
            ),
            (
                json!({"type": "number", "exclusiveMinimum": 3, "exclusiveMaximum": 3}),
                "exclusiveMinimum 3 and exclusiveMaximum 3 for 'p' leave no number",
            ),
            (
                json!({"type": "number", "minimum": 3, "maximum": 3, "exclusiveMaximum": true}),
                "minimum 3 and exclusiveMaximum 3 for 'p' leave no number",
            ),
            (
                json!({"type": "string", "minLength": 4, "maxLength": 2}),
                "minLength 4 is above maxLength 2 for 'p'",
            ),
            (
                json!({"type": "array", "minItems": 2, "maxItems": 1}),
                "minItems 2 is above maxItems 1 for 'p'",
            ),
            (json!({"enum": []}), "the enum for 'p' is empty"),
            (
                json!(false),
                "the schema for 'p' is false: no value is allowed",
            ),
        ] {
            assert_eq!(base_of(&property), Err(said.to_owned()), "{property}");
        }
        // An integer range with no integer in it: the validator says so.
        let reason = base_of(&json!({"type": "integer", "minimum": 1.2, "maximum": 1.8}));
        assert!(
            reason
                .unwrap_err()
                .starts_with("no value for 'p' satisfies its schema"),
        );
    }

    #[test]
    fn a_const_or_enum_its_own_schema_refuses_is_no_base() {
        let reason = base_of(&json!({"type": "integer", "const": "a"})).unwrap_err();
        assert!(
            reason.starts_with("const \"a\" for 'p' does not satisfy the rest of its schema"),
            "{reason}"
        );
        let reason = base_of(&json!({"type": "integer", "enum": ["a", "b"]})).unwrap_err();
        assert!(
            reason.starts_with("no value of the enum for 'p' satisfies its schema"),
            "{reason}"
        );
    }

    #[test]
    fn a_ref_that_cannot_be_followed_is_no_base() {
        assert_eq!(
            base_of(&json!({"$ref": "#/$defs/missing"})),
            Err(
                "$ref '#/$defs/missing' for 'p' cannot be resolved (only references inside \
                 the inputSchema are followed)"
                    .to_owned()
            )
        );
        let remote = base_of(&json!({"$ref": "https://example.com/p.json"})).unwrap_err();
        assert!(remote.starts_with("$ref 'https://example.com/p.json' for 'p'"));
        let nested = base(&json!({
            "type": "object",
            "properties": {"a": {"type": "object", "properties": {"b": {"$ref": "#/nowhere"}},
                                 "required": ["b"]}},
            "required": ["a"]
        }));
        assert!(
            nested
                .unwrap_err()
                .starts_with("$ref '#/nowhere' for 'a.b'")
        );
        let looping = base_of(&json!({"$ref": "#/properties/p"})).unwrap_err();
        assert!(looping.contains("go round"), "{looping}");
    }

    #[test]
    fn a_not_or_all_of_that_cannot_be_honoured_is_no_base() {
        let reason = base_of(&json!({"type": "string", "not": {"type": "string"}})).unwrap_err();
        assert!(
            reason.starts_with("'not' for 'p' could not be honoured"),
            "{reason}"
        );
        let reason =
            base_of(&json!({"allOf": [{"type": "string"}, {"type": "integer"}]})).unwrap_err();
        assert!(
            reason.starts_with("'allOf' for 'p' could not be honoured"),
            "{reason}"
        );
    }

    #[test]
    fn arguments_the_whole_schema_refuses_are_no_base() {
        let reason = base(&json!({
            "type": "object",
            "properties": {"p": {"type": "string"}},
            "required": ["p"],
            "minProperties": 2
        }))
        .unwrap_err();
        assert!(
            reason.starts_with("the arguments built fail the inputSchema: "),
            "{reason}"
        );
        let reason = base(&json!({
            "type": "object",
            "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}},
                                 "required": ["b"], "not": {"required": ["b"]}}},
            "required": ["a"]
        }))
        .unwrap_err();
        assert!(
            reason.contains("'not' for 'a' could not be honoured"),
            "{reason}"
        );
    }
}
