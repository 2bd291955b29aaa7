//! The demo server's tools, pure: definitions as listed, and what each call produces. Input
//! validation failures are reported as `Invalid`; the server decides how to put them on the wire.

use serde_json::{Map, Value, json};

use crate::time::Date;

/// What a tool call produced, before the server's style shapes it.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutcome {
    /// A successful result (`content`, maybe `structuredContent`).
    Done(Value),
    /// The arguments failed validation (format, range, "must be in the future"…).
    Invalid(String),
    /// The tool ran and failed for a business reason.
    Failed(String),
    /// Run the slow search for this many seconds, with progress.
    Slow { seconds: u64 },
    /// Ask the client first (elicitation, sampling, roots); the call goes on with the answer.
    Ask(Ask),
    /// A long booking that ends as `outcome` says after `seconds` (a task in 2026-07-28).
    Long {
        seconds: u64,
        outcome: String,
        date: String,
    },
}

/// A question for the client: a legacy server request, or one entry of a 2026-07-28
/// `inputRequests` map under `key`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    pub key: &'static str,
    pub method: &'static str,
    pub params: Value,
}

/// Bounds of `slow_search.seconds`.
pub const SLOW_SECONDS: std::ops::RangeInclusive<u64> = 1..=60;

/// The tools, `book_flight` first, as `tools/list` returns them.
pub fn definitions() -> Vec<Value> {
    let mut tools = vec![
        json!({
            "name": "book_flight",
            "title": "Book a flight",
            "description": "Book a seat on a flight. The departure date must be in dd/mm/yyyy format and in the future (SEP-1303's example).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "departureDate": departure_date(),
                    "destination": {"type": "string", "description": "Destination city (optional)"}
                },
                "required": ["departureDate"]
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}
        }),
        json!({
            "name": "get_flight_status",
            "title": "Flight status",
            "description": "Current status of a flight, as structured content with an output schema (LH404's breaks it).",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "flightNumber": {
                        "type": "string",
                        "description": "IATA flight number, e.g. LH123",
                        "pattern": "^[A-Z]{2}[0-9]{1,4}$"
                    }
                },
                "required": ["flightNumber"]
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "flightNumber": {"type": "string"},
                    "status": {"type": "string", "enum": ["scheduled", "boarding", "delayed"]},
                    "gate": {"type": "string"},
                    "delayMinutes": {"type": "integer", "minimum": 0}
                },
                "required": ["flightNumber", "status", "gate", "delayMinutes"]
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": "cancel_booking",
            "title": "Cancel a booking",
            "description": "Cancel a booking. Always fails with a business error: fares are non-refundable.",
            "inputSchema": booking_ref_schema(),
            "annotations": {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": false}
        }),
        json!({
            "name": "slow_search",
            "title": "Slow flight search",
            "description": "Search flights slowly, sending progress notifications; honours cancellation.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "seconds": {
                        "type": "integer",
                        "description": "How long the search takes",
                        "minimum": SLOW_SECONDS.start(),
                        "maximum": SLOW_SECONDS.end(),
                        "default": 3
                    }
                },
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
    ];
    tools.extend(input_tools());
    tools.push(json!({
        "name": "boarding_pass",
        "title": "Boarding pass",
        "description": "A boarding pass as text, a PNG code and a link to the pass file: content that hosts pass, drop or fail on (try the host profiles).",
        "inputSchema": booking_ref_schema(),
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    }));
    tools
}

/// The tools that ask the client before they answer (elicitation, sampling, roots).
fn input_tools() -> [Value; 5] {
    [
        json!({
            "name": "confirm_booking",
            "title": "Book after confirming",
            "description": "Book a flight after asking the user to confirm (elicitation, form mode). The departure date must be in dd/mm/yyyy format and in the future.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "departureDate": departure_date()
                },
                "required": ["departureDate"]
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}
        }),
        json!({
            "name": "open_payment_page",
            "title": "Pay on a web page",
            "description": "Ask the user to pay for a booking on a payment page (elicitation, URL mode).",
            "inputSchema": booking_ref_schema(),
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": true}
        }),
        json!({
            "name": "summarise",
            "title": "Summarise an itinerary",
            "description": "Summarise a text in one sentence by asking the client's model (sampling).",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to summarise"}},
                "required": ["text"]
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": "long_booking",
            "title": "Book, slowly, as a task",
            "description": "A booking that runs as a task (2026-07-28 with the tasks extension): it completes, fails with a JSON-RPC error, or is cancelled.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "departureDate": {"type": "string", "description": "Departure date in dd/mm/yyyy format"},
                    "seconds": {"type": "integer", "minimum": 0, "maximum": 60, "default": 2},
                    "outcome": {"type": "string", "enum": ["complete", "fail", "invalid"], "default": "complete"}
                },
                "required": ["departureDate"]
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}
        }),
        json!({
            "name": "list_roots",
            "title": "List the client's roots",
            "description": "Ask the client which roots it shares (roots) and list them.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
    ]
}

/// The `departureDate` property of the booking tools.
fn departure_date() -> Value {
    json!({
        "type": "string",
        "description": "Departure date in dd/mm/yyyy format",
        "pattern": "^\\d{2}/\\d{2}/\\d{4}$"
    })
}

/// The input of the tools that take a booking reference.
fn booking_ref_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "bookingRef": {"type": "string", "description": "Booking reference, e.g. SL-1A2B3C"}
        },
        "required": ["bookingRef"]
    })
}

/// Whether the server lists a tool of this name.
pub fn is_known(name: &str) -> bool {
    definitions().iter().any(|tool| tool["name"] == name)
}

/// Runs a listed tool on object arguments.
pub fn call(name: &str, arguments: &Map<String, Value>, today: Date) -> ToolOutcome {
    let result = match name {
        "book_flight" => book_flight(arguments, today),
        "get_flight_status" => flight_status(arguments),
        "cancel_booking" => cancel_booking(arguments),
        "slow_search" => slow_search(arguments),
        "confirm_booking" => confirm_booking(arguments, today),
        "open_payment_page" => {
            required_string(arguments, "bookingRef", "a booking reference").map(|reference| {
                ToolOutcome::Ask(Ask {
                    key: "payment",
                    method: "elicitation/create",
                    params: json!({
                        "mode": "url",
                        "message": format!("Pay for booking {reference} on the payment page."),
                        "url": format!("https://pay.example.com/checkout?ref={reference}"),
                        "elicitationId": format!("pay-{reference}"),
                    }),
                })
            })
        }
        "summarise" => required_string(arguments, "text", "text").map(|text| {
            ToolOutcome::Ask(Ask {
                key: "summary",
                method: "sampling/createMessage",
                params: json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": format!("Summarise in one sentence:\n{text}")}}],
                    "systemPrompt": "You summarise flight itineraries.",
                    "maxTokens": 100,
                }),
            })
        }),
        "long_booking" => long_booking(arguments),
        "boarding_pass" => boarding_pass(arguments),
        "list_roots" => Ok(ToolOutcome::Ask(Ask {
            key: "roots",
            method: "roots/list",
            params: json!({}),
        })),
        _ => Err(format!("Unknown tool: {name}")),
    };
    result.unwrap_or_else(ToolOutcome::Invalid)
}

/// Goes on with a call that asked the client: `answer` is the client's result, or the message
/// of its error.
pub fn resume(
    name: &str,
    arguments: &Map<String, Value>,
    answer: Result<&Value, &str>,
) -> ToolOutcome {
    let answer = match answer {
        Ok(answer) => answer,
        Err(message) => {
            return ToolOutcome::Failed(format!(
                "The client did not answer {name}'s question: {message}"
            ));
        }
    };
    let action = answer.get("action").and_then(Value::as_str);
    let text = |text: String| ToolOutcome::Done(text_result(&text));
    match name {
        "confirm_booking" => {
            let date = arguments
                .get("departureDate")
                .and_then(Value::as_str)
                .unwrap_or("?");
            let content = answer.get("content");
            let confirmed = content
                .and_then(|c| c.get("confirm"))
                .and_then(Value::as_bool);
            let seat = content
                .and_then(|c| c.get("seat"))
                .and_then(Value::as_str)
                .unwrap_or("window");
            match (action, confirmed) {
                (Some("accept"), Some(true)) => text(format!(
                    "Booked: one {seat} seat departing {date}. Booking reference SL-{:06X}.",
                    fnv(date.as_bytes()) & 0xFF_FFFF
                )),
                (Some("accept"), _) => text("Not booked: the booking was not confirmed.".into()),
                (Some("decline"), _) => text("Not booked: the user declined to confirm.".into()),
                (Some("cancel"), _) => text("Not booked: the user dismissed the question.".into()),
                _ => ToolOutcome::Failed(format!(
                    "Not booked: an answer the server cannot read: {answer}"
                )),
            }
        }
        "open_payment_page" => {
            let reference = arguments
                .get("bookingRef")
                .and_then(Value::as_str)
                .unwrap_or("?");
            match action {
                Some("accept") => text(format!(
                    "Payment page opened for {reference}: the payment completes on that page."
                )),
                _ => text(format!("Payment not started for {reference}.")),
            }
        }
        "summarise" => match answer.pointer("/content/text").and_then(Value::as_str) {
            Some(summary) => {
                let model = answer
                    .get("model")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown");
                text(format!("Summary: {summary} (written by {model})"))
            }
            None => ToolOutcome::Failed(format!("The client's sample has no text: {answer}")),
        },
        "list_roots" => match answer.get("roots").and_then(Value::as_array) {
            Some(roots) if !roots.is_empty() => {
                let uris: Vec<&str> = roots
                    .iter()
                    .filter_map(|root| root.get("uri")?.as_str())
                    .collect();
                text(format!("Roots: {}", uris.join(", ")))
            }
            _ => text("The client shares no roots.".into()),
        },
        _ => ToolOutcome::Failed(format!("{name} asked nothing")),
    }
}

fn long_booking(arguments: &Map<String, Value>) -> Result<ToolOutcome, String> {
    let date = required_string(arguments, "departureDate", "dd/mm/yyyy")?.to_owned();
    let seconds = match arguments.get("seconds") {
        None => 2,
        Some(value) => value
            .as_u64()
            .filter(|seconds| *seconds <= 60)
            .ok_or_else(|| {
                format!("Argument 'seconds' must be an integer from 0 to 60, got {value}.")
            })?,
    };
    let outcome = match arguments.get("outcome").map(Value::as_str) {
        None => "complete",
        Some(Some(outcome @ ("complete" | "fail" | "invalid"))) => outcome,
        Some(_) => return Err("Argument 'outcome' must be complete, fail or invalid.".into()),
    };
    Ok(ToolOutcome::Long {
        seconds,
        outcome: outcome.to_owned(),
        date,
    })
}

fn confirm_booking(arguments: &Map<String, Value>, today: Date) -> Result<ToolOutcome, String> {
    let raw = required_string(arguments, "departureDate", "dd/mm/yyyy")?;
    let date = future_date(raw, today)?;
    Ok(ToolOutcome::Ask(Ask {
        key: "confirm",
        method: "elicitation/create",
        params: json!({
            "mode": "form",
            "message": format!("Book the flight on {date}?"),
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "confirm": {"type": "boolean", "title": "Book it", "default": false},
                    "seat": {"type": "string", "title": "Seat", "enum": ["window", "aisle"], "default": "window"}
                },
                "required": ["confirm"]
            }
        }),
    }))
}

/// A successful text result.
pub fn text_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn required_string<'a>(
    arguments: &'a Map<String, Value>,
    key: &str,
    shape: &str,
) -> Result<&'a str, String> {
    match arguments.get(key) {
        None => Err(format!("Missing required argument '{key}' ({shape}).")),
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(format!(
            "Argument '{key}' must be a string ({shape}), got {}.",
            type_name(other)
        )),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A departure date: a real date in dd/mm/yyyy, after `today` (SEP-1303's example check).
fn future_date(raw: &str, today: Date) -> Result<Date, String> {
    let date = Date::parse_dd_mm_yyyy(raw).ok_or_else(|| {
        format!("Invalid departure date '{raw}': must be a real date in dd/mm/yyyy format.")
    })?;
    if date <= today {
        return Err(format!(
            "Invalid departure date: must be in the future. Current date is {today}."
        ));
    }
    Ok(date)
}

fn book_flight(arguments: &Map<String, Value>, today: Date) -> Result<ToolOutcome, String> {
    let raw = required_string(arguments, "departureDate", "dd/mm/yyyy")?;
    let destination = match arguments.get("destination") {
        None => None,
        Some(Value::String(city)) => Some(city.as_str()),
        Some(other) => {
            return Err(format!(
                "Argument 'destination' must be a string, got {}.",
                type_name(other)
            ));
        }
    };
    let date = future_date(raw, today)?;
    let reference = format!("SL-{:06X}", fnv(raw.as_bytes()) & 0xFF_FFFF);
    let text = match destination {
        Some(city) => {
            format!("Booked: one seat to {city} departing {date}. Booking reference {reference}.")
        }
        None => format!("Booked: one seat departing {date}. Booking reference {reference}."),
    };
    Ok(ToolOutcome::Done(text_result(&text)))
}

/// A 1×1 PNG: the pass's code, as small as an image gets.
const CODE_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn boarding_pass(arguments: &Map<String, Value>) -> Result<ToolOutcome, String> {
    let reference = required_string(arguments, "bookingRef", "e.g. SL-1A2B3C")?;
    let valid = !reference.is_empty()
        && reference.len() <= 16
        && reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !valid {
        return Err(format!(
            "Invalid booking reference '{reference}': letters, digits and '-', e.g. SL-1A2B3C."
        ));
    }
    Ok(ToolOutcome::Done(json!({
        "content": [
            {"type": "text", "text": format!("Boarding pass for {reference}: flight LH123, seat 12A, gate B7, boarding 10:40.")},
            {"type": "image", "mimeType": "image/png", "data": CODE_PNG},
            {
                "type": "resource_link",
                "uri": format!("https://passes.example.com/{reference}.pkpass"),
                "name": format!("{reference}.pkpass"),
                "mimeType": "application/vnd.apple.pkpass"
            }
        ]
    })))
}

fn flight_status(arguments: &Map<String, Value>) -> Result<ToolOutcome, String> {
    let number = required_string(arguments, "flightNumber", "e.g. LH123")?;
    let bytes = number.as_bytes();
    let valid = (3..=6).contains(&bytes.len())
        && bytes[..2].iter().all(u8::is_ascii_uppercase)
        && bytes[2..].iter().all(u8::is_ascii_digit);
    if !valid {
        return Err(format!(
            "Invalid flight number '{number}': expected two capital letters and 1-4 digits, e.g. LH123."
        ));
    }
    let hash = fnv(bytes);
    // LH404 is the flight the demo answers with a status its own outputSchema does not allow:
    // a result for sightline's local output-schema check.
    let status = if number == "LH404" {
        "lost"
    } else {
        ["scheduled", "boarding", "delayed"][usize::try_from(hash % 3).unwrap_or(0)]
    };
    let delay = if status == "delayed" {
        15 + hash % 90
    } else {
        0
    };
    let structured = json!({
        "flightNumber": number,
        "status": status,
        "gate": format!("{}{}", char::from(b'A' + u8::try_from(hash % 6).unwrap_or(0)), 1 + hash % 40),
        "delayMinutes": delay,
    });
    Ok(ToolOutcome::Done(json!({
        "content": [{"type": "text", "text": structured.to_string()}],
        "structuredContent": structured,
    })))
}

fn cancel_booking(arguments: &Map<String, Value>) -> Result<ToolOutcome, String> {
    let reference = required_string(arguments, "bookingRef", "e.g. SL-1A2B3C")?;
    Ok(ToolOutcome::Failed(format!(
        "Booking '{reference}' cannot be cancelled: the fare is non-refundable within 24 hours of departure."
    )))
}

fn slow_search(arguments: &Map<String, Value>) -> Result<ToolOutcome, String> {
    let seconds = match arguments.get("seconds") {
        None => 3,
        Some(value) => value
            .as_u64()
            .filter(|s| SLOW_SECONDS.contains(s))
            .ok_or_else(|| {
                format!(
                    "Argument 'seconds' must be an integer from {} to {}, got {value}.",
                    SLOW_SECONDS.start(),
                    SLOW_SECONDS.end()
                )
            })?,
    };
    if let Some(extra) = arguments.keys().find(|key| *key != "seconds") {
        return Err(format!(
            "Unknown argument '{extra}': slow_search takes only 'seconds'."
        ));
    }
    Ok(ToolOutcome::Slow { seconds })
}

/// FNV-1a: deterministic "random" details, so the same input always gets the same answer.
/// FNV-1a: a stable digest for references and states.
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: Date = Date {
        year: 2026,
        month: 11,
        day: 29,
    };

    fn book(arguments: &Value) -> ToolOutcome {
        call("book_flight", arguments.as_object().unwrap(), TODAY)
    }

    #[test]
    fn book_flight_is_listed_first() {
        assert_eq!(definitions()[0]["name"], "book_flight");
        assert!(is_known("slow_search") && !is_known("nope"));
    }

    #[test]
    fn a_future_date_books() {
        let ToolOutcome::Done(result) =
            book(&json!({"departureDate": "12/12/2027", "destination": "Lisbon"}))
        else {
            panic!()
        };
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(
            text.starts_with("Booked: one seat to Lisbon departing 12/12/2027."),
            "{text}"
        );
    }

    #[test]
    fn a_past_or_today_date_names_today() {
        let expected = "Invalid departure date: must be in the future. Current date is 29/11/2026.";
        assert_eq!(
            book(&json!({"departureDate": "12/12/2024"})),
            ToolOutcome::Invalid(expected.into())
        );
        assert_eq!(
            book(&json!({"departureDate": "29/11/2026"})),
            ToolOutcome::Invalid(expected.into())
        );
    }

    #[test]
    fn malformed_missing_and_mistyped_arguments_are_invalid() {
        for arguments in [
            json!({"departureDate": "2024-12-12"}),
            json!({}),
            json!({"departureDate": 20_241_212}),
            json!({"departureDate": "12/12/2027", "destination": 5}),
        ] {
            assert!(
                matches!(book(&arguments), ToolOutcome::Invalid(_)),
                "{arguments}"
            );
        }
    }

    #[test]
    fn flight_status_is_structured_with_a_text_copy() {
        let ToolOutcome::Done(result) = call(
            "get_flight_status",
            json!({"flightNumber": "LH123"}).as_object().unwrap(),
            TODAY,
        ) else {
            panic!()
        };
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
        assert_eq!(text["flightNumber"], "LH123");
    }

    #[test]
    fn cancel_fails_as_business_and_slow_search_checks_its_range() {
        let args = json!({"bookingRef": "SL-1"});
        assert!(matches!(
            call("cancel_booking", args.as_object().unwrap(), TODAY),
            ToolOutcome::Failed(_)
        ));
        let slow = |v: Value| call("slow_search", v.as_object().unwrap(), TODAY);
        assert_eq!(slow(json!({})), ToolOutcome::Slow { seconds: 3 });
        assert_eq!(
            slow(json!({"seconds": 2})),
            ToolOutcome::Slow { seconds: 2 }
        );
        assert!(matches!(
            slow(json!({"seconds": 0})),
            ToolOutcome::Invalid(_)
        ));
        assert!(matches!(
            slow(json!({"seconds": 1.5})),
            ToolOutcome::Invalid(_)
        ));
    }
}
