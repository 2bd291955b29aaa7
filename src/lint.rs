//! Tool definitions linted, pure: the schema spellings clients refuse or mishandle (the ids of
//! the official Inspector's `--strict` where they overlap), and what a description demands that
//! the schema cannot check (SEP-1303's "must be in the future").

use serde::Serialize;
use serde_json::{Map, Value};

/// A rule a definition can break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// A bare `true` or `false` where a schema object is expected.
    BooleanSchema,
    /// `type` as an array: several clients read it as one string.
    TypeUnion,
    /// A `$ref` outside the document: clients do not fetch it.
    RemoteRef,
    /// A schema with no validation keyword: it accepts anything.
    UntypedSchema,
    /// `inputSchema` whose `type` is not `"object"` (the spec requires an object).
    InputNotObject,
    /// `required` names a property that `properties` does not define.
    RequiredUndefined,
    /// The description demands what no schema keyword checks: the server decides at call time.
    CheckedOnlyAtCallTime,
    /// Calibrated hosts check the arguments themselves before the server is called: what breaks
    /// the schema reaches their model in their words, not the server's.
    HostChecksFirst,
}

impl Rule {
    pub const ALL: [Rule; 8] = [
        Rule::BooleanSchema,
        Rule::TypeUnion,
        Rule::RemoteRef,
        Rule::UntypedSchema,
        Rule::InputNotObject,
        Rule::RequiredUndefined,
        Rule::CheckedOnlyAtCallTime,
        Rule::HostChecksFirst,
    ];

    /// Its id: the first four are the official Inspector's `--strict` ids.
    pub fn id(self) -> &'static str {
        match self {
            Rule::BooleanSchema => "boolean-schema",
            Rule::TypeUnion => "type-union",
            Rule::RemoteRef => "remote-ref",
            Rule::UntypedSchema => "untyped-schema",
            Rule::InputNotObject => "input-not-object",
            Rule::RequiredUndefined => "required-undefined",
            Rule::CheckedOnlyAtCallTime => "checked-only-at-call-time",
            Rule::HostChecksFirst => "host-checks-first",
        }
    }

    /// What it finds, in a sentence.
    pub fn description(self) -> &'static str {
        match self {
            Rule::BooleanSchema => {
                "A bare `true` or `false` stands where a schema object is expected."
            }
            Rule::TypeUnion => "A `type` is an array; several clients read `type` as one string.",
            Rule::RemoteRef => "A `$ref` points outside the document; clients do not fetch it.",
            Rule::UntypedSchema => "A schema has no validation keyword: it accepts any value.",
            Rule::InputNotObject => {
                "The tool's `inputSchema` is missing or its `type` is not \"object\"."
            }
            Rule::RequiredUndefined => {
                "`required` names a property that `properties` does not define."
            }
            Rule::CheckedOnlyAtCallTime => {
                "A description demands what no schema keyword can check (\"must be in the future\"): only the server can, at call time."
            }
            Rule::HostChecksFirst => {
                "Calibrated hosts check the arguments against the schema (or its `required`) before the server is called: a call that breaks it reaches their model in the host's words, not the server's."
            }
        }
    }

    /// What to do about it: a SARIF rule's `help`, which GitHub code scanning requires.
    pub fn help(self) -> &'static str {
        match self {
            Rule::BooleanSchema => {
                "Write a schema object where a bare `true` or `false` stands: `{}` (or the value's real type) for `true`, `{\"not\": {}}` for `false`. `additionalProperties: false` is fine."
            }
            Rule::TypeUnion => {
                "Write `anyOf` branches instead of a `type` array (`{\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"null\"}]}`). In zod, put `.describe()` on the inner type before `.nullable()`."
            }
            Rule::RemoteRef => {
                "Inline the referenced schema or move it into `$defs` and point at `#/$defs/NAME`: clients do not fetch remote schemas."
            }
            Rule::UntypedSchema => {
                "Give the schema its type (and constraints): a schema with no validation keyword accepts anything, and some clients refuse it."
            }
            Rule::InputNotObject => {
                "Give the tool an `inputSchema` whose `type` is \"object\" (`{\"type\": \"object\"}` when it takes no arguments), as the spec requires."
            }
            Rule::RequiredUndefined => {
                "Define every property `required` names under `properties`, or drop it from `required`."
            }
            Rule::CheckedOnlyAtCallTime => {
                "Keep the words, and check the rule when the tool is called: answer a failure with a tool result the model can read (`isError: true` and a message saying what to send instead), not a -32602 protocol error (SEP-1303)."
            }
            Rule::HostChecksFirst => {
                "Say in the descriptions what each constrained argument must be (what the pattern means, which arguments are required): these hosts' models read the validator's words or a generic failure instead of your message when a call breaks the schema."
            }
        }
    }

    /// `error`: a host may refuse the tool or a call no input can satisfy; `warning`: a host
    /// may mishandle it; `note`: nothing is wrong yet, but the failure's channel matters.
    pub fn severity(self) -> &'static str {
        match self {
            Rule::InputNotObject | Rule::RequiredUndefined | Rule::RemoteRef => "error",
            Rule::BooleanSchema | Rule::TypeUnion | Rule::UntypedSchema => "warning",
            Rule::CheckedOnlyAtCallTime | Rule::HostChecksFirst => "note",
        }
    }
}

/// One thing a definition does wrong, where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: Rule,
    pub severity: &'static str,
    pub tool: String,
    /// `inputSchema` or `outputSchema` and the path within it, or `description`.
    pub path: String,
    /// What is wrong, and what to write instead.
    pub message: String,
}

/// A tool as the lint reads it: its name, description and schemas, as listed.
pub struct Definition<'a> {
    pub name: &'a str,
    pub description: Option<&'a str>,
    pub input_schema: Option<&'a Value>,
    pub output_schema: Option<&'a Value>,
}

/// Every finding of every tool, in the order listed, each tool's by path.
pub fn lint(tools: &[Definition]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for tool in tools {
        let mut emit = |rule: Rule, path: String, message: String| {
            findings.push(Finding {
                rule,
                severity: rule.severity(),
                tool: tool.name.to_owned(),
                path,
                message,
            });
        };
        match tool.input_schema {
            Some(schema) => {
                if schema.get("type").and_then(Value::as_str) != Some("object") {
                    emit(
                        Rule::InputNotObject,
                        "inputSchema".into(),
                        "`type` is not \"object\": the spec requires an object schema for a \
                         tool's arguments, and hosts refuse or rewrite the tool"
                            .into(),
                    );
                }
                walk(schema, "inputSchema", None, 0, &mut emit);
            }
            None => emit(
                Rule::InputNotObject,
                "inputSchema".into(),
                "no inputSchema: the spec requires one (`{\"type\": \"object\"}` for none)".into(),
            ),
        }
        if let Some(schema) = tool.output_schema {
            walk(schema, "outputSchema", None, 0, &mut emit);
        }
        checked_at_call_time(tool, &mut emit);
    }
    findings
}

/// What a calibrated host checks of the arguments before it calls the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostCheck {
    /// The whole schema; its model reads these words (`{error}`: the validator's complaint).
    Schema { host: String, words: String },
    /// Only that `required` properties are there; its model then reads these words.
    Required { host: String, words: String },
}

/// Schema keywords a validator checks a value against (beyond its type).
const CHECKED: &[&str] = &[
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "enum",
    "const",
    "minItems",
    "maxItems",
    "multipleOf",
];

/// For each tool, the hosts of `hosts` that would refuse a call breaking its schema before the
/// server is called, and what their models read then (the calibrated profiles' `checks`).
pub fn host_checks(tools: &[Definition], hosts: &[HostCheck]) -> Vec<Finding> {
    let mut findings = Vec::new();
    let schema_hosts: Vec<&str> = hosts
        .iter()
        .filter_map(|check| match check {
            HostCheck::Schema { host, .. } => Some(host.as_str()),
            HostCheck::Required { .. } => None,
        })
        .collect();
    for tool in tools {
        let Some(schema) = tool.input_schema else {
            continue;
        };
        let constrained: Vec<&str> = schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(_, property)| {
                CHECKED
                    .iter()
                    .any(|keyword| property.get(*keyword).is_some())
            })
            .map(|(name, _)| name.as_str())
            .collect();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut emit = |path: &str, message: String| {
            findings.push(Finding {
                rule: Rule::HostChecksFirst,
                severity: Rule::HostChecksFirst.severity(),
                tool: tool.name.to_owned(),
                path: path.to_owned(),
                message,
            });
        };
        if !constrained.is_empty() && !schema_hosts.is_empty() {
            emit(
                "inputSchema",
                format!(
                    "{} check the arguments against this schema before the server is called: a \
                     call that breaks {} reaches their model as the validator's complaint, not \
                     your message",
                    schema_hosts.join(", "),
                    constrained.join(", ")
                ),
            );
        }
        for check in hosts {
            if let HostCheck::Required { host, words } = check
                && !required.is_empty()
            {
                emit(
                    "inputSchema.required",
                    format!(
                        "{host} refuses a call without {} itself, and its model reads only \
                         \"{words}\": it never learns which argument is missing",
                        required.join(" or ")
                    ),
                );
            }
        }
    }
    findings
}

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

fn walk(
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
    for key in MAP {
        if let Some(Value::Object(map)) = object.get(*key) {
            for (name, child) in map {
                walk(
                    child,
                    &format!("{path}.{key}.{name}"),
                    Some(key),
                    depth + 1,
                    emit,
                );
            }
        }
    }
    for key in LIST {
        if let Some(Value::Array(list)) = object.get(*key) {
            for (index, child) in list.iter().enumerate() {
                walk(
                    child,
                    &format!("{path}.{key}[{index}]"),
                    Some(key),
                    depth + 1,
                    emit,
                );
            }
        }
    }
    for key in ONE {
        match object.get(*key) {
            Some(Value::Array(list)) if *key == "items" => {
                for (index, child) in list.iter().enumerate() {
                    walk(
                        child,
                        &format!("{path}.{key}[{index}]"),
                        Some(key),
                        depth + 1,
                        emit,
                    );
                }
            }
            Some(child) => walk(child, &format!("{path}.{key}"), Some(key), depth + 1, emit),
            None => {}
        }
    }
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

/// Words that demand what no JSON Schema keyword checks: the state of the world at call time.
const CALL_TIME_WORDS: &[&str] = &[
    "in the future",
    "in the past",
    "future date",
    "past date",
    "after today",
    "before today",
    "not yet",
    "must exist",
    "must not exist",
    "already exist",
    "must be available",
    "must be unique",
    "business day",
    "weekday",
];

/// A description (the tool's or a property's) that demands what only the server can check.
fn checked_at_call_time(tool: &Definition, emit: &mut impl FnMut(Rule, String, String)) {
    let mut described: Vec<(String, &str)> = Vec::new();
    if let Some(description) = tool.description {
        described.push(("description".into(), description));
    }
    if let Some(Value::Object(properties)) = tool
        .input_schema
        .and_then(|schema| schema.get("properties"))
    {
        for (name, property) in properties {
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                described.push((
                    format!("inputSchema.properties.{name}.description"),
                    description,
                ));
            }
        }
    }
    for (path, description) in described {
        let lower = description.to_lowercase();
        if let Some(words) = CALL_TIME_WORDS.iter().find(|words| lower.contains(*words)) {
            emit(
                Rule::CheckedOnlyAtCallTime,
                path,
                format!(
                    "says \"{words}\", which no schema keyword can check: the server decides at \
                     call time, so report that failure as a tool error (`isError: true`, \
                     SEP-1303) that the model reads and corrects itself from, not as -32602"
                ),
            );
        }
    }
}

/// Where the rules are written: the spec's tool definitions.
const HELP_URI: &str = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool";

/// The findings as a SARIF 2.1.0 log: a rule per lint rule, a result per finding with its tool
/// and path as the logical location and `file` (a path in the repository) as the physical one.
pub fn sarif(findings: &[Finding], file: Option<&str>) -> Value {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|rule| {
            serde_json::json!({
                "id": format!("lint.{}", rule.id()),
                "name": rule.id(),
                "shortDescription": {"text": rule.id()},
                "fullDescription": {"text": rule.description()},
                "help": {"text": rule.help(), "markdown": rule.help()},
                "helpUri": HELP_URI,
                "defaultConfiguration": {"level": rule.severity()},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|finding| {
            let mut location = serde_json::json!({
                "logicalLocations": [{
                    "name": finding.path,
                    "fullyQualifiedName": format!("{}.{}", finding.tool, finding.path),
                    "kind": "member",
                }],
            });
            if let Some(file) = file {
                location["physicalLocation"] = serde_json::json!({
                    "artifactLocation": {"uri": file},
                    "region": {"startLine": 1},
                });
            }
            serde_json::json!({
                "ruleId": format!("lint.{}", finding.rule.id()),
                "level": finding.severity,
                "message": {"text": format!("{}: {}: {}", finding.tool, finding.path, finding.message)},
                "locations": [location],
                "partialFingerprints": {
                    "sightlineLint/v1": format!("{}/{}/{}", finding.tool, finding.rule.id(), finding.path),
                },
            })
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sightline",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://modelcontextprotocol.io/specification/2025-11-25/server/tools",
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(input: &Value) -> Vec<Rule> {
        let tool = Definition {
            name: "t",
            description: None,
            input_schema: Some(input),
            output_schema: None,
        };
        lint(&[tool])
            .into_iter()
            .map(|finding| finding.rule)
            .collect()
    }

    fn object(properties: &Value) -> Value {
        json!({"type": "object", "properties": properties})
    }

    #[test]
    fn a_plain_object_schema_is_clean() {
        let schema = json!({
            "type": "object",
            "properties": {"date": {"type": "string", "pattern": "^\\d{2}/\\d{2}/\\d{4}$"}},
            "required": ["date"],
            "additionalProperties": false,
        });
        assert_eq!(rules(&schema), []);
    }

    #[test]
    fn each_rule_trips_on_its_spelling_and_not_on_the_portable_one() {
        let cases = [
            (
                Rule::BooleanSchema,
                object(&json!({"x": true})),
                object(&json!({"x": {"type": "string"}})),
            ),
            (
                Rule::TypeUnion,
                object(&json!({"x": {"type": ["string", "null"]}})),
                object(&json!({"x": {"anyOf": [{"type": "string"}, {"type": "null"}]}})),
            ),
            (
                Rule::RemoteRef,
                object(&json!({"x": {"$ref": "https://example.com/s.json"}})),
                json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/s"}},
                       "$defs": {"s": {"type": "string"}}}),
            ),
            (
                Rule::UntypedSchema,
                object(&json!({"x": {"description": "anything"}})),
                object(&json!({"x": {"type": "string", "description": "a name"}})),
            ),
            (
                Rule::InputNotObject,
                json!({"type": "string"}),
                json!({"type": "object"}),
            ),
            (
                Rule::RequiredUndefined,
                json!({"type": "object", "properties": {}, "required": ["x"]}),
                json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}),
            ),
            (
                Rule::CheckedOnlyAtCallTime,
                object(
                    &json!({"date": {"type": "string", "description": "must be in the future"}}),
                ),
                object(&json!({"date": {"type": "string", "description": "dd/mm/yyyy"}})),
            ),
        ];
        let covered: Vec<Rule> = cases.iter().map(|(rule, _, _)| *rule).collect();
        assert_eq!(
            covered,
            Rule::ALL[..7],
            "a case for every rule but the hosts' (below)"
        );
        for (rule, trips, portable) in cases {
            assert_eq!(rules(&trips), [rule], "{} on {trips}", rule.id());
            assert_eq!(rules(&portable), [], "{} on {portable}", rule.id());
        }
    }

    #[test]
    fn false_and_open_objects_are_ordinary_where_a_boolean_belongs() {
        let schema = json!({"type": "object", "additionalProperties": true,
                            "properties": {"x": {"not": {}}}});
        assert_eq!(rules(&schema), []);
    }

    #[test]
    fn the_output_schema_and_the_tools_description_are_linted_too() {
        let input = json!({"type": "object"});
        let output = json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}});
        let tool = Definition {
            name: "book",
            description: Some("Book a seat. The date must be in the future."),
            input_schema: Some(&input),
            output_schema: Some(&output),
        };
        let found: Vec<(Rule, String)> = lint(&[tool])
            .into_iter()
            .map(|finding| (finding.rule, finding.path))
            .collect();
        assert_eq!(
            found,
            [
                (Rule::TypeUnion, "outputSchema.properties.n".to_owned()),
                (Rule::CheckedOnlyAtCallTime, "description".to_owned()),
            ]
        );
    }

    #[test]
    fn a_schema_nested_past_the_limit_ends_the_walk() {
        let mut schema = json!({"type": "string"});
        for _ in 0..200 {
            schema = json!({"type": "array", "items": schema});
        }
        assert_eq!(
            rules(&json!({"type": "object", "properties": {"deep": schema}})),
            []
        );
    }

    #[test]
    fn the_hosts_that_check_first_are_named_with_what_their_models_read() {
        let schema = json!({"type": "object",
            "properties": {"date": {"type": "string", "pattern": "^[0-9]{2}$"}, "note": {"type": "string"}},
            "required": ["date"]});
        let open = json!({"type": "object", "properties": {"note": {"type": "string"}}});
        let tool = |input| Definition {
            name: "book",
            description: None,
            input_schema: Some(input),
            output_schema: None,
        };
        let hosts = [
            HostCheck::Schema {
                host: "gemini-cli".into(),
                words: "{error}".into(),
            },
            HostCheck::Required {
                host: "openai-agents".into(),
                words: "An error occurred.".into(),
            },
        ];
        let found = host_checks(&[tool(&schema), tool(&open)], &hosts);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert_eq!(found[0].path, "inputSchema");
        assert!(
            found[0]
                .message
                .starts_with("gemini-cli check the arguments")
        );
        assert!(found[0].message.contains("breaks date reaches"));
        assert_eq!(found[1].path, "inputSchema.required");
        assert!(
            found[1]
                .message
                .contains("openai-agents refuses a call without date itself")
        );
        assert!(found[1].message.contains("\"An error occurred.\""));
        assert!(
            found
                .iter()
                .all(|f| f.rule == Rule::HostChecksFirst && f.severity == "note")
        );
        assert_eq!(host_checks(&[tool(&open)], &hosts), []);
    }
}
