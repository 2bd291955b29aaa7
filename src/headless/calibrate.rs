//! `sightline calibrate HOST`: the capture matrix against the demo server through the real
//! host, a table of what matched its profile case by case, and (`--write`) the profile that
//! predicts it: the error texts inferred around the server's words, the rest fitted (`fit`).

mod cuts;
#[cfg(test)]
mod cuts_tests;
mod fit;
#[cfg(test)]
mod fit_tests;
mod matrix;

use serde_json::{Value, json};

use super::exit;
use super::output::{emit, print_json};
use crate::cli::CalibrateArgs;
use crate::model_view::hosts::{self, HostProfile};
use crate::sanitize;
use matrix::{CASES, Case};
use matrix::{PROTOCOL_ERROR, TOOL_ERROR, UNKNOWN_TOOL, measured_threshold, run_all};

pub fn calibrate(args: &CalibrateArgs) -> u8 {
    let me = match std::env::current_exe() {
        Ok(me) => me,
        Err(error) => {
            eprintln!("sightline calibrate: own path: {error}");
            return exit::TRANSPORT_FAILURE;
        }
    };
    let results = run_all(&me, args);
    // A host that cannot run at all fails every case the same way: said once.
    if let Some(Err(error)) = results.get(&0)
        && results.values().all(Result::is_err)
    {
        if args.json {
            print_json(&json!({"host": args.host, "error": error}));
        } else {
            eprintln!("sightline calibrate: {}", sanitize::text(error));
        }
        return exit::USAGE;
    }
    let captured: Vec<(&Case, Result<Value, String>)> = CASES
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let got = results
                .get(&index)
                .cloned()
                .unwrap_or_else(|| Err("not run".to_owned()));
            (case, got)
        })
        .collect();
    let differing = captured
        .iter()
        .filter(|(_, got)| !matches!(got, Ok(got) if got["matches"] == true))
        .count();
    let mut written = None;
    let mut cut_measured = None;
    if let Some(file) = &args.write {
        let (profile, kept, cut) = fitted_profile(&me, args, &captured);
        cut_measured = cut;
        // A whole host file: the profile, and the run table the captures ran.
        let run = super::capture::run_table(&args.host, args.host_file.as_deref());
        let text = format!("{}\n{}", hosts::to_file(&profile), run.unwrap_or_default());
        if let Err(error) = std::fs::write(file, &text) {
            eprintln!("sightline calibrate: --write {file}: {error}");
            return exit::USAGE;
        }
        let missed: Vec<&str> = captured
            .iter()
            .filter(|(_, got)| !matches!(got, Ok(got) if fit::predicts(&profile, got)))
            .map(|(case, _)| case.name)
            .collect();
        written = Some(Written { file, missed, kept });
    }
    if args.json {
        let cases: Vec<Value> = captured
            .iter()
            .map(|(case, got)| match got {
                Ok(got) => json!({
                    "case": case.name, "matches": got["matches"],
                    "host_version": got["host_version"], "other_version": got["other_version"],
                    "text": got["text"], "differences": got["differences"],
                }),
                Err(error) => json!({"case": case.name, "matches": false, "error": error}),
            })
            .collect();
        // With --write, where the host cuts a long text, as the table says it.
        let cut =
            cut_measured.map(|(passes, captures)| json!({"passes": passes, "captures": captures}));
        print_json(&json!({"host": args.host, "cases": cases, "differing": differing, "cut": cut}));
    } else {
        emit(|out| {
            write_table(out, args, &captured, differing, written.as_ref())?;
            if let Some((threshold, captures)) = cut_measured {
                writeln!(
                    out,
                    "it passes a text of {threshold} bytes whole and cuts one byte more \
                     (measured with {captures} more captures of long_text)"
                )?;
            }
            Ok(())
        });
    }
    if args.check && differing > 0 {
        exit::TOOL_ERROR
    } else {
        exit::SUCCESS
    }
}

/// What `--write` wrote: where, the cases its profile does not predict, and whether it is the
/// profile calibrate started from.
struct Written<'a> {
    file: &'a str,
    missed: Vec<&'static str>,
    kept: bool,
}

/// The profile `--write` writes: the base (the host file's, the built-in one or `spec`) with
/// its error texts inferred and the rest fitted to the captures, its cut fitted to more
/// captures where the host cuts; whether it is the base as it was (no fitted one predicted
/// more); and where the host cuts, with how many captures more that took.
fn fitted_profile(
    me: &std::path::Path,
    args: &CalibrateArgs,
    captured: &[(&Case, Result<Value, String>)],
) -> (HostProfile, bool, Option<(usize, usize)>) {
    let answered: Vec<&Value> = captured
        .iter()
        .filter_map(|(_, got)| got.as_ref().ok())
        .collect();
    let base = base_profile(args);
    let mut fitted = fit::fitted(inferred(base.clone(), captured), &answered, None);
    // Lines the host writes before everything of a call (Codex's "Wall time"), once, outside
    // each text: the texts inferred without them.
    if let Some(prefix) = common_call_prefix(captured) {
        let mut prefixed = inferred(base.clone(), &without_prefix(captured, &prefix));
        prefixed.call_prefix = Some(prefix);
        let prefixed = fit::fitted(prefixed, &answered, None);
        if fit::score(&prefixed, &answered) > fit::score(&fitted, &answered) {
            fitted = prefixed;
        }
    }
    // Where the host cuts a long text is measured, not guessed from three sizes.
    let (threshold, more) = measured_threshold(me, args, &fitted, &answered);
    let answered: Vec<&Value> = answered.into_iter().chain(&more).collect();
    let profile = if threshold.is_some() {
        // Refitted from the cuts the profile has (a host with two, such as Claude Code's
        // saved preview and its limit, keeps both) and from none; the better one.
        let from_cuts = fit::fitted(fitted.clone(), &answered, threshold);
        let from_whole = fit::fitted(cuts::uncut(&fitted), &answered, threshold);
        if fit::score(&from_whole, &answered) > fit::score(&from_cuts, &answered) {
            from_whole
        } else {
            from_cuts
        }
    } else {
        fitted
    };
    // Never worse than the profile calibrate started from: a host that matches its
    // profile gets that profile back, with today's version and date.
    let base = described(base, captured);
    let kept = fit::score(&base, &answered) >= fit::score(&profile, &answered);
    let profile = if kept { base } else { profile };
    (
        profile,
        kept,
        threshold.map(|threshold| (threshold, more.len())),
    )
}

/// The lines every capture of a call the server was sent starts with (three captures at
/// least), without the newline after them.
fn common_call_prefix(captured: &[(&Case, Result<Value, String>)]) -> Option<String> {
    let texts: Vec<&str> = captured
        .iter()
        .filter_map(|(_, got)| got.as_ref().ok())
        .filter(|got| got["server_called"] == true)
        .filter_map(|got| got["text"].as_str())
        .collect();
    let (first, rest) = texts.split_first()?;
    if rest.len() < 2 {
        return None;
    }
    let shared = rest.iter().fold(first.len(), |shared, text| {
        let same = first.bytes().zip(text.bytes()).take_while(|(a, b)| a == b);
        shared.min(same.count())
    });
    let end = first.as_bytes()[..shared]
        .iter()
        .rposition(|&b| b == b'\n')?;
    Some(first[..end].to_owned()).filter(|prefix| !prefix.is_empty())
}

/// The captures with `prefix` and its newline taken off the text of each call the server was
/// sent.
fn without_prefix<'a>(
    captured: &[(&'a Case, Result<Value, String>)],
    prefix: &str,
) -> Vec<(&'a Case, Result<Value, String>)> {
    let lead = format!("{prefix}\n");
    captured
        .iter()
        .map(|(case, got)| {
            let mut got = got.clone();
            if let Ok(got) = &mut got
                && got["server_called"] == true
                && let Some(rest) = got["text"].as_str().and_then(|t| t.strip_prefix(&lead))
            {
                got["text"] = Value::String(rest.to_owned());
            }
            (*case, got)
        })
        .collect()
}

/// The table: the host and its version, each case and its first difference, the count.
fn write_table(
    out: &mut dyn std::io::Write,
    args: &CalibrateArgs,
    captured: &[(&Case, Result<Value, String>)],
    differing: usize,
    written: Option<&Written>,
) -> std::io::Result<()> {
    let version = captured
        .iter()
        .find_map(|(_, got)| got.as_ref().ok()?["host_version"].as_str());
    writeln!(
        out,
        "{} {} against `sightline demo-server`, {} cases",
        sanitize::text(&args.host),
        sanitize::text(version.unwrap_or("(version unknown)")),
        CASES.len()
    )?;
    if let Some(other) = captured.iter().find_map(|(_, got)| {
        let got = got.as_ref().ok()?;
        (got["other_version"] == true).then(|| got["profile_version"].to_string())
    }) {
        writeln!(
            out,
            "its profile was calibrated on {}: differences may be the upgrade",
            sanitize::text(&other)
        )?;
    }
    for (case, got) in captured {
        let (mark, detail) = match got {
            Ok(got) if got["matches"] == true => ("matches", String::new()),
            // No profile yet: what the host sent is what the user needs to see.
            Ok(got) if got["prediction"].is_null() => (
                "differs",
                match got["text"].as_str() {
                    Some(text) => format!("no prediction; the model read {text:?}"),
                    None => "no prediction; the model read nothing".to_owned(),
                },
            ),
            Ok(got) => (
                "differs",
                got["differences"]
                    .as_array()
                    .and_then(|all| all.first())
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            ),
            Err(error) => ("failed ", error.clone()),
        };
        writeln!(out, "{mark}  {}", case.name)?;
        if !detail.is_empty() {
            writeln!(out, "         {}", sanitize::text(&clip(&detail, 300)))?;
        }
    }
    writeln!(
        out,
        "\n{} of {} cases match the profile",
        CASES.len() - differing,
        CASES.len()
    )?;
    if let Some(Written { file, missed, kept }) = written {
        let how = if *kept {
            "the profile calibrate started from, its version and date today's: no fitted one \
             predicted more"
        } else {
            "the error texts around the server's words, then structured content, blocks, \
             argument checks, failures and cuts fitted to the captures"
        };
        writeln!(
            out,
            "wrote {file}: a host file, its profile predicting {} of {} cases as this host \
             answered them ({how}), and its run table; \
             check it with `sightline calibrate {} --host-file {file} --check`",
            CASES.len() - missed.len(),
            CASES.len(),
            args.host
        )?;
        for case in missed {
            writeln!(out, "  not predicted: {case}")?;
        }
    }
    Ok(())
}

fn clip(text: &str, max: usize) -> String {
    let shown = crate::model_view::clip(text, max);
    if shown.len() < text.len() {
        format!("{shown}…")
    } else {
        text.to_owned()
    }
}

/// The profile the written one starts from: the host file's, the built-in one, or `spec`.
fn base_profile(args: &CalibrateArgs) -> HostProfile {
    let from_file = args.host_file.as_deref().and_then(|file| {
        let text = std::fs::read_to_string(file).ok()?;
        hosts::parse(&text, file)
            .ok()?
            .into_iter()
            .find(|profile| profile.name == args.host)
    });
    let user = crate::config::user_host_profiles().unwrap_or_default();
    let mut profile = from_file
        .or_else(|| hosts::resolve(&args.host, &user).ok())
        .unwrap_or_else(|| hosts::spec().clone());
    args.host.clone_into(&mut profile.name);
    profile
}

/// `base` with what the captures say of errors: the flag, the protocol error's and the tool
/// error's texts as templates around the server's words, and the unknown-tool answer.
pub fn inferred(mut base: HostProfile, captured: &[(&Case, Result<Value, String>)]) -> HostProfile {
    let got = |name: &str| {
        captured
            .iter()
            .find(|(case, _)| case.name == name)
            .and_then(|(_, got)| got.as_ref().ok())
    };
    let results: Vec<&Value> = captured
        .iter()
        .filter_map(|(_, got)| got.as_ref().ok())
        .filter(|got| !got["tool_result"].is_null())
        .collect();
    // A message with a flag has it on every result; one without never does.
    if let Some(first) = results.first() {
        base.error_flag = results
            .iter()
            .any(|got| got["error_flag"].as_bool().is_some());
        if let Some(shape) = shape_of(&first["tool_result"]) {
            base.shape = shape;
        }
    }
    base = described(base, captured);
    if let Some(got) = got(PROTOCOL_ERROR) {
        let error = server_error(got);
        match (got["text"].as_str(), error) {
            (None, _) => {
                base.forward_protocol_errors = false;
                if !base.aborts_run_on.contains(&hosts::Abort::ProtocolError) {
                    base.aborts_run_on.push(hosts::Abort::ProtocolError);
                }
            }
            (Some(text), Some((code, message))) if text.contains(&message) => {
                base.forward_protocol_errors = true;
                let (before, after) = text.split_at(text.find(&message).unwrap_or(0));
                let after = after.replacen(&message, "{message}", 1);
                // The tool's name and the code, where the host writes them itself.
                let before = match got["tool"].as_str() {
                    Some(tool) if !tool.is_empty() => before.replace(tool, "{tool}"),
                    _ => before.to_owned(),
                };
                base.protocol_error_text =
                    format!("{}{after}", before.replacen(&code.to_string(), "{code}", 1));
            }
            (Some(text), _) => {
                base.forward_protocol_errors = false;
                text.clone_into(&mut base.failure_text);
            }
        }
    }
    if let Some(got) = got(TOOL_ERROR)
        && let (Some(text), Some(said)) = (got["text"].as_str(), tool_error_text(got))
    {
        base.tool_error_text = if text == said {
            None
        } else if text.contains(&said) {
            Some(text.replacen(&said, "{text}", 1))
        } else {
            base.tool_error_text
        };
    }
    if let Some(got) = got(UNKNOWN_TOOL)
        && got["server_called"] == false
    {
        let checks = base.checks.get_or_insert_with(|| hosts::Checks {
            arguments: hosts::ArgumentCheck::None,
            invalid_arguments_text: hosts::spec().failure_text.clone(),
            unknown_tool_text: None,
            validator: hosts::Validator::default(),
            tool_name: None,
            tool_order: Vec::new(),
            data_var: "data".to_owned(),
            coerce_types: false,
        });
        if let Some(text) = got["text"].as_str() {
            let (text, tool_name) = unknown_tool_template(text, &server_tools(got));
            checks.unknown_tool_text = Some(text);
            if tool_name.is_some() {
                checks.tool_name = tool_name;
            }
        }
    }
    base
}

/// `base` said to be calibrated on the captured host's version, today.
fn described(mut base: HostProfile, captured: &[(&Case, Result<Value, String>)]) -> HostProfile {
    let Some(first) = captured
        .iter()
        .filter_map(|(_, got)| got.as_ref().ok())
        .find(|got| got["host_version"].is_string())
    else {
        return base;
    };
    let version = first["host_version"].as_str().unwrap_or_default();
    let title = first["host_title"].as_str().unwrap_or(&base.name);
    base.description = format!("{title} {version}, calibrated by sightline calibrate");
    base.source = Some(calibrated_source(&base, version));
    base
}

/// Where a written profile comes from: this host's version, calibrated today.
fn calibrated_source(base: &HostProfile, version: &str) -> hosts::Source {
    let today = crate::time::Date::from_unix_seconds(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| i64::try_from(elapsed.as_secs()).unwrap_or(0)),
    );
    hosts::Source {
        repository: base
            .source
            .as_ref()
            .map_or_else(String::new, |source| source.repository.clone()),
        files: vec!["the host itself, run by sightline calibrate".to_owned()],
        version: format!("{version} (calibrated by sightline calibrate)"),
        checked: format!("{:04}-{:02}-{:02}", today.year, today.month, today.day),
        captured: true,
    }
}

/// The shape of the message a captured tool result came in.
fn shape_of(message: &Value) -> Option<hosts::Shape> {
    if message["role"] == "tool" {
        Some(hosts::Shape::OpenaiChat)
    } else if message["type"] == "function_call_output" {
        Some(hosts::Shape::OpenaiResponses)
    } else if message["type"] == "tool_result" {
        Some(hosts::Shape::AnthropicMessages)
    } else if !message["functionResponse"].is_null() {
        Some(hosts::Shape::GeminiFunctionResponse)
    } else {
        None
    }
}

/// An unknown-tool answer as a template: the called name's form gives `tool_name`
/// (`srv-no_such_tool` → `srv-{tool}`), and a list of the server's tools by that form, sorted,
/// becomes `{host_tools}` (in the server's order, by their own names: `{tools}`).
fn unknown_tool_template(text: &str, tools: &[String]) -> (String, Option<String>) {
    let called = text
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '\'' | '"' | '`' | ',' | '.' | '<' | '>' | '(' | ')' | '[' | ']'
                )
        })
        .find(|word| word.contains("no_such_tool"));
    let tool_name = called.map(|word| word.replace("no_such_tool", "{tool}"));
    let mut template = text.to_owned();
    if let Some(name) = &tool_name {
        let mut named: Vec<String> = tools
            .iter()
            .map(|tool| name.replace("{tool}", tool))
            .collect();
        named.sort_unstable();
        let joined = named.join(", ");
        if !joined.is_empty() && template.contains(&joined) {
            template = template.replacen(&joined, "{host_tools}", 1);
        }
    }
    let joined = tools.join(", ");
    if !joined.is_empty() && template.contains(&joined) {
        template = template.replacen(&joined, "{tools}", 1);
    }
    (template.replace("no_such_tool", "{tool}"), tool_name)
}

/// The names the server listed, in its order, from a capture's exchange.
fn server_tools(got: &Value) -> Vec<String> {
    super::capture::exchange_frames(got)
        .find_map(|frame| {
            let tools = frame.get("result")?.get("tools")?.as_array()?.clone();
            Some(
                tools
                    .iter()
                    .filter_map(|tool| Some(tool["name"].as_str()?.to_owned()))
                    .collect(),
            )
        })
        .unwrap_or_default()
}

/// The code and message of the server's JSON-RPC error in a capture's exchange.
fn server_error(got: &Value) -> Option<(i64, String)> {
    got["exchange"].as_array()?.iter().find_map(|frame| {
        let frame: Value = serde_json::from_str(frame["frame"].as_str()?).ok()?;
        let error = frame.get("error")?;
        Some((
            error["code"].as_i64()?,
            error["message"].as_str()?.to_owned(),
        ))
    })
}

/// The text of the server's `isError` result in a capture's exchange (its text blocks, one a
/// line).
fn tool_error_text(got: &Value) -> Option<String> {
    got["exchange"].as_array()?.iter().find_map(|frame| {
        let frame: Value = serde_json::from_str(frame["frame"].as_str()?).ok()?;
        let result = frame.get("result")?;
        (result["isError"] == true).then(|| {
            result["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|block| block["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn frames(reply: &Value) -> Value {
        json!([{"dir": "recv", "frame": reply.to_string()}])
    }

    #[test]
    fn the_error_texts_become_templates_around_the_servers_words() {
        let message = "Invalid arguments for tool book_flight: bad date";
        let protocol = json!({
            "text": format!("MCP server 'srv': McpError: MCP error -32602: {message}"),
            "error_flag": null,
            "tool": "book_flight",
            "tool_result": {"role": "tool", "content": "…"},
            "exchange": frames(&json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": message}})),
        });
        let tool = json!({
            "text": "MCP server 'srv': bad date",
            "exchange": frames(&json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "bad date"}], "isError": true}})),
        });
        let unknown = json!({
            "text": "Tool 'srv-no_such_tool' does not exist. Available tools are bash, srv-a, srv-b.",
            "server_called": false,
            "exchange": frames(&json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "b"}, {"name": "a"}]}})),
        });
        let captured = vec![
            (&CASES[0], Ok(protocol)),
            (&CASES[1], Ok(tool)),
            (
                CASES.iter().find(|c| c.name == UNKNOWN_TOOL).unwrap(),
                Ok(unknown),
            ),
        ];
        let profile = inferred(hosts::spec().clone(), &captured);
        assert!(profile.forward_protocol_errors);
        assert!(!profile.error_flag, "a chat message has no flag");
        assert_eq!(profile.shape, hosts::Shape::OpenaiChat);
        assert_eq!(
            profile.protocol_error_text,
            "MCP server 'srv': McpError: MCP error {code}: {message}"
        );
        assert_eq!(
            profile.tool_error_text.as_deref(),
            Some("MCP server 'srv': {text}")
        );
        let checks = profile.checks.unwrap();
        assert_eq!(
            checks.unknown_tool_text.as_deref(),
            Some("Tool 'srv-{tool}' does not exist. Available tools are bash, {host_tools}.")
        );
        assert_eq!(checks.tool_name.as_deref(), Some("srv-{tool}"));
    }

    #[test]
    fn a_host_that_shows_a_sentence_of_its_own_does_not_forward() {
        let protocol = json!({
            "text": "An error occurred while running the tool. Please try again.",
            "exchange": frames(&json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "bad"}})),
        });
        let profile = inferred(hosts::spec().clone(), &[(&CASES[0], Ok(protocol))]);
        assert!(!profile.forward_protocol_errors);
        assert_eq!(
            profile.failure_text,
            "An error occurred while running the tool. Please try again."
        );
    }

    #[test]
    fn the_called_name_is_read_out_of_the_host_s_markup() {
        let tools = ["book_flight".to_owned(), "echo".to_owned()];
        let claude = "<tool_use_error>Error: No such tool available: mcp__srv__no_such_tool</tool_use_error>";
        let (text, tool_name) = unknown_tool_template(claude, &tools);
        assert_eq!(
            text,
            "<tool_use_error>Error: No such tool available: mcp__srv__{tool}</tool_use_error>"
        );
        assert_eq!(tool_name.as_deref(), Some("mcp__srv__{tool}"));
        let listed = "Tool 'srv-no_such_tool' not found (srv-book_flight, srv-echo).";
        let (text, tool_name) = unknown_tool_template(listed, &tools);
        assert_eq!(text, "Tool 'srv-{tool}' not found ({host_tools}).");
        assert_eq!(tool_name.as_deref(), Some("srv-{tool}"));
    }

    #[test]
    fn lines_every_called_capture_starts_with_are_the_call_prefix() {
        let texts = [
            "Wall time: <seconds> seconds\nOutput:\nbooked",
            "Wall time: <seconds> seconds\nOutput:\nWall of text",
            "Wall time: <seconds> seconds\nOutput:\ndate in the past",
        ];
        let mut captured: Vec<(&Case, Result<Value, String>)> = texts
            .iter()
            .zip(CASES.iter())
            .map(|(text, case)| (case, Ok(json!({"server_called": true, "text": text}))))
            .collect();
        // The host's own answer, the server never called, has no prefix.
        captured.push((
            &CASES[3],
            Ok(json!({"server_called": false, "text": "no such tool"})),
        ));
        let prefix = common_call_prefix(&captured);
        // Shared up to "Wall", but only whole lines are a prefix.
        assert_eq!(
            prefix.as_deref(),
            Some("Wall time: <seconds> seconds\nOutput:")
        );
        let stripped = without_prefix(&captured, prefix.as_deref().unwrap());
        let texts: Vec<&str> = stripped
            .iter()
            .map(|(_, got)| got.as_ref().unwrap()["text"].as_str().unwrap())
            .collect();
        assert_eq!(
            texts,
            ["booked", "Wall of text", "date in the past", "no such tool"]
        );
        // Two captures are no evidence of a prefix.
        assert_eq!(common_call_prefix(&captured[..2]), None);
    }
}
