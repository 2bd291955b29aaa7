//! The audit of every peer server in `tests/peers/` (and the demo in both styles) against its
//! reviewed expected report in `tests/fixtures/audit/<peer>.txt`: per tool, each case's verdict,
//! what came back, its evidence, whether it is actionable and the answer's first words.
//!
//! After a change that moves a verdict on purpose, rewrite them all with one command and review
//! the diff (`git diff tests/fixtures/audit`) before committing:
//!
//! ```sh
//! SIGHTLINE_UPDATE_EXPECTED=1 cargo test --test audit expected
//! ```

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::Value;

use super::audit;
use super::common::peers::{everything, odd, py, ts, ts_pre1303};

/// Set to rewrite the expected reports instead of comparing with them.
const UPDATE: &str = "SIGHTLINE_UPDATE_EXPECTED";
/// The answer's words kept in a report, at most.
const ANSWER_CHARS: usize = 200;

/// A peer: its file name, the audit's flags and the server command (empty: the demo).
struct Peer {
    name: &'static str,
    flags: Vec<&'static str>,
    server: Vec<String>,
}

fn peers() -> Vec<Peer> {
    let peer = |name, flags: &[&'static str], server| Peer {
        name,
        flags: flags.to_vec(),
        server,
    };
    // Tools without annotations are destructive by the spec's default: the SDK peers annotate
    // none, so they are audited with --include-destructive (they change nothing).
    vec![
        peer("demo-sep1303", &[], vec![]),
        peer("demo-legacy", &["--demo", "legacy"], vec![]),
        peer("py_server", &["--include-destructive"], py()),
        peer("ts_server", &["--include-destructive"], ts()),
        peer(
            "ts_server_pre1303",
            &["--include-destructive"],
            ts_pre1303(),
        ),
        peer(
            "server-everything",
            &[],
            [everything(), vec!["stdio".into()]].concat(),
        ),
        peer("odd_server", &[], odd()),
        // The host cases (tests/hosts.rs's server on the Python SDK) and the structured-content
        // server (tests/audit_checks.rs's): their tools take few or no arguments, which is what
        // their reports show. The HTTP peers (http_faults, oauth_server, py_auth_server) and
        // hostile_server.py are transport faults and authorization, not argument handling: an
        // audit of them says nothing about verdicts (tests/http.rs, tests/oauth.rs and
        // tests/robustness.rs test them); verdict_server.py is audited mode by mode in
        // tests/audit/verdicts.rs.
        peer(
            "py_host_cases",
            &["--include-destructive"],
            vec![
                "tests/peers/.venv/bin/python".into(),
                "tests/peers/py_host_cases.py".into(),
            ],
        ),
        peer(
            "structured_server",
            &["--include-destructive"],
            vec!["python3".into(), "tests/peers/structured_server.py".into()],
        ),
    ]
}

/// The report of `audit --yes --json` as the stable text the expected files hold.
fn projection(peer: &Peer, code: i32, report: &Value) -> String {
    let text = |value: &Value| value.as_str().unwrap_or("").to_owned();
    let mut out = String::new();
    let server = &report["server"];
    let command = if peer.server.is_empty() {
        "(the demo)".to_owned()
    } else {
        peer.server.join(" ")
    };
    let flags = peer.flags.iter().fold(String::new(), |mut flags, flag| {
        flags.push(' ');
        flags.push_str(flag);
        flags
    });
    let _ = writeln!(
        out,
        "# sightline audit --yes --json{flags} -- {command}\n# rewrite: {UPDATE}=1 cargo test --test audit expected"
    );
    let _ = writeln!(
        out,
        "server: {} {} · {} · {}",
        text(&server["name"]),
        text(&server["version"]),
        text(&server["era"]),
        text(&server["protocol_version"])
    );
    let audited: Vec<String> = report["tools"]["audited"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text)
        .collect();
    let _ = writeln!(
        out,
        "tools: {} audited · {} skipped · {} with no cases",
        audited.len(),
        report["tools"]["skipped"],
        report["tools"]["no_cases"]
    );
    for (list, label) in [("skipped", "skipped"), ("no_cases", "no cases for")] {
        for tool in report[list].as_array().into_iter().flatten() {
            let _ = writeln!(
                out,
                "{label} {}: {}",
                text(&tool["tool"]),
                text(&tool["reason"])
            );
        }
    }
    let mut group = String::new();
    for case in report["cases"].as_array().into_iter().flatten() {
        if case["group"] != group.as_str() {
            group = text(&case["group"]);
            let _ = writeln!(out, "\n{group}");
        }
        let mut line = format!("  {}", text(&case["kind"]));
        if let Some(property) = case["property"].as_str() {
            let _ = write!(line, " {property}");
        }
        if case["tool"] != group.as_str() {
            let _ = write!(line, " ({})", text(&case["tool"]));
        }
        let _ = write!(
            line,
            " → {} · got {}",
            text(&case["verdict"]),
            text(&case["got"])
        );
        if let Some(evidence) = case["evidence"].as_str() {
            let _ = write!(line, " · evidence {evidence}");
        }
        match case["actionable"].as_bool() {
            Some(true) => line.push_str(" · actionable"),
            Some(false) => line.push_str(" · not actionable"),
            None => {}
        }
        let answer: String = text(&case["answer"])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let clipped: String = answer.chars().take(ANSWER_CHARS).collect();
        let more = if clipped.len() < answer.len() {
            "…"
        } else {
            ""
        };
        let _ = writeln!(out, "{line}\n      {clipped}{more}");
    }
    let summary: Vec<String> = [
        "conformant",
        "model-blind",
        "lenient",
        "misfiled",
        "unclear",
    ]
    .iter()
    .map(|verdict| format!("{} {verdict}", report["summary"][verdict]))
    .collect();
    let _ = writeln!(out, "\nsummary: {} · exit {code}", summary.join(" · "));
    out
}

/// The lines that differ between `expected` and `actual`, with two lines of context, as a
/// unified diff reads (`-` expected, `+` actual).
fn diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    // The longest common subsequence, from the end.
    let mut common = vec![vec![0usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let mut lines = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            lines.push((' ', old[i]));
            i += 1;
            j += 1;
        } else if i < old.len() && (j == new.len() || common[i + 1][j] >= common[i][j + 1]) {
            lines.push(('-', old[i]));
            i += 1;
        } else {
            lines.push(('+', new[j]));
            j += 1;
        }
    }
    let near = |at: usize| {
        lines[at.saturating_sub(2)..(at + 3).min(lines.len())]
            .iter()
            .any(|(sign, _)| *sign != ' ')
    };
    let mut out = String::new();
    let mut gap = false;
    for (at, (sign, line)) in lines.iter().enumerate() {
        if near(at) {
            if gap {
                out.push_str("  …\n");
                gap = false;
            }
            let _ = writeln!(out, "{sign} {line}");
        } else {
            gap = true;
        }
    }
    out
}

#[test]
fn the_diff_shows_what_changed_with_context() {
    let expected = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
    let actual = "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\n";
    assert_eq!(
        diff(expected, actual),
        "  …\n  b\n  c\n- d\n+ D\n  e\n  f\n  …\n  i\n  j\n+ k\n"
    );
    assert_eq!(diff(expected, expected), "");
}

/// Every peer's audit, run at once (one thread each), matches its reviewed expected report.
#[test]
fn every_peer_audit_matches_its_reviewed_expected_report() {
    let directory = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audit");
    let update = std::env::var_os(UPDATE).is_some();
    let peers = peers();
    let actual: Vec<String> = std::thread::scope(|scope| {
        let running: Vec<_> = peers
            .iter()
            .map(|peer| {
                scope.spawn(move || {
                    let mut args = vec!["--yes", "--json"];
                    args.extend(&peer.flags);
                    let (code, stdout, _) = audit(&args, &peer.server);
                    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
                        panic!("{}: stdout is not JSON ({error}):\n{stdout}", peer.name)
                    });
                    projection(peer, code, &report)
                })
            })
            .collect();
        running.into_iter().map(|run| run.join().unwrap()).collect()
    });
    let mut failures = String::new();
    for (peer, actual) in peers.iter().zip(&actual) {
        let file = directory.join(format!("{}.txt", peer.name));
        if update {
            std::fs::create_dir_all(&directory).unwrap();
            std::fs::write(&file, actual).unwrap();
            continue;
        }
        match std::fs::read_to_string(&file) {
            Ok(expected) if expected == *actual => {}
            Ok(expected) => {
                let _ = writeln!(
                    failures,
                    "── {} (- expected, + actual) ──\n{}",
                    file.display(),
                    diff(&expected, actual)
                );
            }
            Err(error) => {
                let _ = writeln!(failures, "── {}: {error}", file.display());
            }
        }
    }
    assert!(
        failures.is_empty(),
        "audits differ from their reviewed expected reports; if the change is meant, rewrite \
         them with `{UPDATE}=1 cargo test --test audit expected` and review `git diff \
         tests/fixtures/audit`:\n\n{failures}"
    );
}
