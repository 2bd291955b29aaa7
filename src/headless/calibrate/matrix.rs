//! `calibrate`'s matrix and how it is run: the cases (the demo server's, then its host
//! cases), each one a `sightline capture --json` of its own, `PARALLEL` at a time, and the
//! search for where a host cuts a long text.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Mutex;

use serde_json::{Value, json};

use super::{cuts, fit};
use crate::cli::CalibrateArgs;
use crate::model_view::hosts::HostProfile;

/// One case: its name, the server (the demo's style, or its host cases), the tool and the
/// arguments the mock model sends.
pub struct Case {
    pub name: &'static str,
    pub style: &'static str,
    pub tool: &'static str,
    pub args: &'static str,
}

/// The style that names `demo-server --host-cases` instead of a demo style.
const HOST_CASES: &str = "host-cases";

const fn case(
    name: &'static str,
    style: &'static str,
    tool: &'static str,
    args: &'static str,
) -> Case {
    Case {
        name,
        style,
        tool,
        args,
    }
}

/// The demo server's cases: every answer class in both styles, schema breaks, a business
/// error, structured content, mixed blocks and an unknown tool; then its host cases: a
/// throwing tool, structured content without an output schema, an image, audio, an embedded
/// resource, long texts and a server that exits mid-call.
pub const CASES: &[Case] = &[
    case(
        PROTOCOL_ERROR,
        "legacy",
        "book_flight",
        r#"{"departureDate":"12/12/2024","destination":"Paris"}"#,
    ),
    case(
        TOOL_ERROR,
        "sep1303",
        "book_flight",
        r#"{"departureDate":"12/12/2024","destination":"Paris"}"#,
    ),
    case(
        "success",
        "sep1303",
        "book_flight",
        r#"{"departureDate":"12/12/2099","destination":"Paris"}"#,
    ),
    case(
        "success (legacy style)",
        "legacy",
        "book_flight",
        r#"{"departureDate":"12/12/2099"}"#,
    ),
    case(
        "missing required argument (legacy)",
        "legacy",
        "book_flight",
        r#"{"destination":"Paris"}"#,
    ),
    case(
        "missing required argument (SEP-1303)",
        "sep1303",
        "book_flight",
        r#"{"destination":"Paris"}"#,
    ),
    case(
        "schema break: pattern (legacy)",
        "legacy",
        "book_flight",
        r#"{"departureDate":"2099-12-12"}"#,
    ),
    case(
        "schema break: pattern (SEP-1303)",
        "sep1303",
        "book_flight",
        r#"{"departureDate":"2099-12-12"}"#,
    ),
    case(
        "schema break: wrong type",
        "sep1303",
        "book_flight",
        r#"{"departureDate":20991212}"#,
    ),
    case(
        "business error",
        "sep1303",
        "cancel_booking",
        r#"{"bookingRef":"SL-1A2B3C"}"#,
    ),
    case(
        "structured content with an output schema",
        "sep1303",
        "get_flight_status",
        r#"{"flightNumber":"LH123"}"#,
    ),
    case(
        "text, image and resource link",
        "sep1303",
        "boarding_pass",
        r#"{"bookingRef":"SL-1A2B3C"}"#,
    ),
    case(UNKNOWN_TOOL, "sep1303", "no_such_tool", "{}"),
    case("throwing tool", HOST_CASES, "throws", "{}"),
    case(
        "structured content without an output schema",
        HOST_CASES,
        "flight_unschemed",
        r#"{"flightNumber":"LH123"}"#,
    ),
    case("text and image", HOST_CASES, "picture", "{}"),
    case("audio", HOST_CASES, "sound", "{}"),
    case("embedded text resource", HOST_CASES, "document", "{}"),
    case(LONG_TEXTS[0], HOST_CASES, "long_text", r#"{"size":40000}"#),
    case(LONG_TEXTS[1], HOST_CASES, "long_text", r#"{"size":80000}"#),
    case(LONG_TEXTS[2], HOST_CASES, "long_text", r#"{"size":400000}"#),
    case(SERVER_EXITS, HOST_CASES, "crash", "{}"),
];

/// The long-text cases, shortest first.
const LONG_TEXTS: [&str; 3] = [
    "long text (40 KB)",
    "long text (80 KB)",
    "very long text (400 KB)",
];
const SERVER_EXITS: &str = "server exits during the call";

pub const PROTOCOL_ERROR: &str = "protocol error (-32602, a past date)";
pub const TOOL_ERROR: &str = "tool error (SEP-1303, a past date)";
pub const UNKNOWN_TOOL: &str = "unknown tool";

/// How many captures run at once (each is a whole host process).
const PARALLEL: usize = 3;

/// Every case's capture, `PARALLEL` at a time, by the case's index.
pub fn run_all(
    me: &std::path::Path,
    args: &CalibrateArgs,
) -> BTreeMap<usize, Result<Value, String>> {
    let results: Mutex<BTreeMap<usize, Result<Value, String>>> = Mutex::default();
    let next = Mutex::new(0..CASES.len());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                while let Some(index) = next.lock().ok().and_then(|mut next| next.next()) {
                    let got = run_case(me, &CASES[index], args);
                    if let Ok(mut results) = results.lock() {
                        results.insert(index, got);
                        // A matrix takes minutes: a person watching sees it move.
                        if std::io::stderr().is_terminal() {
                            eprintln!(
                                "sightline calibrate: {} of {} cases run ({})",
                                results.len(),
                                CASES.len(),
                                CASES[index].name
                            );
                        }
                    }
                }
            });
        }
    });
    results.into_inner().unwrap_or_default()
}

/// The largest long text the host passes whole, when the captures show it cuts one: sizes
/// between the largest seen whole (or 1 KiB) and the smallest seen cut are captured,
/// `PARALLEL` a round, until they are one byte apart. Also the captures it took.
pub fn measured_threshold(
    me: &std::path::Path,
    args: &CalibrateArgs,
    profile: &HostProfile,
    captured: &[&Value],
) -> (Option<usize>, Vec<Value>) {
    let whole = cuts::uncut(profile);
    // A profile that does not predict a short text whole cannot tell a cut one.
    let short_predicted = captured.iter().any(|got| {
        let blocks = crate::headless::capture::answer_blocks(got);
        matches!(blocks.as_slice(), [block] if block["type"] == "text")
            && cuts::long_text(got).is_none()
            && fit::predicts(&whole, got)
    });
    if !short_predicted {
        return (None, Vec::new());
    }
    let (mut passes, mut cut) = (1024, usize::MAX);
    for got in captured {
        if let Some(text) = cuts::long_text(got) {
            if fit::predicts(&whole, got) {
                passes = passes.max(text.len());
            } else {
                cut = cut.min(text.len());
            }
        }
    }
    let mut more = Vec::new();
    if cut == usize::MAX || cut <= passes {
        return (None, more);
    }
    while cut - passes > 1 {
        let sizes: Vec<usize> = (1..=PARALLEL)
            .map(|k| passes + (cut - passes) * k / (PARALLEL + 1))
            .filter(|size| *size > passes && *size < cut)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if std::io::stderr().is_terminal() {
            eprintln!(
                "sightline calibrate: the host cuts between {passes} and {cut} bytes: trying {sizes:?}"
            );
        }
        let got: Vec<(usize, Result<Value, String>)> = std::thread::scope(|scope| {
            let runs: Vec<_> = sizes
                .iter()
                .map(|size| {
                    let arguments = json!({"size": size}).to_string();
                    scope.spawn(move || {
                        let got = run_capture(me, args, HOST_CASES, "long_text", &arguments);
                        (*size, got)
                    })
                })
                .collect();
            runs.into_iter().filter_map(|run| run.join().ok()).collect()
        });
        for (size, got) in got {
            // A size that failed to run leaves the cut unmeasured.
            let Ok(got) = got else {
                return (None, more);
            };
            if fit::predicts(&whole, &got) {
                passes = passes.max(size);
            } else {
                cut = cut.min(size);
            }
            more.push(got);
        }
    }
    (Some(passes), more)
}

/// One case's `capture --json`.
fn run_case(me: &std::path::Path, case: &Case, args: &CalibrateArgs) -> Result<Value, String> {
    run_capture(me, args, case.style, case.tool, case.args)
}

/// `capture --json` of `tool` called with `arguments` on the demo in `style`, or its host cases.
fn run_capture(
    me: &std::path::Path,
    args: &CalibrateArgs,
    style: &str,
    tool: &str,
    arguments: &str,
) -> Result<Value, String> {
    let mut command = std::process::Command::new(me);
    command.args(["capture", &args.host, tool, arguments, "--json"]);
    if let Some(file) = &args.host_file {
        command.args(["--host-file", file.as_str()]);
    }
    for (flag, value) in [
        ("--host-bin", &args.host_bin),
        ("--python", &args.python),
        ("--node", &args.node),
        ("--node-path", &args.node_path),
    ] {
        if let Some(value) = value {
            command.args([flag, value.as_str()]);
        }
    }
    command.args(["--deadline", &args.deadline.to_string()]);
    if style == HOST_CASES {
        command
            .arg("--")
            .arg(me)
            .args(["demo-server", "--host-cases"]);
    } else {
        command.args(["--demo", style]);
    }
    let output = command
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|error| format!("cannot run capture: {error}"))?;
    serde_json::from_slice(&output.stdout).map_err(|_| {
        String::from_utf8_lossy(&output.stderr)
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("capture printed nothing")
            .trim_start_matches("sightline capture: ")
            .to_owned()
    })
}
