//! Each rule held to a schema that trips it and the spelling that does not.

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
            object(&json!({"date": {"type": "string", "description": "must be in the future"}})),
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
