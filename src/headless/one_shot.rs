//! What the one-request commands (`read`, `prompt`, `ping`, `request`) and the listings
//! (`resources`, `prompts`) share: the run around them (usage checks, the guard, the
//! connection), every page of a listing, and the one JSON object each prints — the request and
//! response as the bytes from the wire, the outcome with its stage, HTTP details, OAuth steps.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::exit;
use super::output::{outcome_json, print_json, report_failure, server_json, server_line};
use super::run::{StageTracker, connect_tapped, guarded, prepared, recording_ended};
use crate::classify::{Class, Outcome, classify};
use crate::cli::{PlainArgs, RecordArgs};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::present::call::CallDocument;
use crate::runner::{Connection, SessionError, SessionRunner, Stage};
use crate::sanitize;

/// Pages of one listing, at most: a server whose list never ends is stopped.
const MAX_PAGES: usize = 1000;

/// The one JSON object of a one-request command.
#[derive(Serialize, Default)]
pub(super) struct RequestJson<'a> {
    pub server: Value,
    pub request: Option<&'a RawValue>,
    pub response: Option<&'a RawValue>,
    pub outcome: Value,
    /// `ping`: the round trip, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// `read --save`: where the bytes went, and how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved: Option<Value>,
    /// `complete`: the values the server offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub auth: Vec<Value>,
}

fn wire(text: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(text).ok()
}

impl<'a> RequestJson<'a> {
    /// An exchange that ended, with its outcome.
    pub fn of(
        connection: Option<&Connection>,
        exchange: &'a Exchange,
        outcome: &Outcome,
        show_secrets: bool,
    ) -> Self {
        Self {
            server: server_json(connection),
            request: wire(&exchange.request.raw),
            response: exchange.response().and_then(|frame| wire(&frame.raw)),
            outcome: outcome_json(outcome, Stage::of_method(&exchange.method)),
            http: exchange
                .http
                .as_ref()
                .map(|http| http.to_json(show_secrets)),
            ..Self::default()
        }
    }

    /// A run that failed before its request (or whose listing failed).
    pub fn failed(
        error: &'a SessionError,
        connection: Option<&Connection>,
        show_secrets: bool,
    ) -> Self {
        let exchange = error.exchange();
        Self {
            server: server_json(connection),
            request: exchange.and_then(|e| wire(&e.request.raw)),
            response: exchange
                .and_then(Exchange::response)
                .and_then(|frame| wire(&frame.raw)),
            outcome: outcome_json(&error.outcome(), error.stage()),
            http: exchange
                .and_then(|e| e.http.as_ref())
                .map(|http| http.to_json(show_secrets)),
            ..Self::default()
        }
    }

    /// A request sightline would not send, and why (exit 2).
    pub fn refused(connection: Option<&Connection>, why: &str) -> Self {
        Self {
            server: server_json(connection),
            outcome: json!({"class": "not_sent", "stage": Stage::Call, "detail": why}),
            ..Self::default()
        }
    }
}

/// A headless command that needs a connection: checks its usage first, runs `body` on the
/// connected client under the guard (signals, `--deadline`), shuts the server down; when
/// connecting fails, says so (or prints the command's JSON object). `stopped` is that object
/// when the guard stops the run.
pub(super) async fn with_client<F, J>(
    common: &PlainArgs,
    record: &RecordArgs,
    command: &str,
    stopped: impl FnOnce(Value) -> J,
    body: F,
) -> u8
where
    F: AsyncFnOnce(&mut SessionRunner, &StageTracker) -> u8,
    J: Serialize,
{
    with_tapped_client(common, record, command, None, stopped, body).await
}

/// [`with_client`], with `tap` seeing every event of the session as it happens.
pub(super) async fn with_tapped_client<F, J>(
    common: &PlainArgs,
    record: &RecordArgs,
    command: &str,
    tap: Option<crate::stream::Tap>,
    stopped: impl FnOnce(Value) -> J,
    body: F,
) -> u8
where
    F: AsyncFnOnce(&mut SessionRunner, &StageTracker) -> u8,
    J: Serialize,
{
    let recorder = match prepared(&common.server, record, command) {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = async {
        let mut client = match connect_tapped(
            &common.server,
            common.output.verbose,
            &stage,
            recorder.as_ref(),
            tap,
        )
        .await
        {
            Ok(client) => client,
            Err(error) => {
                return report_failure(&error, common.json, || RequestJson {
                    auth: stage.auth(),
                    ..RequestJson::failed(&error, None, common.server.show_secrets)
                });
            }
        };
        let code = body(&mut client, &stage).await;
        client.shutdown().await;
        code
    };
    let code = guarded(run, common.json, common.output.deadline, &stage, stopped).await;
    recording_ended(recorder.as_ref());
    code
}

/// Every page of a listing.
pub(super) struct Listed {
    pub items: Vec<Json>,
    pub pages: usize,
    /// The last page's result: its cache hints stand for the listing.
    pub last: Json,
}

/// Lists every page of `method` (`key` is the array each result carries), following
/// `nextCursor` as the era says: 2026-07-28 takes an empty string for a cursor, earlier
/// versions for the end. A failed page fails the listing, with its exchange.
pub(super) async fn list_all(
    client: &mut SessionRunner,
    method: &str,
    key: &str,
) -> Result<Listed, SessionError> {
    let modern = client
        .connection()
        .is_some_and(|c| c.era == crate::mcp::era::Era::Modern);
    let unreadable = |reason: String| SessionError::UnexpectedResult {
        method: method.to_owned(),
        reason,
    };
    let mut items = Vec::new();
    let mut seen = HashSet::new();
    let mut params = None;
    for pages in 1..=MAX_PAGES {
        let exchange = client.request(method, params.take()).await;
        let Some(Reply::Result(result)) = exchange.reply() else {
            return Err(SessionError::Exchange(Box::new(exchange)));
        };
        let result = result.clone();
        let page = result.get(key);
        let Some(elements) = page.as_ref().and_then(Json::elements) else {
            return Err(unreadable(format!("no `{key}` array")));
        };
        let page = page.as_ref().map_or_else(Vec::new, |page| {
            elements.filter_map(|item| page.part(item)).collect()
        });
        items.extend(page);
        let cursor = result
            .get("nextCursor")
            .and_then(|cursor| cursor.as_str().map(std::borrow::Cow::into_owned));
        let cursor = match cursor {
            Some(next) if modern || !next.is_empty() => next,
            _ => {
                return Ok(Listed {
                    items,
                    pages,
                    last: result,
                });
            }
        };
        if !seen.insert(cursor.clone()) {
            return Err(unreadable(format!(
                "cursor '{}' came back twice; stopped to avoid a loop",
                sanitize::text(&cursor)
            )));
        }
        params = Some(json!({"cursor": cursor}));
    }
    Err(unreadable(format!(
        "{MAX_PAGES} pages ({} items) and still a next cursor; stopped, the list does not end",
        items.len()
    )))
}

/// The outcome of a listing that read every page.
pub(super) fn listed_outcome(detail: String) -> Outcome {
    Outcome {
        class: Class::Success,
        code: None,
        detail,
    }
}

/// The exchange's class, and the exit code of `call` for it.
pub(super) fn judged(exchange: &Exchange) -> (Outcome, u8) {
    let outcome = classify(exchange);
    let code = super::output::exit_code(outcome.class);
    (outcome, code)
}

/// A request refused before it was sent: said on stderr (or as the JSON object), exit 2.
pub(super) fn refuse(as_json: bool, connection: Option<&Connection>, why: &str) -> u8 {
    if as_json {
        print_json(&RequestJson::refused(connection, why));
    } else {
        eprintln!("sightline: {}", sanitize::text(why));
    }
    exit::USAGE
}

/// An exchange in `call`'s words, without the model's view and findings that only a
/// `tools/call` has: the server, the request, the response (the server's error verbatim), the
/// HTTP exchange's summary, the outcome.
pub(super) fn exchange_text(document: &CallDocument<'_>, show_secrets: bool) -> String {
    let mut sections = vec![
        vec![server_line(document.connection, document.transport)],
        document.request(),
        document.response(),
    ];
    if let Some(http) = document.http(show_secrets).into_iter().next() {
        sections.push(vec![http]);
    }
    sections.push(document.outcome());
    let blocks: Vec<String> = sections.iter().map(|section| section.join("\n")).collect();
    blocks.join("\n\n")
}
