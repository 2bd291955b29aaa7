//! `sightline audit`'s I/O: connect, list the tools, print the plan, ask (or require `--yes`),
//! run the cases (over `--jobs` connections at once), print the report and write its files.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use super::{StageTracker, connect, exit, guarded, print_json, server_line};
use crate::analysis::CallContext;
use crate::audit::plan::{self, Case, Plan};
use crate::audit::report::DEFAULT_FAIL_ON;
use crate::audit::{Baseline, CaseResult, Report, Verdict};
use crate::cli::{AuditArgs, OutputArgs, RecordArgs, ServerArgs};
use crate::config;
use crate::model_view::hosts::{self, HostProfile};
use crate::recording::Recorder;
use crate::runner::{Connection, SessionError, SessionRunner};
use crate::sanitize;

/// What the run needs besides the server, checked before anything starts.
struct Settings {
    host: HostProfile,
    fail_on: Vec<Verdict>,
    baseline: Baseline,
}

/// `sightline audit`.
pub async fn audit(
    server: &ServerArgs,
    record: &RecordArgs,
    args: &AuditArgs,
    output: &OutputArgs,
) -> u8 {
    let settings = match settings(args) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    // After the settings: a usage error leaves no transcript behind.
    let recorder = match super::prepared(server, record, "audit") {
        Ok(recorder) => recorder,
        Err(code) => return code,
    };
    let stage = StageTracker::default();
    let run = run(server, args, output, &settings, &stage, recorder.as_ref());
    let stopped = |outcome| json!({"outcome": outcome});
    let code = guarded(run, args.json, output.deadline, &stage, stopped).await;
    super::recording_ended(recorder.as_ref());
    code
}

fn settings(args: &AuditArgs) -> Result<Settings, String> {
    let user = config::user_host_profiles()?;
    let host = hosts::resolve(&args.host, &user)?;
    let fail_on = match &args.fail_on {
        None => DEFAULT_FAIL_ON.to_vec(),
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| {
                Verdict::parse(name).ok_or_else(|| {
                    format!(
                        "--fail-on: unknown verdict '{}' (model-blind, lenient, misfiled, unclear, conformant)",
                        sanitize::text(name)
                    )
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let baseline = match &args.baseline {
        None => Baseline::default(),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|error| format!("--baseline {path}: {error}"))?;
            Baseline::parse(&text).map_err(|error| format!("--baseline {path}: {error}"))?
        }
    };
    Ok(Settings {
        host,
        fail_on,
        baseline,
    })
}

async fn run(
    server: &ServerArgs,
    args: &AuditArgs,
    output: &OutputArgs,
    settings: &Settings,
    stage: &StageTracker,
    recorder: Option<&Recorder>,
) -> u8 {
    let failed = |error: &dyn std::fmt::Display| {
        let error = sanitize::text(&error.to_string()).into_owned();
        if args.json {
            print_json(
                &json!({"outcome": {"class": "transport_failure", "stage": stage.get(), "detail": error}}),
            );
        } else {
            eprintln!("sightline: {error}");
        }
        exit::TRANSPORT_FAILURE
    };
    let mut client = match connect(server, output.verbose, stage, recorder).await {
        Ok(client) => client,
        Err(error) => return failed(&error),
    };
    follow_tasks(&mut client);
    let tools = match client.list_tools().await {
        Ok(tools) => tools,
        Err(error) => {
            client.shutdown().await;
            return failed(&error);
        }
    };
    let connection = client.connection().cloned();
    let transport = client.transport().description.clone();
    let options = plan::Options {
        tools: args.tool.clone(),
        include_destructive: args.include_destructive,
        include_invalid_headers: server.allow_invalid_tool_headers,
    };
    let plan = plan::plan(&tools, &options);
    let line = server_line(connection.as_ref(), &transport);
    print_plan(&line, &plan);
    if !consent(args, plan.cases.len()).await {
        client.shutdown().await;
        return exit::USAGE;
    }
    // One transcript is one session: a recorded audit runs on one connection.
    let jobs = if recorder.is_some() {
        1
    } else {
        args.jobs.max(1)
    };
    let progress = Progress::new(plan.cases.len(), !args.json && !output.verbose);
    let version = connection
        .as_ref()
        .map_or("unknown", |c| c.protocol_version.as_str())
        .to_owned();
    let context = CallContext {
        version: &version,
        catalog: Some(&tools),
        host: &settings.host,
        forward_protocol_errors: false,
    };
    let run = Run {
        server,
        verbose: output.verbose,
        context: &context,
        progress: &progress,
    };
    let stdio = !client.transport().is_http();
    let results = match run.cases(client, &plan.cases, jobs).await {
        Ok(results) => results,
        Err(error) => return failed(&error),
    };
    // The first connection's stdout (the others' banners say the same).
    let server_findings = stage.stdout_finding(&version, stdio).into_iter().collect();
    let report = Report {
        server: server_json(connection.as_ref()),
        host: settings.host.name.clone(),
        cases: results
            .into_iter()
            .map(|(case, id, judged)| CaseResult {
                known: settings.baseline.knows(&case, judged.verdict),
                case,
                id,
                judged,
            })
            .collect(),
        skipped: plan.skipped.clone(),
        audited: plan.audited.clone(),
        no_cases: plan.no_cases.clone(),
        fail_on: settings.fail_on.clone(),
        findings: server_findings,
        sarif_location: args
            .sarif_location
            .clone()
            .or_else(|| sarif_location(server)),
    };
    if let Err(message) = write_files(args, &report, &line) {
        eprintln!("sightline: {message}");
        return exit::USAGE;
    }
    if args.json {
        print_json(&report.to_json());
    } else {
        super::emit(|out| out.write_all(report.text().as_bytes()));
    }
    exit_code(&report, args.fail_under)
}

/// 1 when a case fails the run or the score is below `--fail-under` (said on stderr), else 0.
fn exit_code(report: &Report, fail_under: Option<f64>) -> u8 {
    let below = fail_under.filter(|threshold| report.score() < *threshold);
    if let Some(threshold) = below {
        eprintln!(
            "sightline: the score {}% is below --fail-under {threshold}",
            report.score()
        );
    }
    if report.failing().next().is_some() || below.is_some() {
        exit::TOOL_ERROR
    } else {
        exit::SUCCESS
    }
}

/// A tool that runs only as a task is audited as one: the driver augments a 2025-11-25 call to
/// a tool whose `taskSupport` is `required`, and a 2026-07-28 audit declares the tasks extension
/// (whose servers say only when called which tools need it). Either way the task is followed to
/// its end and the case judged on what it ended with.
fn follow_tasks(client: &mut SessionRunner) {
    if client
        .connection()
        .is_some_and(|connection| connection.era == crate::mcp::era::Era::Modern)
    {
        client.start(crate::driver::Command::SetTasks(true));
    }
}

/// What running the cases needs.
struct Run<'a> {
    server: &'a ServerArgs,
    verbose: bool,
    context: &'a CallContext<'a>,
    progress: &'a Progress,
}

type Ran = (Case, String, crate::audit::Judged);

impl Run<'_> {
    /// Runs `cases` over `jobs` connections (`client` and new ones), judged; in the plan's order.
    async fn cases(
        &self,
        client: SessionRunner,
        cases: &[Case],
        jobs: usize,
    ) -> Result<Vec<Ran>, SessionError> {
        let buckets = buckets(cases, jobs);
        let mut first = Some(client);
        let runs = buckets
            .iter()
            .map(|bucket| self.bucket(first.take(), bucket));
        let finished = futures_util::future::join_all(runs).await;
        self.progress.clear();
        let mut results = Vec::new();
        for run in finished {
            results.extend(run?);
        }
        // The plan's order, whichever connection ran a case.
        results.sort_by_key(|(case, ..)| cases.iter().position(|c| c == case));
        Ok(results)
    }

    /// One connection's cases, one at a time (a new connection when `client` is `None`).
    async fn bucket(
        &self,
        client: Option<SessionRunner>,
        bucket: &[Case],
    ) -> Result<Vec<Ran>, SessionError> {
        let mut client = match client {
            Some(client) => client,
            None => connect(self.server, self.verbose, &StageTracker::default(), None).await?,
        };
        follow_tasks(&mut client);
        let mut results = Vec::new();
        for case in bucket {
            self.progress.started(case);
            let exchange = client.call_tool(&case.tool, case.arguments.clone()).await;
            let judged = crate::audit::judge(case, &exchange, self.context);
            results.push((case.clone(), exchange.id.to_string(), judged));
            self.progress.finished();
        }
        client.shutdown().await;
        Ok(results)
    }
}

/// Cases split over `jobs` connections, a tool's cases always on one (a server may keep state
/// per tool); the server's own cases go with the first.
fn buckets(cases: &[Case], jobs: usize) -> Vec<Vec<Case>> {
    let mut buckets: Vec<Vec<Case>> = vec![Vec::new(); jobs];
    let mut groups: Vec<&str> = Vec::new();
    for case in cases {
        let index = if let Some(index) = groups.iter().position(|group| *group == case.group) {
            index
        } else {
            groups.push(&case.group);
            groups.len() - 1
        };
        let bucket = if case.group == plan::SERVER {
            0
        } else {
            index % jobs
        };
        buckets[bucket].push(case.clone());
    }
    buckets.retain(|bucket| !bucket.is_empty());
    buckets
}

/// The plan, on stderr (stdout carries the report): each call, and each tool left out.
fn print_plan(server: &str, plan: &Plan) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{server}\naudit plan: {} with deliberately invalid input",
        crate::audit::report::plural(plan.cases.len(), "call")
    );
    let shown: Vec<(String, String)> = plan
        .cases
        .iter()
        .map(|case| {
            (
                sanitize::text(&case.tool).into_owned(),
                case.shown_arguments(),
            )
        })
        .collect();
    let tool_width = shown
        .iter()
        .map(|(tool, _)| tool.chars().count())
        .max()
        .unwrap_or(0);
    let arguments_width = shown
        .iter()
        .map(|(_, a)| a.chars().count())
        .max()
        .unwrap_or(0);
    for (case, (tool, arguments)) in plan.cases.iter().zip(&shown) {
        let _ = writeln!(
            err,
            "  {tool:<tool_width$}  {:<20}  {arguments:<arguments_width$}  {}",
            case.kind.name(),
            sanitize::text(&case.what)
        );
    }
    for skipped in &plan.skipped {
        let _ = writeln!(
            err,
            "  skipped {}: {}",
            sanitize::text(&skipped.tool),
            skipped.reason
        );
    }
    for empty in &plan.no_cases {
        let _ = writeln!(
            err,
            "  no cases for {}: {}",
            sanitize::text(&empty.tool),
            empty.reason
        );
    }
}

/// `These 3 calls` at the start of a sentence.
fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// `--yes`, or a yes typed at the terminal; headless without `--yes` nothing is sent.
async fn consent(args: &AuditArgs, calls: usize) -> bool {
    if args.yes {
        return true;
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !interactive {
        eprintln!(
            "sightline: nothing was sent. {} may run tools on a lenient server; run again with --yes to send {}.",
            capitalized(&crate::audit::report::these(calls, "call")),
            if calls == 1 { "it" } else { "them" }
        );
        return false;
    }
    eprint!(
        "Send {}? [y/N] ",
        crate::audit::report::these(calls, "call")
    );
    let answer = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|_| line)
    })
    .await;
    let yes = matches!(answer, Ok(Ok(line)) if matches!(line.trim(), "y" | "Y" | "yes" | "Yes"));
    if !yes {
        eprintln!("sightline: nothing was sent.");
    }
    yes
}

/// The file a SARIF log's results are attached to when `--sarif-location` names none: the first
/// word of the server command that is a file below the current folder (its script), else the
/// `--config` file; as a path relative to here, with `/`, as code scanning reads it.
pub(super) fn sarif_location(server: &ServerArgs) -> Option<String> {
    server
        .command
        .iter()
        .find_map(|word| repository_path(word))
        .or_else(|| server.config.as_deref().and_then(repository_path))
}

/// `word` as a path relative to the current folder, with `/`, as code scanning reads it: when
/// it names a file below the current folder.
pub(super) fn repository_path(word: &str) -> Option<String> {
    let here = std::env::current_dir().ok()?;
    let path = std::path::Path::new(word);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        here.join(path)
    };
    let inside = absolute.canonicalize().ok()?;
    let relative = inside.strip_prefix(here.canonicalize().ok()?).ok()?;
    (inside.is_file()).then(|| {
        relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    })
}

fn write_files(args: &AuditArgs, report: &Report, server: &str) -> Result<(), String> {
    if let Some(path) = &args.junit {
        std::fs::write(path, report.junit()).map_err(|e| format!("--junit {path}: {e}"))?;
    }
    if let Some(path) = &args.markdown {
        std::fs::write(path, report.markdown(server))
            .map_err(|e| format!("--markdown {path}: {e}"))?;
    }
    if let Some(path) = &args.sarif {
        if report.sarif_location.is_none() {
            eprintln!(
                "sightline: --sarif: no file of this repository to attach the results to (code \
                 scanning needs one): name it with --sarif-location PATH"
            );
        }
        let text = serde_json::to_string_pretty(&report.sarif()).unwrap_or_default() + "\n";
        std::fs::write(path, text).map_err(|e| format!("--sarif {path}: {e}"))?;
    }
    Ok(())
}

fn server_json(connection: Option<&Connection>) -> Value {
    connection.map_or(Value::Null, |c| {
        json!({
            "name": c.server.name,
            "version": c.server.version,
            "era": c.era,
            "protocol_version": c.protocol_version,
        })
    })
}

/// A progress bar on stderr while cases run, when stderr is a terminal.
struct Progress {
    total: usize,
    done: AtomicUsize,
    shown: bool,
}

impl Progress {
    fn new(total: usize, wanted: bool) -> Self {
        Progress {
            total,
            done: AtomicUsize::new(0),
            shown: wanted && std::io::stderr().is_terminal(),
        }
    }

    fn started(&self, case: &Case) {
        const WIDTH: usize = 24;
        if !self.shown {
            return;
        }
        let done = self.done.load(Ordering::Relaxed);
        let filled = (done * WIDTH).checked_div(self.total).unwrap_or(WIDTH);
        let what: String = sanitize::text(&case.what).chars().take(40).collect();
        let _ = write!(
            std::io::stderr().lock(),
            "\r\x1b[2K[{}{}] {done}/{} {} {what}",
            "#".repeat(filled),
            " ".repeat(WIDTH - filled),
            self.total,
            sanitize::text(&case.tool)
        );
    }

    fn finished(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    fn clear(&self) {
        if self.shown {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[2K");
        }
    }
}
