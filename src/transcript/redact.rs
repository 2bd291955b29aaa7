//! Redaction, pure: which values are secrets, and how a transcript masks them.

use std::borrow::Cow;

use crate::mcp::log::HttpExchange;

/// Masks what must not reach a transcript: header values a user gave, secret-named headers,
/// and the values of secret-named environment variables wherever they appear.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Off with `--no-redact`.
    pub on: bool,
    /// Header names whose values the user gave (`-H`, a config entry's `headers`).
    pub given_headers: Vec<String>,
    /// Values masked wherever they appear in text.
    pub secrets: Vec<String>,
}

/// What stands for a masked value.
pub const MASK: &str = "****";
/// Shorter values are not masked inside text: masking "ab" everywhere would wreck frames.
const SHORTEST_SECRET: usize = 6;

impl Redactor {
    /// A redactor for these user-given headers and environment variables.
    pub fn new(on: bool, headers: &[(String, String)], env: &[(String, String)]) -> Self {
        let mut secrets = Vec::new();
        for (_, value) in headers {
            secrets.push(value.clone());
            // `Bearer abc…`: the credential alone may appear elsewhere too.
            if let Some((_, credential)) = value.split_once(' ') {
                secrets.push(credential.trim().to_owned());
            }
        }
        secrets.extend(
            env.iter()
                .filter(|(name, _)| secret_env(name))
                .map(|(_, value)| value.clone()),
        );
        secrets.retain(|secret| secret.len() >= SHORTEST_SECRET);
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        secrets.dedup();
        Self {
            on,
            given_headers: headers
                .iter()
                .map(|(name, _)| name.to_ascii_lowercase())
                .collect(),
            secrets,
        }
    }

    /// `text` with every secret value masked.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.on
            || !self
                .secrets
                .iter()
                .any(|secret| text.contains(secret.as_str()))
        {
            return Cow::Borrowed(text);
        }
        let mut masked = text.to_owned();
        for secret in &self.secrets {
            masked = masked.replace(secret.as_str(), MASK);
        }
        Cow::Owned(masked)
    }

    /// `value` with every secret masked in each of its strings.
    pub fn json(&self, value: serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(text) => Value::String(match self.text(&text) {
                Cow::Borrowed(_) => text,
                Cow::Owned(masked) => masked,
            }),
            Value::Array(items) => Value::Array(items.into_iter().map(|v| self.json(v)).collect()),
            Value::Object(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(name, member)| (name, self.json(member)))
                    .collect(),
            ),
            other => other,
        }
    }

    /// A header's value as a transcript keeps it: the scheme word stays (`Bearer ****`).
    pub fn header(&self, name: &str, value: &str) -> String {
        let given = self.given_headers.contains(&name.to_ascii_lowercase());
        if !self.on || !(given || crate::mcp::http::secret_header(name)) {
            return self.text(value).into_owned();
        }
        match value.split_once(' ') {
            Some((scheme, _)) if !scheme.is_empty() => format!("{scheme} {MASK}"),
            _ => MASK.to_owned(),
        }
    }

    pub(super) fn http(&self, exchange: &HttpExchange) -> HttpExchange {
        let headers = |list: &[(String, String)]| {
            list.iter()
                .map(|(name, value)| (name.clone(), self.header(name, value)))
                .collect()
        };
        HttpExchange {
            url: self.text(&exchange.url).into_owned(),
            request_headers: headers(&exchange.request_headers),
            response_headers: headers(&exchange.response_headers),
            error: exchange.error.as_deref().map(|e| self.text(e).into_owned()),
            ..exchange.clone()
        }
    }
}

/// Whether an environment variable's name says its value is a secret.
pub fn secret_env(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('_', "-");
    [
        "token",
        "secret",
        "key",
        "password",
        "passwd",
        "credential",
        "auth",
        "cookie",
    ]
    .iter()
    .any(|word| name.contains(word))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::mcp::log::LogEvent;
    use crate::transcript::fixtures::{entry, write};

    #[test]
    fn secrets_are_masked_visibly_unless_redaction_is_off() {
        let headers = vec![
            (
                "Authorization".to_owned(),
                "Bearer sk-live-123456".to_owned(),
            ),
            ("X-Tenant".to_owned(), "tenant-998877".to_owned()),
        ];
        let env = vec![
            ("OPENAI_API_KEY".to_owned(), "sk-env-abcdef".to_owned()),
            ("HOME".to_owned(), "/home/someone".to_owned()),
        ];
        let redactor = Redactor::new(true, &headers, &env);
        let http = HttpExchange {
            url: "http://h/mcp?key=sk-live-123456".into(),
            request_headers: vec![
                ("authorization".into(), "Bearer sk-live-123456".into()),
                ("x-tenant".into(), "tenant-998877".into()),
                ("accept".into(), "application/json".into()),
            ],
            ..HttpExchange::default()
        };
        let events = vec![
            entry(1, LogEvent::Http(Arc::new(http))),
            entry(
                2,
                LogEvent::Stderr("using key sk-env-abcdef from /home/someone".into()),
            ),
        ];
        let text = write(&events, &redactor);
        for secret in ["sk-live-123456", "tenant-998877", "sk-env-abcdef"] {
            assert!(!text.contains(secret), "{secret} leaked:\n{text}");
        }
        assert!(
            text.contains(r#"["authorization","Bearer ****"]"#),
            "{text}"
        );
        assert!(text.contains(r#"["x-tenant","****"]"#), "{text}");
        assert!(text.contains(r#"["accept","application/json"]"#));
        assert!(text.contains("using key **** from /home/someone"), "{text}");
        let kept = write(&events, &Redactor::new(false, &headers, &env));
        assert!(kept.contains("sk-live-123456") && kept.contains("sk-env-abcdef"));
    }

    #[test]
    fn secret_looking_environment_names() {
        for name in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "DB_PASSWORD",
            "client_secret",
            "AUTH",
        ] {
            assert!(secret_env(name), "{name}");
        }
        for name in ["HOME", "PATH", "LANG", "DEBUG"] {
            assert!(!secret_env(name), "{name}");
        }
    }
}
