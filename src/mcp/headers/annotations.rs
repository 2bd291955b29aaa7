//! The `x-mcp-header` annotations of a tool's `inputSchema`, pure: found where the spec lets
//! them count, and every other position, name or type that makes the tool invalid.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::HeaderParam;

/// The schema keyword whose value names a property's mirrored header.
const ANNOTATION: &str = "x-mcp-header";
/// Deepest nesting of objects and arrays read in an `inputSchema`: the schema comes from a
/// server that may be hostile, and the walk recurses once per level.
pub const MAX_SCHEMA_DEPTH: usize = 64;
const MIRRORABLE_TYPES: &[&str] = &["integer", "string", "boolean"];
/// Keywords whose value maps names (of properties, definitions, patterns) to schemas or lists:
/// a key there is a name, so a property called `x-mcp-header` is not an annotation.
const NAME_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
];
/// Keywords whose value is instance data rather than a schema: an `x-mcp-header` key inside
/// a `default` or an `enum` member annotates nothing.
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "examples"];

/// Every `x-mcp-header` annotation of `input_schema`, in document order, or why the tool is
/// invalid (the spec says to drop such a tool from `tools/list`).
///
/// An annotation counts only on a schema reached from the root through `properties` keys
/// alone, whose own `type` is `integer`, `string` or `boolean`, or a list of exactly one of
/// those plus `"null"` (a null argument sends no header anyway). A missing `type` is invalid
/// even beside a `$ref` or `enum`: the walk does not resolve references. An `x-mcp-header` key
/// in any other schema position (under `items`, `anyOf`, `$defs`, an unknown keyword, …)
/// invalidates the tool; keys of name maps (`properties`, `$defs`, …) and data (`const`,
/// `enum`, `default`, `examples`) are not schema positions. Nesting deeper than
/// [`MAX_SCHEMA_DEPTH`] objects and arrays is invalid whether or not it holds annotations.
pub fn header_params(input_schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut walk = Walk::default();
    walk.reachable(input_schema, 1)?;
    Ok(walk
        .found
        .into_iter()
        .map(|found| HeaderParam {
            header: found.header.to_owned(),
            path: found.path.into_iter().map(str::to_owned).collect(),
        })
        .collect())
}

/// One step from the schema root: a keyword or name, or an array index.
#[derive(Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

struct Found<'a> {
    header: &'a str,
    path: Vec<&'a str>,
    location: String,
}

#[derive(Default)]
struct Walk<'a> {
    location: Vec<Step<'a>>,
    /// The property names along `location` while it is an unbroken `properties` chain.
    names: Vec<&'a str>,
    found: Vec<Found<'a>>,
    /// Index into `found` by ASCII-lowercased header: names are compared case-insensitively,
    /// and a hostile schema may carry many.
    by_lowercase: HashMap<String, usize>,
}

impl<'a> Walk<'a> {
    /// A schema reached from the root through `properties` keys alone: its annotation counts.
    fn reachable(&mut self, schema: &'a Value, level: usize) -> Result<(), String> {
        let Value::Object(keywords) = schema else {
            return self.unreachable(schema, level);
        };
        check_level(level)?;
        for (keyword, value) in keywords {
            match (keyword.as_str(), value) {
                (ANNOTATION, _) => self.annotation(keywords, value)?,
                ("properties", Value::Object(properties)) => {
                    check_level(level + 1)?;
                    self.location.push(Step::Key(keyword));
                    for (name, property) in properties {
                        self.location.push(Step::Key(name));
                        self.names.push(name);
                        self.reachable(property, level + 2)?;
                        self.names.pop();
                        self.location.pop();
                    }
                    self.location.pop();
                }
                _ => self.keyword(keyword, value, level)?,
            }
        }
        Ok(())
    }

    /// A keyword's value off the `properties` chain: nothing in it is statically reachable.
    fn keyword(&mut self, keyword: &'a str, value: &'a Value, level: usize) -> Result<(), String> {
        if DATA_KEYWORDS.contains(&keyword) {
            return Ok(());
        }
        self.location.push(Step::Key(keyword));
        match value {
            Value::Object(names) if NAME_MAP_KEYWORDS.contains(&keyword) => {
                check_level(level + 1)?;
                for (name, schema) in names {
                    self.location.push(Step::Key(name));
                    self.unreachable(schema, level + 2)?;
                    self.location.pop();
                }
            }
            _ => self.unreachable(value, level + 1)?,
        }
        self.location.pop();
        Ok(())
    }

    /// A value in schema position off the `properties` chain: an annotation there is misplaced.
    fn unreachable(&mut self, schema: &'a Value, level: usize) -> Result<(), String> {
        match schema {
            Value::Object(keywords) => {
                check_level(level)?;
                if keywords.contains_key(ANNOTATION) {
                    return Err(format!(
                        "{ANNOTATION} on {} is not statically reachable: only a chain of \
                         properties keys may lead to it",
                        describe(&self.location)
                    ));
                }
                for (keyword, value) in keywords {
                    self.keyword(keyword, value, level)?;
                }
            }
            Value::Array(items) => {
                check_level(level)?;
                for (index, item) in items.iter().enumerate() {
                    self.location.push(Step::Index(index));
                    self.unreachable(item, level + 1)?;
                    self.location.pop();
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
        Ok(())
    }

    /// Checks the annotation `value` of the reachable property schema `schema` and keeps it.
    fn annotation(
        &mut self,
        schema: &'a Map<String, Value>,
        value: &'a Value,
    ) -> Result<(), String> {
        let location = describe(&self.location);
        if self.names.is_empty() {
            return Err(format!("{ANNOTATION} on {location} is not on a property"));
        }
        let Value::String(header) = value else {
            return Err(format!("{ANNOTATION} on {location} is not a string"));
        };
        if header.is_empty() {
            return Err(format!("{ANNOTATION} on {location} is empty"));
        }
        let shown = shown(header);
        if header.chars().any(char::is_control) {
            return Err(format!(
                "{ANNOTATION} '{shown}' on {location} contains a control character"
            ));
        }
        if !header.bytes().all(is_tchar) {
            return Err(format!(
                "{ANNOTATION} '{shown}' on {location} is not an HTTP token"
            ));
        }
        if !has_mirrorable_type(schema) {
            let declared = schema
                .get("type")
                .map_or_else(|| "no type".to_owned(), |kind| format!("type {kind}"));
            return Err(format!(
                "{ANNOTATION} '{shown}' on {location} has {declared}; only integer, string or \
                 boolean (optionally with null) can be mirrored"
            ));
        }
        let lowercase = header.to_ascii_lowercase();
        if let Some(&earlier) = self.by_lowercase.get(&lowercase) {
            let earlier = &self.found[earlier];
            return Err(format!(
                "{ANNOTATION} '{shown}' on {location} repeats '{}' on {} (header names are \
                 case-insensitive)",
                earlier.header, earlier.location
            ));
        }
        self.by_lowercase.insert(lowercase, self.found.len());
        self.found.push(Found {
            header,
            path: self.names.clone(),
            location,
        });
        Ok(())
    }
}

fn check_level(level: usize) -> Result<(), String> {
    if level > MAX_SCHEMA_DEPTH {
        Err(format!(
            "inputSchema nests deeper than {MAX_SCHEMA_DEPTH} levels"
        ))
    } else {
        Ok(())
    }
}

/// RFC 9110 `tchar`: the characters of a header field name.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

fn has_mirrorable_type(schema: &Map<String, Value>) -> bool {
    let mirrorable = |kind: &Value| {
        kind.as_str()
            .is_some_and(|kind| MIRRORABLE_TYPES.contains(&kind))
    };
    match schema.get("type") {
        Some(kind @ Value::String(_)) => mirrorable(kind),
        Some(Value::Array(kinds)) => {
            let mut not_null = kinds.iter().filter(|kind| kind.as_str() != Some("null"));
            matches!((not_null.next(), not_null.next()), (Some(kind), None) if mirrorable(kind))
        }
        _ => false,
    }
}

/// A schema location for a reason: `properties.options.properties.limit`, `anyOf[0]`, with
/// names that are not plain words JSON-quoted so a hostile name cannot break the log line.
fn describe(location: &[Step<'_>]) -> String {
    if location.is_empty() {
        return "the schema root".to_owned();
    }
    let mut text = String::new();
    for step in location {
        match step {
            Step::Key(key) if is_plain_word(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Key(key) => {
                text.push('[');
                text.push_str(&Value::from(*key).to_string());
                text.push(']');
            }
            Step::Index(index) => {
                text.push('[');
                text.push_str(&index.to_string());
                text.push(']');
            }
        }
    }
    text
}

fn is_plain_word(key: &str) -> bool {
    !key.is_empty()
        && key
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"_-$".contains(&byte))
}

/// A server's text inside a reason: control and invisible characters escaped, quotes kept.
fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for character in text.chars() {
        if character == ' ' || character.is_ascii_graphic() {
            out.push(character);
        } else {
            out.extend(character.escape_debug());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::{HeaderParam, param_headers};
    use super::{MAX_SCHEMA_DEPTH, header_params};

    fn param(header: &str, path: &[&str]) -> HeaderParam {
        HeaderParam {
            header: header.to_owned(),
            path: path.iter().map(|name| (*name).to_owned()).collect(),
        }
    }

    /// An `inputSchema` whose only property `name` has the schema `property`.
    #[allow(clippy::needless_pass_by_value)] // builders read best taking `json!(…)` directly
    fn with_property(name: &str, property: Value) -> Value {
        json!({ "type": "object", "properties": { name: property } })
    }

    fn reason(schema: &Value) -> String {
        header_params(schema).unwrap_err()
    }

    #[test]
    fn the_spec_example_tool_mirrors_its_region() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {
                    "type": "string",
                    "description": "The region to execute the query in",
                    "x-mcp-header": "Region"
                },
                "query": { "type": "string", "description": "The SQL query to execute" }
            },
            "required": ["region", "query"]
        });
        let params = header_params(&schema).unwrap();
        assert_eq!(params, [param("Region", &["region"])]);
        let arguments = json!({ "region": "us-west1", "query": "SELECT * FROM users" });
        assert_eq!(
            param_headers(&params, &arguments),
            [("Mcp-Param-Region".to_owned(), "us-west1".to_owned())]
        );
    }

    #[test]
    fn nested_properties_are_reachable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "options": {
                    "type": "object",
                    "properties": {
                        "limit": { "type": "integer", "x-mcp-header": "Limit" },
                        "dry-run": { "type": "boolean", "x-mcp-header": "Dry-Run" }
                    }
                },
                "tenant": { "type": ["string", "null"], "x-mcp-header": "Tenant" }
            }
        });
        let params = header_params(&schema).unwrap();
        assert_eq!(
            params,
            [
                param("Limit", &["options", "limit"]),
                param("Dry-Run", &["options", "dry-run"]),
                param("Tenant", &["tenant"]),
            ]
        );
        let arguments =
            json!({ "options": { "limit": -7, "dry-run": false }, "tenant": "Hello, 世界" });
        assert_eq!(
            param_headers(&params, &arguments),
            [
                ("Mcp-Param-Limit".to_owned(), "-7".to_owned()),
                ("Mcp-Param-Dry-Run".to_owned(), "false".to_owned()),
                (
                    "Mcp-Param-Tenant".to_owned(),
                    "=?base64?SGVsbG8sIOS4lueVjA==?=".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn annotation_values_must_be_non_empty_tokens() {
        let on_region = |annotation: Value| {
            reason(&with_property(
                "region",
                json!({ "type": "string", "x-mcp-header": annotation }),
            ))
        };
        assert_eq!(
            on_region(json!(42)),
            "x-mcp-header on properties.region is not a string"
        );
        assert_eq!(
            on_region(json!(null)),
            "x-mcp-header on properties.region is not a string"
        );
        assert_eq!(
            on_region(json!("")),
            "x-mcp-header on properties.region is empty"
        );
        assert_eq!(
            on_region(json!("Re\r\ngion")),
            "x-mcp-header 'Re\\r\\ngion' on properties.region contains a control character"
        );
        assert_eq!(
            on_region(json!("Re\tgion")),
            "x-mcp-header 'Re\\tgion' on properties.region contains a control character"
        );
        assert_eq!(
            on_region(json!("Re gion")),
            "x-mcp-header 'Re gion' on properties.region is not an HTTP token"
        );
        assert_eq!(
            on_region(json!("Région")),
            "x-mcp-header 'Région' on properties.region is not an HTTP token"
        );
        assert_eq!(
            on_region(json!("Re:gion")),
            "x-mcp-header 'Re:gion' on properties.region is not an HTTP token"
        );
        assert_eq!(
            on_region(json!("Re\u{202e}gion")),
            "x-mcp-header 'Re\\u{202e}gion' on properties.region is not an HTTP token"
        );
        let every_tchar = "!#$%&'*+-.^_`|~09AZaz";
        assert_eq!(
            header_params(&with_property(
                "region",
                json!({ "type": "string", "x-mcp-header": every_tchar })
            )),
            Ok(vec![param(every_tchar, &["region"])])
        );
    }

    #[test]
    fn only_integer_string_and_boolean_can_be_mirrored() {
        let typed = |kind: Value| {
            header_params(&with_property(
                "price",
                json!({ "type": kind, "x-mcp-header": "Price" }),
            ))
        };
        let refused = |declared: &str| {
            Err(format!(
                "x-mcp-header 'Price' on properties.price has {declared}; only integer, string \
                 or boolean (optionally with null) can be mirrored"
            ))
        };
        assert_eq!(typed(json!("number")), refused("type \"number\""));
        assert_eq!(typed(json!("object")), refused("type \"object\""));
        assert_eq!(typed(json!("array")), refused("type \"array\""));
        assert_eq!(typed(json!("null")), refused("type \"null\""));
        assert_eq!(
            typed(json!(["integer", "number"])),
            refused("type [\"integer\",\"number\"]")
        );
        assert_eq!(
            typed(json!(["string", "integer"])),
            refused("type [\"string\",\"integer\"]")
        );
        assert_eq!(typed(json!(["null"])), refused("type [\"null\"]"));
        assert_eq!(typed(json!([])), refused("type []"));
        assert_eq!(typed(json!(7)), refused("type 7"));
        assert_eq!(
            header_params(&with_property(
                "price",
                json!({ "$ref": "#/$defs/Price", "x-mcp-header": "Price" })
            )),
            refused("no type")
        );
        for kind in [
            json!("integer"),
            json!("boolean"),
            json!(["null", "integer"]),
        ] {
            assert_eq!(typed(kind), Ok(vec![param("Price", &["price"])]));
        }
    }

    #[test]
    fn header_names_are_unique_ignoring_case() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": { "type": "string", "x-mcp-header": "Region" },
                "b": { "type": "object", "properties": {
                    "c": { "type": "string", "x-mcp-header": "rEGION" }
                } }
            }
        });
        assert_eq!(
            reason(&schema),
            "x-mcp-header 'rEGION' on properties.b.properties.c repeats 'Region' on \
             properties.a (header names are case-insensitive)"
        );
    }

    #[test]
    fn annotations_off_the_properties_chain_invalidate_the_tool() {
        let unreachable = |location: &str| {
            format!(
                "x-mcp-header on {location} is not statically reachable: only a chain of \
                 properties keys may lead to it"
            )
        };
        let annotated = json!({ "type": "string", "x-mcp-header": "Region" });
        let cases = [
            (
                with_property("tags", json!({ "type": "array", "items": annotated })),
                "properties.tags.items",
            ),
            (
                with_property(
                    "pair",
                    json!({ "type": "array", "prefixItems": [{}, annotated] }),
                ),
                "properties.pair.prefixItems[1]",
            ),
            (
                with_property(
                    "map",
                    json!({ "type": "object", "additionalProperties": annotated }),
                ),
                "properties.map.additionalProperties",
            ),
            (
                json!({ "type": "object", "anyOf": [{ "properties": { "region": annotated } }] }),
                "anyOf[0].properties.region",
            ),
            (
                json!({ "type": "object", "allOf": [annotated] }),
                "allOf[0]",
            ),
            (json!({ "type": "object", "not": annotated }), "not"),
            (
                json!({ "type": "object", "if": {}, "then": { "properties": { "r": annotated } } }),
                "then.properties.r",
            ),
            (
                json!({
                    "type": "object",
                    "properties": { "region": { "$ref": "#/$defs/Region" } },
                    "$defs": { "Region": annotated }
                }),
                "$defs.Region",
            ),
            (
                json!({ "type": "object", "definitions": { "a.b": annotated } }),
                "definitions[\"a.b\"]",
            ),
            (
                json!({ "type": "object", "patternProperties": { "^r": annotated } }),
                "patternProperties[\"^r\"]",
            ),
            (
                json!({ "type": "object", "x-vendor": { "nested": annotated } }),
                "x-vendor.nested",
            ),
            (
                with_property("a.b", json!({ "type": "object", "oneOf": [annotated] })),
                "properties[\"a.b\"].oneOf[0]",
            ),
        ];
        for (schema, location) in cases {
            assert_eq!(reason(&schema), unreachable(location), "{schema}");
        }
        assert_eq!(
            reason(&json!({ "type": "string", "x-mcp-header": "Root" })),
            "x-mcp-header on the schema root is not on a property"
        );
    }

    #[test]
    fn a_property_named_x_mcp_header_is_a_name() {
        let schema = json!({
            "type": "object",
            "properties": {
                "x-mcp-header": { "type": "object", "properties": {
                    "x-mcp-header": { "type": "string", "x-mcp-header": "Inner" }
                } },
                "list": { "type": "array", "items": {
                    "type": "object",
                    "properties": { "x-mcp-header": { "type": "string" } },
                    "required": ["x-mcp-header"],
                    "dependentRequired": { "x-mcp-header": ["list"] }
                } },
                "choice": {
                    "type": "object",
                    "default": { "x-mcp-header": "data" },
                    "enum": [{ "x-mcp-header": "data" }],
                    "$defs": { "x-mcp-header": { "type": "string" } }
                }
            }
        });
        let params = header_params(&schema).unwrap();
        assert_eq!(params, [param("Inner", &["x-mcp-header", "x-mcp-header"])]);
        assert_eq!(
            param_headers(&params, &json!({ "x-mcp-header": { "x-mcp-header": "v" } })),
            [("Mcp-Param-Inner".to_owned(), "v".to_owned())]
        );
    }

    /// A schema of `levels` nested objects: the root and `levels - 1` `not`s.
    fn nested_nots(levels: usize) -> Value {
        (1..levels).fold(json!({}), |inner, _| json!({ "not": inner }))
    }

    #[test]
    fn nesting_is_bounded() {
        assert_eq!(header_params(&nested_nots(MAX_SCHEMA_DEPTH)), Ok(vec![]));
        assert_eq!(
            reason(&nested_nots(MAX_SCHEMA_DEPTH + 1)),
            "inputSchema nests deeper than 64 levels"
        );
        // A properties chain spends two levels per property: the map and the schema.
        let chain = |properties: usize| {
            (0..properties).fold(
                json!({ "type": "string", "x-mcp-header": "Deep" }),
                |inner, _| json!({ "properties": { "p": inner } }),
            )
        };
        assert_eq!(header_params(&chain(31)).unwrap()[0].path.len(), 31);
        assert_eq!(
            reason(&chain(32)),
            "inputSchema nests deeper than 64 levels"
        );
        let deep_array = (1..=MAX_SCHEMA_DEPTH).fold(json!([]), |inner, _| json!([inner]));
        assert_eq!(
            reason(&json!({ "anyOf": deep_array.clone() })),
            "inputSchema nests deeper than 64 levels"
        );
        // Data is not walked, so its depth is the parser's business.
        assert_eq!(
            header_params(&json!({ "enum": [deep_array.clone()], "default": deep_array })),
            Ok(vec![])
        );
    }
}
