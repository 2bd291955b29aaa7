//! `call` with several servers (`--demo` or `--server` repeated): the same call sent to each at
//! once, one client each; their blocks (or JSON objects, as an array) printed in the order
//! given, then the comparison; the exit code is the worst of theirs (4 > 3 > 1 > 0).

use serde_json::{Value, json};

use super::{Call, Said, call_tool, inputs, stopped_json};
use crate::cli::{CallArgs, OutputArgs, RecordArgs, ServerArgs};
use crate::demo_server::Style;
use crate::headless::exit;
use crate::headless::output::emit;
use crate::headless::run::{StageTracker, guarded, selection_problem};
use crate::present::side_by_side;
use crate::sanitize;

/// The same call to each of `servers` (two or more), side by side.
pub(super) async fn call_each(
    servers: &[ServerArgs],
    record: &RecordArgs,
    call: &CallArgs,
    as_json: bool,
    output: &OutputArgs,
) -> u8 {
    if record.record.is_some() {
        eprintln!(
            "sightline: --record writes one session, and {} servers make {} sessions; record \
             each with its own `call` (one --demo or --server)",
            servers.len(),
            servers.len()
        );
        return exit::USAGE;
    }
    if let Some(problem) = servers.iter().find_map(selection_problem) {
        eprintln!("sightline: {}", sanitize::text(&problem));
        return exit::USAGE;
    }
    let stages: Vec<StageTracker> = servers.iter().map(|_| StageTracker::default()).collect();
    let run = async {
        let (arguments, host) = match inputs(call) {
            Ok(inputs) => inputs,
            Err(code) => return code,
        };
        let call = Call {
            args: call,
            arguments,
            host: &host,
            as_json,
            verbose: output.verbose,
            streamed: false,
        };
        let runs = servers
            .iter()
            .zip(&stages)
            .map(|(server, stage)| call_tool(server, &call, stage, None));
        let said = futures_util::future::join_all(runs).await;
        let selections: Vec<String> = servers.iter().map(selection).collect();
        let printed = if as_json {
            json_array(&said)
        } else {
            text(&call.args.tool, &said, &selections)
        };
        emit(|out| out.write_all(printed.as_bytes()));
        // Exit codes rank as their numbers do: 4 > 3 > 2 (a server not called) > 1 > 0.
        said.iter()
            .map(|said| said.code)
            .max()
            .unwrap_or(exit::SUCCESS)
    };
    let stopped = |outcome: Value| -> Vec<_> {
        stages
            .iter()
            .map(|stage| {
                let mut outcome = outcome.clone();
                outcome["stage"] = json!(stage.get());
                stopped_json(outcome)
            })
            .collect()
    };
    guarded(run, as_json, output.deadline, &stages[0], stopped).await
}

/// Each server's whole `call` text under a line naming it, then the comparison.
fn text(tool: &str, said: &[Said], selections: &[String]) -> String {
    let names: Vec<String> = said
        .iter()
        .zip(selections)
        .map(|(said, selection)| side_by_side::name(&said.row, selection))
        .collect();
    let mut out = String::new();
    for (index, (one, name)) in said.iter().zip(&names).enumerate() {
        out.push_str(&side_by_side::heading(index, said.len(), name));
        out.push('\n');
        // A failure is said in the block, where the answer would have been.
        out.push_str(&one.out);
        out.push_str(&one.err);
        out.push('\n');
    }
    let rows: Vec<(String, &side_by_side::Row)> = names
        .into_iter()
        .zip(said.iter().map(|said| &said.row))
        .collect();
    for line in side_by_side::comparison(tool, &rows) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The JSON objects, as one array in the order given. A server not called (a usage problem of
/// its own) has an object saying why, with no class.
fn json_array(said: &[Said]) -> String {
    let objects: Vec<String> = said
        .iter()
        .map(|said| {
            let object = if said.out.is_empty() {
                let detail = said.err.trim().trim_start_matches("sightline: ");
                let outcome = json!({"class": Value::Null, "detail": detail});
                format!("{:#}", json!({"server": Value::Null, "outcome": outcome}))
            } else {
                said.out.trim_end().to_owned()
            };
            // JSON strings hold no raw newline: indenting after each one keeps the JSON whole.
            format!("  {}", object.replace('\n', "\n  "))
        })
        .collect();
    format!("[\n{}\n]\n", objects.join(",\n"))
}

/// How the command line chose a server: a demo style, a config entry, a URL or a command.
fn selection(server: &ServerArgs) -> String {
    if let Some(entry) = server.server.first() {
        return entry.clone();
    }
    if let Some(url) = &server.url {
        return url.clone();
    }
    if !server.command.is_empty() {
        return server.command.join(" ");
    }
    match server.demo.first().copied().unwrap_or_default() {
        Style::Sep1303 => "sep1303 style".to_owned(),
        Style::Legacy => "legacy style".to_owned(),
    }
}
