//! `sightline resources` (every page of `resources/list` and of `resources/templates/list`, as
//! tables or one JSON object) and `sightline read URI` (`resources/read`: each content shown
//! terminal-safe, a blob as its type and decoded size, `--save` writing the bytes).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};

use super::exit;
use super::one_shot::{
    Listed, RequestJson, exchange_text, judged, list_all, listed_outcome, with_client,
};
use super::output::{emit, outcome_json, print_json, report_failure, server_json, server_line};
use crate::classify::{Class, Outcome};
use crate::cli::{PlainArgs, ReadArgs, RecordArgs};
use crate::mcp::input::{ResultType, result_type};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::present::call::CallDocument;
use crate::present::resources::{self as words, Content};
use crate::runner::{Connection, SessionRunner, Stage};
use crate::sanitize;

/// `sightline resources`.
pub async fn resources(args: &PlainArgs, record: &RecordArgs) -> u8 {
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    with_client(args, record, "resources", stopped, async |client, _| {
        list(client, args).await
    })
    .await
}

/// The shape of `resources --json`.
#[derive(Serialize)]
struct ResourcesJson<'a> {
    server: Value,
    resources: &'a [Json],
    resource_templates: Option<&'a [Json]>,
    pages: Value,
    /// Why the templates are missing, when `resources/templates/list` failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    templates_outcome: Option<Value>,
    outcome: Value,
}

async fn list(client: &mut SessionRunner, args: &PlainArgs) -> u8 {
    let show_secrets = args.server.show_secrets;
    let resources = match list_all(client, "resources/list", "resources").await {
        Ok(listed) => listed,
        Err(error) => {
            let connection = client.connection().cloned();
            return report_failure(&error, args.json, || {
                RequestJson::failed(&error, connection.as_ref(), show_secrets)
            });
        }
    };
    let templates = list_all(client, "resources/templates/list", "resourceTemplates").await;
    let connection = client.connection().cloned();
    // A server without templates may not implement the method at all: that is no failure.
    let (templates, templates_failure) = match templates {
        Ok(listed) => (Some(listed), None),
        Err(error) => {
            let outcome = error.outcome();
            let absent = outcome.code == Some(-32601);
            (None, Some((outcome, absent)))
        }
    };
    let code = match &templates_failure {
        Some((outcome, false)) => super::output::exit_code(outcome.class),
        Some((_, true)) | None => exit::SUCCESS,
    };
    let detail = format!(
        "{}, {}",
        crate::audit::report::plural(resources.items.len(), "resource"),
        crate::audit::report::plural(templates.as_ref().map_or(0, |t| t.items.len()), "template")
    );
    if args.json {
        print_json(&ResourcesJson {
            server: server_json(connection.as_ref()),
            resources: &resources.items,
            resource_templates: templates.as_ref().map(|t| t.items.as_slice()),
            pages: json!({
                "resources": resources.pages,
                "resource_templates": templates.as_ref().map(|t| t.pages),
            }),
            templates_outcome: templates_failure
                .as_ref()
                .map(|(outcome, _)| outcome_json(outcome, Stage::List)),
            outcome: outcome_json(&listed_outcome(detail), Stage::List),
        });
        return code;
    }
    let mut lines = vec![server_line(
        connection.as_ref(),
        &client.transport().description,
    )];
    lines.extend(capability_note(connection.as_ref(), "resources"));
    lines.push(String::new());
    lines.push(listing_heading(&resources, "resource"));
    lines.extend(words::resource_table(&resources.items));
    lines.push(String::new());
    match (&templates, &templates_failure) {
        (Some(templates), _) => {
            lines.push(listing_heading(templates, "resource template"));
            lines.extend(words::template_table(&templates.items));
        }
        (None, Some((outcome, true))) => lines.push(format!(
            "no resource templates (resources/templates/list: {})",
            sanitize::text(&outcome.detail)
        )),
        (None, Some((outcome, false))) => lines.push(format!(
            "resource templates not listed: {} ({})",
            sanitize::text(&outcome.detail),
            outcome.class.label()
        )),
        (None, None) => {}
    }
    emit(|out| writeln!(out, "{}", lines.join("\n")));
    code
}

fn listing_heading(listed: &Listed, what: &str) -> String {
    let mut heading = words::counted(listed.items.len(), what, listed.pages);
    if let Some(hint) = words::cache_hint(&listed.last) {
        let _ = write!(heading, " · {hint}");
    }
    heading
}

/// A note when the server did not declare the capability the command relies on.
pub(super) fn capability_note(connection: Option<&Connection>, capability: &str) -> Option<String> {
    let capabilities = connection?.capabilities.as_ref()?;
    capabilities
        .get(capability)
        .is_none()
        .then(|| format!("note     the server declares no `{capability}` capability; asked anyway"))
}

/// `sightline read URI`.
pub async fn read(args: &ReadArgs, record: &RecordArgs) -> u8 {
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    with_client(&args.common, record, "read", stopped, async |client, _| {
        let exchange = client
            .request("resources/read", Some(json!({"uri": args.uri})))
            .await;
        report_read(client, args, &exchange)
    })
    .await
}

fn report_read(client: &SessionRunner, args: &ReadArgs, exchange: &Exchange) -> u8 {
    let common = &args.common;
    let connection = client.connection();
    let (mut outcome, mut code) = judged(exchange);
    let result = match exchange.reply() {
        Some(Reply::Result(result)) => Some(result),
        _ => None,
    };
    let contents = result.and_then(words::contents);
    if let Some(result) = result {
        if let Some(why) = incomplete(result) {
            outcome = Outcome {
                class: Class::TransportFailure,
                code: None,
                detail: why,
            };
            code = exit::TRANSPORT_FAILURE;
        } else if contents.is_none() {
            outcome = Outcome {
                class: Class::TransportFailure,
                code: None,
                detail:
                    "resources/read returned a result sightline cannot read: no `contents` array"
                        .into(),
            };
            code = exit::TRANSPORT_FAILURE;
        } else {
            let count = contents.as_ref().map_or(0, Vec::len);
            outcome.detail = format!("{count} content{}", if count == 1 { "" } else { "s" });
        }
    }
    let saved = match (&args.save, &contents) {
        (Some(path), Some(contents)) => match save(path, contents) {
            Ok(saved) => Some(saved),
            Err(message) => {
                eprintln!("sightline: {}", sanitize::text(&message));
                code = exit::USAGE;
                None
            }
        },
        _ => None,
    };
    if common.json {
        print_json(&RequestJson {
            saved: saved
                .as_ref()
                .map(|(path, bytes, _)| json!({"path": path, "bytes": bytes})),
            ..RequestJson::of(connection, exchange, &outcome, common.server.show_secrets)
        });
        return code;
    }
    let transport = &client.transport().description;
    let document = CallDocument {
        exchange,
        outcome: &outcome,
        findings: &[],
        view: None,
        connection,
        transport,
    };
    let Some(contents) = contents.filter(|_| outcome.class == Class::Success) else {
        // No contents to show: the exchange itself, as `call` shows it.
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
    lines.extend(capability_note(connection, "resources"));
    lines.push(String::new());
    let mut heading = format!("resources/read {}", sanitize::text(&args.uri));
    if let Some(hint) = result.and_then(words::cache_hint) {
        let _ = write!(heading, " · {hint}");
    }
    lines.push(heading);
    for content in &contents {
        lines.push(String::new());
        lines.extend(content.lines());
    }
    if let Some((path, bytes, note)) = &saved {
        lines.push(String::new());
        lines.push(format!(
            "saved    {bytes} bytes to {}{note}",
            sanitize::text(path)
        ));
    }
    lines.push(String::new());
    lines.extend(document.outcome());
    emit(|out| writeln!(out, "{}", lines.join("\n")));
    code
}

/// Why a 2026-07-28 result is not the contents: an `input_required` answer (MRTR), which
/// sightline does not answer for a read, or a `resultType` it does not know.
fn incomplete(result: &Json) -> Option<String> {
    match result_type(result) {
        ResultType::Complete => None,
        ResultType::InputRequired => Some(
            "input_required: the server needs input before the resource can be read (2026-07-28 \
             multi round-trip requests); sightline does not answer it for resources/read"
                .into(),
        ),
        ResultType::Task => {
            Some("a task handle (resultType 'task') instead of the contents".into())
        }
        ResultType::Unknown(kind) => Some(format!(
            "resultType '{}' is not one 2026-07-28 defines",
            sanitize::text(&kind)
        )),
    }
}

/// Writes the first content's bytes; the path, the count and a note of what was left out.
fn save(path: &std::path::Path, contents: &[Content]) -> Result<(String, usize, String), String> {
    let shown = path.display().to_string();
    let first = contents
        .first()
        .ok_or_else(|| format!("nothing to save to '{shown}': the result has no contents"))?;
    let bytes = first
        .bytes()
        .ok_or_else(|| format!("nothing to save to '{shown}': {}", first.heading()))?;
    std::fs::write(path, bytes).map_err(|error| format!("cannot write '{shown}': {error}"))?;
    let note = if contents.len() > 1 {
        format!(" (the first of {} contents)", contents.len())
    } else {
        String::new()
    };
    Ok((shown, bytes.len(), note))
}
