//! `sightline proxy install | uninstall | print` through the real binary, on copies of each
//! host's config file (tests/fixtures/host-configs/) in a scratch HOME: the round trip gives
//! the file back byte for byte, nothing is written unconfirmed, and what is refused is.
#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

/// A scratch directory with an empty HOME in it, removed at the end.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "sightline-proxy-install-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("home")).unwrap();
        // The path as the kernel reports it, as the current directory reads.
        let dir = std::fs::canonicalize(&dir).unwrap();
        Self { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    /// The fixture copied to `at` (under the scratch directory), mode 0600 like the hosts'.
    fn copy(&self, fixture: &str, at: &str) -> PathBuf {
        let path = self.dir.join(at);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, fixture_text(fixture)).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        path
    }

    /// `sightline proxy ARGS…` here, HOME the scratch one, stdin not a terminal.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .arg("proxy")
            .args(args)
            .current_dir(&self.dir)
            .env("HOME", self.home())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn fixture_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/host-configs")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn succeeded(output: &Output) {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        stdout(output),
        stderr(output)
    );
}

fn backup(path: &Path) -> PathBuf {
    let mut backup = path.as_os_str().to_owned();
    backup.push(".sightline-backup");
    PathBuf::from(backup)
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Each host's file, the servers key, and one stdio server in it.
const HOSTS: &[(&str, &str, &str, &str)] = &[
    (
        "claude-code",
        "claude-code.json",
        "mcpServers",
        "filesystem",
    ),
    (
        "claude-desktop",
        "claude-desktop.json",
        "mcpServers",
        "weather",
    ),
    (
        "claude-desktop",
        "claude-desktop.json",
        "mcpServers",
        "sqlite",
    ),
    ("cursor", "cursor.json", "mcpServers", "browser"),
    ("vscode", "vscode.json", "servers", "playwright"),
    ("gemini-cli", "gemini-cli.json", "mcpServers", "everything"),
];

#[test]
fn install_then_uninstall_gives_each_host_s_file_back_byte_for_byte() {
    for &(host, fixture, key, server) in HOSTS {
        let scratch = Scratch::new(&format!("round-trip-{host}-{server}"));
        let file = scratch.copy(fixture, "config.json");
        let original = read(&file);
        let config = file.to_str().unwrap();
        let record = scratch.dir.join("calls.jsonl");
        succeeded(&scratch.run(&[
            "install",
            "--host",
            host,
            "--server",
            server,
            "--config",
            config,
            "--yes",
            "--record",
            record.to_str().unwrap(),
        ]));

        let installed = read(&file);
        let before: Value = serde_json::from_str(&original).unwrap();
        let mut after: Value = serde_json::from_str(&installed).unwrap();
        let entry = after[key][server].clone();
        let exe = std::fs::canonicalize(BIN).unwrap();
        assert_eq!(
            std::fs::canonicalize(entry["command"].as_str().unwrap()).unwrap(),
            exe,
            "{host} {server}: {entry}"
        );
        let mut args = vec![
            json!("proxy"),
            json!("--record"),
            json!(record),
            json!("--"),
        ];
        args.push(before[key][server]["command"].clone());
        args.extend(
            before[key][server]["args"]
                .as_array()
                .unwrap()
                .iter()
                .cloned(),
        );
        assert_eq!(entry["args"], Value::Array(args), "{host} {server}");
        // Every other member of the entry, and everything else in the file, as it was.
        for (member, value) in before[key][server].as_object().unwrap() {
            if member != "command" && member != "args" {
                assert_eq!(&entry[member], value, "{host} {server}: {member}");
            }
        }
        after[key][server] = before[key][server].clone();
        assert_eq!(after, before, "{host} {server}: only the entry changes");
        assert_eq!(
            read(&backup(&file)),
            original,
            "{host}: the backup is the original"
        );
        assert_eq!(
            mode(&file),
            0o600,
            "{host}: the file's permissions are kept"
        );
        assert_eq!(
            mode(&backup(&file)),
            0o600,
            "{host}: and the backup's are the same"
        );

        succeeded(&scratch.run(&[
            "uninstall",
            "--host",
            host,
            "--server",
            server,
            "--config",
            config,
            "--yes",
        ]));
        assert_eq!(read(&file), original, "{host} {server}: not byte for byte");
        assert!(!backup(&file).exists(), "{host}: the backup is removed");
        assert_eq!(mode(&file), 0o600);
    }
}

#[test]
fn the_host_s_own_file_is_edited_where_the_host_reads_it() {
    for (host, fixture, at) in [
        ("claude-code", "claude-code.json", "home/.claude.json"),
        (
            "claude-desktop",
            "claude-desktop.json",
            "home/.config/Claude/claude_desktop_config.json",
        ),
        ("cursor", "cursor.json", "home/.cursor/mcp.json"),
        ("vscode", "vscode.json", ".vscode/mcp.json"),
        (
            "gemini-cli",
            "gemini-cli.json",
            "home/.gemini/settings.json",
        ),
    ] {
        let scratch = Scratch::new(&format!("default-{host}"));
        let file = scratch.copy(fixture, at);
        let original = read(&file);
        let text: Value = serde_json::from_str(&original).unwrap();
        let servers = text.get("mcpServers").or(text.get("servers")).unwrap();
        let server = servers
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, entry)| entry.get("command").is_some())
            .unwrap()
            .0
            .clone();
        succeeded(&scratch.run(&["install", "--host", host, "--server", &server, "--yes"]));
        assert_ne!(read(&file), original, "{host}: {at} was not edited");
        assert!(read(&file).contains("\"proxy\""), "{host}");
        succeeded(&scratch.run(&["uninstall", "--host", host, "--server", &server, "--yes"]));
        assert_eq!(read(&file), original, "{host}");
    }
}

#[test]
fn claude_code_s_project_entry_for_the_current_directory_is_used_when_only_there() {
    let scratch = Scratch::new("claude-code-project");
    let text = fixture_text("claude-code.json")
        .replace("/home/dev/src/app", scratch.dir.to_str().unwrap());
    let file = scratch.home().join(".claude.json");
    std::fs::write(&file, &text).unwrap();
    let install = scratch.run(&[
        "install",
        "--host",
        "claude-code",
        "--server",
        "project-db",
        "--yes",
    ]);
    succeeded(&install);
    let after: Value = serde_json::from_str(&read(&file)).unwrap();
    let project = &after["projects"][scratch.dir.to_str().unwrap()]["mcpServers"]["project-db"];
    assert_eq!(project["args"][0], "proxy", "{project}");
    assert_eq!(project["args"][2], "uv", "{project}");
    assert!(after["mcpServers"].get("project-db").is_none());
    succeeded(&scratch.run(&[
        "uninstall",
        "--host",
        "claude-code",
        "--server",
        "project-db",
        "--yes",
    ]));
    assert_eq!(read(&file), text);

    // From another directory, the project's server is not there; the error lists what is.
    let elsewhere = Command::new(BIN)
        .args([
            "proxy",
            "install",
            "--host",
            "claude-code",
            "--server",
            "project-db",
            "--yes",
        ])
        .current_dir(scratch.home())
        .env("HOME", scratch.home())
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    assert!(!elsewhere.status.success());
    assert!(
        stderr(&elsewhere)
            .contains("no server named 'project-db' (it has: github, filesystem, linear)"),
        "{}",
        stderr(&elsewhere)
    );
    assert_eq!(read(&file), text);
}

#[test]
fn nothing_is_written_without_confirmation() {
    let scratch = Scratch::new("unconfirmed");
    let file = scratch.copy("cursor.json", "mcp.json");
    let original = read(&file);
    let config = file.to_str().unwrap();
    for answer in [None, Some("n\n"), Some("y\n")] {
        let mut child = Command::new(BIN)
            .args([
                "proxy", "install", "--host", "cursor", "--server", "postgres", "--config", config,
            ])
            .env("HOME", scratch.home())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if let Some(answer) = answer {
            use std::io::Write;
            let _ = stdin.write_all(answer.as_bytes());
        }
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        // Piped, stdin is no terminal: even "y" is not taken from it.
        assert_eq!(
            output.status.code(),
            Some(2),
            "{answer:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("nothing written"),
            "{}",
            stderr(&output)
        );
        assert!(
            stdout(&output).contains("+++"),
            "the diff is shown all the same"
        );
        assert_eq!(read(&file), original, "{answer:?}: the file was written");
        assert!(!backup(&file).exists(), "{answer:?}: a backup was written");
    }
    // Nor for uninstall.
    succeeded(&scratch.run(&[
        "install", "--host", "cursor", "--server", "postgres", "--config", config, "--yes",
    ]));
    let installed = read(&file);
    let refused = scratch.run(&[
        "uninstall",
        "--host",
        "cursor",
        "--server",
        "postgres",
        "--config",
        config,
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(read(&file), installed);
    assert!(backup(&file).exists());
}

#[test]
fn the_diff_shows_the_entry_s_lines_in_context() {
    let scratch = Scratch::new("diff");
    let file = scratch.copy("cursor.json", "mcp.json");
    let output = scratch.run(&[
        "install", "--host", "cursor", "--server", "browser", "--config", "mcp.json",
    ]);
    let exe = std::fs::canonicalize(BIN).unwrap();
    let diff = stdout(&output)
        .replace(exe.to_str().unwrap(), "<sightline>")
        .replace(BIN, "<sightline>");
    assert_eq!(
        diff,
        r#"--- mcp.json
+++ mcp.json (new)
@@ -5,8 +5,14 @@
       "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/mydb"]
     },
     "browser": {
-      "command": "node",
-      "args": ["/home/dev/tools/browser-mcp/dist/index.js", "--headless"],
+      "command": "<sightline>",
+      "args": [
+        "proxy",
+        "--",
+        "node",
+        "/home/dev/tools/browser-mcp/dist/index.js",
+        "--headless"
+      ],
       "env": {
         "BROWSER_MCP_PORT": "9222",
         "LOG_LEVEL": "info"
"#
    );
    assert_eq!(read(&file), fixture_text("cursor.json"));
}

#[test]
fn what_cannot_be_edited_safely_is_refused_and_left_alone() {
    let scratch = Scratch::new("refused");
    let cursor = scratch.copy("cursor.json", "mcp.json");
    let comments = scratch.copy("vscode-comments.json", "commented.json");
    let broken = scratch.dir.join("broken.json");
    std::fs::write(&broken, "{\"mcpServers\": {").unwrap();
    let cases: &[(&str, &Path, &str, &str)] = &[
        (
            "cursor",
            &cursor,
            "missing",
            "no server named 'missing' (it has: postgres, browser, sentry)",
        ),
        (
            "cursor",
            &cursor,
            "sentry",
            "'sentry' is a remote server (https://mcp.sentry.dev/mcp): install rewrites stdio entries only",
        ),
        (
            "vscode",
            &comments,
            "playwright",
            "has comments, which sightline would lose",
        ),
        ("vscode", &cursor, "postgres", "no `servers` object"),
        ("cursor", &broken, "x", "not JSON at line 1"),
    ];
    for &(host, file, server, said) in cases {
        let original = read(file);
        let output = scratch.run(&[
            "install",
            "--host",
            host,
            "--server",
            server,
            "--config",
            file.to_str().unwrap(),
            "--yes",
        ]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{server}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(said),
            "{server}: {}",
            stderr(&output)
        );
        assert_eq!(read(file), original);
        assert!(!backup(file).exists());
    }

    // A backup that holds another version of the entry is an earlier install's: kept.
    let config = cursor.to_str().unwrap();
    std::fs::write(backup(&cursor), read(&cursor).replace("9222", "9333")).unwrap();
    let stale = read(&backup(&cursor));
    let output = scratch.run(&[
        "install", "--host", "cursor", "--server", "browser", "--config", config, "--yes",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("already exists and holds another version of 'browser'"),
        "{}",
        stderr(&output)
    );
    assert_eq!(read(&cursor), fixture_text("cursor.json"));
    assert_eq!(read(&backup(&cursor)), stale);
}

#[test]
fn an_entry_already_proxied_or_never_proxied_is_left_as_it_is() {
    let scratch = Scratch::new("idempotent");
    let file = scratch.copy("gemini-cli.json", "settings.json");
    let config = file.to_str().unwrap();
    let args = |verb| {
        vec![
            verb,
            "--host",
            "gemini-cli",
            "--server",
            "notes",
            "--config",
            config,
            "--yes",
        ]
    };
    let never = scratch.run(&args("uninstall"));
    succeeded(&never);
    assert!(stderr(&never).contains("does not run through sightline proxy: nothing to change"));
    succeeded(&scratch.run(&args("install")));
    let installed = read(&file);
    let again = scratch.run(&args("install"));
    succeeded(&again);
    assert!(
        stderr(&again).contains("already runs through sightline proxy"),
        "{}",
        stderr(&again)
    );
    assert_eq!(read(&file), installed);
    assert_eq!(read(&backup(&file)), fixture_text("gemini-cli.json"));
}

#[test]
fn several_servers_and_edits_made_since_install_survive_uninstall() {
    let scratch = Scratch::new("several");
    let file = scratch.copy("claude-code.json", ".claude.json");
    let config = file.to_str().unwrap();
    let run = |verb, server| {
        succeeded(&scratch.run(&[
            verb,
            "--host",
            "claude-code",
            "--server",
            server,
            "--config",
            config,
            "--yes",
        ]));
    };
    run("install", "github");
    run("install", "filesystem");
    // The host rewrites its own state meanwhile.
    let edited = read(&file).replace("\"numStartups\": 41", "\"numStartups\": 42");
    std::fs::write(&file, &edited).unwrap();
    run("uninstall", "github");
    assert!(backup(&file).exists(), "filesystem still needs it");
    run("uninstall", "filesystem");
    assert_eq!(
        read(&file),
        fixture_text("claude-code.json").replace("\"numStartups\": 41", "\"numStartups\": 42")
    );
    assert!(!backup(&file).exists());
}

#[test]
fn an_entry_edited_since_install_or_without_a_backup_is_unwrapped() {
    let scratch = Scratch::new("unwrapped");
    let file = scratch.copy("vscode.json", "mcp.json");
    let config = file.to_str().unwrap();
    let run = |verb| {
        let output = scratch.run(&[
            verb,
            "--host",
            "vscode",
            "--server",
            "perplexity",
            "--config",
            config,
            "--yes",
        ]);
        succeeded(&output);
        output
    };
    // Without the backup: unwrapped, which for this file is its text as it was.
    run("install");
    std::fs::remove_file(backup(&file)).unwrap();
    run("uninstall");
    assert_eq!(read(&file), fixture_text("vscode.json"));

    // The entry edited since: unwrapped with the edit, not the backup's version.
    run("install");
    let edited = read(&file).replace(
        "\"${input:perplexity-key}\"",
        "\"${input:perplexity-key}\",\n                \"MODE\": \"fast\"",
    );
    std::fs::write(&file, &edited).unwrap();
    let output = run("uninstall");
    assert!(
        stderr(&output).contains("'perplexity' changed since install"),
        "{}",
        stderr(&output)
    );
    let after: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(after["servers"]["perplexity"]["command"], "npx");
    assert_eq!(
        after["servers"]["perplexity"]["args"],
        json!(["-y", "server-perplexity-ask"])
    );
    assert_eq!(after["servers"]["perplexity"]["env"]["MODE"], "fast");
}

#[test]
fn print_gives_the_entry_to_paste_in_the_host_s_format() {
    let scratch = Scratch::new("print");
    for (host, typed) in [("vscode", true), ("cursor", false), ("claude-code", false)] {
        let output = scratch.run(&[
            "print",
            "--host",
            host,
            "--server",
            "files",
            "--",
            "node",
            "server.js",
        ]);
        succeeded(&output);
        let parsed: Value = serde_json::from_str(&format!("{{{}}}", stdout(&output))).unwrap();
        let entry = &parsed["files"];
        assert_eq!(
            entry["args"],
            json!(["proxy", "--", "node", "server.js"]),
            "{host}"
        );
        assert_eq!(entry.get("type").is_some(), typed, "{host}: {entry}");
        assert_eq!(
            std::fs::canonicalize(entry["command"].as_str().unwrap()).unwrap(),
            std::fs::canonicalize(BIN).unwrap()
        );
    }
    let url = scratch.run(&[
        "print",
        "--host",
        "cursor",
        "--server",
        "r",
        "--url",
        "https://e/mcp",
    ]);
    succeeded(&url);
    let parsed: Value = serde_json::from_str(&format!("{{{}}}", stdout(&url))).unwrap();
    assert_eq!(
        parsed["r"]["args"],
        json!(["proxy", "--url", "https://e/mcp"]),
        "a remote server, reached through the proxy's --url"
    );
}
