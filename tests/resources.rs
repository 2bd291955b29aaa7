//! End to end: `resources`, `read`, `prompts`, `prompt`, `ping` and `request`, the real binary
//! against the official everything server (stdio and Streamable HTTP) and against the built-in
//! demo server in both eras (stdio and HTTP): every resource lists and reads, a template fills
//! and reads, every prompt gets with its arguments, a malformed request gets the server's error
//! verbatim (exit 3), and `ping` is timed where it exists and refused where 2026-07-28 removed it.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::process::{Command, Output};

use serde_json::{Map, Value, json};

mod common;

use common::peers::everything;
use common::servers::Server;

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

fn sightline(args: &[&str], server: &[String]) -> Output {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .args(server)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    command.output().unwrap()
}

/// The exit code and the one JSON object of `args --json`.
fn json(args: &[&str], server: &[String]) -> (i32, Value) {
    let mut args = args.to_vec();
    args.push("--json");
    let output = sightline(&args, server);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let value = serde_json::from_str(&stdout).unwrap_or_else(|error| {
        panic!(
            "{args:?}: stdout is not one JSON object ({error}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap(), value)
}

/// The stdio selection for the everything server.
fn everything_stdio() -> Vec<String> {
    let mut server = vec!["--".to_owned()];
    server.extend(everything());
    server.push("stdio".into());
    server
}

/// Runs `job` on every item, a few at a time (each is a whole sightline run and server).
fn in_parallel<T: Sync>(items: &[T], job: impl Fn(&T) -> Option<String> + Sync) -> Vec<String> {
    const THREADS: usize = 4;
    let chunk = items.len().div_ceil(THREADS).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().filter_map(&job).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap())
            .collect()
    })
}

/// A value for a prompt argument of the everything server, by its name.
fn argument_value(name: &str) -> &'static str {
    match name {
        "resourceType" => "Text",
        "resourceId" => "1",
        _ => "sightline",
    }
}

/// What `check_server` counted.
#[derive(Debug, PartialEq)]
struct Counts {
    resources: usize,
    templates: usize,
    prompts: usize,
}

/// Every resource lists and reads, each template filled with `1` reads, every prompt gets with
/// a value for each argument it declares; `--json` and text alike.
fn check_server(server: &[String]) -> Counts {
    let (code, listing) = json(&["resources"], server);
    assert_eq!(code, 0, "{listing:#}");
    assert_eq!(listing["outcome"]["class"], "success", "{listing:#}");
    let resources = listing["resources"].as_array().unwrap().clone();
    let templates = listing["resource_templates"].as_array().unwrap().clone();
    assert!(!resources.is_empty(), "{listing:#}");
    let mut uris: Vec<String> = resources
        .iter()
        .map(|resource| resource["uri"].as_str().unwrap().to_owned())
        .collect();
    for template in &templates {
        let template = template["uriTemplate"].as_str().unwrap();
        let start = template.find('{').unwrap();
        let end = template[start..].find('}').unwrap() + start;
        uris.push(format!("{}1{}", &template[..start], &template[end + 1..]));
    }
    let failures = in_parallel(&uris, |uri| {
        let (code, read) = json(&["read", uri], server);
        let contents = &read["response"]["result"]["contents"];
        let ok = code == 0
            && read["outcome"]["class"] == "success"
            && contents.as_array().is_some_and(|c| !c.is_empty());
        (!ok).then(|| format!("read {uri}: exit {code}: {read:#}"))
    });
    assert!(failures.is_empty(), "{failures:#?}");
    let text = sightline(&["read", &uris[0]], server);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(&format!("── {}", uris[0])), "{text}");

    let (code, prompts) = json(&["prompts"], server);
    assert_eq!(code, 0, "{prompts:#}");
    let prompts = prompts["prompts"].as_array().unwrap().clone();
    assert!(!prompts.is_empty());
    let failures = in_parallel(&prompts, |prompt| {
        let name = prompt["name"].as_str().unwrap();
        let mut arguments = Map::new();
        for argument in prompt["arguments"].as_array().into_iter().flatten() {
            let argument = argument["name"].as_str().unwrap();
            arguments.insert(argument.into(), argument_value(argument).into());
        }
        let arguments = Value::Object(arguments).to_string();
        let (code, got) = json(&["prompt", name, &arguments], server);
        let sent = &got["request"]["params"]["arguments"];
        let messages = &got["response"]["result"]["messages"];
        let ok = code == 0
            && *sent == serde_json::from_str::<Value>(&arguments).unwrap()
            && messages.as_array().is_some_and(|m| !m.is_empty());
        let text = sightline(&["prompt", name, &arguments], server);
        let text = String::from_utf8_lossy(&text.stdout).into_owned();
        let ok = ok && text.contains("── user · ");
        (!ok).then(|| format!("prompt {name}: exit {code}: {got:#}\n{text}"))
    });
    assert!(failures.is_empty(), "{failures:#?}");
    Counts {
        resources: resources.len(),
        templates: templates.len(),
        prompts: prompts.len(),
    }
}

#[test]
fn every_resource_template_and_prompt_of_the_everything_server_reads_over_stdio_and_http() {
    let over_stdio = check_server(&everything_stdio());
    assert!(over_stdio.resources >= 7, "{over_stdio:?}");
    assert!(over_stdio.templates >= 2, "{over_stdio:?}");
    assert!(over_stdio.prompts >= 4, "{over_stdio:?}");
    let server = common::servers::Server::everything();
    let over_http = check_server(&["--url".to_owned(), server.url.clone()]);
    assert_eq!(over_http, over_stdio);
}

#[test]
fn a_malformed_request_shows_the_servers_error_verbatim_with_exit_3() {
    let (code, out) = json(
        &["request", "resources/read", r#"{"uri": 5}"#],
        &everything_stdio(),
    );
    assert_eq!(code, 3, "{out:#}");
    assert_eq!(out["request"]["params"], json!({"uri": 5}), "{out:#}");
    assert!(out["response"]["error"]["code"].is_i64(), "{out:#}");
    assert_eq!(out["outcome"]["code"], out["response"]["error"]["code"]);
    for era in ["legacy", "modern"] {
        let demo = ["--era".to_owned(), era.to_owned()];
        let (code, out) = json(&["request", "tools/call", "[1,2]"], &demo);
        assert_eq!(code, 3, "{era}: {out:#}");
        assert_eq!(
            out["request"]["params"],
            json!([1, 2]),
            "sent as typed: {out:#}"
        );
        assert_eq!(out["outcome"]["class"], "protocol_error");
        let text = sightline(&["request", "tools/call", "[1,2]"], &demo);
        assert_eq!(text.status.code(), Some(3));
        let stdout = String::from_utf8(text.stdout).unwrap();
        let message = out["response"]["error"]["message"].as_str().unwrap();
        assert!(stdout.contains(message), "{stdout}");
    }
    let output = sightline(&["request", "x", "{oops"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("PARAMS_JSON is not valid JSON"));
}

#[test]
fn ping_is_timed_where_it_exists_and_refused_where_2026_07_28_removed_it() {
    let (code, out) = json(&["ping"], &everything_stdio());
    assert_eq!(code, 0, "{out:#}");
    assert!(out["rtt_ms"].is_f64(), "{out:#}");
    let (code, out) = json(&["ping", "--era", "legacy"], &[]);
    assert_eq!(
        (code, &out["response"]["result"]),
        (0, &json!({})),
        "{out:#}"
    );
    let (code, out) = json(&["ping", "--era", "modern"], &[]);
    assert_eq!(code, 2, "{out:#}");
    assert_eq!(out["outcome"]["class"], "not_sent", "{out:#}");
    assert!(out["request"].is_null());
    let output = sightline(&["ping", "--era", "modern"], &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("2026-07-28 removed it"));
    // Forced with `request`, it goes out, and the modern demo says it has no such method.
    let (code, out) = json(&["request", "ping", "--era", "modern"], &[]);
    assert_eq!(
        (code, &out["outcome"]["code"]),
        (3, &json!(-32601)),
        "{out:#}"
    );
}

/// The demo server's resources and prompts, in each era, over stdio and over HTTP.
#[test]
fn the_demo_servers_resources_and_prompts_read_in_both_eras_over_stdio_and_http() {
    let http = Server::demo("sep1303");
    for era in ["legacy", "modern"] {
        for transport in ["stdio", "http"] {
            let mut server = vec!["--era".to_owned(), era.to_owned()];
            if transport == "http" {
                server.extend(["--url".to_owned(), http.url.clone()]);
            }
            let counts = check_demo(&server, era == "modern");
            assert_eq!(
                counts,
                Counts {
                    resources: 3,
                    templates: 1,
                    prompts: 2
                },
                "{era} {transport}"
            );
        }
    }
}

fn check_demo(server: &[String], modern: bool) -> Counts {
    let (code, listing) = json(&["resources"], server);
    assert_eq!(code, 0, "{listing:#}");
    // 2026-07-28 listings are cacheable results.
    let text = sightline(&["resources"], server);
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.contains("cacheable: ttlMs 60000"), modern, "{text}");
    let row = |uri: &str| {
        text.lines()
            .find(|line| line.starts_with(uri))
            .map(|line| line.split_whitespace().collect::<Vec<_>>())
    };
    assert_eq!(
        row("demo://timetable").unwrap()[..3],
        ["demo://timetable", "timetable", "text/plain"],
        "{text}"
    );
    assert_eq!(
        row("demo://departures").unwrap()[..3],
        ["demo://departures", "departures", "text/plain"],
        "{text}"
    );
    let (code, read) = json(&["read", "demo://timetable"], server);
    assert_eq!(code, 0, "{read:#}");
    assert!(
        read["response"]["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("LH123")
    );
    let saved = std::env::temp_dir().join(format!("sightline-logo-{}.png", std::process::id()));
    let saved_path = saved.to_string_lossy().into_owned();
    let (code, read) = json(&["read", "demo://logo.png", "--save", &saved_path], server);
    assert_eq!(code, 0, "{read:#}");
    assert_eq!(read["saved"]["bytes"], 70, "{read:#}");
    let bytes = std::fs::read(&saved).unwrap();
    assert!(bytes.starts_with(b"\x89PNG"), "{bytes:?}");
    let _ = std::fs::remove_file(&saved);
    let text = sightline(&["read", "demo://logo.png"], server);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("demo://logo.png · image/png · blob, 70 bytes decoded"),
        "{text}"
    );
    let (code, read) = json(&["read", "flights://BA456"], server);
    assert_eq!(code, 0, "{read:#}");
    // Not found: -32002 up to 2025-11-25, -32602 since.
    let (code, missing) = json(&["read", "flights://XX000"], server);
    let expected = if modern { -32602 } else { -32002 };
    assert_eq!(
        (code, &missing["outcome"]["code"]),
        (3, &json!(expected)),
        "{missing:#}"
    );
    let (code, prompts) = json(&["prompts"], server);
    assert_eq!(code, 0, "{prompts:#}");
    let (code, got) = json(
        &["prompt", "plan_trip", r#"{"destination":"Lisbon"}"#],
        server,
    );
    assert_eq!(code, 0, "{got:#}");
    let text = sightline(
        &["prompt", "review_booking", r#"{"flightNumber":"LH123"}"#],
        server,
    );
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("── user · resource · flights://LH123 · application/json"),
        "{text}"
    );
    let (code, missing) = json(&["prompt", "plan_trip"], server);
    assert_eq!(code, 3, "a missing required argument: {missing:#}");
    Counts {
        resources: listing["resources"].as_array().unwrap().len(),
        templates: listing["resource_templates"].as_array().unwrap().len(),
        prompts: prompts["prompts"].as_array().unwrap().len(),
    }
}

#[test]
fn a_failure_to_connect_still_prints_one_json_object() {
    for command in [
        &["resources"][..],
        &["read", "demo://timetable"],
        &["prompts"],
        &["prompt", "p"],
        &["ping"],
        &["request", "ping"],
    ] {
        let (code, out) = json(command, &["--".to_owned(), "/bin/false".to_owned()]);
        assert_eq!(code, 4, "{command:?}: {out:#}");
        assert_eq!(out["outcome"]["class"], "transport_failure", "{out:#}");
    }
}
