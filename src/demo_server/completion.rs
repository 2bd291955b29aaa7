//! The demo server's `completion/complete`, pure: values for the arguments of `plan_trip` and
//! `review_booking` and for the `number` of `flights://{number}`, those starting with what was
//! typed (any case). An unknown prompt or template is -32602; an argument with nothing to offer
//! gets no values.

use serde_json::{Value, json};

use super::resources::FLIGHT_TEMPLATE;
use crate::mcp::jsonrpc::ErrorObject;
use crate::time::Date;

const DAY_SECONDS: i64 = 86_400;

const DESTINATIONS: &[&str] = &["Frankfurt", "Lisbon", "London", "Oslo", "Paris", "Rome"];
const FLIGHT_NUMBERS: &[&str] = &["AF789", "BA456", "LH123"];
/// Departure dates offered: the next this many days.
const DATES_AHEAD: i64 = 7;
/// The spec's cap on values in one answer.
const MAX_VALUES: usize = 100;

/// `completion/complete`.
pub fn complete(params: &Value, unix_seconds: i64) -> Result<Value, ErrorObject> {
    let invalid = |message: String| ErrorObject {
        code: -32602,
        message: format!("Invalid params: {message}"),
        data: None,
    };
    let reference = params
        .get("ref")
        .ok_or_else(|| invalid("completion/complete needs `ref`".into()))?;
    let (Some(argument), Some(value)) = (
        params.pointer("/argument/name").and_then(Value::as_str),
        params.pointer("/argument/value").and_then(Value::as_str),
    ) else {
        return Err(invalid(
            "completion/complete needs `argument` with a string `name` and `value`".into(),
        ));
    };
    let candidates: Vec<String> = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => match reference.get("name").and_then(Value::as_str) {
            Some("plan_trip") => match argument {
                "destination" => owned(DESTINATIONS),
                "date" => next_dates(unix_seconds),
                _ => Vec::new(),
            },
            Some("review_booking") if argument == "flightNumber" => owned(FLIGHT_NUMBERS),
            Some("review_booking") => Vec::new(),
            other => return Err(invalid(format!("unknown prompt {}", shown(other)))),
        },
        Some("ref/resource") => match reference.get("uri").and_then(Value::as_str) {
            Some(FLIGHT_TEMPLATE) if argument == "number" => owned(FLIGHT_NUMBERS),
            Some(FLIGHT_TEMPLATE) => Vec::new(),
            other => {
                return Err(invalid(format!(
                    "unknown resource template {}",
                    shown(other)
                )));
            }
        },
        other => {
            return Err(invalid(format!(
                "`ref.type` must be ref/prompt or ref/resource, got {}",
                shown(other)
            )));
        }
    };
    let typed = value.to_lowercase();
    let matching: Vec<String> = candidates
        .into_iter()
        .filter(|candidate| candidate.to_lowercase().starts_with(&typed))
        .collect();
    let total = matching.len();
    let values: Vec<String> = matching.into_iter().take(MAX_VALUES).collect();
    Ok(json!({"completion": {"values": values, "total": total, "hasMore": total > MAX_VALUES}}))
}

fn owned(values: &[&str]) -> Vec<String> {
    values.iter().map(|value| (*value).to_owned()).collect()
}

fn shown(value: Option<&str>) -> String {
    value.map_or_else(|| "(none)".into(), |value| format!("'{value}'"))
}

/// Tomorrow and the days after it, dd/mm/yyyy: dates `book_flight` takes.
fn next_dates(unix_seconds: i64) -> Vec<String> {
    (1..=DATES_AHEAD)
        .map(|ahead| Date::from_unix_seconds(unix_seconds + ahead * DAY_SECONDS).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 30/12/2026, noon UTC.
    const TODAY: i64 = 1_798_632_000;

    fn values(params: &Value) -> Vec<String> {
        let result = complete(params, TODAY).unwrap();
        serde_json::from_value(result["completion"]["values"].clone()).unwrap()
    }

    #[test]
    fn prompt_arguments_and_the_template_variable_complete_by_prefix() {
        let prompt = |argument: &str, value: &str| json!({"ref": {"type": "ref/prompt", "name": "plan_trip"}, "argument": {"name": argument, "value": value}});
        assert_eq!(values(&prompt("destination", "lo")), ["London"]);
        assert_eq!(values(&prompt("destination", "")).len(), DESTINATIONS.len());
        assert_eq!(
            values(&prompt("date", "")).first().map(String::as_str),
            Some("31/12/2026")
        );
        assert_eq!(
            values(&prompt("date", "")).get(1).map(String::as_str),
            Some("01/01/2027")
        );
        let template = json!({"ref": {"type": "ref/resource", "uri": FLIGHT_TEMPLATE}, "argument": {"name": "number", "value": "l"}});
        assert_eq!(values(&template), ["LH123"]);
    }

    #[test]
    fn an_unknown_reference_is_invalid_params() {
        for params in [
            json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}}),
            json!({"ref": {"type": "ref/resource", "uri": "x://{y}"}, "argument": {"name": "y", "value": ""}}),
            json!({"ref": {"type": "ref/other"}, "argument": {"name": "a", "value": ""}}),
            json!({"ref": {"type": "ref/prompt", "name": "plan_trip"}}),
        ] {
            assert_eq!(
                complete(&params, TODAY).unwrap_err().code,
                -32602,
                "{params}"
            );
        }
    }
}
