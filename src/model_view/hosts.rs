//! Host profiles as data: how a client builds the model's input from a tool result. Built-ins
//! plus user profiles from a TOML file; a bad file is an error naming the file, line and key.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a host does with `structuredContent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Structured {
    /// The content blocks; the structured value too when no text block already carries it.
    #[default]
    Alongside,
    /// The content blocks only.
    Ignore,
    /// The structured value when present, else the content blocks.
    Prefer,
}

/// The shape of the message a host sends to its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// A neutral tool-result block: `{type, is_error, content: [...]}`.
    #[default]
    Generic,
    /// A `tool_result` content block with `is_error` (the Anthropic Messages API).
    AnthropicMessages,
    /// A `role: tool` message with string content (the `OpenAI` Chat Completions API).
    OpenaiChat,
}

const DEFAULT_FAILURE_TEXT: &str = "Error: the tool call failed.";

/// One host profile.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostProfile {
    #[serde(skip_deserializing)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub structured: Structured,
    #[serde(default)]
    pub shape: Shape,
    /// The MAY rule: forward protocol errors to the model.
    #[serde(default)]
    pub forward_protocol_errors: bool,
    /// What the host tells the model when nothing from the server is forwarded.
    #[serde(default = "default_failure_text")]
    pub failure_text: String,
}

fn default_failure_text() -> String {
    DEFAULT_FAILURE_TEXT.to_owned()
}

impl HostProfile {
    fn builtin(name: &str, description: &str, structured: Structured) -> Self {
        Self {
            name: name.to_owned(),
            description: description.to_owned(),
            structured,
            shape: Shape::Generic,
            forward_protocol_errors: false,
            failure_text: default_failure_text(),
        }
    }
}

/// The built-in profiles; `spec` is the default.
pub fn builtins() -> Vec<HostProfile> {
    vec![
        HostProfile::builtin(
            "spec",
            "the spec's rules: tool errors forwarded (SHOULD), protocol errors not (MAY, off)",
            Structured::Alongside,
        ),
        HostProfile::builtin(
            "content-only",
            "ignores structuredContent",
            Structured::Ignore,
        ),
        HostProfile::builtin(
            "structured-first",
            "uses structuredContent when present, else the text",
            Structured::Prefer,
        ),
    ]
}

/// The `spec` profile, for when no other is at hand.
pub fn spec() -> &'static HostProfile {
    static SPEC: std::sync::OnceLock<HostProfile> = std::sync::OnceLock::new();
    SPEC.get_or_init(|| builtins().remove(0))
}

/// A host profile file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("host profiles file '{file}', line {line}{}: {message}", key.as_ref().map(|k| format!(", key '{k}'")).unwrap_or_default())]
pub struct HostsError {
    pub file: String,
    pub line: usize,
    pub key: Option<String>,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostsFile {
    #[serde(default)]
    hosts: BTreeMap<String, HostProfile>,
}

/// Parses a profiles file: `[hosts.NAME]` tables of [`HostProfile`] fields.
pub fn parse(text: &str, file: &str) -> Result<Vec<HostProfile>, HostsError> {
    let parsed: HostsFile = toml::from_str(text).map_err(|error| {
        let offset = error.span().map_or(0, |span| span.start);
        let line = text[..offset.min(text.len())].matches('\n').count() + 1;
        HostsError {
            file: file.to_owned(),
            line,
            key: key_on_line(text.lines().nth(line - 1).unwrap_or_default()),
            message: error.message().trim().to_owned(),
        }
    })?;
    Ok(parsed
        .hosts
        .into_iter()
        .map(|(name, mut profile)| {
            profile.name = name;
            profile
        })
        .collect())
}

fn key_on_line(line: &str) -> Option<String> {
    let line = line.trim();
    let key = match line.split_once('=') {
        Some((key, _)) => key.trim(),
        None => line.trim_start_matches('[').trim_end_matches(']').trim(),
    };
    (!key.is_empty()).then(|| key.trim_matches('"').to_owned())
}

/// Finds a profile by name; user profiles override built-ins of the same name.
pub fn resolve(name: &str, user: &[HostProfile]) -> Result<HostProfile, String> {
    let mut all = builtins();
    all.retain(|builtin| user.iter().all(|u| u.name != builtin.name));
    all.extend(user.iter().cloned());
    all.iter()
        .find(|profile| profile.name == name)
        .cloned()
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|profile| profile.name.as_str()).collect();
            format!(
                "unknown host profile '{name}'; available: {}",
                names.join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_file_adds_and_overrides_profiles() {
        let text = r#"
[hosts.claude-like]
description = "forwards protocol errors as text"
shape = "anthropic-messages"
forward_protocol_errors = true

[hosts.spec]
structured = "ignore"
"#;
        let user = parse(text, "hosts.toml").unwrap();
        let claude = resolve("claude-like", &user).unwrap();
        assert_eq!(claude.shape, Shape::AnthropicMessages);
        assert!(claude.forward_protocol_errors);
        assert_eq!(claude.failure_text, DEFAULT_FAILURE_TEXT);
        assert_eq!(
            resolve("spec", &user).unwrap().structured,
            Structured::Ignore
        );
        assert_eq!(
            resolve("content-only", &user).unwrap().structured,
            Structured::Ignore
        );
    }

    #[test]
    fn a_bad_value_names_the_file_line_and_key() {
        let text = "[hosts.x]\ndescription = \"ok\"\nshape = \"fax\"\n";
        let error = parse(text, "/home/u/.config/sightline/hosts.toml").unwrap_err();
        assert_eq!((error.line, error.key.as_deref()), (3, Some("shape")));
        let shown = error.to_string();
        assert!(
            shown.starts_with(
                "host profiles file '/home/u/.config/sightline/hosts.toml', line 3, key 'shape': "
            ),
            "{shown}"
        );
        assert!(
            shown.contains("fax") || shown.contains("unknown variant"),
            "{shown}"
        );
    }

    #[test]
    fn an_unknown_key_and_broken_toml_are_errors_too() {
        let error = parse("[hosts.x]\nshapes = \"generic\"\n", "f").unwrap_err();
        assert_eq!((error.line, error.key.as_deref()), (2, Some("shapes")));
        let error = parse("[hosts.x\n", "f").unwrap_err();
        assert_eq!(error.line, 1);
    }

    #[test]
    fn an_unknown_profile_lists_the_available_ones() {
        let error = resolve("nope", &[]).unwrap_err();
        assert_eq!(
            error,
            "unknown host profile 'nope'; available: spec, content-only, structured-first"
        );
    }
}
