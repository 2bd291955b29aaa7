//! What `capture` prints: the host's tool definition, the relayed exchange, the tool result as
//! the host sent it, and the built-in profile's prediction beside it, with a verdict.

use std::io::Write;

use serde_json::{Value, json};

use super::Captured;
use crate::analysis::{CallContext, analyze};
use crate::cli::CaptureArgs;
use crate::headless::relay::LoggedFrame;
use crate::headless::{emit, exit, pretty, print_json};
use crate::mcp::catalog::Catalog;
use crate::mcp::session::Exchange;
use crate::model_view::{self, hosts};
use crate::sanitize;

/// How much of each relayed frame the text output shows.
const FRAME_PREVIEW: usize = 160;
/// How much of the tool result, its text and the prediction the text output shows (as `call`
/// shows a model's text): a 400 KB result would otherwise be printed three times.
const TEXT_PREVIEW: usize = 16 * 1024;

/// `text` up to [`TEXT_PREVIEW`] bytes, saying how much more `--json` has.
fn previewed(text: &str) -> String {
    let shown = model_view::clip(text, TEXT_PREVIEW);
    if shown.len() < text.len() {
        format!(
            "{}… ({} bytes in all; --json has them)",
            sanitize::text(shown),
            text.len()
        )
    } else {
        sanitize::text(text).into_owned()
    }
}

/// The profile that predicts the captured host: its host file's, else the user's or the
/// built-in one of its name.
fn profile_of(captured: &Captured) -> Option<hosts::HostProfile> {
    if let Some(profile) = &captured.profile {
        return Some(profile.clone());
    }
    let user = crate::config::user_host_profiles().unwrap_or_default();
    hosts::resolve(captured.host.name(), &user).ok()
}

/// The profile's prediction for the captured call.
pub struct Prediction {
    /// The `model_view` object, as `call --json` prints it.
    pub json: Value,
    pub text: String,
    pub is_error: bool,
    pub server_called: bool,
}

/// The built-in profile of `captured.host`'s prediction: from the exchange when the host
/// called the server, from the call alone when the profile says the host stops it first.
pub fn predict(captured: &Captured) -> Option<Prediction> {
    let profile = profile_of(captured)?;
    prediction(
        &profile,
        captured.exchange.as_ref(),
        &captured.version,
        captured.catalog.as_deref(),
        (&captured.tool, &captured.arguments),
    )
}

/// What `profile` predicts for a capture `capture --json` printed: its exchange judged again,
/// without running the host (`calibrate` tries profiles on it).
pub fn predicted(got: &Value, profile: &hosts::HostProfile) -> Option<Prediction> {
    Replayed::of(got)?.predicted(profile)
}

/// A capture `capture --json` printed, its exchange judged once, for many profiles to be tried
/// on.
pub struct Replayed {
    judged: super::recorded::Judged,
    tool: String,
    arguments: Value,
}

impl Replayed {
    pub fn of(got: &Value) -> Option<Replayed> {
        let mut sessions: Vec<Vec<LoggedFrame>> = Vec::new();
        for frame in got["exchange"].as_array()? {
            let session = frame["session"]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(0);
            if sessions.len() <= session {
                sessions.resize_with(session + 1, Vec::new);
            }
            sessions[session].push(LoggedFrame {
                dir: frame["dir"].as_str()?.to_owned(),
                ms: frame["ms"].as_u64().unwrap_or(0),
                frame: frame["frame"].as_str()?.to_owned(),
            });
        }
        Some(Replayed {
            judged: super::recorded::judged(&sessions),
            tool: got["tool"].as_str()?.to_owned(),
            arguments: got["arguments"].clone(),
        })
    }

    /// What `profile` predicts for it.
    pub fn predicted(&self, profile: &hosts::HostProfile) -> Option<Prediction> {
        prediction(
            profile,
            self.judged.exchange.as_ref(),
            &self.judged.version,
            self.judged.catalog.as_deref(),
            (&self.tool, &self.arguments),
        )
    }
}

fn prediction(
    profile: &hosts::HostProfile,
    exchange: Option<&Exchange>,
    version: &str,
    catalog: Option<&Catalog>,
    (tool, arguments): (&str, &Value),
) -> Option<Prediction> {
    if let Some(exchange) = exchange {
        let analysis = analyze(
            exchange,
            &CallContext {
                version,
                catalog,
                host: profile,
                forward_protocol_errors: false,
            },
        );
        let view = analysis.view;
        return Some(Prediction {
            json: serde_json::to_value(view.to_json(false)).ok()?,
            text: view.text(),
            is_error: view.is_error,
            server_called: view.server_called,
        });
    }
    let view = model_view::stopped_by_host(tool, arguments, catalog, profile)?;
    Some(Prediction {
        json: serde_json::to_value(view.to_json(false)).ok()?,
        text: view.text(),
        is_error: view.is_error,
        server_called: false,
    })
}

/// Where the capture and the prediction differ, one sentence each; empty when they agree.
pub fn differences(captured: &Captured, prediction: Option<&Prediction>) -> Vec<String> {
    let Some(prediction) = prediction else {
        return vec!["the profile makes no prediction for this call".to_owned()];
    };
    let mut found = Vec::new();
    let called = captured.exchange.is_some();
    if called != prediction.server_called {
        found.push(format!(
            "the host {} the server; the profile says it {}",
            if called { "called" } else { "did not call" },
            if prediction.server_called {
                "would"
            } else {
                "would not"
            }
        ));
    }
    let text = captured
        .tool_result
        .as_ref()
        .map(|result| result.text.as_str());
    match text {
        None if prediction.text.is_empty() => {}
        None => found.push(format!(
            "the model read nothing; the profile predicts {}",
            quoted(&prediction.text)
        )),
        Some(text) if text != prediction.text => found.push(format!(
            "the model read {}; the profile predicts {}",
            quoted(text),
            quoted(&prediction.text)
        )),
        Some(_) => {}
    }
    let flag = captured.tool_result.as_ref().and_then(|r| r.error_flag);
    if let Some(flag) = flag
        && flag != prediction.is_error
    {
        found.push(format!(
            "the host's error flag is {flag}; the profile predicts {}",
            prediction.is_error
        ));
    }
    found
}

/// A text in a sentence: quoted, and only its first 300 bytes when it is longer.
fn quoted(text: &str) -> String {
    let shown = model_view::clip(text, 300);
    if shown.len() < text.len() {
        format!("{shown:?}… ({} bytes)", text.len())
    } else {
        format!("{text:?}")
    }
}

/// The host version a profile was calibrated on, and the date: from its `source`.
fn calibrated_on(captured: &Captured) -> Option<(String, String)> {
    let profile = profile_of(captured)?;
    let source = profile.source?;
    Some((super::host::version_in(&source.version)?, source.checked))
}

pub fn report(captured: &Captured, args: &CaptureArgs) -> u8 {
    let prediction = predict(captured);
    let calibrated = calibrated_on(captured);
    // Another version than the profile's: what differs may be the upgrade, not the profile.
    let other_version = calibrated
        .as_ref()
        .filter(|(version, _)| *version != captured.host_version);
    let differences = differences(captured, prediction.as_ref());
    let matches = differences.is_empty();
    let result = captured.tool_result.as_ref();
    if args.json {
        let frames: Vec<Value> = (captured.sessions.iter().enumerate())
            .flat_map(|(session, lines)| {
                lines.iter().map(move |f| {
                    json!({"session": session, "dir": f.dir, "ms": f.ms, "frame": f.frame})
                })
            })
            .collect();
        print_json(&json!({
            "host": captured.host.name(),
            "host_title": captured.host.title(),
            "host_version": captured.host_version,
            "profile_version": calibrated.as_ref().map(|(version, _)| version),
            "profile_checked": calibrated.as_ref().map(|(_, checked)| checked),
            "other_version": other_version.is_some(),
            "tool": captured.tool.clone(),
            "called_as": captured.called,
            "arguments": captured.arguments,
            "tool_definition": captured.tool_definition,
            "exchange": frames,
            "server_called": captured.exchange.is_some(),
            "tool_result": result.map(|r| &r.verbatim),
            "text": result.map(|r| &r.text),
            "error_flag": result.and_then(|r| r.error_flag),
            "run_error": captured.run_error,
            "prediction": prediction.as_ref().map(|p| &p.json),
            "matches": matches,
            "differences": differences,
        }));
    } else {
        emit(|out| {
            write_text(out, captured, prediction.as_ref(), &differences)?;
            match other_version {
                Some((version, checked)) => writeln!(
                    out,
                    "version     this host is {}; its profile was calibrated on {} ({}): \
                     differences may be the upgrade (`sightline calibrate {} --check` compares \
                     every case)",
                    sanitize::text(&captured.host_version),
                    sanitize::text(version),
                    sanitize::text(checked),
                    captured.host.name()
                ),
                None => Ok(()),
            }
        });
    }
    if matches {
        exit::SUCCESS
    } else {
        exit::TOOL_ERROR
    }
}

fn write_text(
    out: &mut dyn Write,
    captured: &Captured,
    prediction: Option<&Prediction>,
    differences: &[String],
) -> std::io::Result<()> {
    let host = &captured.host;
    writeln!(
        out,
        "host      {} {} ({}, run once)",
        host.name(),
        sanitize::text(&captured.host_version),
        host.title()
    )?;
    writeln!(out, "\ntool definition sent to the model")?;
    match &captured.tool_definition {
        Some(definition) => writeln!(out, "{}", pretty(&definition.to_string()))?,
        None => match captured.host.bridge(&captured.tool, "{}").first() {
            Some(step) => writeln!(
                out,
                "(none in the host's tool list: its model reads the tool through `{}`)",
                step.tool
            )?,
            None => writeln!(out, "(none: the tool is not in the host's tool list)")?,
        },
    }
    writeln!(out, "\nserver exchange (through the relay)")?;
    if captured.exchange.is_none() {
        writeln!(out, "(the host did not call the server)")?;
    }
    for frame in captured.sessions.iter().flatten() {
        let arrow = match frame.dir.as_str() {
            "send" => "→",
            "recv" => "←",
            // The server's end: its exit status.
            _ => "■",
        };
        // One line a frame, clipped: the full frames are in --json.
        let shown = model_view::clip(&frame.frame, FRAME_PREVIEW);
        let more = if shown.len() < frame.frame.len() {
            "…"
        } else {
            ""
        };
        writeln!(out, "{arrow} {}{more}", sanitize::text(shown))?;
    }
    writeln!(out, "\ntool result sent to the model (verbatim)")?;
    let result = captured.tool_result.as_ref();
    match result {
        Some(result) => {
            let verbatim = result.verbatim.to_string();
            if verbatim.len() > TEXT_PREVIEW {
                writeln!(out, "{}", previewed(&verbatim))?;
            } else {
                writeln!(out, "{}", pretty(&verbatim))?;
            }
        }
        None => writeln!(out, "(none)")?,
    }
    if let Some(error) = &captured.run_error {
        writeln!(out, "host run error  {}", sanitize::text(error))?;
    }
    writeln!(
        out,
        "\ntext        {}",
        result.map_or_else(|| "(none)".into(), |r| previewed(&r.text))
    )?;
    match result.and_then(|r| r.error_flag) {
        Some(flag) => writeln!(out, "error flag  {flag} ({})", host.flag_note())?,
        None => writeln!(out, "error flag  {}", host.flag_note())?,
    }
    writeln!(
        out,
        "predicted   {} (profile '{}'{})",
        prediction.map_or_else(|| "(no prediction)".into(), |p| previewed(&p.text)),
        host.name(),
        match prediction {
            Some(p) if !p.server_called => ", the host stops the call",
            Some(p) if p.is_error => ", flagged as an error",
            _ => "",
        }
    )?;
    if differences.is_empty() {
        writeln!(out, "verdict     matches")
    } else {
        writeln!(out, "verdict     differs")?;
        for difference in differences {
            writeln!(out, "  - {}", sanitize::text(difference))?;
        }
        Ok(())
    }
}

/// The frames of a capture's exchange (`capture --json`), parsed, in order.
pub fn exchange_frames(got: &Value) -> impl Iterator<Item = Value> + '_ {
    got["exchange"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|frame| serde_json::from_str::<Value>(frame["frame"].as_str()?).ok())
}

/// The content blocks of the server's answer to the call, from a capture's exchange.
pub fn answer_blocks(got: &Value) -> Vec<Value> {
    exchange_frames(got)
        .find_map(|frame| frame.get("result")?.get("content")?.as_array().cloned())
        .unwrap_or_default()
}
