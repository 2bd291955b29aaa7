//! Notes that sightlines before typed OAuth facts wrote for them (`authorization: …` and
//! `⚑ auth.…: …`), read back as the facts, pure. Only words that are exactly a fact's words
//! become that fact; any other note stays a note.

use crate::classify::oauth;
use crate::mcp::oauth::{AuthFact, AuthProblem, AuthStep};

/// The OAuth fact whose log line `text` is, if it is exactly one.
pub(super) fn fact(text: &str) -> Option<AuthFact> {
    let fact = if let Some(words) = text.strip_prefix("authorization: ") {
        AuthFact::Step(step(words)?)
    } else if let Some(words) = text.strip_prefix("⚑ ") {
        AuthFact::Problem(problem(words)?)
    } else {
        return None;
    };
    // Read back, it must say what it said: a note that only looks like a fact stays a note.
    (oauth::line(&fact) == text).then_some(fact)
}

/// The step these words (after `authorization: `) say.
fn step(words: &str) -> Option<AuthStep> {
    let units = [
        AuthStep::Started,
        AuthStep::Done,
        AuthStep::Refreshing,
        AuthStep::Refreshed,
        AuthStep::NoResourceMetadata,
        AuthStep::DefaultEndpoints,
        AuthStep::NoMetadataDocuments,
    ];
    if let Some(unit) = units.into_iter().find(|unit| unit.to_string() == words) {
        return Some(unit);
    }
    let between = |before: &str, after: &str| {
        words
            .strip_prefix(before)?
            .strip_suffix(after)
            .map(str::to_owned)
    };
    let pair = |before: &str, middle: &str, after: &str| {
        let rest = between(before, after)?;
        let (first, second) = rest.split_once(middle)?;
        Some((first.to_owned(), second.to_owned()))
    };
    if let Some(client_id) = between(
        "asking the same authorization server again, as the client ",
        " it registered",
    ) {
        return Some(AuthStep::SameClient { client_id });
    }
    if let Some(client_id) = between(
        "asking for a token as the machine client ",
        " (client credentials)",
    ) {
        return Some(AuthStep::MachineClient { client_id });
    }
    if let Some(client_id) = between("using the client given, ", "") {
        return Some(AuthStep::GivenClient { client_id });
    }
    if let Some(url) = between("the client is its metadata document, ", "") {
        return Some(AuthStep::MetadataDocument { url });
    }
    if let Some(client_id) = between("registered as client ", "") {
        return Some(AuthStep::Registered { client_id });
    }
    if let Some((client_id, audience)) = pair(
        "authenticating as ",
        " with a private_key_jwt assertion (ES256, audience ",
        ")",
    ) {
        return Some(AuthStep::KeyAssertion {
            client_id,
            audience,
        });
    }
    if let Some(reason) = between(
        "the client key is not used (",
        "); authenticating with the client secret instead",
    ) {
        return Some(AuthStep::KeyNotUsed { reason });
    }
    if let Some((port, error)) = pair(
        "the registered redirect port ",
        " is taken (",
        "); listening on another",
    ) {
        let port = port.parse().ok()?;
        return Some(AuthStep::PortTaken { port, error });
    }
    if let Some(url) = between("open this URL to authorize: ", "") {
        return Some(AuthStep::OpenUrl { url });
    }
    if let Some(error) = between("no browser could be opened (", ")") {
        return Some(AuthStep::NoBrowser { error });
    }
    if let Some(scope) = between("the token's scope is not enough; asking again for ", "") {
        let (scope, rest) = quoted(&scope)?;
        return rest.is_empty().then_some(AuthStep::StepUp { scope });
    }
    // A path may hold ": ", an I/O error's words do not: the last one ends the path.
    let rest = between("the token could not be kept in ", "")?;
    let (path, error) = rest.rsplit_once(": ")?;
    Some(AuthStep::NotCached {
        path: path.to_owned(),
        error: error.to_owned(),
    })
}

/// The problem these words (after `⚑ `) name: a finding's id, then its message.
fn problem(words: &str) -> Option<AuthProblem> {
    let (id, message) = words.split_once(": ")?;
    Some(match id {
        "auth.401-without-www-authenticate" => AuthProblem::MissingChallenge,
        "auth.no-authorization-server" => AuthProblem::NoAuthorizationServer,
        "auth.no-pkce-s256" => AuthProblem::NoPkceS256,
        "auth.resource-mismatch" if message.starts_with("RFC 9728 §2:") => {
            AuthProblem::ResourceMissing
        }
        "auth.resource-mismatch" => {
            let rest = message.strip_prefix("RFC 9728 §3.3: the metadata's resource ")?;
            let (said, rest) = quoted(rest)?;
            let (expected, _) = quoted(rest.strip_prefix(" is not the server asked (")?)?;
            AuthProblem::ResourceMismatch { said, expected }
        }
        "auth.issuer-mismatch" => {
            let rest = message.strip_prefix("RFC 8414 §3.3: the metadata's issuer ")?;
            let (said, rest) = if let Some(rest) = rest.strip_prefix("None") {
                (None, rest)
            } else {
                let (said, rest) = quoted(rest.strip_prefix("Some(")?)?;
                (Some(said), rest.strip_prefix(')')?)
            };
            let rest = rest.strip_prefix(" is not the issuer looked up (")?;
            let (looked_up, _) = quoted(rest)?;
            AuthProblem::IssuerMismatch { said, looked_up }
        }
        _ => return None,
    })
}

/// A string as `{:?}` writes it at the start of `text` (`"a \"b\""`): its value, and the rest.
fn quoted(text: &str) -> Option<(String, &str)> {
    let mut chars = text.strip_prefix('"')?.char_indices();
    let mut value = String::new();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[1 + at + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => value.push('\n'),
                'r' => value.push('\r'),
                't' => value.push('\t'),
                '0' => value.push('\0'),
                'u' => {
                    let mut hex = String::new();
                    if chars.next()?.1 != '{' {
                        return None;
                    }
                    for (_, c) in chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                        hex.push(c);
                    }
                    value.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => value.push(other),
            },
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_fact() -> Vec<AuthFact> {
        let text = |s: &str| s.to_owned();
        let steps = [
            AuthStep::Started,
            AuthStep::SameClient {
                client_id: text("demo-client-1"),
            },
            AuthStep::Done,
            AuthStep::MachineClient {
                client_id: text("robot"),
            },
            AuthStep::Refreshing,
            AuthStep::Refreshed,
            AuthStep::NoResourceMetadata,
            AuthStep::DefaultEndpoints,
            AuthStep::GivenClient {
                client_id: text("given"),
            },
            AuthStep::MetadataDocument {
                url: text("https://example.com/client.json"),
            },
            AuthStep::NoMetadataDocuments,
            AuthStep::Registered {
                client_id: text("demo-client-2"),
            },
            AuthStep::KeyAssertion {
                client_id: text("keyed"),
                audience: text("https://auth.example.com"),
            },
            AuthStep::KeyNotUsed {
                reason: text(
                    "its token_endpoint_auth_methods_supported (none) does not list private_key_jwt",
                ),
            },
            AuthStep::PortTaken {
                port: 4123,
                error: text("Address in use (os error 98)"),
            },
            AuthStep::OpenUrl {
                url: text("http://127.0.0.1:9/authorize?client_id=a&state=b"),
            },
            AuthStep::NoBrowser {
                error: text("No such file or directory (os error 2)"),
            },
            AuthStep::StepUp {
                scope: text("flights \"bookings\"\tcancel é"),
            },
            AuthStep::NotCached {
                path: text("/tmp/tokens: a.json"),
                error: text("Permission denied (os error 13)"),
            },
        ];
        let problems = [
            AuthProblem::MissingChallenge,
            AuthProblem::ResourceMismatch {
                said: text("https://evil.example.com/mcp"),
                expected: text("https://mcp.example.com/mcp"),
            },
            AuthProblem::ResourceMissing,
            AuthProblem::NoAuthorizationServer,
            AuthProblem::IssuerMismatch {
                said: Some(text("https://other.example.com\u{1b}")),
                looked_up: text("https://auth.example.com"),
            },
            AuthProblem::IssuerMismatch {
                said: None,
                looked_up: text("https://auth.example.com"),
            },
            AuthProblem::NoPkceS256,
        ];
        steps
            .into_iter()
            .map(AuthFact::Step)
            .chain(problems.into_iter().map(AuthFact::Problem))
            .collect()
    }

    #[test]
    fn every_fact_reads_back_from_the_note_an_older_sightline_wrote() {
        for fact in every_fact() {
            let words = oauth::line(&fact);
            assert_eq!(super::fact(&words), Some(fact), "{words}");
        }
    }

    #[test]
    fn a_note_that_only_looks_like_a_fact_stays_a_note() {
        for text in [
            "era probe fell back",
            "authorization: something new",
            "authorization: starting OAuth discovery now",
            "authorization:starting OAuth discovery",
            "⚑ auth.unknown: what",
            "⚑ auth.no-pkce-s256: other words",
            "authorization: the registered redirect port many is taken (x); listening on another",
            "authorization: the token's scope is not enough; asking again for \"unterminated",
            "#3: authorization: the token request failed (HTTP 400: invalid_grant)",
        ] {
            assert_eq!(fact(text), None, "{text}");
        }
    }
}
