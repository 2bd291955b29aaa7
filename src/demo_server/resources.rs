//! The demo server's resources, pure: a text timetable, a binary logo (and the departures
//! board, listed here, read in `connection.rs` with the clock), and the template
//! `flights://{number}`, as `resources/list`, `resources/templates/list` and `resources/read`
//! answer them. Both eras; a URI that names nothing is -32002 up to 2025-11-25 and -32602 in
//! 2026-07-28 (its changelog, minor change 6).

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::mcp::jsonrpc::ErrorObject;

/// The timetable's URI.
pub const TIMETABLE: &str = "demo://timetable";
/// The logo's URI (a 1×1 PNG).
pub const LOGO: &str = "demo://logo.png";
/// The template of a flight's status.
pub const FLIGHT_TEMPLATE: &str = "flights://{number}";

/// The logo, base64: 70 bytes of PNG.
const LOGO_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const LOGO_BYTES: usize = 70;

/// How long a client may keep a listing or a read (2026-07-28 `CacheableResult`).
const TTL_MS: u64 = 60_000;

const FLIGHTS: &[(&str, &str, &str)] = &[
    ("LH123", "Frankfurt → Lisbon", "boarding"),
    ("BA456", "London → Oslo", "on time"),
    ("AF789", "Paris → Rome", "delayed"),
];

fn timetable_text() -> String {
    let mut text = String::from("flight  route                 status\n");
    for (number, route, status) in FLIGHTS {
        let _ = writeln!(text, "{number:<7} {route:<21} {status}");
    }
    text
}

/// `resources/list`: one page, the timetable, the logo and the board.
pub fn list(modern: bool) -> Value {
    let resources = json!([
        {
            "uri": TIMETABLE,
            "name": "timetable",
            "title": "Today's timetable",
            "description": "Today's departures, as plain text.",
            "mimeType": "text/plain",
            "size": timetable_text().len(),
        },
        {
            "uri": LOGO,
            "name": "logo.png",
            "title": "Airline logo",
            "description": "A 1×1 PNG: a binary resource (blob).",
            "mimeType": "image/png",
            "size": LOGO_BYTES,
        },
        super::subscriptions::listed(),
    ]);
    cacheable(json!({"resources": resources}), modern)
}

/// `resources/templates/list`: `flights://{number}`.
pub fn templates(modern: bool) -> Value {
    let templates = json!([{
        "uriTemplate": FLIGHT_TEMPLATE,
        "name": "flight",
        "title": "Flight status",
        "description": "One flight's status as JSON; number is a flight number such as LH123.",
        "mimeType": "application/json",
    }]);
    cacheable(json!({"resourceTemplates": templates}), modern)
}

/// `resources/read`.
pub fn read(params: &Value, modern: bool) -> Result<Value, ErrorObject> {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(ErrorObject {
            code: -32602,
            message: "Invalid params: resources/read needs a string `uri`".into(),
            data: None,
        });
    };
    let content = match uri {
        TIMETABLE => json!({"uri": uri, "mimeType": "text/plain", "text": timetable_text()}),
        LOGO => json!({"uri": uri, "mimeType": "image/png", "blob": LOGO_PNG}),
        _ => match uri.strip_prefix("flights://").and_then(flight) {
            Some((number, route, status)) => json!({
                "uri": uri,
                "mimeType": "application/json",
                "text": json!({"flightNumber": number, "route": route, "status": status}).to_string(),
            }),
            None => return Err(not_found(uri, modern)),
        },
    };
    Ok(cacheable(json!({"contents": [content]}), modern))
}

fn flight(number: &str) -> Option<(&'static str, &'static str, &'static str)> {
    FLIGHTS
        .iter()
        .find(|(known, _, _)| known.eq_ignore_ascii_case(number))
        .copied()
}

fn not_found(uri: &str, modern: bool) -> ErrorObject {
    ErrorObject {
        code: if modern { -32602 } else { -32002 },
        message: format!("Resource not found: {uri}"),
        data: Some(json!({"uri": uri}).into()),
    }
}

/// 2026-07-28: listings and reads carry `ttlMs` and `cacheScope`.
pub(super) fn cacheable(mut result: Value, modern: bool) -> Value {
    if modern {
        result["ttlMs"] = TTL_MS.into();
        result["cacheScope"] = "public".into();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_listed_resource_and_a_filled_template_read() {
        for modern in [false, true] {
            let listed = list(modern);
            for resource in listed["resources"].as_array().unwrap() {
                // The board reads with the clock (`connection.rs`).
                if resource["uri"] == super::super::subscriptions::DEPARTURES {
                    continue;
                }
                let read = read(&json!({"uri": resource["uri"]}), modern).unwrap();
                assert_eq!(read["contents"][0]["uri"], resource["uri"]);
            }
            let read = read(&json!({"uri": "flights://LH123"}), modern).unwrap();
            assert!(
                read["contents"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("boarding")
            );
            assert_eq!(read.get("ttlMs").is_some(), modern);
        }
    }

    #[test]
    fn the_logo_is_as_long_as_listed() {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(LOGO_PNG)
            .unwrap();
        assert_eq!(bytes.len(), LOGO_BYTES);
    }

    #[test]
    fn an_unknown_uri_is_the_eras_not_found() {
        let params = json!({"uri": "flights://XX000"});
        assert_eq!(read(&params, false).unwrap_err().code, -32002);
        assert_eq!(read(&params, true).unwrap_err().code, -32602);
        assert_eq!(read(&json!({}), false).unwrap_err().code, -32602);
    }
}
