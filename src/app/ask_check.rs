//! An elicitation form's values checked against the server's `requestedSchema`, pure: required,
//! number types and bounds, string lengths and formats (email, uri, date, date-time), the number
//! of choices. The spec says clients may use the schema to "validate user input before sending";
//! the user may still send anyway, since a server's own validation is worth testing.

use serde_json::Value;

/// A number field's JSON type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numeric {
    Integer,
    Number,
}

/// The constraints of one property that the form's keys cannot enforce by themselves.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rules {
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub format: Option<String>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
}

impl Rules {
    /// The rules `property` states (a missing or ill-typed keyword states none).
    pub fn of(property: &Value) -> Self {
        let count = |name| property.get(name).and_then(Value::as_u64);
        let bound = |name| property.get(name).and_then(Value::as_f64);
        Self {
            min_length: count("minLength"),
            max_length: count("maxLength"),
            minimum: bound("minimum"),
            maximum: bound("maximum"),
            format: property
                .get("format")
                .and_then(Value::as_str)
                .map(str::to_owned),
            min_items: count("minItems"),
            max_items: count("maxItems"),
        }
    }
}

/// What is wrong with a text typed into a field (a number when `numeric`), in a few words;
/// `None` when it conforms. An empty optional field is left out of the answer: it conforms.
pub fn text_problem(
    text: &str,
    numeric: Option<Numeric>,
    required: bool,
    rules: &Rules,
) -> Option<String> {
    match numeric {
        _ if text.is_empty() => required.then(|| "required".to_owned()),
        Some(numeric) => number_problem(text, numeric, rules),
        None => string_problem(text, rules),
    }
}

/// What is wrong with choosing `count` options of a multi-select.
pub fn count_problem(count: usize, rules: &Rules) -> Option<String> {
    let count = count as u64;
    match (rules.min_items, rules.max_items) {
        (Some(least), _) if count < least => Some(format!("choose at least {least}")),
        (_, Some(most)) if count > most => Some(format!("choose at most {most}")),
        _ => None,
    }
}

fn number_problem(text: &str, numeric: Numeric, rules: &Rules) -> Option<String> {
    let Ok(Value::Number(number)) = serde_json::from_str::<Value>(text) else {
        return Some("not a number".to_owned());
    };
    if numeric == Numeric::Integer && !(number.is_i64() || number.is_u64()) {
        return Some("not an integer".to_owned());
    }
    let value = number.as_f64()?;
    match (rules.minimum, rules.maximum) {
        (Some(least), _) if value < least => Some(format!("less than the minimum {least}")),
        (_, Some(most)) if value > most => Some(format!("more than the maximum {most}")),
        _ => None,
    }
}

fn string_problem(text: &str, rules: &Rules) -> Option<String> {
    let length = text.chars().count() as u64;
    if let Some(least) = rules.min_length.filter(|least| length < *least) {
        return Some(format!("shorter than {least} characters"));
    }
    if let Some(most) = rules.max_length.filter(|most| length > *most) {
        return Some(format!("longer than {most} characters"));
    }
    let (conforms, expected) = match rules.format.as_deref()? {
        "email" => (is_email(text), "an email address"),
        "uri" => (is_uri(text), "a URI (scheme:…)"),
        "date" => (is_date(text), "a date (YYYY-MM-DD)"),
        "date-time" => (is_date_time(text), "a date-time (2026-12-01T10:00:00Z)"),
        // Formats the spec does not name for elicitation: the server decides.
        _ => return None,
    };
    (!conforms).then(|| format!("not {expected}"))
}

/// `local@domain`: one `@`, no spaces, the domain's labels non-empty.
fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && !text.chars().any(char::is_whitespace)
        && !domain.is_empty()
        && domain.split('.').all(|label| !label.is_empty())
}

/// An absolute URI: a scheme (a letter, then letters, digits, `+ - .`), `:`, no spaces.
fn is_uri(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        && !text.chars().any(char::is_whitespace)
}

/// RFC 3339 `full-date`: `YYYY-MM-DD`, a day that the month has.
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [year, month, day] = parts[..] else {
        return false;
    };
    let digits =
        |part: &str, count| part.len() == count && part.bytes().all(|b| b.is_ascii_digit());
    if !(digits(year, 4) && digits(month, 2) && digits(day, 2)) {
        return false;
    }
    let (Ok(year), Ok(month), Ok(day)) = (
        year.parse::<u32>(),
        month.parse::<u32>(),
        day.parse::<u32>(),
    ) else {
        return false;
    };
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// RFC 3339 `date-time`: a date, `T`, `HH:MM:SS`, optional fraction, then `Z` or `±HH:MM`.
fn is_date_time(text: &str) -> bool {
    let Some((date, time)) = text.split_once(['T', 't']) else {
        return false;
    };
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => time.split_at(at),
        None => return false,
    };
    let clock = clock.split_once('.').map_or(clock, |(whole, fraction)| {
        if !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()) {
            whole
        } else {
            ""
        }
    });
    let offset_ok =
        matches!(offset, "Z" | "z") || (offset.len() == 6 && hh_mm(&offset[1..], 23, 59, None));
    is_date(date) && hh_mm(clock, 23, 59, Some(60)) && offset_ok
}

/// `HH:MM` (or `HH:MM:SS` when `second` bounds it), each within its bound.
fn hh_mm(text: &str, hour: u32, minute: u32, second: Option<u32>) -> bool {
    let parts: Vec<&str> = text.split(':').collect();
    let bounds: &[u32] = match second {
        Some(second) => &[hour, minute, second],
        None => &[hour, minute],
    };
    parts.len() == bounds.len()
        && parts.iter().zip(bounds).all(|(part, bound)| {
            part.len() == 2
                && part.bytes().all(|b| b.is_ascii_digit())
                && part.parse::<u32>().is_ok_and(|value| value <= *bound)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_from_near_misses() {
        assert!(is_email("ada@example.com") && is_email("ada@localhost"));
        for bad in [
            "not-an-email",
            "@example.com",
            "ada@",
            "a b@c.d",
            "a@b..c",
            "a@b@c",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
        assert!(is_uri("https://example.com/x") && is_uri("urn:isbn:123"));
        for bad in ["example.com", "1http://x", "http://a b", ":x"] {
            assert!(!is_uri(bad), "{bad}");
        }
        assert!(is_date("2024-02-29") && is_date("2026-12-01"));
        for bad in [
            "2023-02-29",
            "2026-13-01",
            "2026-1-01",
            "12/12/2024",
            "2026-12-00",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        for good in [
            "2026-12-01T10:00:00Z",
            "2026-12-01t10:00:00.123+01:00",
            "2026-12-01T23:59:60-05:30",
        ] {
            assert!(is_date_time(good), "{good}");
        }
        for bad in [
            "2026-12-01",
            "2026-12-01T10:00Z",
            "2026-12-01T24:00:00Z",
            "2026-12-01T10:00:00",
            "2026-12-01T10:00:00.Z",
            "2026-12-01T10:00:00+1:00",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
    }
}
