//! Findings, table-driven: each fires on its constructed exchange, at the right severity for
//! each spec version, and stays silent on conformant ones.

use serde_json::json;

use super::classify;
use super::findings::{Context, Direction, Finding, Severity, findings};
use super::fixtures::{VERSIONS, call, catalog, request};
use crate::mcp::session::Exchange;

fn ids(exchange: &Exchange, version: &str) -> Vec<(&'static str, Severity)> {
    run(exchange, version)
        .into_iter()
        .map(|f| (f.id, f.severity))
        .collect()
}

fn run(exchange: &Exchange, version: &str) -> Vec<Finding> {
    let outcome = classify(exchange);
    let tools = catalog(&["book_flight", "get_flight_status"]);
    findings(&Context::new(exchange, &outcome, version, Some(&tools)))
}

const VALIDATION: &str = "sep1303.validation-as-protocol-error";

#[test]
fn validation_as_protocol_error_is_non_conformant_from_2025_11_25_and_allowed_before() {
    let exchange =
        call("book_flight", json!({"departureDate": "12/12/2024"})).error(-32602, "Invalid params");
    assert_eq!(ids(&exchange, "2025-06-18"), [(VALIDATION, Severity::Info)]);
    assert_eq!(
        ids(&exchange, "2025-11-25"),
        [(VALIDATION, Severity::Warning)]
    );
    assert_eq!(
        ids(&exchange, "2026-07-28"),
        [(VALIDATION, Severity::Warning)]
    );
    let old = &run(&exchange, "2025-06-18")[0];
    assert!(
        old.message.contains("allowed by 2025-06-18") && old.message.contains("SEP-1303"),
        "{}",
        old.message
    );
    let new = &run(&exchange, "2025-11-25")[0];
    assert!(
        new.message.starts_with("2025-11-25:") && new.message.contains("isError: true"),
        "{}",
        new.message
    );
    assert_eq!(
        new.frames.iter().map(|f| f.direction).collect::<Vec<_>>(),
        [Direction::Sent, Direction::Received]
    );
}

#[test]
fn zod_issue_lists_in_the_message_are_still_validation_errors() {
    let message = "MCP error -32602: Invalid arguments for tool book_flight: [\n  {\n    \"code\": \"custom\",\n    \"message\": \"Dates must be in the future\"\n  }\n]";
    let exchange = call("book_flight", json!({"departureDate": "12/12/2024"})).error_with_data(
        -32602,
        message,
        json!([{"code": "custom", "path": ["departureDate"]}]),
    );
    assert_eq!(
        ids(&exchange, "2025-11-25"),
        [(VALIDATION, Severity::Warning)]
    );
}

#[test]
fn validation_finding_needs_a_listed_tool_object_arguments_and_invalid_params() {
    for version in VERSIONS {
        let unknown_tool = call("no_such_tool", json!({})).error(-32602, "Unknown tool");
        let malformed =
            call("book_flight", json!("12/12/2024")).error(-32602, "arguments must be an object");
        let internal = call("book_flight", json!({})).error(-32603, "Internal error");
        let as_tool_error = call("book_flight", json!({})).tool_error("Invalid departure date");
        for conformant in [unknown_tool, malformed, internal, as_tool_error] {
            assert_eq!(
                ids(&conformant, version),
                [],
                "{version}: {:?}",
                conformant.response()
            );
        }
    }
}

#[test]
fn an_unknown_tool_code_other_than_32602_is_advice_before_2026_and_a_warning_after() {
    let method_not_found = call("nope", json!({})).error(-32601, "Tool nope not found");
    assert_eq!(
        ids(&method_not_found, "2025-11-25"),
        [("spec.unknown-tool-code", Severity::Info)]
    );
    assert_eq!(
        ids(&method_not_found, "2026-07-28"),
        [("spec.unknown-tool-code", Severity::Warning)]
    );
    let invalid = call("nope", json!({})).error(-32602, "Unknown tool: nope");
    for version in VERSIONS {
        assert_eq!(ids(&invalid, version), [], "{version}");
    }
    let listed = call("book_flight", json!({})).error(-32601, "Tool not found");
    assert!(
        ids(&listed, "2026-07-28")
            .iter()
            .all(|(id, _)| *id != "spec.unknown-tool-code")
    );
}

#[test]
fn unknown_tool_as_tool_error_fires_for_unlisted_names_only() {
    let unknown = call("nope", json!({})).tool_error("MCP error -32602: Tool nope not found");
    for version in VERSIONS {
        assert_eq!(
            ids(&unknown, version),
            [("spec.unknown-tool-as-tool-error", Severity::Warning)]
        );
    }
    let listed = call("book_flight", json!({})).tool_error("Invalid departure date");
    assert_eq!(ids(&listed, "2025-11-25"), []);
    let without_catalog = classify(&unknown);
    let context = Context::new(&unknown, &without_catalog, "2025-11-25", None);
    assert_eq!(
        findings(&context),
        [],
        "no catalog, no claim about what was listed"
    );
}

#[test]
fn tool_error_without_text_fires_for_empty_and_non_text_content() {
    let empty = call("book_flight", json!({})).result(json!({"content": [], "isError": true}));
    let image_only = call("book_flight", json!({}))
        .result(json!({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}], "isError": true}));
    let blank = call("book_flight", json!({})).tool_error("   ");
    for exchange in [empty, image_only, blank] {
        assert_eq!(
            ids(&exchange, "2026-07-28"),
            [("tool-error-without-text", Severity::Warning)]
        );
    }
    assert_eq!(
        ids(
            &call("book_flight", json!({})).tool_error("why"),
            "2026-07-28"
        ),
        []
    );
}

#[test]
fn structured_without_text_fires_unless_a_text_block_serializes_it() {
    let structured = json!({"flightNumber": "LH123", "status": "delayed"});
    let without = call("get_flight_status", json!({}))
        .result(json!({"content": [], "structuredContent": structured}));
    let with_other_text = call("get_flight_status", json!({}))
        .result(json!({"content": [{"type": "text", "text": "LH123 is delayed"}], "structuredContent": structured}));
    assert_eq!(
        ids(&without, "2025-06-18"),
        [("structured-without-text", Severity::Warning)]
    );
    // Other text stands in for the JSON: advice, and the model does read that text.
    assert_eq!(
        ids(&with_other_text, "2025-06-18"),
        [("structured-text-differs", Severity::Info)]
    );
    // Serialized with other spacing and member order: still the same JSON value.
    let serialized = call("get_flight_status", json!({})).result(json!({
        "content": [{"type": "text", "text": "{ \"status\": \"delayed\", \"flightNumber\": \"LH123\" }"}],
        "structuredContent": structured,
        "isError": false
    }));
    assert_eq!(ids(&serialized, "2025-06-18"), []);
}

#[test]
fn structured_content_may_be_an_array_in_2026_07_28() {
    let exchange = call("get_flight_status", json!({})).result(
        json!({"content": [{"type": "text", "text": "[1,2]"}], "structuredContent": [1, 2]}),
    );
    assert_eq!(ids(&exchange, "2026-07-28"), []);
}

#[test]
fn method_not_found_wrong_code_fires_for_unknown_methods_only() {
    let probe = request("server/discover").error(-32602, "Invalid request parameters");
    assert_eq!(
        ids(&probe, "2025-11-25"),
        [("method-not-found-wrong-code", Severity::Warning)]
    );
    assert_eq!(
        ids(
            &request("server/discover").error(-32601, "Method not found"),
            "2025-11-25"
        ),
        []
    );
    assert_eq!(
        ids(
            &request("server/discover").error(-32602, "bad _meta"),
            "2026-07-28"
        ),
        []
    );
    assert_eq!(
        ids(&request("ping").error(-32602, "x"), "2026-07-28"),
        [("method-not-found-wrong-code", Severity::Warning)]
    );
    assert_eq!(ids(&request("ping").error(-32603, "x"), "2025-06-18"), []);
    assert_eq!(
        ids(&request("tasks/get").error(-32602, "x"), "2025-11-25"),
        []
    );
    assert_eq!(
        ids(&request("tasks/get").error(-32602, "x"), "2025-06-18").len(),
        1
    );
}

#[test]
fn conformant_exchanges_of_every_class_raise_nothing() {
    for version in VERSIONS {
        for exchange in [
            call("book_flight", json!({"departureDate": "12/12/2099"})).text("Booked"),
            call("book_flight", json!({}))
                .tool_error("Invalid departure date: must be in the future."),
            call("book_flight", json!({})).text("Booked; no errors were found"),
            // The TS SDK 1.x wraps its own -32602 validation failures in a tool error.
            call("book_flight", json!({"departureDate": 5})).tool_error(
                "MCP error -32602: Input validation error: Invalid arguments for tool book_flight",
            ),
            call("no_such_tool", json!({})).error(-32602, "Unknown tool: no_such_tool"),
            call("book_flight", json!({})).timeout(),
            call("book_flight", json!({})).exited(),
        ] {
            assert_eq!(ids(&exchange, version), [], "{version}: {exchange:?}");
        }
    }
}

mod http {
    use std::sync::Arc;

    use serde_json::json;

    use super::ids;
    use crate::classify::findings::Severity;
    use crate::classify::fixtures::call;
    use crate::mcp::log::HttpExchange;
    use crate::mcp::session::{End, Exchange, Failure};

    fn over_http(mut exchange: Exchange, http: HttpExchange) -> Exchange {
        exchange.http = Some(Arc::new(http));
        exchange
    }

    fn rejected(reason: &str) -> End {
        End::Failed(Failure::Rejected {
            reason: reason.into(),
        })
    }

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn an_event_stream_that_ends_without_the_response_is_named() {
        let exchange = call("book_flight", json!({}));
        let streamed = HttpExchange {
            status: Some(200),
            response_headers: headers(&[("content-type", "text/event-stream")]),
            events: 1,
            ..HttpExchange::default()
        };
        let ended = over_http(
            exchange.end_with(rejected("the stream ended")),
            streamed.clone(),
        );
        let id = "http.event-stream-without-response";
        assert_eq!(ids(&ended, "2026-07-28"), [(id, Severity::Warning)]);
        // A JSON body that failed, or a stream whose answer came, is not this finding.
        let json_body = HttpExchange {
            response_headers: headers(&[("content-type", "application/json")]),
            ..streamed.clone()
        };
        let exchange = call("book_flight", json!({}));
        assert!(
            ids(
                &over_http(exchange.end_with(rejected("x")), json_body),
                "2026-07-28"
            )
            .is_empty()
        );
        let answered = over_http(call("book_flight", json!({})).text("ok"), streamed);
        assert!(ids(&answered, "2026-07-28").is_empty());
        // A resumption refused is the same failure, said with its status.
        let resumed = HttpExchange {
            method: "GET".into(),
            status: Some(405),
            request_headers: headers(&[("Last-Event-ID", "7")]),
            ..HttpExchange::default()
        };
        let exchange = over_http(
            call("book_flight", json!({})).end_with(rejected("x")),
            resumed,
        );
        let finding = &super::run(&exchange, "2025-11-25")[0];
        assert!(
            finding.message.contains("got HTTP 405"),
            "{}",
            finding.message
        );
    }

    #[test]
    fn a_session_refused_without_404_is_named_only_when_the_refusal_is_about_the_session() {
        let with_session = |status| HttpExchange {
            status: Some(status),
            request_headers: headers(&[("mcp-session-id", "abc")]),
            ..HttpExchange::default()
        };
        let id = "http.stale-session-not-404";
        let refused = call("book_flight", json!({})).error(-32001, "Session not found");
        let exchange = over_http(refused.clone(), with_session(400));
        assert_eq!(ids(&exchange, "2025-11-25"), [(id, Severity::Warning)]);
        assert!(ids(&over_http(refused, with_session(404)), "2025-11-25").is_empty());
        let other = call("book_flight", json!({})).error(-32001, "Rate limited");
        assert!(ids(&over_http(other, with_session(400)), "2025-11-25").is_empty());
    }
}

#[test]
fn input_required_and_unknown_result_types_are_never_a_success() {
    let asks = call("confirm_booking", json!({})).result(json!({
        "resultType": "input_required",
        "inputRequests": {"confirm": {"method": "elicitation/create", "params": {}}},
        "requestState": "s",
    }));
    let outcome = classify(&asks);
    assert_eq!(outcome.class, super::Class::TransportFailure);
    assert!(
        outcome.detail.starts_with("input_required:"),
        "{}",
        outcome.detail
    );
    assert!(ids(&asks, "2026-07-28").is_empty());
    let handle =
        call("book_flight", json!({})).result(json!({"resultType": "task", "taskId": "t"}));
    assert!(classify(&handle).detail.contains("never polled"));
    assert_eq!(
        ids(&handle, "2026-07-28"),
        [("spec.unknown-result-type", Severity::Warning)]
    );
    let unknown =
        call("book_flight", json!({})).result(json!({"resultType": "stream", "content": []}));
    let outcome = classify(&unknown);
    assert_eq!(outcome.class, super::Class::TransportFailure);
    assert!(
        outcome.detail.contains("resultType 'stream'"),
        "{}",
        outcome.detail
    );
    assert_eq!(
        ids(&unknown, "2026-07-28"),
        [("spec.unknown-result-type", Severity::Warning)]
    );
    let complete =
        call("book_flight", json!({})).result(json!({"resultType": "complete", "content": []}));
    assert_eq!(classify(&complete).class, super::Class::Success);
}

mod output_schema {
    use serde_json::{Value, json};

    use super::classify;
    use crate::classify::Class;
    use crate::classify::findings::{Context, Finding, Severity, findings};
    use crate::classify::fixtures::call;
    use crate::mcp::messages::Tool;
    use crate::mcp::session::Exchange;

    fn run(exchange: &Exchange) -> Vec<Finding> {
        let tool = Tool::from_value(&json!({
            "name": "get_flight_status",
            "outputSchema": {"type": "object", "properties": {
                "status": {"type": "string", "enum": ["scheduled", "delayed"]},
                "delayMinutes": {"type": "integer", "minimum": 0},
            }, "required": ["status"]},
        }));
        let outcome = classify(exchange);
        findings(&Context::new(
            exchange,
            &outcome,
            "2026-07-28",
            Some(&vec![tool].into()),
        ))
    }

    fn structured(value: &Value) -> Exchange {
        call("get_flight_status", json!({})).result(json!({
            "content": [{"type": "text", "text": value.to_string()}],
            "structuredContent": value,
        }))
    }

    #[test]
    fn a_result_that_breaks_the_output_schema_is_a_local_finding_and_stays_a_success() {
        let broken = structured(&json!({"status": "lost", "delayMinutes": -5}));
        assert_eq!(classify(&broken).class, Class::Success);
        let found = run(&broken);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].id, found[0].severity),
            ("output-schema-violation", Severity::Warning)
        );
        assert!(
            found[0]
                .message
                .starts_with("local check (sightline's, not the server's answer)")
        );
        assert!(
            found[0].message.contains("structuredContent/status"),
            "{}",
            found[0].message
        );
        assert!(
            found[0].message.contains("structuredContent/delayMinutes"),
            "{}",
            found[0].message
        );
        assert!(
            run(&structured(
                &json!({"status": "delayed", "delayMinutes": 5})
            ))
            .is_empty()
        );
    }

    #[test]
    fn a_declared_output_schema_without_structured_content_is_named_unless_the_call_failed() {
        let missing = call("get_flight_status", json!({})).text("LH123 is delayed");
        let found = run(&missing);
        assert_eq!(found[0].id, "structured-missing", "{found:?}");
        let failed = call("get_flight_status", json!({})).tool_error("no such flight");
        assert!(run(&failed).iter().all(|f| f.id != "structured-missing"));
    }
}

#[test]
fn a_success_that_reads_like_an_error_is_pointed_out() {
    let looks_failed = call("book_flight", json!({})).text("Error: the date is in the past");
    assert_eq!(
        ids(&looks_failed, "2025-11-25"),
        [("success-reads-like-error", Severity::Info)]
    );
    for fine in ["Booked.", "No errors found."] {
        assert!(ids(&call("book_flight", json!({})).text(fine), "2025-11-25").is_empty());
    }
    let flagged = call("book_flight", json!({})).tool_error("Error: the date is in the past");
    assert!(
        ids(&flagged, "2025-11-25").is_empty(),
        "isError says it already"
    );
}
