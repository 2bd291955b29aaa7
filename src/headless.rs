//! The headless commands `tools` and `call`: connect, drive one request, print text or exactly
//! one JSON object (also when the run fails before the call), and return the exit code of
//! product.md §1. With `-v` the session stream is printed to stderr as it happens.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::analysis::{CallAnalysis, CallContext, analyze};
use crate::classify::findings::{Finding, Severity};
use crate::classify::{Class, Outcome};
use crate::cli::{CallArgs, OutputArgs, RecordArgs, ServerArgs};
use crate::client::{self, Client, ClientError, Connection, LogEntry, LogEvent, Role, Stage};
use crate::config;
use crate::mcp::era::Era;
use crate::mcp::input::Round;
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::Message;
use crate::mcp::log::SessionEvent;
use crate::mcp::messages::Tool;
use crate::mcp::session::{End, Exchange, Failure};
use crate::model_view::hosts::{self, HostProfile};
use crate::model_view::{self, ModelViewJson};
use crate::sanitize;
use crate::stream::EventSink;
use crate::transcript::recorder::Recorder;
use crate::transport::TransportError;

mod audit;
mod capture;
mod relay;

pub use audit::audit;
pub use capture::capture;
pub use relay::relay;

/// Exit codes of the headless commands.
pub mod exit {
    pub const SUCCESS: u8 = 0;
    pub const TOOL_ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const PROTOCOL_ERROR: u8 = 3;
    pub const TRANSPORT_FAILURE: u8 = 4;
}

/// Longest frame the verbose log prints whole.
const LOG_FRAME_CHARS: usize = 4096;
/// Longest model-view text the human output prints whole.
const MODEL_TEXT_BYTES: usize = 4096;
/// Frames larger than this are printed as received (clipped) by the human output.
const PRETTY_LIMIT: usize = 1024 * 1024;
/// How much of such a frame the human output shows.
const RAW_PREVIEW: usize = 64 * 1024;

/// A server selection that cannot name a server (a bad `--config` entry, a bad `--url`) is a
/// usage error, said before anything starts.
fn selection_problem(server: &ServerArgs) -> Option<String> {
    match server.target() {
        Err(error @ (TransportError::Config(_) | TransportError::BadUrl { .. })) => {
            Some(error.to_string())
        }
        Ok(_) | Err(_) => None,
    }
}

/// `sightline tools`.
pub async fn tools(
    server: &ServerArgs,
    record: &RecordArgs,
    as_json: bool,
    check_headers: bool,
    output: &OutputArgs,
) -> u8 {
    let recorder = match prepared(server, record, "tools") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = list(
        server,
        as_json,
        check_headers,
        output.verbose,
        &stage,
        recorder.as_ref(),
    );
    let stopped = |outcome| ToolsJson {
        server: Value::Null,
        tools: None,
        rejected: Vec::new(),
        findings: Vec::new(),
        outcome,
    };
    let code = guarded(run, as_json, output.deadline, &stage, stopped).await;
    recording_ended(recorder.as_ref());
    code
}

/// Before a headless command starts: a server selection that cannot name a server, or a
/// recording that cannot be opened, is a usage error said on stderr (its exit code); else the
/// recorder, if `--record` asked for one.
fn prepared(
    server: &ServerArgs,
    record: &RecordArgs,
    command: &str,
) -> Result<Option<Recorder>, u8> {
    if let Some(problem) = selection_problem(server) {
        eprintln!("sightline: {}", sanitize::text(&problem));
        return Err(exit::USAGE);
    }
    server.recorder(record, command).map_err(|message| {
        eprintln!("sightline: {message}");
        exit::USAGE
    })
}

/// Says so when a recording stopped before the run did.
fn recording_ended(recorder: Option<&Recorder>) {
    if let Some(failure) = recorder.and_then(Recorder::failure) {
        eprintln!("sightline: {}", sanitize::text(&failure));
    }
}

async fn list(
    server: &ServerArgs,
    as_json: bool,
    check_headers: bool,
    verbose: bool,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> u8 {
    let mut client = match connect(server, verbose, stage, recorder).await {
        Ok(client) => client,
        Err(error) => return report_failure(&error, as_json, || ToolsJson::failed(&error, None)),
    };
    let listed = client.list_tools().await;
    let findings: Vec<Finding> = match (&listed, check_headers) {
        (Ok(_), true) => client.check_header_validation().await.into_iter().collect(),
        _ => Vec::new(),
    };
    let connection = client.connection().cloned();
    let transport = client.transport().description.clone();
    let code = match &listed {
        Ok(tools) => {
            if as_json {
                let mut listing = ToolsJson::listed(connection.as_ref(), tools);
                listing.findings = findings;
                print_json(&listing);
            } else {
                let line = server_line(connection.as_ref(), &transport);
                emit(|out| {
                    write_tools(out, &line, tools)?;
                    if check_headers {
                        write_findings(out, &findings)?;
                    }
                    Ok(())
                });
            }
            exit::SUCCESS
        }
        Err(error) => report_failure(error, as_json, || {
            ToolsJson::failed(error, connection.as_ref())
        }),
    };
    client.shutdown().await;
    code
}

/// `sightline call TOOL [ARGS_JSON]`.
pub async fn call(
    server: &ServerArgs,
    record: &RecordArgs,
    call: &CallArgs,
    as_json: bool,
    output: &OutputArgs,
) -> u8 {
    let recorder = match prepared(server, record, "call") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = call_tool(
        server,
        call,
        as_json,
        output.verbose,
        &stage,
        recorder.as_ref(),
    );
    let stopped = |outcome| CallJson {
        server: Value::Null,
        request: None,
        response: None,
        outcome,
        findings: &[],
        model_view: None,
        rounds: Vec::new(),
        http: None,
        auth: Vec::new(),
    };
    let code = guarded(run, as_json, output.deadline, &stage, stopped).await;
    recording_ended(recorder.as_ref());
    code
}

async fn call_tool(
    server: &ServerArgs,
    call: &CallArgs,
    as_json: bool,
    verbose: bool,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> u8 {
    let (arguments, host) =
        match read_arguments(&call.args).and_then(|a| Ok((a, host_profile(call)?))) {
            Ok(inputs) => inputs,
            Err(message) => {
                eprintln!("sightline: {message}");
                return exit::USAGE;
            }
        };
    let mut client = match connect(server, verbose, stage, recorder).await {
        Ok(client) => client,
        Err(error) => {
            return report_failure(&error, as_json, || CallJson {
                auth: stage.auth(),
                ..CallJson::failed(&error, server.show_secrets)
            });
        }
    };
    // The listing is the findings' catalog; a server without tools/list can still be called.
    let catalog = match client.list_tools().await {
        Ok(tools) => Some(tools),
        Err(error) => {
            eprintln!("sightline: note: {}", sanitize::text(&error.to_string()));
            None
        }
    };
    let excluded = catalog
        .as_ref()
        .and_then(|tools| tools.iter().find(|tool| tool.name == call.tool.as_str()))
        .and_then(|tool| tool.rejected.as_deref())
        .filter(|_| !server.allow_invalid_tool_headers);
    if let Some(reason) = excluded {
        eprintln!(
            "sightline: '{}' is not called: its x-mcp-header declaration is invalid ({}), and \
             2026-07-28 clients MUST exclude such tools; --allow-invalid-tool-headers sends it \
             anyway, as a deliberate test",
            sanitize::text(&call.tool),
            sanitize::text(reason)
        );
        client.shutdown().await;
        return exit::USAGE;
    }
    let exchange = client.call_tool(&call.tool, arguments).await;
    let connection = client.connection().cloned();
    let transport = client.transport().description.clone();
    let report = CallReport::new(
        connection.as_ref(),
        &transport,
        &exchange,
        catalog.as_ref().map(|tools| tools.as_slice()),
        &host,
        call.forward_protocol_errors,
    );
    if as_json {
        print_json(&CallJson {
            auth: stage.auth(),
            ..report.to_json(call.payload, server.show_secrets)
        });
    } else {
        emit(|out| report.write_text(out));
    }
    client.shutdown().await;
    exit_code(report.analysis.outcome.class)
}

/// `sightline auth logout`: forgets the tokens kept for a server, or all.
pub fn logout(cache: &std::path::Path, url: Option<&str>) -> u8 {
    let resource = match url.map(url::Url::parse) {
        Some(Ok(url)) => Some(crate::mcp::oauth::canonical_resource(&url)),
        Some(Err(error)) => {
            eprintln!("sightline: --url: {error}");
            return exit::USAGE;
        }
        None => None,
    };
    match crate::transport::http::token_cache::forget(cache, resource.as_deref()) {
        Ok(count) => {
            let what = resource.as_deref().unwrap_or("every server");
            println!(
                "forgot {count} token{} for {}",
                if count == 1 { "" } else { "s" },
                sanitize::text(what)
            );
            exit::SUCCESS
        }
        Err(error) => {
            eprintln!("sightline: {}: {error}", cache.display());
            exit::USAGE
        }
    }
}

/// `sightline hosts`: every profile with its source; `hosts show NAME`: one, as a file.
pub fn hosts(show: Option<&str>, as_json: bool) -> u8 {
    let user = match config::user_host_profiles() {
        Ok(user) => user,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let yours = |profile: &HostProfile| user.iter().any(|u| u.name == profile.name);
    if let Some(name) = show {
        let profile = match hosts::resolve(name, &user) {
            Ok(profile) => profile,
            Err(message) => {
                eprintln!("sightline: {message}");
                return exit::USAGE;
            }
        };
        if as_json {
            print_json(&HostJson {
                name: &profile.name,
                yours: yours(&profile),
                profile: &profile,
            });
        } else {
            emit(|out| out.write_all(hosts::to_file(&profile).as_bytes()));
        }
        return exit::SUCCESS;
    }
    let all = hosts::all(&user);
    if as_json {
        let list: Vec<HostJson> = all
            .iter()
            .map(|profile| HostJson {
                name: &profile.name,
                yours: yours(profile),
                profile,
            })
            .collect();
        print_json(&list);
        return exit::SUCCESS;
    }
    emit(|out| {
        for profile in &all {
            let name = sanitize::text(&profile.name);
            let name = if yours(profile) {
                format!("{name} (yours)")
            } else {
                name.into_owned()
            };
            writeln!(out, "{name:<26} {}", sanitize::text(&profile.description))?;
            if let Some(source) = &profile.source {
                writeln!(
                    out,
                    "    from {} {}, checked {}",
                    sanitize::text(&source.repository),
                    sanitize::text(&source.version),
                    sanitize::text(&source.checked)
                )?;
            }
        }
        writeln!(
            out,
            "\n`sightline hosts show NAME` prints one as a file to copy into\n\
             ~/.config/sightline/hosts.toml (the profiles there override and extend these)."
        )
    });
    exit::SUCCESS
}

/// `sightline replay FILE --json`: every `tools/call` of a transcript, judged again by today's
/// rules, in the shape of `call --json`. A line that cannot be read ends the transcript there:
/// what came before is printed, `stopped` says why, and the exit code is 2.
pub fn replay(file: &str, host: &str, forward_protocol_errors: bool, payload: bool) -> u8 {
    let host = match config::user_host_profiles().and_then(|user| hosts::resolve(host, &user)) {
        Ok(host) => host,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let reader = match crate::transcript::open(file) {
        Ok(reader) => reader,
        Err(error) => {
            eprintln!("sightline: {}", sanitize::text(&error.to_string()));
            return exit::USAGE;
        }
    };
    let replayed = Replayed {
        header: reader.header.clone(),
        reader: RefCell::new(Some(reader)),
        host: &host,
        forward_protocol_errors,
        payload,
        stopped: RefCell::new(None),
    };
    print_json(&replayed);
    if replayed.stopped.borrow().is_some() {
        exit::USAGE
    } else {
        exit::SUCCESS
    }
}

/// `replay --json`: the calls are read from the transcript while they are written out, so a
/// long recording is never held whole.
struct Replayed<'h> {
    header: crate::transcript::Header,
    reader: RefCell<Option<crate::transcript::Reader<std::io::BufReader<std::fs::File>>>>,
    host: &'h HostProfile,
    forward_protocol_errors: bool,
    payload: bool,
    /// Why reading stopped early; known once `calls` is written.
    stopped: RefCell<Option<String>>,
}

impl Serialize for Replayed<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("transcript", &self.header)?;
        map.serialize_entry("calls", &ReplayedCalls(self))?;
        map.serialize_entry("stopped", &*self.stopped.borrow())?;
        map.end()
    }
}

struct ReplayedCalls<'r, 'h>(&'r Replayed<'h>);

impl Serialize for ReplayedCalls<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let replayed = self.0;
        let mut seq = serializer.serialize_seq(None)?;
        let Some(reader) = replayed.reader.borrow_mut().take() else {
            return seq.end();
        };
        let mut transport = replayed.header.transport.clone();
        let mut connection = None;
        let mut catalog: Option<Arc<Vec<Tool>>> = None;
        for event in reader {
            match event {
                Ok(SessionEvent::Connecting { transport: named }) => transport = named,
                Ok(SessionEvent::Connected(connected)) => connection = Some(*connected),
                Ok(SessionEvent::ToolsListed(tools)) => catalog = Some(tools),
                Ok(SessionEvent::CallFinished(exchange)) if exchange.method == "tools/call" => {
                    let report = CallReport::new(
                        connection.as_ref(),
                        &transport,
                        &exchange,
                        catalog.as_ref().map(|tools| tools.as_slice()),
                        replayed.host,
                        replayed.forward_protocol_errors,
                    );
                    seq.serialize_element(&report.to_json(replayed.payload, false))?;
                }
                Ok(_) => {}
                Err(error) => *replayed.stopped.borrow_mut() = Some(error.to_string()),
            }
        }
        seq.end()
    }
}

/// `sightline replay FILE --serve [--http ADDR]`: the recording as a server.
pub async fn serve(file: &str, http: Option<std::net::SocketAddr>) -> u8 {
    let loaded = match crate::transcript::load(file) {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("sightline: {}", sanitize::text(&error.to_string()));
            return exit::USAGE;
        }
    };
    if let Some(stopped) = &loaded.stopped {
        eprintln!("sightline: {}", sanitize::text(&stopped.to_string()));
    }
    let recorded = crate::transcript::serve::Recorded::new(&loaded, file);
    let served = match http {
        Some(address) => crate::transcript::serve::serve_http(recorded, address).await,
        None => crate::transcript::serve::serve_stdio(recorded),
    };
    match served {
        Ok(()) => exit::SUCCESS,
        Err(error) => {
            eprintln!("sightline replay --serve: {error}");
            exit::TRANSPORT_FAILURE
        }
    }
}

/// `sightline diff A B`: exit 0 when nothing changed, 1 when something did, 2 when a
/// recording cannot be read to its end.
pub fn diff(before: &str, after: &str, host: &str, as_json: bool) -> u8 {
    let host = match config::user_host_profiles().and_then(|user| hosts::resolve(host, &user)) {
        Ok(host) => host,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let loaded = crate::transcript::load(before)
        .and_then(|before| Ok((before, crate::transcript::load(after)?)));
    let (before, after) = match loaded {
        Ok(both) => both,
        Err(error) => {
            eprintln!("sightline: {}", sanitize::text(&error.to_string()));
            return exit::USAGE;
        }
    };
    for stopped in [&before.stopped, &after.stopped].into_iter().flatten() {
        eprintln!("sightline: {}", sanitize::text(&stopped.to_string()));
    }
    let diff = crate::diff::diff(&before, &after, &host);
    if as_json {
        print_json(&serde_json::json!({
            "changed": diff.changed(),
            "diff": diff,
        }));
    } else {
        emit(|out| out.write_all(diff.text().as_bytes()));
    }
    match (
        before.stopped.is_some() || after.stopped.is_some(),
        diff.changed(),
    ) {
        (true, _) => exit::USAGE,
        (false, true) => exit::TOOL_ERROR,
        (false, false) => exit::SUCCESS,
    }
}

/// One profile in `hosts --json`.
#[derive(serde::Serialize)]
struct HostJson<'a> {
    name: &'a str,
    /// Whether it comes from the user's file.
    yours: bool,
    #[serde(flatten)]
    profile: &'a HostProfile,
}

/// The host profile `--host` names.
fn host_profile(call: &CallArgs) -> Result<HostProfile, String> {
    let user = config::user_host_profiles()?;
    hosts::resolve(&call.host, &user)
}

fn exit_code(class: Class) -> u8 {
    match class {
        Class::Success => exit::SUCCESS,
        Class::ToolError => exit::TOOL_ERROR,
        Class::ProtocolError => exit::PROTOCOL_ERROR,
        Class::TransportFailure => exit::TRANSPORT_FAILURE,
    }
}

/// Parses `ARGS_JSON` (or stdin for `-`), pointing at where invalid JSON breaks.
fn read_arguments(args: &str) -> Result<Value, String> {
    let text = if args == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| format!("could not read ARGS_JSON from stdin: {error}"))?;
        text
    } else {
        args.to_owned()
    };
    serde_json::from_str(&text).map_err(|error| {
        let line_text = text
            .lines()
            .nth(error.line().saturating_sub(1))
            .unwrap_or_default();
        let caret = " ".repeat(error.column().saturating_sub(1));
        format!(
            "ARGS_JSON is not valid JSON: {error}\n  {}\n  {caret}^",
            sanitize::text(line_text)
        )
    })
}

/// Connects as the selection says; with `verbose`, every log entry goes to stderr as it
/// happens. Nothing else of the stream is kept: a headless run holds only what it prints.
async fn connect(
    server: &ServerArgs,
    verbose: bool,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> Result<Client, ClientError> {
    let mut sink = EventSink::taps_only().with_tap(stage.tap());
    // Recorded before shown: whatever `-v` printed is already on disk.
    if let Some(recorder) = recorder {
        sink = sink.with_tap(recorder.tap());
    }
    if verbose {
        sink = sink.with_tap(print_log_entry);
    } else {
        sink = sink.with_tap(print_authorization);
    }
    let target = server.target().map_err(ClientError::Transport)?;
    client::connect(&target, server.client_options(), sink).await
}

/// The step a run has reached, followed from its session stream.
#[derive(Debug, Clone)]
struct StageTracker(Arc<Mutex<Stage>>, Arc<Mutex<AuthSteps>>);

/// The steps of OAuth flows, as `call --json` reports them.
#[derive(Debug, Default)]
struct AuthSteps {
    steps: Vec<Value>,
    /// Between a flow's start and its end: its HTTP requests are steps.
    running: bool,
}

impl AuthSteps {
    fn see(&mut self, at: crate::mcp::Timestamp, event: &LogEvent) {
        match event {
            LogEvent::Note(text) if text.starts_with("authorization:") => {
                let step = text.trim_start_matches("authorization:").trim();
                if step.starts_with("starting") || step.starts_with("the token was refused") {
                    self.running = true;
                }
                self.steps.push(json!({"at": at.0, "step": step}));
                if step.starts_with("done") || step.starts_with("refreshed") {
                    self.running = false;
                }
            }
            LogEvent::Note(text) if text.starts_with("⚑ auth.") => {
                let (id, message) = text.trim_start_matches("⚑ ").split_once(": ").unwrap_or((text, ""));
                self.steps.push(json!({"at": at.0, "finding": {"id": id, "message": message}}));
            }
            LogEvent::Http(http) if self.running => self.steps.push(json!({
                "at": at.0,
                "http": {"method": http.method, "url": http.url, "status": http.status, "error": http.error, "body": http.body},
            })),
            _ => {}
        }
    }
}

impl Default for StageTracker {
    fn default() -> Self {
        Self(Arc::new(Mutex::new(Stage::Spawn)), Arc::default())
    }
}

impl StageTracker {
    fn tap(&self) -> impl Fn(&SessionEvent) + Send + Sync + 'static {
        let stage = Arc::clone(&self.0);
        let auth = Arc::clone(&self.1);
        move |event| {
            let SessionEvent::Logged(LogEntry { at, event }) = event else {
                return;
            };
            if let LogEvent::Sent(frame) = event
                && let Message::Request { method, .. } = &frame.message
            {
                *stage.lock().unwrap_or_else(PoisonError::into_inner) = Stage::of_method(method);
            }
            auth.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .see(*at, event);
        }
    }

    fn get(&self) -> Stage {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The OAuth steps seen so far.
    fn auth(&self) -> Vec<Value> {
        self.1
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .steps
            .clone()
    }
}

/// Runs a headless command unless SIGINT, SIGTERM or SIGHUP comes first, or the deadline
/// passes. The server runs in its own process group, out of the terminal's reach: dropping
/// the run stops it. Either way `--json` still prints its one object.
async fn guarded<J: Serialize>(
    run: impl Future<Output = u8>,
    as_json: bool,
    deadline: Duration,
    stage: &StageTracker,
    stopped: impl FnOnce(Value) -> J,
) -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let mut listeners = Vec::new();
    for (kind, name, code) in [
        (SignalKind::interrupt(), "SIGINT", 130),
        (SignalKind::terminate(), "SIGTERM", 143),
        (SignalKind::hangup(), "SIGHUP", 129),
    ] {
        match signal(kind) {
            Ok(listener) => listeners.push((listener, name, code)),
            Err(error) => eprintln!("sightline: cannot watch {name}: {error}"),
        }
    }
    let interrupted = async {
        if listeners.is_empty() {
            return std::future::pending().await;
        }
        let waits = listeners.iter_mut().map(|(listener, name, code)| {
            Box::pin(async move { (listener.recv().await, *name, *code) })
        });
        let ((_, name, code), ..) = futures_util::future::select_all(waits).await;
        (format!("interrupted by {name}"), code)
    };
    let (why, code) = tokio::select! {
        code = run => return code,
        interrupted = interrupted => interrupted,
        () = tokio::time::sleep(deadline) => (
            format!("the run did not finish within its {} s deadline (--deadline)", deadline.as_secs_f64()),
            exit::TRANSPORT_FAILURE,
        ),
    };
    let detail = format!("{why}; the server was stopped");
    if as_json {
        let outcome =
            json!({"class": Class::TransportFailure, "stage": stage.get(), "detail": detail});
        print_json(&stopped(outcome));
    } else {
        eprintln!("sightline: {detail}");
    }
    code
}

/// A run that failed before (or instead of) its answer: the error on stderr, or the command's
/// one JSON object on stdout; the exit code of its class.
fn report_failure<J: Serialize>(
    error: &ClientError,
    as_json: bool,
    json: impl FnOnce() -> J,
) -> u8 {
    if as_json {
        print_json(&json());
    } else {
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "sightline: {}", sanitize::text(&error.to_string()));
        if let Some(Exchange {
            end: End::Failed(Failure::ServerExited { stderr_tail, .. }),
            ..
        }) = error.exchange()
        {
            let _ = write_stderr_tail(&mut stderr, stderr_tail);
        }
    }
    exit_code(error.outcome().class)
}

fn write_stderr_tail(out: &mut dyn Write, tail: &[String]) -> std::io::Result<()> {
    if !tail.is_empty() {
        writeln!(out, "last lines of the server's stderr:")?;
        for line in tail {
            writeln!(out, "  | {}", sanitize::text(line))?;
        }
    }
    Ok(())
}

/// The `-v` log: one line per entry on stderr, as it happens.
/// Without `-v`, the steps of an OAuth flow still reach the user: the URL to open, where the
/// flow stands, what the server got wrong.
fn print_authorization(event: &SessionEvent) {
    if let SessionEvent::Logged(LogEntry {
        event: LogEvent::Note(text),
        ..
    }) = event
        && (text.starts_with("authorization:") || text.starts_with("⚑ auth."))
    {
        let _ = writeln!(
            std::io::stderr().lock(),
            "sightline: {}",
            sanitize::text(text)
        );
    }
}

fn print_log_entry(event: &SessionEvent) {
    if let SessionEvent::Logged(LogEntry { at, event }) = event {
        // A closed stderr leaves nowhere to report to.
        let _ = writeln!(std::io::stderr().lock(), "{at} {}", describe(event));
    }
}

fn describe(event: &LogEvent) -> String {
    match event {
        LogEvent::Sent(frame) => format!("→ {}", clip(&frame.raw)),
        LogEvent::Received { frame, role } => {
            let role = match role {
                Role::Reply { .. } | Role::ServerRequest | Role::Notification => String::new(),
                Role::Late { method } => format!("(late reply to {method}) "),
                Role::Duplicate { method } => format!("(duplicate reply to {method}) "),
                Role::UnknownId => "(a reply to a request never sent) ".into(),
                Role::Unaddressed => "(an error about no request) ".into(),
            };
            format!("← {role}{}", clip(&frame.raw))
        }
        LogEvent::Invalid(invalid) => format!("✗ {}: {}", invalid.error, clip(&invalid.raw)),
        LogEvent::Stderr(text) => text
            .split('\n')
            .map(|line| format!("  stderr | {}", clip(line)))
            .collect::<Vec<_>>()
            .join("\n"),
        LogEvent::TimedOut {
            id,
            method,
            after_ms,
        } => {
            format!("⏱ {method} (id {id}) timed out after {after_ms} ms (sightline's own timeout)")
        }
        LogEvent::WriteFailed(reason) => format!("✗ write failed: {}", sanitize::text(reason)),
        LogEvent::Closed { status } => format!("■ server output closed ({status})"),
        LogEvent::Note(text) => format!("• {}", sanitize::text(text)),
        LogEvent::Http(http) => format!("⇄ {}", sanitize::text(&http.summary())),
    }
}

/// The first `LOG_FRAME_CHARS` characters, terminal-safe; the rest is counted, not copied.
fn clip(raw: &str) -> String {
    let cut = raw.char_indices().nth(LOG_FRAME_CHARS).map(|(at, _)| at);
    let shown = sanitize::text(&raw[..cut.unwrap_or(raw.len())]);
    match cut {
        Some(_) => format!("{shown}… ({} bytes in all)", raw.len()),
        None => shown.into_owned(),
    }
}

fn server_json(connection: Option<&Connection>) -> Value {
    match connection {
        Some(c) => json!({
            "name": c.server.name,
            "version": c.server.version,
            "era": c.era,
            "protocol_version": c.protocol_version,
            "http_session": c.http_session,
        }),
        None => Value::Null,
    }
}

/// The `outcome` object: class, code, stage and detail.
fn outcome_json(outcome: &Outcome, stage: Stage) -> Value {
    let mut value = json!({"class": outcome.class});
    if let Some(code) = outcome.code {
        value["code"] = code.into();
    }
    value["stage"] = json!(stage);
    value["detail"] = outcome.detail.as_str().into();
    value
}

/// Writes one JSON document to stdout as it is serialized, terminal-safe.
fn print_json(value: &impl Serialize) {
    emit(|out| {
        let mut safe = sanitize::JsonWriter::new(out);
        serde_json::to_writer_pretty(&mut safe, value).map_err(std::io::Error::from)?;
        writeln!(safe)?;
        safe.flush()
    });
}

/// Writes to stdout; a closed stdout (`| head`) means the reader is gone, not an error to report.
fn emit(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) {
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, stdout);
    let _ = write(&mut out).and_then(|()| out.flush());
}

/// Pretty JSON of a frame's text, terminal-safe; a huge frame is shown as received, clipped.
fn pretty(raw: &str) -> String {
    if raw.len() > PRETTY_LIMIT {
        let shown = model_view::clip(raw, RAW_PREVIEW);
        return format!(
            "{}… ({} more bytes as received; --json prints them all)",
            sanitize::json(shown),
            raw.len() - shown.len()
        );
    }
    let text = serde_json::from_str::<Value>(raw)
        .and_then(|value| serde_json::to_string_pretty(&value))
        .unwrap_or_else(|_| raw.to_owned());
    sanitize::json(&text).into_owned()
}

fn server_line(connection: Option<&Connection>, transport: &str) -> String {
    let transport = sanitize::text(transport).into_owned();
    match connection {
        Some(c) => {
            let era = match c.era {
                Era::Legacy => "legacy",
                Era::Modern => "modern",
            };
            let session = c
                .http_session
                .as_deref()
                .map(|id| {
                    format!(
                        " · session {}",
                        sanitize::text(&crate::app::describe::short_session(id))
                    )
                })
                .unwrap_or_default();
            format!(
                "server   {} {} · {era} era · protocol {} · {transport}{session}",
                sanitize::text(&c.server.name),
                sanitize::text(&c.server.version),
                c.protocol_version
            )
        }
        None => format!("server   {transport}"),
    }
}

/// The shape of `tools --json`.
#[derive(Serialize)]
struct ToolsJson<'a> {
    server: Value,
    tools: Option<Vec<&'a Json>>,
    /// Tools a conforming 2026-07-28 HTTP client drops, and why (listed above as received).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    rejected: Vec<Value>,
    /// With `--check-headers`: what the check found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    findings: Vec<Finding>,
    outcome: Value,
}

impl<'a> ToolsJson<'a> {
    fn listed(connection: Option<&Connection>, tools: &'a Arc<Vec<Tool>>) -> Self {
        let plural = if tools.len() == 1 { "" } else { "s" };
        let outcome = Outcome {
            class: Class::Success,
            code: None,
            detail: format!("{} tool{plural}", tools.len()),
        };
        Self {
            server: server_json(connection),
            tools: Some(tools.iter().map(|tool| &tool.raw).collect()),
            rejected: tools
                .iter()
                .filter_map(|tool| {
                    let reason = tool.rejected.as_deref()?;
                    Some(json!({"name": tool.name.as_str(), "reason": reason}))
                })
                .collect(),
            findings: Vec::new(),
            outcome: outcome_json(&outcome, Stage::List),
        }
    }

    fn failed(error: &ClientError, connection: Option<&Connection>) -> Self {
        Self {
            server: server_json(connection),
            tools: None,
            rejected: Vec::new(),
            findings: Vec::new(),
            outcome: outcome_json(&error.outcome(), error.stage()),
        }
    }
}

/// The human `tools` output.
pub fn write_tools(out: &mut dyn Write, server_line: &str, tools: &[Tool]) -> std::io::Result<()> {
    let plural = if tools.len() == 1 { "" } else { "s" };
    writeln!(out, "{server_line}\n\n{} tool{plural}", tools.len())?;
    for tool in tools {
        write!(out, "\n{}", sanitize::text(&tool.name))?;
        if tool.display_name() != tool.name {
            write!(out, " — {}", sanitize::text(&tool.display_name()))?;
        }
        writeln!(out)?;
        if let Some(reason) = &tool.rejected {
            writeln!(
                out,
                "  ✗ rejected: conforming HTTP clients drop it ({})",
                sanitize::text(reason)
            )?;
        }
        if let Some(description) = tool.description() {
            writeln!(out, "  {}", sanitize::text(&description))?;
        }
        if let Some(schema) = tool.input_schema() {
            for line in pretty(&schema.to_string()).lines() {
                writeln!(out, "  {line}")?;
            }
        }
    }
    Ok(())
}

/// The findings section of the human outputs.
fn write_findings(out: &mut dyn Write, findings: &[Finding]) -> std::io::Result<()> {
    if findings.is_empty() {
        return writeln!(out, "\n── findings ── none");
    }
    writeln!(out, "\n── findings ──")?;
    for finding in findings {
        let severity = match finding.severity {
            Severity::Info => "info   ",
            Severity::Warning => "warning",
        };
        writeln!(
            out,
            "{severity}  {}\n         {}",
            finding.id,
            sanitize::text(&finding.message)
        )?;
    }
    Ok(())
}

/// The shape of `call --json`: the request and response embedded as the bytes from the wire.
#[derive(Serialize)]
struct CallJson<'a> {
    server: Value,
    request: Option<&'a RawValue>,
    response: Option<&'a RawValue>,
    outcome: Value,
    findings: &'a [Finding],
    model_view: Option<ModelViewJson<'a, 'a>>,
    /// What the server asked of the client during the call, and the answers given.
    rounds: Vec<Value>,
    /// The HTTP exchange that carried the call (Streamable HTTP), secrets masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    http: Option<Value>,
    /// The steps of an OAuth flow the run went through (HTTP requests, where the flow stood,
    /// what the server got wrong), in order; no tokens.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    auth: Vec<Value>,
}

/// A frame's text as a JSON value, borrowed (checked, not parsed into a tree or copied).
fn wire(text: &str) -> Option<&RawValue> {
    serde_json::from_str::<&RawValue>(text).ok()
}

impl<'a> CallJson<'a> {
    /// A call that never happened: connecting failed.
    fn failed(error: &'a ClientError, show_secrets: bool) -> Self {
        let exchange = error.exchange();
        Self {
            server: Value::Null,
            request: exchange.and_then(|e| wire(&e.request.raw)),
            response: exchange
                .and_then(Exchange::response)
                .and_then(|frame| wire(&frame.raw)),
            outcome: outcome_json(&error.outcome(), error.stage()),
            findings: &[],
            model_view: None,
            rounds: Vec::new(),
            http: exchange
                .and_then(|e| e.http.as_ref())
                .map(|http| http.to_json(show_secrets)),
            auth: Vec::new(),
        }
    }
}

/// Everything `call` reports about one exchange.
pub struct CallReport<'a> {
    pub connection: Option<&'a Connection>,
    pub transport: &'a str,
    pub exchange: &'a Exchange,
    pub analysis: CallAnalysis<'a>,
}

impl<'a> CallReport<'a> {
    /// Analyses the exchange (class, findings, what the model sees).
    pub fn new(
        connection: Option<&'a Connection>,
        transport: &'a str,
        exchange: &'a Exchange,
        catalog: Option<&[Tool]>,
        host: &HostProfile,
        forward_protocol_errors: bool,
    ) -> Self {
        let version = connection.map_or("unknown", |c| c.protocol_version.as_str());
        let context = CallContext {
            version,
            catalog,
            host,
            forward_protocol_errors,
        };
        Self {
            connection,
            transport,
            exchange,
            analysis: analyze(exchange, &context),
        }
    }

    /// The object of product.md §1. The result text appears twice at most: in the response
    /// (the wire bytes) and in the model's view; `payload` repeats it once more, on request.
    fn to_json(&self, with_payload: bool, show_secrets: bool) -> CallJson<'_> {
        CallJson {
            server: server_json(self.connection),
            request: wire(&self.exchange.request.raw),
            response: self.exchange.response().and_then(|frame| wire(&frame.raw)),
            outcome: outcome_json(&self.analysis.outcome, Stage::Call),
            findings: &self.analysis.findings,
            model_view: Some(self.analysis.view.to_json(with_payload)),
            rounds: self.exchange.rounds.iter().map(Round::to_json).collect(),
            http: self
                .exchange
                .http
                .as_ref()
                .map(|http| http.to_json(show_secrets)),
            auth: Vec::new(),
        }
    }

    /// The human output: request, response, the class in words, what the model sees, findings.
    pub fn write_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let exchange = self.exchange;
        let server = server_line(self.connection, self.transport);
        writeln!(
            out,
            "{server}\n\n→ request\n{}\n",
            pretty(&exchange.request.raw)
        )?;
        let elapsed = exchange.ended_at.since(exchange.sent_at);
        match exchange.response() {
            Some(frame) => writeln!(out, "← response ({elapsed} ms)\n{}\n", pretty(&frame.raw))?,
            None => writeln!(out, "← no response ({elapsed} ms)\n")?,
        }
        if let Some(http) = &exchange.http {
            writeln!(out, "⇄ HTTP {}\n", sanitize::text(&http.summary()))?;
        }
        if !exchange.rounds.is_empty() {
            writeln!(out, "── the server asked ──")?;
            for round in &exchange.rounds {
                let line = round.describe();
                writeln!(out, "  {}", sanitize::text(&line))?;
            }
            writeln!(out)?;
        }
        let outcome = &self.analysis.outcome;
        writeln!(
            out,
            "outcome  {}: {}",
            outcome.class.label(),
            sanitize::text(&outcome.detail)
        )?;
        if let End::Failed(Failure::ServerExited { stderr_tail, .. }) = &exchange.end {
            write_stderr_tail(out, stderr_tail)?;
        }
        let view = &self.analysis.view;
        writeln!(
            out,
            "\n── what the model sees ── host '{}' · {}",
            sanitize::text(&view.host),
            view.verdict()
        )?;
        let marker = match (view.forwarded, view.is_error) {
            (true, true) => "[error] ",
            (false, _) => "[from the host, not the server] ",
            (true, false) => "",
        };
        let (shown, omitted) = view.text_within(MODEL_TEXT_BYTES);
        write!(out, "{marker}{}", sanitize::text_keeping_newlines(&shown))?;
        if omitted > 0 {
            write!(out, "… ({omitted} more bytes)")?;
        }
        writeln!(out, "\n  why: {}", sanitize::text(&view.reason))?;
        for note in &view.notes {
            writeln!(out, "  host: {}", sanitize::text(note))?;
        }
        write_findings(out, &self.analysis.findings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::fixtures::{call, catalog};
    use crate::mcp::messages::ServerInfo;

    fn report_text(exchange: &Exchange, host: &HostProfile) -> String {
        let connection = Connection {
            http_session: None,
            era: Era::Legacy,
            protocol_version: "2025-11-25".into(),
            server: ServerInfo {
                name: "demo".into(),
                version: "1.0".into(),
            },
            capabilities: None,
        };
        let tools = catalog(&["book_flight", "get_flight_status"]);
        let report = CallReport::new(
            Some(&connection),
            "stdio: demo",
            exchange,
            Some(&tools),
            host,
            false,
        );
        let mut out = Vec::new();
        report.write_text(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn spec() -> HostProfile {
        hosts::resolve("spec", &[]).unwrap()
    }

    const PAST: &str = "Invalid departure date: must be in the future. Current date is 29/11/2026.";

    #[test]
    fn human_call_output_for_each_class() {
        let past = json!({"departureDate": "12/12/2024"});
        let mut may = spec();
        may.forward_protocol_errors = true;
        let structured = json!({"flightNumber": "LH123", "status": "boarding"});
        let cases = [
            ("success_structured", call("get_flight_status", json!({"flightNumber": "LH123"})).result(json!({"content": [{"type": "text", "text": structured.to_string()}], "structuredContent": structured})), spec()),
            ("tool_error", call("book_flight", past.clone()).tool_error(PAST), spec()),
            ("protocol_error", call("book_flight", past.clone()).error(-32602, PAST), spec()),
            ("protocol_error_may_on", call("book_flight", past.clone()).error(-32602, PAST), may),
            ("transport_failure_timeout", call("book_flight", past.clone()).timeout(), spec()),
            ("transport_failure_exited", call("book_flight", past).exited(), spec()),
        ];
        for (name, exchange, host) in cases {
            insta::assert_snapshot!(name, report_text(&exchange, &host));
        }
    }

    #[test]
    fn long_model_text_is_clipped_on_a_character_boundary() {
        let text = "é".repeat(MODEL_TEXT_BYTES);
        let output = report_text(&call("book_flight", json!({})).text(&text), &spec());
        let shown = format!(
            "{}… ({} more bytes)",
            "é".repeat(MODEL_TEXT_BYTES / 2),
            MODEL_TEXT_BYTES
        );
        assert!(output.contains(&shown));
    }

    #[test]
    fn invalid_args_json_points_at_the_break() {
        let error = read_arguments(r#"{"departureDate" "12/12/2024"}"#).unwrap_err();
        assert!(error.contains("line 1 column 18"), "{error}");
        let caret_line = error.lines().last().unwrap();
        assert_eq!(caret_line.find('^'), Some(2 + 17));
    }

    #[test]
    fn args_json_is_kept_exactly_even_when_not_an_object() {
        assert_eq!(read_arguments(r#""oops""#).unwrap(), json!("oops"));
        assert_eq!(read_arguments("[1,2]").unwrap(), json!([1, 2]));
        let ordered = read_arguments(r#"{"b":1,"a":2}"#).unwrap();
        assert_eq!(ordered.to_string(), r#"{"b":1,"a":2}"#);
    }
}
