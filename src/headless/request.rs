//! `sightline request METHOD [PARAMS_JSON]` (any request, its params exactly as given, even
//! malformed: the reply shown as `call` shows one, and its class) and `sightline ping` (the
//! round trip; refused in 2026-07-28, which removed `ping`, unless sent with `request`).

use super::one_shot::{RequestJson, exchange_text, judged, refuse, with_client};
use super::output::{emit, print_json, read_arguments};
use crate::cli::{PlainArgs, RecordArgs, RequestArgs};
use crate::mcp::era::Era;
use crate::mcp::session::Exchange;
use crate::present::call::CallDocument;
use crate::runner::SessionRunner;

/// `sightline request METHOD [PARAMS_JSON]`.
pub async fn request(args: &RequestArgs, record: &RecordArgs) -> u8 {
    let params = match args.params.as_deref().map(read_params).transpose() {
        Ok(params) => params,
        Err(message) => {
            eprintln!("sightline: {message}");
            return super::exit::USAGE;
        }
    };
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    let common = &args.common;
    with_client(common, record, "request", stopped, async |client, _| {
        let exchange = client.request(&args.method, params).await;
        report(client, common, &exchange, None)
    })
    .await
}

/// `PARAMS_JSON` read as `ARGS_JSON` is, its errors named for it.
fn read_params(text: &str) -> Result<serde_json::Value, String> {
    read_arguments(text).map_err(|message| message.replacen("ARGS_JSON", "PARAMS_JSON", 2))
}

/// The hint after the refusal of `ping` (whose words are the TUI's too).
const PING_HINT: &str = "; `sightline request ping` sends it anyway, as a deliberate test, or \
    `--era legacy` pings a dual-era server";

/// `sightline ping`.
pub async fn ping(args: &PlainArgs, record: &RecordArgs) -> u8 {
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    with_client(args, record, "ping", stopped, async |client, _| {
        if client.connection().is_some_and(|c| c.era == Era::Modern) {
            let why = format!("{}{PING_HINT}", crate::mcp::era::PING_REMOVED);
            return refuse(args.json, client.connection(), &why);
        }
        // Timed here, finer than the log's milliseconds: a local ping takes less than one.
        let started = std::time::Instant::now();
        let exchange = client.request("ping", None).await;
        let rtt = started.elapsed().as_secs_f64() * 1000.0;
        report(client, args, &exchange, Some(rtt))
    })
    .await
}

/// The exchange as `call` reports one (no model view, no findings): text or the JSON object;
/// the exit code of its class.
fn report(client: &SessionRunner, common: &PlainArgs, exchange: &Exchange, rtt: Option<f64>) -> u8 {
    let connection = client.connection();
    let (mut outcome, code) = judged(exchange);
    if let (Some(rtt), true) = (rtt, exchange.response().is_some()) {
        outcome.detail = format!("{} · round trip {rtt:.2} ms", outcome.detail);
    }
    let show_secrets = common.server.show_secrets;
    if common.json {
        print_json(&RequestJson {
            rtt_ms: rtt
                .filter(|_| exchange.response().is_some())
                .map(|rtt| (rtt * 100.0).round() / 100.0),
            ..RequestJson::of(connection, exchange, &outcome, show_secrets)
        });
        return code;
    }
    let document = CallDocument {
        exchange,
        outcome: &outcome,
        findings: &[],
        view: None,
        connection,
        transport: &client.transport().description,
    };
    emit(|out| writeln!(out, "{}", exchange_text(&document, show_secrets)));
    code
}
