//! The demo server's prompts, pure: `plan_trip` (a required and an optional argument) and
//! `review_booking` (its messages mix text and an embedded resource), as `prompts/list` and
//! `prompts/get` answer them. A missing required argument or an unknown prompt is -32602.

use serde_json::{Map, Value, json};

use crate::mcp::jsonrpc::ErrorObject;

/// How long a client may keep the listing (2026-07-28 `CacheableResult`).
const TTL_MS: u64 = 60_000;

/// `prompts/list`: one page.
pub fn list(modern: bool) -> Value {
    let prompts = json!([
        {
            "name": "plan_trip",
            "title": "Plan a trip",
            "description": "Ask for an itinerary to a destination, on a date if given.",
            "arguments": [
                {"name": "destination", "description": "Where to go", "required": true},
                {"name": "date", "description": "Departure date, dd/mm/yyyy", "required": false},
            ],
        },
        {
            "name": "review_booking",
            "title": "Review a booking",
            "description": "Review a flight's status, embedded as a resource.",
            "arguments": [
                {"name": "flightNumber", "description": "A flight number such as LH123", "required": true},
            ],
        },
    ]);
    let mut result = json!({"prompts": prompts});
    if modern {
        result["ttlMs"] = TTL_MS.into();
        result["cacheScope"] = "public".into();
    }
    result
}

/// `prompts/get`.
pub fn get(params: &Value) -> Result<Value, ErrorObject> {
    let invalid = |message: String| ErrorObject {
        code: -32602,
        message,
        data: None,
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(invalid(
            "Invalid params: prompts/get needs a string `name`".into(),
        ));
    };
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(arguments)) => arguments,
        Some(other) => {
            return Err(invalid(format!(
                "Invalid params: prompts/get `arguments` must be an object, got {other}"
            )));
        }
    };
    let argument = |key: &str| arguments.get(key).and_then(Value::as_str);
    let required = |key: &str| {
        argument(key).ok_or_else(|| invalid(format!("Missing required argument: {key}")))
    };
    match name {
        "plan_trip" => {
            let destination = required("destination")?;
            let when = argument("date").map_or_else(String::new, |date| format!(" on {date}"));
            Ok(json!({
                "description": format!("An itinerary to {destination}"),
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": format!("Plan a trip to {destination}{when}: flights, a hotel, and one thing to see.")}},
                    {"role": "assistant", "content": {"type": "text", "text": "Which airport will you leave from?"}},
                ],
            }))
        }
        "review_booking" => {
            let number = required("flightNumber")?;
            let uri = format!("flights://{number}");
            let status = super::resources::read(&json!({"uri": uri}), false).map_err(|error| {
                invalid(format!("Unknown flight: {number} ({})", error.message))
            })?;
            Ok(json!({
                "description": format!("A review of flight {number}"),
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": format!("Review flight {number}; its status is attached.")}},
                    {"role": "user", "content": {"type": "resource", "resource": status["contents"][0]}},
                ],
            }))
        }
        _ => Err(invalid(format!("Unknown prompt: {name}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prompt_gets_with_its_required_arguments() {
        let values = json!({"destination": "Lisbon", "flightNumber": "LH123"});
        for prompt in list(false)["prompts"].as_array().unwrap() {
            let mut arguments = Map::new();
            for argument in prompt["arguments"].as_array().unwrap() {
                let name = argument["name"].as_str().unwrap();
                if argument["required"] == true {
                    arguments.insert(name.into(), values[name].clone());
                }
            }
            let got = get(&json!({"name": prompt["name"], "arguments": arguments})).unwrap();
            assert!(!got["messages"].as_array().unwrap().is_empty());
        }
    }

    #[test]
    fn a_missing_argument_or_an_unknown_prompt_is_invalid_params() {
        for params in [
            json!({"name": "plan_trip"}),
            json!({"name": "plan_trip", "arguments": [1]}),
            json!({"name": "nope"}),
            json!({"name": "review_booking", "arguments": {"flightNumber": "XX0"}}),
        ] {
            assert_eq!(get(&params).unwrap_err().code, -32602, "{params}");
        }
    }
}
