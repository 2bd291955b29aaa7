//! `sightline agent "PROMPT" --model openai:MODEL --host PROFILE`: a real model calls the
//! server through a host's eyes. The server's tools are offered under the host's names; each
//! call the model makes goes to the server (or is answered by the host itself, as that host
//! does), and what goes back to the model is exactly what the host sends it. The run ends on a
//! text answer, on `--max-turns`, or when the host would end it.

mod experiment;

use std::io::Write;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::exit;
use super::run::{StageTracker, connect, guarded, prepared, recording_ended};
use crate::analysis::{CallContext, analyze_judged};
use crate::classify::Class;
use crate::cli::{AgentArgs, RecordArgs, ServerArgs};
use crate::mcp::catalog::Catalog;
use crate::model_api::{self as turns, CallRecord, Ending, Message, ToolCall, Turn, Usage};
use crate::model_client::{self, Model};
use crate::model_view::hosts::{self, HostProfile};
use crate::recording::Recorder;
use crate::runner::SessionRunner;
use crate::sanitize;

/// Exit codes of a run that did not end with the model's answer.
pub mod exit_codes {
    /// `--max-turns` model requests, and the model still calling tools.
    pub const TURNS_RAN_OUT: u8 = 5;
    /// The host fails its whole run on what a call brought (`LangChain` on a protocol error).
    pub const HOST_ENDED_RUN: u8 = 6;
}

/// `sightline agent`: text, or (`--json`) one object; exit 0 when the model answered. With
/// several servers or hosts, or `--trials`, the experiment: its table.
pub async fn agent(args: &AgentArgs, record: &RecordArgs) -> u8 {
    let (model, hosts) = match inputs(args) {
        Ok(inputs) => inputs,
        Err(message) => {
            eprintln!("sightline agent: {}", sanitize::text(&message));
            return exit::USAGE;
        }
    };
    let servers = args.server.opened();
    if servers.len() > 1 || hosts.len() > 1 || args.trials > 1 {
        if record.record.is_some() {
            eprintln!("sightline agent: --record records one run, not an experiment");
            return exit::USAGE;
        }
        // Stopped (a signal, --deadline) the way every headless run stops: servers shut down.
        let stage = StageTracker::default();
        let runs = experiment::run(args, &model, &hosts, &servers);
        return guarded(runs, args.json, args.output.deadline, &stage, |outcome| {
            outcome
        })
        .await;
    }
    let recorder = match prepared(&args.server, record, "agent") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let Some(host) = hosts.first() else {
        return exit::USAGE;
    };
    let stage = StageTracker::default();
    let run = async {
        let session = Session {
            args,
            model: &model,
            host,
            stage: &stage,
            recorder: recorder.as_ref(),
        };
        match session.run(&args.server).await {
            Ok(run) => report(&run, args),
            Err(message) => {
                eprintln!("sightline agent: {}", sanitize::text(&message));
                exit::TRANSPORT_FAILURE
            }
        }
    };
    let code = guarded(run, args.json, args.output.deadline, &stage, |outcome| {
        outcome
    })
    .await;
    recording_ended(recorder.as_ref());
    code
}

/// What one run needs besides the server.
struct Session<'a> {
    args: &'a AgentArgs,
    model: &'a Model,
    host: &'a HostProfile,
    stage: &'a StageTracker,
    recorder: Option<&'a Recorder>,
}

impl Session<'_> {
    /// Connects to `server`, lists its tools, runs the model against them, and shuts it down.
    async fn run(&self, server: &ServerArgs) -> Result<Run, String> {
        let verbose = self.args.output.verbose;
        let mut client = connect(server, verbose, self.stage, self.recorder)
            .await
            .map_err(|error| error.to_string())?;
        let run = match client.list_tools().await {
            Ok(catalog) => converse(self, &mut client, &catalog).await,
            Err(error) => Err(error.to_string()),
        };
        client.shutdown().await;
        run
    }
}

/// The model API and the host profiles the arguments name, or why not.
fn inputs(args: &AgentArgs) -> Result<(Model, Vec<HostProfile>), String> {
    let model = Model::resolve(
        &args.model,
        args.model_url.as_deref(),
        args.model_key_env.as_deref(),
    )?;
    let user = crate::config::user_host_profiles()?;
    let hosts = args
        .host
        .iter()
        .map(|host| hosts::resolve(host, &user))
        .collect::<Result<_, _>>()?;
    Ok((model, hosts))
}

/// What a run did.
#[derive(Debug, Serialize)]
pub(super) struct Run {
    pub(super) prompt: String,
    pub(super) model: String,
    pub(super) host: String,
    pub(super) turns: u32,
    pub(super) calls: Vec<CallRecord>,
    /// The model's last words (its answer, when it answered).
    pub(super) answer: Option<String>,
    pub(super) ended: Ending,
    /// Why the host ended the run, in its profile's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) host_ended: Option<String>,
    pub(super) tokens: Usage,
    pub(super) elapsed_ms: u64,
}

/// The conversation: model turns and the host's answers to its calls, until it ends.
async fn converse(
    session: &Session<'_>,
    client: &mut SessionRunner,
    catalog: &Catalog,
) -> Result<Run, String> {
    let Session {
        args, model, host, ..
    } = *session;
    let started = Instant::now();
    let offered = crate::model_api::offer(catalog, &super::capture::tool_naming(&host.name));
    let version = client
        .connection()
        .map_or_else(|| "unknown".to_owned(), |c| c.protocol_version.clone());
    let http = model_client::http_client()?;
    let mut conversation = vec![Message::User(args.prompt.clone())];
    let mut run = Run {
        prompt: args.prompt.clone(),
        model: args.model.clone(),
        host: host.name.clone(),
        turns: 0,
        calls: Vec::new(),
        answer: None,
        ended: Ending::TurnsRanOut,
        host_ended: None,
        tokens: Usage::default(),
        elapsed_ms: 0,
    };
    while run.turns < args.max_turns {
        run.turns += 1;
        let request = model.api.request(&model.name, &conversation, &offered);
        let turn = model_client::turn(&http, model, &request, session.recorder).await?;
        run.tokens += turn.usage;
        let Turn { text, calls, .. } = turn;
        if calls.is_empty() {
            run.answer = Some(text.clone());
            run.ended = Ending::Answered;
            conversation.push(Message::Model { text, calls });
            break;
        }
        conversation.push(Message::Model {
            text,
            calls: calls.clone(),
        });
        for call in calls {
            let tool = turns::tool_for(&offered, &call.name).map(|offered| offered.tool.clone());
            let answered = answer(&call, tool.as_deref(), client, catalog, host, &version).await;
            // The host speaks the model's API: its own message goes, error flag and blocks.
            let payload = (host.shape == model.api.shape()).then_some(answered.payload);
            let repeated = turns::repeats(&run.calls, &call.name, &call.arguments);
            run.calls.push(CallRecord {
                turn: run.turns,
                name: call.name.clone(),
                tool,
                arguments: call.arguments.clone(),
                server_called: answered.server_called,
                class: answered.class,
                model_read: answered.read.clone(),
                repeated,
            });
            if answered.ends_run {
                run.ended = Ending::HostEndedRun;
                run.host_ended = Some(format!(
                    "{} fails its whole run on this call: the model reads nothing of it",
                    host.name
                ));
                run.elapsed_ms = millis(started);
                return Ok(run);
            }
            conversation.push(Message::ToolResult {
                id: call.id,
                text: answered.read,
                payload,
            });
        }
    }
    run.elapsed_ms = millis(started);
    Ok(run)
}

/// What the host made of one tool call of the model.
struct Answered {
    /// What it sent its model.
    read: String,
    class: Option<Class>,
    server_called: bool,
    ends_run: bool,
    /// The message the host sends, in its API's shape.
    payload: Value,
}

/// The host answers the model's call itself (a name that stands for no tool, arguments its own
/// checks refuse) or calls the server; either way, what its model reads.
async fn answer(
    call: &ToolCall,
    tool: Option<&str>,
    client: &mut SessionRunner,
    catalog: &Catalog,
    host: &HostProfile,
    version: &str,
) -> Answered {
    // A name that stands for no server tool is the host's to answer, by the name called.
    let asked = tool.unwrap_or(&call.name);
    if let Some(view) =
        crate::model_view::stopped_by_host(asked, &call.arguments, Some(catalog), host)
    {
        return Answered {
            read: view.text(),
            class: None,
            server_called: false,
            ends_run: view.ends_run,
            payload: view.payload(),
        };
    }
    let finished = client.call(asked, call.arguments.clone()).await;
    let judgement = finished
        .judged
        .unwrap_or_else(|| crate::classify::judge(&finished.exchange, version, Some(catalog)));
    let class = judgement.outcome.class;
    let context = CallContext {
        version,
        catalog: Some(catalog),
        host,
        forward_protocol_errors: false,
    };
    let view = analyze_judged(&finished.exchange, judgement, &context).view;
    Answered {
        read: view.text(),
        class: Some(class),
        server_called: true,
        ends_run: view.ends_run,
        payload: view.payload(),
    }
}

fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Prints the run; its exit code.
fn report(run: &Run, args: &AgentArgs) -> u8 {
    if args.json {
        super::print_json(run);
    } else {
        super::emit(|out| write_text(out, run));
    }
    match run.ended {
        Ending::Answered => exit::SUCCESS,
        Ending::TurnsRanOut => exit_codes::TURNS_RAN_OUT,
        Ending::HostEndedRun => exit_codes::HOST_ENDED_RUN,
    }
}

fn write_text(out: &mut dyn Write, run: &Run) -> std::io::Result<()> {
    let safe = |text: &str| sanitize::text(text).into_owned();
    writeln!(
        out,
        "{} through {}'s eyes: {}",
        safe(&run.model),
        safe(&run.host),
        safe(&run.prompt)
    )?;
    for call in &run.calls {
        let class = match (call.server_called, call.class) {
            (false, _) => "answered by the host, the server not called".to_owned(),
            (true, Some(class)) => class.label().to_owned(),
            (true, None) => "no class".to_owned(),
        };
        let repeated = if call.repeated {
            " (the same call again)"
        } else {
            ""
        };
        writeln!(
            out,
            "turn {}: {} {}{repeated}",
            call.turn,
            safe(&call.name),
            safe(&call.arguments.to_string())
        )?;
        let ended_here = run.ended == Ending::HostEndedRun
            && std::ptr::eq(call, run.calls.last().unwrap_or(call));
        if ended_here {
            writeln!(
                out,
                "  {class}; the model read nothing: the host ended its run"
            )?;
        } else {
            writeln!(out, "  {class}; the model read: {}", safe(&call.model_read))?;
        }
    }
    let calls = run.calls.len();
    let repeated = run.calls.iter().filter(|call| call.repeated).count();
    match run.ended {
        Ending::Answered => writeln!(
            out,
            "answered after {} turns: {}",
            run.turns,
            safe(run.answer.as_deref().unwrap_or_default())
        )?,
        Ending::TurnsRanOut => writeln!(
            out,
            "the turns ran out ({}), the model still calling tools",
            run.turns
        )?,
        Ending::HostEndedRun => writeln!(
            out,
            "the host ended the run: {}",
            safe(run.host_ended.as_deref().unwrap_or_default())
        )?,
    }
    writeln!(
        out,
        "{calls} tool call{}, {repeated} repeated with identical arguments; tokens {} in, {} out; {:.1} s",
        if calls == 1 { "" } else { "s" },
        run.tokens.input,
        run.tokens.output,
        Duration::from_millis(run.elapsed_ms).as_secs_f64()
    )
}
