//! `sightline complete (--prompt NAME | --template URI) ARGUMENT VALUE [--context JSON]`: one
//! `completion/complete`, and the values the server offers, one a line (or in the JSON object).

use serde_json::{Value, json};

use super::exit;
use super::one_shot::{RequestJson, exchange_text, judged, with_client};
use super::output::{emit, print_json, read_arguments, server_line};
use crate::classify::{Class, Outcome};
use crate::cli::{CompleteArgs, RecordArgs};
use crate::mcp::jsonrpc::Reply;
use crate::present::call::CallDocument;
use crate::sanitize;

/// `sightline complete`.
pub async fn complete(args: &CompleteArgs, record: &RecordArgs) -> u8 {
    let context = match args.context.as_deref().map(read_arguments).transpose() {
        Ok(context) => context,
        Err(message) => {
            eprintln!(
                "sightline: {}",
                message.replacen("ARGS_JSON", "--context", 2)
            );
            return exit::USAGE;
        }
    };
    let params = params(args, context);
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    let common = &args.common;
    with_client(common, record, "complete", stopped, async |client, _| {
        let exchange = client.request("completion/complete", Some(params)).await;
        let connection = client.connection();
        let (mut outcome, mut code) = judged(&exchange);
        let values = match exchange.reply() {
            Some(Reply::Result(result)) => {
                let values = values_of(&result.value());
                if let Some((values, total)) = &values {
                    outcome.detail = offered(values.len(), *total);
                } else {
                    outcome = Outcome {
                        class: Class::TransportFailure,
                        code: None,
                        detail: "completion/complete returned a result sightline cannot read: \
                                 no `completion.values` array of strings"
                            .into(),
                    };
                    code = exit::TRANSPORT_FAILURE;
                }
                values
            }
            _ => None,
        };
        if common.json {
            print_json(&RequestJson {
                values: values.as_ref().map(|(values, _)| json!(values)),
                ..RequestJson::of(connection, &exchange, &outcome, common.server.show_secrets)
            });
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
        let Some((values, _)) = values else {
            emit(|out| {
                writeln!(
                    out,
                    "{}",
                    exchange_text(&document, common.server.show_secrets)
                )
            });
            return code;
        };
        let mut lines = vec![server_line(connection, transport), String::new()];
        lines.push(format!(
            "completion/complete {} · {} '{}'",
            reference_words(args),
            sanitize::text(&args.argument),
            sanitize::text(&args.value)
        ));
        lines.extend(
            values
                .iter()
                .map(|value| sanitize::text(value).into_owned()),
        );
        lines.push(String::new());
        lines.extend(document.outcome());
        emit(|out| writeln!(out, "{}", lines.join("\n")));
        code
    })
    .await
}

/// The request's params: the reference, the argument typed so far, and the context given.
fn params(args: &CompleteArgs, context: Option<Value>) -> Value {
    let reference = match (&args.prompt, &args.template) {
        (Some(name), _) => json!({"type": "ref/prompt", "name": name}),
        (None, Some(uri)) => json!({"type": "ref/resource", "uri": uri}),
        // clap requires one of them.
        (None, None) => json!({"type": "ref/prompt"}),
    };
    let mut params = json!({
        "ref": reference,
        "argument": {"name": args.argument, "value": args.value},
    });
    if let Some(arguments) = context {
        params["context"] = json!({"arguments": arguments});
    }
    params
}

fn reference_words(args: &CompleteArgs) -> String {
    match (&args.prompt, &args.template) {
        (Some(name), _) => format!("prompt '{}'", sanitize::text(name)),
        (None, Some(uri)) => format!("template '{}'", sanitize::text(uri)),
        (None, None) => String::new(),
    }
}

/// The values offered and the total the server says there are (if it says).
fn values_of(result: &Value) -> Option<(Vec<String>, Option<u64>)> {
    let completion = result.get("completion")?;
    let values = completion
        .get("values")?
        .as_array()?
        .iter()
        .map(|value| value.as_str().map(str::to_owned))
        .collect::<Option<Vec<_>>>()?;
    Some((values, completion.get("total").and_then(Value::as_u64)))
}

fn offered(count: usize, total: Option<u64>) -> String {
    let plural = if count == 1 { "" } else { "s" };
    match total {
        Some(total) if total != count as u64 => format!("{count} value{plural} of {total}"),
        _ => format!("{count} value{plural}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_strings_and_the_total_is_said_when_it_differs() {
        let result = json!({"completion": {"values": ["a", "b"], "total": 5}});
        let (values, total) = values_of(&result).unwrap();
        assert_eq!(offered(values.len(), total), "2 values of 5");
        assert_eq!(offered(1, Some(1)), "1 value");
        assert!(values_of(&json!({"completion": {"values": [1]}})).is_none());
        assert!(values_of(&json!({})).is_none());
    }
}
