//! `sightline prompts` (every page of `prompts/list`, with each prompt's arguments) and
//! `sightline prompt NAME [ARGS_JSON]` (`prompts/get` with the arguments exactly as given: the
//! messages by role, each with its content type).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

use super::exit;
use super::one_shot::{RequestJson, exchange_text, judged, list_all, listed_outcome, with_client};
use super::output::{
    emit, outcome_json, print_json, read_arguments, report_failure, server_json, server_line,
};
use super::resources::capability_note;
use crate::classify::{Class, Outcome};
use crate::cli::{PlainArgs, PromptArgs, RecordArgs};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::Reply;
use crate::present::call::CallDocument;
use crate::present::{prompts as words, resources as resource_words};
use crate::runner::{SessionRunner, Stage};
use crate::sanitize;

/// The shape of `prompts --json`.
#[derive(Serialize)]
struct PromptsJson<'a> {
    server: Value,
    prompts: &'a [Json],
    pages: usize,
    outcome: Value,
}

/// `sightline prompts`.
pub async fn prompts(args: &PlainArgs, record: &RecordArgs) -> u8 {
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    with_client(args, record, "prompts", stopped, async |client, _| {
        list(client, args).await
    })
    .await
}

async fn list(client: &mut SessionRunner, args: &PlainArgs) -> u8 {
    let listed = list_all(client, "prompts/list", "prompts").await;
    let connection = client.connection().cloned();
    let listed = match listed {
        Ok(listed) => listed,
        Err(error) => {
            return report_failure(&error, args.json, || {
                RequestJson::failed(&error, connection.as_ref(), args.server.show_secrets)
            });
        }
    };
    let plural = if listed.items.len() == 1 { "" } else { "s" };
    if args.json {
        let detail = format!("{} prompt{plural}", listed.items.len());
        print_json(&PromptsJson {
            server: server_json(connection.as_ref()),
            prompts: &listed.items,
            pages: listed.pages,
            outcome: outcome_json(&listed_outcome(detail), Stage::List),
        });
        return exit::SUCCESS;
    }
    let mut lines = vec![server_line(
        connection.as_ref(),
        &client.transport().description,
    )];
    lines.extend(capability_note(connection.as_ref(), "prompts"));
    lines.push(String::new());
    let mut heading = resource_words::counted(listed.items.len(), "prompt", listed.pages);
    if let Some(hint) = resource_words::cache_hint(&listed.last) {
        let _ = write!(heading, " · {hint}");
    }
    lines.push(heading);
    lines.extend(words::prompt_lines(&listed.items));
    emit(|out| writeln!(out, "{}", lines.join("\n")));
    exit::SUCCESS
}

/// `sightline prompt NAME [ARGS_JSON]`.
pub async fn prompt(args: &PromptArgs, record: &RecordArgs) -> u8 {
    let arguments = match args.args.as_deref().map(read_arguments).transpose() {
        Ok(arguments) => arguments,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let mut params = Map::new();
    params.insert("name".into(), args.name.clone().into());
    if let Some(arguments) = arguments {
        params.insert("arguments".into(), arguments);
    }
    let params = Value::Object(params);
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    let common = &args.common;
    with_client(common, record, "prompt", stopped, async |client, _| {
        let exchange = client.request("prompts/get", Some(params)).await;
        let connection = client.connection();
        let (mut outcome, mut code) = judged(&exchange);
        let messages = match exchange.reply() {
            Some(Reply::Result(result)) => {
                let messages = words::message_lines(result);
                if messages.is_none() {
                    outcome = Outcome {
                        class: Class::TransportFailure,
                        code: None,
                        detail: "prompts/get returned a result sightline cannot read: no \
                                 `messages` array"
                            .into(),
                    };
                    code = exit::TRANSPORT_FAILURE;
                } else {
                    let count = result
                        .get("messages")
                        .and_then(|m| m.elements().map(Iterator::count))
                        .unwrap_or(0);
                    outcome.detail =
                        format!("{count} message{}", if count == 1 { "" } else { "s" });
                }
                messages
            }
            _ => None,
        };
        if common.json {
            print_json(&RequestJson::of(
                connection,
                &exchange,
                &outcome,
                common.server.show_secrets,
            ));
            return code;
        }
        let transport = &client.transport().description;
        let document = CallDocument {
            exchange: &exchange,
            outcome: &outcome,
            findings: &[],
            view: None,
            connection,
            transport,
        };
        let Some(messages) = messages else {
            emit(|out| {
                writeln!(
                    out,
                    "{}",
                    exchange_text(&document, common.server.show_secrets)
                )
            });
            return code;
        };
        let mut lines = vec![server_line(connection, transport)];
        lines.extend(capability_note(connection, "prompts"));
        lines.push(String::new());
        lines.push(format!("prompts/get {}", sanitize::text(&args.name)));
        lines.push(String::new());
        lines.extend(messages);
        lines.push(String::new());
        lines.extend(document.outcome());
        emit(|out| writeln!(out, "{}", lines.join("\n")));
        code
    })
    .await
}

#[cfg(test)]
mod tests {
    #[test]
    fn prompt_params_carry_the_arguments_exactly() {
        let arguments = super::read_arguments(r#"{"b":1,"a":"x"}"#).unwrap();
        let mut params = serde_json::Map::new();
        params.insert("name".into(), "p".into());
        params.insert("arguments".into(), arguments);
        assert_eq!(
            serde_json::Value::Object(params).to_string(),
            r#"{"name":"p","arguments":{"b":1,"a":"x"}}"#
        );
    }
}
