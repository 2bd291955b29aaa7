//! What a failure's words are about, pure: the audit case (its argument, its constraint, its bad
//! value), another argument of the call, or something that blocked the call (task augmentation,
//! auth, a rate limit); and whether they say what to send instead (SEP-1303's advice).

use serde_json::Value;

use super::plan::{Case, CaseKind};
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;

/// What an answer is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum About {
    /// The case: the words that show it.
    Case(String),
    /// Another argument of the call (a base value the server refused), by name.
    OtherArgument { name: String, evidence: String },
    /// Something that stopped the call before its arguments were judged.
    Blocked {
        what: &'static str,
        evidence: String,
    },
    /// Nothing the audit can tell.
    Nothing,
}

/// What stops a call before its arguments are looked at, and the words that say so.
const BLOCKERS: [(&str, &[&str]); 3] = [
    (
        "task augmentation",
        &[
            "task augmentation",
            "tasksupport",
            "requires a task",
            "run as a task",
            "only as a task",
            // The TypeScript SDK (1.32) when a tool error cannot become the task it was asked
            // for: "Invalid task creation result".
            "task creation",
        ],
    ),
    (
        "authorization",
        &[
            "unauthorized",
            "unauthenticated",
            "authentication",
            "forbidden",
            "access denied",
        ],
    ),
    (
        "a rate limit",
        &["rate limit", "too many requests", "throttl"],
    ),
];

/// The words a server uses for each kind of broken constraint.
fn constraint_words(kind: CaseKind) -> &'static [&'static str] {
    match kind {
        CaseKind::MissingRequired => &["required", "missing", "must be provided", "is undefined"],
        CaseKind::WrongType => &["type", "expected", "must be a", "must be an", "invalid"],
        CaseKind::OutsideEnum => &["one of", "enum", "allowed", "must be", "invalid"],
        CaseKind::PatternMismatch | CaseKind::FormatMismatch => {
            &["format", "pattern", "match", "invalid", "must be"]
        }
        CaseKind::TooShort => &["short", "at least", "min", "length"],
        CaseKind::TooLong => &["long", "at most", "max", "length"],
        CaseKind::BelowMinimum => &[
            "minimum",
            "at least",
            "greater",
            "too small",
            "min",
            "range",
        ],
        CaseKind::AboveMaximum => &["maximum", "at most", "less", "too large", "max", "range"],
        CaseKind::UnexpectedProperty => &[
            "unexpected",
            "unrecognized",
            "unknown",
            "additional",
            "not allowed",
            "extra",
        ],
        CaseKind::UnknownTool | CaseKind::ArgumentsNotObject => &[],
    }
}

/// Hints that tell the caller what to send instead.
const ACTIONABLE: [&str; 16] = [
    "yyyy",
    "e.g.",
    "for example",
    "dd/mm",
    "mm/dd",
    "format",
    "one of",
    "allowed",
    "expected",
    "must be",
    "should be",
    "between",
    "at least",
    "at most",
    "minimum",
    "maximum",
];

/// The words of the answer: a result's text blocks (else its structured content), or a protocol
/// error's message and data. Empty when there is no answer.
pub fn text(exchange: &Exchange) -> String {
    match exchange.answer() {
        Some(Reply::Result(result)) => {
            let value: Value = serde_json::from_str(result.text()).unwrap_or(Value::Null);
            let texts: Vec<&str> = value
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect();
            if texts.is_empty() {
                value
                    .get("structuredContent")
                    .map(Value::to_string)
                    .unwrap_or_default()
            } else {
                texts.join("\n")
            }
        }
        Some(Reply::Error(error)) => match &error.data {
            Some(data) => format!("{} {}", error.message, data.text()),
            None => error.message.clone(),
        },
        None => String::new(),
    }
}

/// What `words` are about, for `case`.
pub fn about(case: &Case, words: &str) -> About {
    let lower = words.to_lowercase();
    for (what, signs) in BLOCKERS {
        if let Some(sign) = signs.iter().find(|sign| has_word(&lower, sign)) {
            return About::Blocked {
                what,
                evidence: format!("says \"{sign}\""),
            };
        }
    }
    let property = case.property.as_deref().and_then(last_name);
    if let Some(name) = property
        && let Some(said) = names(&lower, name)
    {
        return About::Case(format!("names \"{said}\""));
    }
    if let Some(value) = bad_value(case)
        && lower.contains(&value.to_lowercase())
    {
        return About::Case(format!("echoes \"{value}\""));
    }
    let others = case
        .arguments
        .as_object()
        .into_iter()
        .flat_map(|object| object.keys())
        .filter(|name| Some(name.as_str()) != property);
    for other in others {
        if let Some(said) = names(&lower, other) {
            return About::OtherArgument {
                name: other.clone(),
                evidence: format!("names \"{said}\""),
            };
        }
    }
    let constraint = constraint_words(case.kind)
        .iter()
        .find(|word| has_word(&lower, word));
    match constraint {
        // A constraint's words with no argument named: about the case only when the call has
        // one argument to be about.
        Some(word)
            if case
                .arguments
                .as_object()
                .is_none_or(|object| object.len() <= 1) =>
        {
            About::Case(format!("says \"{word}\""))
        }
        Some(_) | None => About::Nothing,
    }
}

/// The hint in `words` that says what to send instead, if any.
pub fn actionable(words: &str) -> Option<&'static str> {
    let lower = words.to_lowercase();
    ACTIONABLE.into_iter().find(|hint| has_word(&lower, hint))
}

/// Whether `word` starts a word of `text` somewhere (`expected` is not in `unexpected`).
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        text[..at]
            .chars()
            .next_back()
            .is_none_or(|before| !before.is_alphanumeric())
    })
}

/// The last name of a dotted path (`passengers.0.name` → `name`).
fn last_name(path: &str) -> Option<&str> {
    path.rsplit('.')
        .find(|part| !part.is_empty() && !part.chars().all(|c| c.is_ascii_digit()))
}

/// How `words` (lowercase) name the argument `name`: as written, or in words
/// (`departureDate`, `departure_date` → `departure date`), each as a whole word (`id` is not
/// named by `invalid`); a one-letter name only quoted or as a path (`'a'`, `at a`), never by
/// the article.
fn names(words: &str, name: &str) -> Option<String> {
    let exact = name.to_lowercase();
    if exact.chars().count() == 1 {
        return quoted(words, &exact).then(|| name.to_owned());
    }
    if whole_word(words, &exact) {
        return Some(name.to_owned());
    }
    let spaced = spaced(name);
    (spaced != exact && spaced.len() >= 4 && whole_word(words, &spaced)).then_some(spaced)
}

/// Whether `word` is in `text` with no letter, digit or `_` joined to either end.
fn whole_word(text: &str, word: &str) -> bool {
    let joined = |c: char| c.is_alphanumeric() || c == '_';
    !word.is_empty()
        && text.match_indices(word).any(|(at, _)| {
            text[..at].chars().next_back().is_none_or(|c| !joined(c))
                && text[at + word.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !joined(c))
        })
}

/// Whether a one-letter `name` is in `text` quoted (`'a'`, `"a"`, `` `a` ``, `[a]`), as a path
/// member (`.a`, `/a`) or after `at ` (zod's `… at a`).
fn quoted(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = &text[..at];
        let after = text[at + name.len()..].chars().next();
        let alone = after.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let opened = before
            .chars()
            .next_back()
            .is_some_and(|c| matches!(c, '\'' | '"' | '`' | '[' | '.' | '/'));
        alone && (opened || before.ends_with(" at ") || before == "at ")
    })
}

/// `departureDate` and `departure_date` as `departure date`.
fn spaced(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_uppercase() && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        match c {
            '_' | '-' => out.push(' '),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// The value the case sent for its property, as text worth looking for in an answer.
fn bad_value(case: &Case) -> Option<String> {
    let path = case.property.as_deref()?;
    let mut value = &case.arguments;
    for part in path.split('.') {
        value = match part.parse::<usize>() {
            Ok(index) => value.get(index)?,
            Err(_) => value.get(part)?,
        };
    }
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        _ => return None,
    };
    (text.chars().count() >= 3).then_some(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn case(kind: CaseKind, property: &str, arguments: Value) -> Case {
        Case {
            group: "book".into(),
            tool: "book".into(),
            kind,
            property: Some(property.into()),
            arguments,
            what: String::new(),
        }
    }

    #[test]
    fn an_answer_is_about_the_case_when_it_names_its_argument_or_echoes_its_value() {
        let missing = case(
            CaseKind::MissingRequired,
            "departureDate",
            json!({"destination": "Lisbon"}),
        );
        assert_eq!(
            about(&missing, "Invalid departure date: must be in the future"),
            About::Case("names \"departure date\"".into())
        );
        let pattern = case(
            CaseKind::PatternMismatch,
            "code",
            json!({"code": "x!y", "seats": 2}),
        );
        assert_eq!(
            about(&pattern, "'x!y' is not a valid code"),
            About::Case("names \"code\"".into())
        );
    }

    #[test]
    fn an_answer_about_another_argument_or_a_blocker_is_not_about_the_case() {
        let extra = case(
            CaseKind::UnexpectedProperty,
            "sightline_unexpected",
            json!({"departureDate": "00/00/0000", "sightline_unexpected": true}),
        );
        assert_eq!(
            about(&extra, "Invalid departure date: 00/00/0000"),
            About::OtherArgument {
                name: "departureDate".into(),
                evidence: "names \"departure date\"".into()
            }
        );
        let any = case(CaseKind::WrongType, "query", json!({"query": 3}));
        assert!(matches!(
            about(
                &any,
                "Tool requires task augmentation (taskSupport: 'required')"
            ),
            About::Blocked {
                what: "task augmentation",
                ..
            }
        ));
        assert_eq!(about(&any, "explode: deliberate failure"), About::Nothing);
        // server-everything 2026.8.31 (TypeScript SDK 1.32) on a task-augmented call with a
        // bad argument: its words are about the task, not the argument ("invalid_type").
        let sdk = "MCP error -32602: Invalid task creation result: [{\"expected\": \"object\", \
                   \"code\": \"invalid_type\", \"path\": [\"task\"]}]";
        assert!(matches!(
            about(&any, sdk),
            About::Blocked {
                what: "task augmentation",
                ..
            }
        ));
    }

    #[test]
    fn a_short_name_is_named_only_as_a_whole_word_and_one_letter_only_quoted_or_as_a_path() {
        let sum = case(CaseKind::WrongType, "a", json!({"a": "sightline", "b": 1}));
        assert_eq!(
            about(&sum, "Invalid input: expected number, received string at a"),
            About::Case("names \"a\"".into())
        );
        assert_eq!(
            about(&sum, "Argument 'a' must be a number"),
            About::Case("names \"a\"".into())
        );
        let other = case(CaseKind::WrongType, "b", json!({"a": 1, "b": "sightline"}));
        assert_eq!(
            about(&other, "Invalid input: expected a number at b"),
            About::Case("names \"b\"".into())
        );
        // The article is not the argument `a`, and `invalid` does not name `id`.
        assert_eq!(about(&other, "the service had a problem"), About::Nothing);
        let id = case(CaseKind::WrongType, "id", json!({"id": true, "n": 1}));
        assert_eq!(about(&id, "invalid call, try later"), About::Nothing);
        assert_eq!(
            about(&id, "id must be a string"),
            About::Case("names \"id\"".into())
        );
    }

    #[test]
    fn a_message_that_says_what_to_send_is_actionable() {
        assert_eq!(
            actionable("departureDate must be in dd/mm/yyyy format"),
            Some("yyyy")
        );
        assert_eq!(actionable("bad input"), None);
        assert_eq!(
            actionable("Missing required argument 'flightNumber' (e.g. LH123)."),
            Some("e.g.")
        );
    }
}
