//! `sightline test FILE…`: each file's cases run against its server (the command line's server
//! instead, when one is given), in order, in one session per file (`--isolate`: one per case);
//! a line per case and a summary, or one JSON object; `JUnit` beside. Exit 0 when every case
//! passes, 1 when one fails, 2 for a file that cannot be read, 4 when a server cannot be reached.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::exit;
use super::output::print_json;
use super::test_setup::{hosts_of, open, server_of};
use crate::analysis::CallContext;
use crate::cli::{OutputArgs, ServerArgs, TestArgs};
use crate::config;
use crate::mcp::catalog::Catalog;
use crate::model_view::hosts::{self, HostProfile};
use crate::runner::SessionRunner;
use crate::sanitize;
use crate::suite::{self, Request, Suite};

/// One case's result.
#[derive(Debug, Serialize)]
struct CaseResult {
    file: String,
    name: String,
    passed: bool,
    /// Each expectation that did not hold, in words.
    failures: Vec<String>,
    /// What came (absent when the case never ran: its session failed first).
    #[serde(skip_serializing_if = "Option::is_none")]
    observed: Option<suite::Observed>,
}

/// `sightline test`.
pub async fn test(server: &ServerArgs, args: &TestArgs, output: &OutputArgs) -> u8 {
    if args.load {
        return super::test_load::load(server, args, output).await;
    }
    if let Some(recording) = &args.init {
        return match (
            &args.files[..],
            super::test_init::init(&args.files[0], recording),
        ) {
            ([_], Ok(words)) => {
                println!("{words}");
                exit::SUCCESS
            }
            ([_], Err(error)) => {
                eprintln!("sightline test --init: {error}");
                exit::USAGE
            }
            _ => {
                eprintln!("sightline test --init: give one FILE to write");
                exit::USAGE
            }
        };
    }
    let now = i64::try_from(crate::transport::now().0 / 1000).unwrap_or(0);
    // Findings are the spec's (a host's own are asserted with `model_sees`).
    let profiles =
        config::user_host_profiles().and_then(|user| Ok((hosts::resolve("spec", &user)?, user)));
    let (spec, user) = match profiles {
        Ok(profiles) => profiles,
        Err(error) => {
            eprintln!("sightline test: {error}");
            return exit::USAGE;
        }
    };
    let mut results = Vec::new();
    let mut unreachable = false;
    for file in &args.files {
        let name = file.display().to_string();
        let prepared = std::fs::read_to_string(file)
            .map_err(|error| error.to_string())
            .and_then(|text| suite::read(&text, now))
            .and_then(|suite| {
                let server = server_of(server, &suite)?;
                let hosts = hosts_of(&suite, &user)?;
                Ok((suite, server, hosts))
            });
        let (suite, server, hosts) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => {
                eprintln!("sightline test: {name}: {}", sanitize::text(&error));
                return exit::USAGE;
            }
        };
        let run = run_suite(
            &name,
            &suite,
            &server,
            (&spec, &hosts),
            args.isolate,
            output.verbose,
        );
        let (mut ran, reached) = tokio::time::timeout(output.deadline, run)
            .await
            .unwrap_or_else(|_| {
                let why = format!("the run took longer than {} s", output.deadline.as_secs());
                (Vec::new(), Err(why))
            });
        if let Err(why) = reached {
            unreachable = true;
            let not_run = suite.cases.iter().skip(ran.len()).map(|case| CaseResult {
                file: name.clone(),
                name: case.name.clone(),
                passed: false,
                failures: vec![format!("not run: {why}")],
                observed: None,
            });
            ran.extend(not_run.collect::<Vec<_>>());
        }
        results.extend(ran);
    }
    report(&results, args, unreachable)
}

/// The results printed (and written as `JUnit`), and the exit code they make.
fn report(results: &[CaseResult], args: &TestArgs, unreachable: bool) -> u8 {
    let passed = results.iter().filter(|result| result.passed).count();
    if args.json {
        print_json(&serde_json::json!({
            "cases": results,
            "summary": {"passed": passed, "failed": results.len() - passed},
        }));
    } else {
        print_text(results);
    }
    let written = [
        ("--junit", &args.junit, junit(results)),
        ("--sarif", &args.sarif, sarif(results)),
        ("--markdown", &args.markdown, markdown(results)),
    ];
    for (flag, path, text) in written {
        if let Some(path) = path
            && let Err(error) = std::fs::write(path, text)
        {
            eprintln!("sightline test: {flag} {}: {error}", path.display());
            return exit::USAGE;
        }
    }
    if unreachable {
        exit::TRANSPORT_FAILURE
    } else if passed == results.len() {
        exit::SUCCESS
    } else {
        exit::TOOL_ERROR
    }
}

/// The suite's cases in order: their results, and why the rest did not run when a session
/// could not be had.
async fn run_suite(
    file: &str,
    suite: &Suite,
    server: &ServerArgs,
    (spec, hosts): (&HostProfile, &[HostProfile]),
    isolate: bool,
    verbose: bool,
) -> (Vec<CaseResult>, Result<(), String>) {
    let mut results = Vec::new();
    let mut session: Option<(SessionRunner, std::sync::Arc<Catalog>)> = None;
    for case in &suite.cases {
        if session.is_none() {
            match open(server, verbose).await {
                Ok(opened) => session = Some(opened),
                Err(why) => return (results, Err(why)),
            }
        }
        let Some((client, catalog)) = session.as_mut() else {
            break;
        };
        let exchange = match case.request() {
            Ok(Request::Call { tool, arguments }) => client.call_tool(&tool, arguments).await,
            Ok(Request::Other { method, params }) => client.request(&method, params).await,
            Err(why) => return (results, Err(why)),
        };
        let version = client
            .connection()
            .map_or("unknown", |c| c.protocol_version.as_str())
            .to_owned();
        let context = CallContext {
            version: &version,
            catalog: Some(catalog),
            host: spec,
            forward_protocol_errors: false,
        };
        let named: Vec<HostProfile> = case
            .hosts()
            .into_iter()
            .filter_map(|name| hosts.iter().find(|host| host.name == name).cloned())
            .collect();
        let observed = suite::observe(&exchange, &context, &named);
        let failures = suite::check(&case.expect, &observed);
        results.push(CaseResult {
            file: file.to_owned(),
            name: case.name.clone(),
            passed: failures.is_empty(),
            failures,
            observed: Some(observed),
        });
        if isolate && let Some((mut client, _)) = session.take() {
            client.shutdown().await;
        }
    }
    if let Some((mut client, _)) = session {
        client.shutdown().await;
    }
    (results, Ok(()))
}

fn print_text(results: &[CaseResult]) {
    let mut out = std::io::stdout().lock();
    let mut file = None;
    for result in results {
        if file != Some(&result.file) {
            let _ = writeln!(out, "{}", result.file);
            file = Some(&result.file);
        }
        let took = result
            .observed
            .as_ref()
            .map_or_else(String::new, |o| format!(" ({} ms)", o.elapsed_ms));
        let mark = if result.passed { "✓" } else { "✗" };
        let _ = writeln!(out, "  {mark} {}{took}", sanitize::text(&result.name));
        for failure in &result.failures {
            let _ = writeln!(out, "      {failure}");
        }
    }
    let passed = results.iter().filter(|result| result.passed).count();
    let _ = writeln!(out, "\n{passed} passed, {} failed", results.len() - passed);
}

/// The results as `JUnit` XML: a testsuite per file, a testcase per case.
fn junit(results: &[CaseResult]) -> String {
    use crate::audit::report::xml;
    use std::fmt::Write as _;
    let mut files: Vec<&str> = results.iter().map(|r| r.file.as_str()).collect();
    files.dedup();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
    for file in files {
        let cases: Vec<&CaseResult> = results.iter().filter(|r| r.file == file).collect();
        let failed = cases.iter().filter(|r| !r.passed).count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\">",
            xml(file),
            cases.len()
        );
        for case in cases {
            let ms = case.observed.as_ref().map_or(0, |o| o.elapsed_ms);
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"{}\" time=\"{}.{:03}\"",
                xml(&case.name),
                xml(&class_name(file)),
                ms / 1000,
                ms % 1000
            );
            if case.passed {
                out.push_str("/>\n");
            } else {
                let message = case.failures.join("; ");
                let _ = write!(
                    out,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                    xml(&message),
                    xml(&case.failures.join("\n"))
                );
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// A `JUnit` class name from a file's path: its stem.
fn class_name(file: &str) -> String {
    Path::new(file).file_stem().map_or_else(
        || file.to_owned(),
        |stem| stem.to_string_lossy().into_owned(),
    )
}

/// The cases that did not hold as SARIF, each at its line of its test file.
fn sarif(results: &[CaseResult]) -> String {
    let texts: std::collections::HashMap<&str, String> = results
        .iter()
        .map(|result| {
            let text = std::fs::read_to_string(&result.file).unwrap_or_default();
            (result.file.as_str(), text)
        })
        .collect();
    let paths: Vec<(String, usize)> = results
        .iter()
        .map(|result| {
            let path =
                super::audit::repository_path(&result.file).unwrap_or_else(|| result.file.clone());
            (
                path,
                suite::line_of(&texts[result.file.as_str()], &result.name),
            )
        })
        .collect();
    let failed: Vec<suite::Placed> = results
        .iter()
        .zip(&paths)
        .filter(|(result, _)| !result.passed)
        .map(|(result, (file, line))| suite::Placed {
            file,
            line: *line,
            name: &result.name,
            failures: &result.failures,
        })
        .collect();
    serde_json::to_string_pretty(&suite::sarif(&failed)).unwrap_or_default()
}

/// The results as Markdown: a table per file, each broken expectation under its case.
fn markdown(results: &[CaseResult]) -> String {
    use std::fmt::Write as _;
    let passed = results.iter().filter(|result| result.passed).count();
    let mut out = format!(
        "## sightline test: {passed} passed, {} failed\n",
        results.len() - passed
    );
    let cell = |text: &str| sanitize::text(text).replace('|', "\\|").replace('\n', " ");
    let mut file = None;
    for result in results {
        if file != Some(&result.file) {
            let _ = write!(
                out,
                "\n### `{}`\n\n| | case | what broke |\n|---|---|---|\n",
                cell(&result.file)
            );
            file = Some(&result.file);
        }
        let mark = if result.passed { "✓" } else { "✗" };
        let _ = writeln!(
            out,
            "| {mark} | {} | {} |",
            cell(&result.name),
            cell(&result.failures.join("; "))
        );
    }
    out
}
