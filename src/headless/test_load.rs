//! `sightline test FILE --load`: one case called by `--concurrency` sessions at once until
//! `--calls` are made or `--duration` ends; latency percentiles, a histogram, throughput and the
//! count per class, as text or one JSON object. A benchmark-like command: its figures are the
//! server's and this machine's.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::exit;
use super::output::print_json;
use super::test_setup::{hosts_of, open, server_of};
use crate::analysis::CallContext;
use crate::classify::Class;
use crate::cli::{OutputArgs, ServerArgs, TestArgs};
use crate::model_view::hosts::{self, HostProfile};
use crate::sanitize;
use crate::suite::{self, CaseSpec, LoadReport, Request};

/// One call's milliseconds, class, and whether it broke the case's expectations.
type Call = (u64, Class, bool);

/// `sightline test FILE --load`.
pub async fn load(server: &ServerArgs, args: &TestArgs, output: &OutputArgs) -> u8 {
    let prepared = prepare(server, args);
    let (case, server, judged) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => {
            eprintln!("sightline test --load: {}", sanitize::text(&error));
            return exit::USAGE;
        }
    };
    let Ok(request) = case.request() else {
        return exit::USAGE;
    };
    let duration = args.duration.map(Duration::from_secs);
    let budget = args
        .calls
        .unwrap_or(if duration.is_some() { usize::MAX } else { 100 });
    let tickets = AtomicUsize::new(0);
    let started = Instant::now();
    let workers = (0..args.concurrency.max(1)).map(|_| {
        worker(
            &server,
            (&case, &request),
            &judged,
            (&tickets, budget),
            duration.map(|duration| started + duration),
            output.verbose,
        )
    });
    let ran = futures_util::future::join_all(workers).await;
    let elapsed = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut calls: Vec<Call> = Vec::new();
    let mut unreachable = None;
    for worker in ran {
        match worker {
            Ok(made) => calls.extend(made),
            Err(why) => unreachable = Some(why),
        }
    }
    let report = suite::load_report(&calls, args.concurrency.max(1), elapsed);
    if args.json {
        print_json(&serde_json::json!({
            "case": case.name,
            "report": report,
            "unreachable": unreachable,
        }));
    } else {
        print_report(&case, &report, unreachable.as_deref());
    }
    if unreachable.is_some() && calls.is_empty() {
        exit::TRANSPORT_FAILURE
    } else if report.failed_expectations > 0 {
        exit::TOOL_ERROR
    } else {
        exit::SUCCESS
    }
}

/// The case to load, the server, and the profiles its expectations are judged by (the spec's
/// first).
fn prepare(
    server: &ServerArgs,
    args: &TestArgs,
) -> Result<(CaseSpec, ServerArgs, Vec<HostProfile>), String> {
    let [file] = &args.files[..] else {
        return Err("give one FILE".into());
    };
    let now = i64::try_from(crate::transport::now().0 / 1000).unwrap_or(0);
    let text =
        std::fs::read_to_string(file).map_err(|error| format!("{}: {error}", file.display()))?;
    let suite = suite::read(&text, now).map_err(|error| format!("{}: {error}", file.display()))?;
    let case = match &args.case {
        Some(name) => suite.cases.iter().find(|case| &case.name == name),
        None => suite.cases.first(),
    }
    .cloned()
    .ok_or_else(|| format!("{}: no such case", file.display()))?;
    let server = server_of(server, &suite)?;
    let user = crate::config::user_host_profiles()?;
    let mut judged = vec![hosts::resolve("spec", &user)?];
    judged.extend(hosts_of(&suite, &user)?);
    Ok((case, server, judged))
}

/// One session calling the case while tickets last and time remains: each call's figures, or
/// why the session could not be had.
async fn worker(
    server: &ServerArgs,
    (case, request): (&CaseSpec, &Request),
    judged: &[HostProfile],
    (tickets, budget): (&AtomicUsize, usize),
    until: Option<Instant>,
    verbose: bool,
) -> Result<Vec<Call>, String> {
    let (mut client, catalog) = open(server, verbose).await?;
    let version = client
        .connection()
        .map_or("unknown", |c| c.protocol_version.as_str())
        .to_owned();
    let named: Vec<HostProfile> = case
        .hosts()
        .into_iter()
        .filter_map(|name| judged.iter().find(|host| host.name == name).cloned())
        .collect();
    let mut calls = Vec::new();
    while tickets.fetch_add(1, Ordering::Relaxed) < budget
        && until.is_none_or(|until| Instant::now() < until)
    {
        let exchange = match request {
            Request::Call { tool, arguments } => client.call_tool(tool, arguments.clone()).await,
            Request::Other { method, params } => client.request(method, params.clone()).await,
        };
        let context = CallContext {
            version: &version,
            catalog: Some(&catalog),
            host: &judged[0],
            forward_protocol_errors: false,
        };
        let observed = suite::observe(&exchange, &context, &named);
        let broken = !suite::check(&case.expect, &observed).is_empty();
        calls.push((observed.elapsed_ms, observed.class, broken));
    }
    client.shutdown().await;
    Ok(calls)
}

fn print_report(case: &CaseSpec, report: &LoadReport, unreachable: Option<&str>) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "load: {} · {} sessions · {} calls in {:.1} s · {:.0} calls/s",
        sanitize::text(&case.name),
        report.concurrency,
        report.calls,
        Duration::from_millis(report.elapsed_ms).as_secs_f64(),
        report.per_second
    );
    let _ = writeln!(
        out,
        "latency  p50 {} ms · p90 {} ms · p99 {} ms · max {} ms",
        report.p50_ms, report.p90_ms, report.p99_ms, report.max_ms
    );
    let widest = report
        .histogram
        .iter()
        .map(|bucket| bucket.calls)
        .max()
        .unwrap_or(0)
        .max(1);
    for bucket in report.histogram.iter().filter(|bucket| bucket.calls > 0) {
        let label = bucket
            .le_ms
            .map_or_else(|| "more".to_owned(), |ms| format!("≤{ms} ms"));
        let bar = "█".repeat((bucket.calls * 40).div_ceil(widest));
        let _ = writeln!(out, "  {label:>9}  {:>6}  {bar}", bucket.calls);
    }
    let classes: Vec<String> = report
        .classes
        .iter()
        .map(|(class, calls)| format!("{class} {calls}"))
        .collect();
    let _ = writeln!(out, "classes  {}", classes.join(" · "));
    let _ = writeln!(
        out,
        "expectations  {} held, {} broken",
        report.calls - report.failed_expectations,
        report.failed_expectations
    );
    if let Some(why) = unreachable {
        let _ = writeln!(out, "a session could not be had: {}", sanitize::text(why));
    }
}
