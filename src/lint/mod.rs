//! Tool definitions linted, pure: the schema spellings clients refuse or mishandle (the ids of
//! the official Inspector's `--strict` where they overlap), and what a description demands that
//! the schema cannot check (SEP-1303's "must be in the future").

use serde::Serialize;
use serde_json::Value;

mod hosts;
mod sarif;
mod schema;
mod words;

pub use hosts::{HostCheck, host_checks};
pub use sarif::sarif;

use schema::walk;
use words::checked_at_call_time;

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

#[cfg(test)]
mod tests;
