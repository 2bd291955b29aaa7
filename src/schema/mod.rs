//! A tool's `inputSchema` put to use, pure: an argument skeleton to start editing from, and
//! client-side validation of arguments (no network `$ref`). Shared by the TUI and `audit`.

mod skeleton;

use serde_json::Value;

pub use skeleton::skeleton;

/// Every way `arguments` breaks `schema`, one line each (`arguments/path: why`); empty when
/// they conform. A schema that cannot be compiled is reported as a single problem.
pub fn violations(schema: &Value, arguments: &Value) -> Vec<String> {
    problems(schema, arguments, "arguments", "input")
}

/// Every way a result's `structuredContent` breaks the tool's `outputSchema`, one line each
/// (`structuredContent/path: why`); a schema that cannot be compiled is one problem.
pub fn output_violations(schema: &Value, structured: &Value) -> Vec<String> {
    problems(schema, structured, "structuredContent", "output")
}

/// `instance` against `schema`: each problem under `root`'s name, or the `which` schema said
/// to be unusable.
fn problems(schema: &Value, instance: &Value, root: &str, which: &str) -> Vec<String> {
    match jsonschema::validator_for(schema) {
        Ok(validator) => validator
            .iter_errors(instance)
            .map(|error| {
                let path = error.instance_path().to_string();
                format!("{root}{path}: {error}")
            })
            .collect(),
        Err(error) => vec![format!(
            "the {which} schema cannot be used for validation: {error}"
        )],
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::violations;

    #[test]
    fn violations_name_the_path_and_the_rule() {
        let schema = json!({
            "type": "object",
            "properties": {"seats": {"type": "integer", "minimum": 1}},
            "required": ["date"]
        });
        let found = violations(&schema, &json!({"seats": 0}));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().any(|v| v.starts_with("arguments/seats: ")));
        assert!(
            found
                .iter()
                .any(|v| v.starts_with("arguments: ") && v.contains("date"))
        );
        assert!(violations(&schema, &json!({"date": "x", "seats": 2})).is_empty());
    }

    #[test]
    fn an_unusable_schema_is_one_problem_not_a_panic() {
        let found = violations(&json!({"type": 12}), &json!({}));
        assert_eq!(found.len(), 1);
        assert!(found[0].starts_with("the input schema cannot be used"));
    }
}
