//! `fit` against captures made to measure: each setting fitted back from what a profile (or
//! a host's words written by hand) makes of one answer.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::fit::{fitted, predicts};
use crate::headless::capture::predicted;
use crate::model_view::hosts;
use crate::model_view::hosts::{Abort, Action, ArgumentCheck, Validator};

/// A capture of `tool` called with `arguments` on a server listing `book_flight`: the host
/// read `text`, after the server answered `reply` (none: the host never called it).
pub(super) fn capture(tool: &str, arguments: &Value, reply: Option<Value>, text: &str) -> Value {
    let schema = json!({"type": "object", "properties": {"date": {"type": "string", "pattern": "^\\d{2}/\\d{2}/\\d{4}$"}}, "required": ["date"]});
    let mut tools = vec![json!({"name": "book_flight", "inputSchema": schema})];
    if tool != "book_flight" {
        tools.push(json!({"name": tool, "inputSchema": {"type": "object"}}));
    }
    let mut frames = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}),
    ];
    let called = reply.is_some();
    if let Some(reply) = reply {
        frames.push(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}));
        let mut reply = reply;
        reply["jsonrpc"] = json!("2.0");
        reply["id"] = json!(2);
        frames.push(reply);
    }
    let exchange: Vec<Value> = frames
        .iter()
        .enumerate()
        .map(|(at, frame)| {
            let dir = if frame.get("method").is_some() {
                "send"
            } else {
                "recv"
            };
            json!({"session": 0, "dir": dir, "ms": at, "frame": frame.to_string()})
        })
        .collect();
    json!({"tool": tool, "arguments": arguments, "exchange": exchange, "server_called": called, "text": text, "error_flag": null})
}

#[test]
fn a_tool_error_s_words_become_a_template_of_the_keys_the_model_view_fills() {
    let arguments = json!({"date": "12/12/2024"});
    let reply = json!({"result": {"content": [{"type": "text", "text": "date in the past"}], "isError": true}});
    let said = r#"Tool 'book_flight' failed with {"date":"12/12/2024"}: date in the past"#;
    let got = capture("book_flight", &arguments, Some(reply), said);
    let fit = fitted(hosts::spec().clone(), &[&got], None);
    assert_eq!(
        fit.tool_error_text.as_deref(),
        Some("Tool '{tool}' failed with {arguments}: {text}")
    );
    assert!(predicts(&fit, &got));
}

#[test]
fn a_host_that_refuses_arguments_itself_gets_the_check_and_the_words_that_predict_it() {
    // What a host checking the schema with Ajv (its arguments named `params`) would say,
    // behind words of its own: the built-in Qwen Code profile's check, reworded.
    let mut target = hosts::resolve("qwen-code", &[]).unwrap();
    target.checks.as_mut().unwrap().invalid_arguments_text =
        "Invalid input for {tool}: {error}".to_owned();
    let mut got = capture("book_flight", &json!({"date": "2099-12-12"}), None, "");
    let said = predicted(&got, &target).unwrap().text;
    assert!(said.starts_with("Invalid input for "), "{said}");
    got["text"] = json!(said);
    let fit = fitted(hosts::spec().clone(), &[&got], None);
    let checks = fit.checks.as_ref().unwrap();
    assert_eq!(checks.arguments, ArgumentCheck::Schema);
    assert_eq!(checks.validator, Validator::Ajv);
    assert_eq!(checks.data_var, "params");
    assert_eq!(
        checks.invalid_arguments_text,
        "Invalid input for {tool}: {error}"
    );
    // The server answered a call it was sent: no check is fitted to that.
    let answered = capture(
        "book_flight",
        &json!({"date": "12/12/2099"}),
        Some(json!({"result": {"content": [{"type": "text", "text": "booked"}]}})),
        "booked",
    );
    let plain = fitted(hosts::spec().clone(), &[&answered], None);
    assert_eq!(plain.checks, hosts::spec().checks);
}

#[test]
fn blocks_the_host_drops_or_replaces_are_fitted_together_its_words_with_the_block_s_fields_as_keys()
{
    let reply = json!({"result": {"content": [
        {"type": "text", "text": "your pass"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "resource_link", "uri": "file:///pass.pdf", "name": "pass.pdf"},
    ]}});
    let said = "your pass\nLink: pass.pdf (file:///pass.pdf)";
    let got = capture(
        "book_flight",
        &json!({"date": "12/12/2099"}),
        Some(reply),
        said,
    );
    let fit = fitted(hosts::spec().clone(), &[&got], None);
    // Both at once: neither alone makes the capture's text.
    assert_eq!(fit.blocks.image, Action::Drop);
    assert_eq!(fit.blocks.resource_link, Action::Placeholder);
    assert_eq!(
        fit.blocks
            .placeholders
            .get("resource_link")
            .map(String::as_str),
        Some("Link: {name} ({uri})")
    );
    assert!(predicts(&fit, &got));
}

#[test]
fn a_caption_before_a_block_the_host_passes_is_fitted_with_the_tool_as_a_key() {
    // Gemini CLI's captions, said by its built-in profile, fitted back from a profile
    // without them.
    let gemini = hosts::resolve("gemini-cli", &[]).unwrap();
    let reply = json!({"result": {"content": [
        {"type": "text", "text": "your pass"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    ]}});
    let mut got = capture("host_picture", &json!({}), Some(reply), "");
    let said = predicted(&got, &gemini).unwrap().text;
    assert!(said.contains("[Tool 'host_picture' provided"), "{said}");
    got["text"] = json!(said);
    let mut uncaptioned = gemini.clone();
    uncaptioned.blocks.captions.clear();
    assert!(!predicts(&uncaptioned, &got));
    let fit = fitted(uncaptioned, &[&got], None);
    assert_eq!(fit.blocks.image, Action::Pass);
    assert_eq!(
        fit.blocks.captions.get("image"),
        gemini.blocks.captions.get("image")
    );
    assert!(predicts(&fit, &got));
}

#[test]
fn a_host_s_own_sentence_for_a_missing_argument_and_a_run_that_ends_with_its_server_are_fitted() {
    let sentence = "An error occurred while running the tool. Please try again.";
    let missing = capture("book_flight", &json!({}), None, sentence);
    let mut died = capture(
        "crash",
        &json!({}),
        Some(json!({"result": {"content": []}})),
        "",
    );
    // The server never answered: its exchange ends with the call.
    let exchange = died["exchange"].as_array_mut().unwrap();
    exchange.pop();
    died["text"] = Value::Null;
    let fit = fitted(hosts::spec().clone(), &[&missing, &died], None);
    let checks = fit.checks.as_ref().unwrap();
    assert_eq!(checks.arguments, ArgumentCheck::Required);
    assert_eq!(checks.invalid_arguments_text, sentence);
    assert!(fit.aborts_run_on.contains(&Abort::NoReply));
    assert!(predicts(&fit, &missing));
    assert!(predicts(&fit, &died));
}

#[test]
fn a_caption_in_place_with_the_placeholder_after_all_else_and_a_block_that_ends_the_run_are_fitted()
{
    // Qwen Code's image, said by its built-in profile, fitted back from one that passes it.
    let qwen = hosts::resolve("qwen-code-direct", &[]).unwrap();
    let reply = json!({"result": {"content": [
        {"type": "text", "text": "The seat map:"},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    ]}});
    let mut got = capture("picture", &json!({}), Some(reply), "");
    got["text"] = json!(predicted(&got, &qwen).unwrap().text);
    let mut plain = qwen.clone();
    plain.blocks.image = Action::Pass;
    plain.blocks.placeholders.clear();
    plain.blocks.captions.clear();
    plain.blocks.placeholders_last = false;
    let fit = fitted(plain, &[&got], None);
    assert!(fit.blocks.placeholders_last);
    assert_eq!(
        fit.blocks.placeholders.get("image").map(String::as_str),
        Some("[image: {mimeType}]")
    );
    assert!(predicts(&fit, &got));
    // A host whose run ends on a block it cannot send: the model reads nothing.
    let link = json!({"result": {"content": [
        {"type": "text", "text": "your pass"},
        {"type": "resource_link", "uri": "file:///pass.pdf", "name": "pass.pdf"},
    ]}});
    let mut ended = capture(
        "book_flight",
        &json!({"date": "12/12/2099"}),
        Some(link),
        "",
    );
    ended["text"] = Value::Null;
    let fit = fitted(hosts::spec().clone(), &[&ended], None);
    assert_eq!(fit.blocks.resource_link, Action::Throw);
    assert!(fit.aborts_run_on.contains(&Abort::HostError));
    assert!(predicts(&fit, &ended));
}
