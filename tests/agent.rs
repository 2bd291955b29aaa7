//! `sightline agent` end to end: the real binary, the built-in demo server in both styles, and
//! a scripted model (`tests/peers/scripted_model.py`) that reacts to what it reads, as the seed's
//! example says a model does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

use serde_json::Value;

mod common;

use common::scripted_model::ScriptedModel;

/// `sightline agent "Book a flight departing 12/12" --model MODEL --model-url URL ARGS…`, with no
/// key in the environment (a local model needs none).
fn book(model: &str, url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["agent", "Book a flight departing 12/12", "--model", model])
        .args(["--model-url", url])
        .args(args)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("GEMINI_API_KEY")
        .output()
        .unwrap()
}

/// [`book`] against the scripted model's Chat Completions, through `host`'s eyes, on the demo.
fn agent(model: &ScriptedModel, host: &str, style: &str, extra: &[&str]) -> Output {
    book(
        "openai:any",
        &model.url(),
        &[&["--host", host, "--demo", style], extra].concat(),
    )
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stdout)))
}

#[test]
fn behind_claude_code_the_model_reads_the_legacy_servers_reason_and_corrects_itself() {
    let model = ScriptedModel::start("claude");
    let output = agent(&model, "claude-code", "legacy", &["--json"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = json(&output);
    let calls = run["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{run:#}");
    assert_eq!(
        calls[0]["name"], "mcp__srv__book_flight",
        "Claude Code's name for the tool"
    );
    assert_eq!(calls[0]["tool"], "book_flight");
    assert_eq!(calls[0]["class"], "protocol_error");
    let read = calls[0]["model_read"].as_str().unwrap();
    assert!(
        read.contains("Current date is"),
        "Claude Code forwards the message: {read}"
    );
    assert_eq!(calls[1]["class"], "success");
    assert_ne!(
        calls[1]["arguments"], calls[0]["arguments"],
        "corrected, not repeated"
    );
    assert_eq!(calls[1]["repeated"], false);
    assert_eq!(run["ended"], "answered");
    assert!(run["answer"].as_str().unwrap().contains("Booked"));
    assert!(
        run["tokens"]["input"].as_u64().unwrap() > 0,
        "the API's count"
    );
    // What the model was sent is what Claude Code would send: the reason, as the tool's result.
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let second = &requests[1]["body"]["messages"];
    assert_eq!(second[2]["role"], "tool");
    assert_eq!(second[2]["content"], calls[0]["model_read"]);

    let text = agent(&model, "claude-code", "legacy", &[]);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("turn 2: mcp__srv__book_flight {\"departureDate\":\"12/12/"),
        "{text}"
    );
    assert!(text.contains("answered after 3 turns"), "{text}");
}

#[test]
fn behind_the_agents_sdk_the_model_retries_blindly_until_the_turns_run_out() {
    let model = ScriptedModel::start("agents");
    let output = agent(&model, "openai-agents", "legacy", &["--json"]);
    assert_eq!(output.status.code(), Some(5), "the turns ran out");
    let run = json(&output);
    let calls = run["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 4, "{run:#}");
    for call in calls {
        assert_eq!(call["class"], "protocol_error");
        assert_eq!(call["arguments"], calls[0]["arguments"]);
        assert!(
            !call["model_read"]
                .as_str()
                .unwrap()
                .contains("Current date")
        );
    }
    let repeated = calls.iter().filter(|call| call["repeated"] == true).count();
    assert_eq!(repeated, 3);
    assert_eq!(run["ended"], "turns_ran_out");
    assert_eq!(run["answer"], Value::Null);

    let text = agent(&model, "openai-agents", "legacy", &[]);
    assert_eq!(text.status.code(), Some(5));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("(the same call again)"), "{text}");
    assert!(text.contains("the turns ran out (4)"), "{text}");
}

#[test]
fn the_same_host_and_a_sep1303_server_the_model_recovers() {
    let model = ScriptedModel::start("sep1303");
    let run = json(&agent(&model, "openai-agents", "sep1303", &["--json"]));
    let calls = run["calls"].as_array().unwrap();
    assert_eq!(calls[0]["class"], "tool_error");
    assert_eq!(calls[1]["class"], "success");
    assert_eq!(run["ended"], "answered");
}

#[test]
fn a_host_that_fails_its_run_on_a_protocol_error_ends_it_and_the_model_reads_nothing() {
    let model = ScriptedModel::start("langchain");
    let output = agent(&model, "langchain", "legacy", &["--json"]);
    assert_eq!(output.status.code(), Some(6));
    let run = json(&output);
    assert_eq!(run["ended"], "host_ended_run");
    assert_eq!(run["calls"].as_array().unwrap().len(), 1);
    assert_eq!(model.requests().len(), 1, "no second turn");
}

/// `--record` keeps the model's turns beside the wire, each where it happened, and `replay`
/// gives them back with the calls once the model is gone.
#[test]
fn a_recorded_run_keeps_the_models_turns_and_replays_without_the_model() {
    let model = ScriptedModel::start("record");
    // Outside the model's folder, which goes with it.
    let transcript = std::env::temp_dir().join(format!(
        "sightline-agent-record-{}.jsonl",
        std::process::id()
    ));
    let transcript_arg = transcript.to_str().unwrap();
    let output = agent(
        &model,
        "claude-code",
        "legacy",
        &["--record", transcript_arg],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let sent_to_model = model.requests();
    drop(model);

    let recorded = std::fs::read_to_string(&transcript).unwrap();
    let kinds: Vec<String> = recorded
        .lines()
        .skip(1)
        .map(|line| {
            let line: Value = serde_json::from_str(line).unwrap();
            let method = serde_json::from_str::<Value>(line["raw"].as_str().unwrap_or("{}"))
                .unwrap()["method"]
                .as_str()
                .map(str::to_owned);
            match (line["type"].as_str().unwrap(), method) {
                ("sent", Some(method)) => method,
                (kind, _) => kind.to_owned(),
            }
        })
        .filter(|kind| ["model", "tools/call", "call"].contains(&kind.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            "model",
            "tools/call",
            "call",
            "model",
            "tools/call",
            "call",
            "model"
        ],
        "each turn before the calls it led to: {recorded}"
    );

    let replay = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["replay", transcript_arg, "--json"])
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(0));
    let replayed = json(&replay);
    let turns = replayed["model_turns"].as_array().unwrap();
    assert_eq!(turns.len(), 3, "{replayed:#}");
    for (turn, sent) in turns.iter().zip(&sent_to_model) {
        assert_eq!(turn["api"], "chat");
        assert_eq!(turn["request"], sent["body"], "the body as sent");
    }
    let last = &turns[2]["response"]["choices"][0]["message"]["content"];
    assert!(last.as_str().unwrap().contains("Booked"), "{last}");
    let classes: Vec<&Value> = replayed["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| &call["outcome"]["class"])
        .collect();
    assert_eq!(classes, ["protocol_error", "success"]);
    let _ = std::fs::remove_file(&transcript);
}

#[test]
fn the_key_goes_to_the_model_api_and_nowhere_else() {
    const KEY: &str = "sk-sentinel-7f3a9c0e5d";
    let model = ScriptedModel::start("key");
    let dir = model.dir.clone();
    let transcript = dir.join("run.jsonl");
    let output = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args([
            "agent",
            "Book a flight departing 12/12",
            "--model",
            "openai:any",
        ])
        .args([
            "--model-url",
            &model.url(),
            "--host",
            "claude-code",
            "--demo",
            "legacy",
        ])
        .args([
            "--model-key-env",
            "SENTINEL_KEY",
            "-v",
            "--json",
            "--record",
        ])
        .arg(&transcript)
        .env("SENTINEL_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let sent = &model.requests()[0]["headers"];
    let authorization = sent
        .as_object()
        .unwrap()
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("authorization"))
        .map(|(_, value)| value.as_str().unwrap().to_owned());
    assert_eq!(
        authorization,
        Some(format!("Bearer {KEY}")),
        "the key reaches the API"
    );
    let recorded = std::fs::read_to_string(&transcript).unwrap();
    for (what, text) in [
        (
            "stdout",
            String::from_utf8_lossy(&output.stdout).into_owned(),
        ),
        (
            "stderr",
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ),
        ("the transcript", recorded),
    ] {
        assert!(!text.is_empty(), "{what} is empty");
        assert!(!text.contains(KEY), "the key is in {what}");
    }
}

#[test]
fn the_scripted_model_refuses_what_the_real_api_refuses() {
    let model = ScriptedModel::start("refuses");
    let orphan = serde_json::json!({
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "call_9", "content": "a result for no call"}
        ]
    });
    let (status, body) = post(model.port, &orphan.to_string());
    assert_eq!(status, 400);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("must be a response to a preceeding message with 'tool_calls'")
    );
    let (status, _) = post(
        model.port,
        r#"{"messages": [{"role": "user", "content": "hi"}]}"#,
    );
    assert_eq!(status, 400, "no model");
}

/// One POST to the scripted model: its status and JSON body.
fn post(port: u16, body: &str) -> (u16, Value) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let (_, json) = response.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(json).unwrap())
}

/// The SEP-1303 experiment over the demo's two styles × four hosts, against the scripted model:
/// the table the profiles imply, every cell asserted.
#[test]
fn the_experiment_reproduces_the_table_the_profiles_imply() {
    let model = ScriptedModel::start("experiment");
    let output = book(
        "openai:any",
        &model.url(),
        &[
            "--demo",
            "legacy",
            "--demo",
            "sep1303",
            "--host",
            "spec",
            "--host",
            "claude-code",
            "--host",
            "openai-agents",
            "--host",
            "langchain",
            "--trials",
            "2",
            "--json",
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let experiment = json(&output);
    let cells: Vec<(String, String, u64, Value, f64, u64, u64)> = experiment["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|cell| {
            (
                cell["server"].as_str().unwrap().to_owned(),
                cell["host"].as_str().unwrap().to_owned(),
                cell["completed"].as_u64().unwrap(),
                cell["calls_until_success"].clone(),
                cell["repeated"].as_f64().unwrap(),
                cell["turns_ran_out"].as_u64().unwrap(),
                cell["host_ended_run"].as_u64().unwrap(),
            )
        })
        .collect();
    let recovered = |server: &str, host: &str| {
        (
            server.to_owned(),
            host.to_owned(),
            2,
            Value::from(2.0),
            0.0,
            0,
            0,
        )
    };
    let blind = |host: &str| {
        (
            "legacy".to_owned(),
            host.to_owned(),
            0,
            Value::Null,
            3.0,
            2,
            0,
        )
    };
    assert_eq!(
        cells,
        [
            // The spec's reading: protocol errors are MAY, off; the model reads no reason.
            blind("spec"),
            // Claude Code forwards the -32602 message: the model reads the date and recovers.
            recovered("legacy", "claude-code"),
            blind("openai-agents"),
            // LangChain fails its whole run on the protocol error: one call, no recovery.
            (
                "legacy".to_owned(),
                "langchain".to_owned(),
                0,
                Value::Null,
                0.0,
                0,
                2
            ),
            // SEP-1303: the reason is a tool result, and every host passes it on.
            recovered("sep1303", "spec"),
            recovered("sep1303", "claude-code"),
            recovered("sep1303", "openai-agents"),
            recovered("sep1303", "langchain"),
        ]
    );
    assert_eq!(
        experiment["cells"][0]["runs"].as_array().unwrap().len(),
        2,
        "every run, in --json"
    );
}

/// The Messages API, asked through Claude Code's eyes: the tool result goes back as the block
/// Claude Code sends (its `is_error`, its content as one string for an error), in one user
/// message after the call.
#[test]
fn through_the_messages_api_claude_codes_own_tool_result_block_goes_back() {
    let model = ScriptedModel::start("anthropic");
    let url = format!("http://127.0.0.1:{}", model.port);
    let args = ["--host", "claude-code", "--demo", "legacy", "--json"];
    let output = book("anthropic:any", &url, &args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = json(&output);
    assert_eq!(run["calls"][0]["name"], "mcp__srv__book_flight");
    assert_eq!(run["calls"][1]["class"], "success");
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0]["path"], "/v1/messages");
    assert_eq!(requests[0]["headers"]["anthropic-version"], "2023-06-01");
    let messages = requests[1]["body"]["messages"].as_array().unwrap();
    let call = &messages[1]["content"][0];
    assert_eq!(call["type"], "tool_use");
    let result = &messages[2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], call["id"]);
    assert_eq!(result["is_error"], true, "Claude Code marks it: {result}");
    // Claude Code sends an error's content as one string (its capture shows it).
    let content = result["content"].as_str().unwrap();
    assert!(content.contains("Current date is"), "{content}");
}

/// A server built on an official SDK (TypeScript, Python), not ours: its tool error carries the
/// reason, and the model behind the Agents SDK recovers with it.
#[test]
fn an_official_sdk_servers_tool_error_lets_the_model_recover() {
    let model = ScriptedModel::start("sdk");
    for server in [common::peers::ts(), common::peers::py()] {
        let args = [
            &["--host", "openai-agents", "--json", "--"][..],
            &server.iter().map(String::as_str).collect::<Vec<_>>(),
        ]
        .concat();
        let output = book("openai:any", &model.url(), &args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{server:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let run = json(&output);
        let calls = run["calls"].as_array().unwrap();
        assert_eq!(calls[0]["class"], "tool_error", "{server:?}: {run:#}");
        assert!(
            calls[0]["model_read"]
                .as_str()
                .unwrap()
                .contains("Current date is"),
            "{run:#}"
        );
        assert_eq!(calls[1]["class"], "success", "{server:?}: {run:#}");
    }
}

/// The Responses API, asked through the Agents SDK's eyes (it speaks it): the host's own
/// `function_call_output` goes back, for the model's call.
#[test]
fn through_the_responses_api_the_agents_sdks_own_output_item_goes_back() {
    let model = ScriptedModel::start("responses");
    let args = ["--host", "openai-agents", "--demo", "sep1303", "--json"];
    let output = book("openai-responses:any", &model.url(), &args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = json(&output);
    assert_eq!(run["calls"][1]["class"], "success", "{run:#}");
    let requests = model.requests();
    assert_eq!(requests[0]["path"], "/v1/responses");
    let input = requests[1]["body"]["input"].as_array().unwrap();
    assert_eq!(input[1]["type"], "function_call");
    assert_eq!(input[2]["type"], "function_call_output");
    assert_eq!(input[2]["call_id"], input[1]["call_id"]);
    // The Agents SDK sends its output as a list of parts, one text too (its capture shows it).
    let part = &input[2]["output"][0];
    assert_eq!(part["type"], "input_text", "{input:#?}");
    assert!(part["text"].as_str().unwrap().contains("Current date is"));
}

/// Gemini's `generateContent`, asked through Gemini CLI's eyes (it speaks it): the call's
/// `functionResponse` names the function it answers, and the legacy demo's reason reaches the
/// model (Gemini CLI forwards the message).
#[test]
fn through_gemini_gemini_clis_own_function_response_goes_back() {
    let model = ScriptedModel::start("gemini");
    let url = format!("http://127.0.0.1:{}", model.port);
    let args = ["--host", "gemini-cli", "--demo", "legacy", "--json"];
    let output = book("gemini:any", &url, &args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let run = json(&output);
    assert_eq!(run["calls"][1]["class"], "success", "{run:#}");
    let requests = model.requests();
    assert_eq!(requests[0]["path"], "/v1beta/models/any:generateContent");
    let contents = requests[1]["body"]["contents"].as_array().unwrap();
    let call = &contents[1]["parts"][0]["functionCall"];
    let response = &contents[2]["parts"][0]["functionResponse"];
    assert_eq!(response["name"], call["name"]);
    assert!(
        response["response"].to_string().contains("Current date is"),
        "{response}"
    );
}
