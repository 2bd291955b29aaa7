//! Server entries of `mcp.json`-style files, pure: `mcpServers` (Claude Desktop, Cursor) and
//! `servers` (VS Code), stdio or HTTP, `${VAR}` and `${env:VAR}` expanded. Every error names the
//! file, the entry and what is wrong.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::transport::http::OAuthClient;
use crate::transport::{
    DpopChoice, Enterprise, Grant, HttpTarget, JwtSource, StdioCommand, Target,
};

/// Where the user's tools keep their server lists, for `--config claude|cursor|vscode`.
pub fn well_known(name: &str, home: &str) -> Option<String> {
    let path = match name {
        "claude" if cfg!(target_os = "macos") => {
            format!("{home}/Library/Application Support/Claude/claude_desktop_config.json")
        }
        "claude" => format!("{home}/.config/Claude/claude_desktop_config.json"),
        "cursor" => format!("{home}/.cursor/mcp.json"),
        "vscode" => ".vscode/mcp.json".to_owned(),
        _ => return None,
    };
    Some(path)
}

/// The server named `wanted` (or the only one) in the file `path` whose text is `text`.
/// `env` answers `${VAR}` lookups.
pub fn select(
    path: &str,
    text: &str,
    wanted: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Target, String> {
    let entries = entries(path, text)?;
    let (name, entry) = chosen(path, &entries, wanted)?;
    target(entry, &|value: &str| expand(value, env))
        .map_err(|problem| format!("{path}: server '{name}': {problem}"))
}

/// The roots the chosen entry lists under `roots` (strings, `${VAR}` expanded): what
/// sightline gives a server's `roots/list` when no `--root` is given. (No client's file
/// format defines roots; an entry may carry them for sightline.)
pub fn roots(
    path: &str,
    text: &str,
    wanted: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<String>, String> {
    let entries = entries(path, text)?;
    let (name, entry) = chosen(path, &entries, wanted)?;
    let Some(roots) = entry.get("roots") else {
        return Ok(Vec::new());
    };
    let wrong = || format!("{path}: server '{name}': `roots` must be a list of URIs");
    roots
        .as_array()
        .ok_or_else(wrong)?
        .iter()
        .map(|root| {
            let root = root.as_str().ok_or_else(wrong)?;
            expand(root, env).map_err(|problem| format!("{path}: server '{name}': {problem}"))
        })
        .collect()
}

/// The entry `wanted` names, or the only one.
fn chosen<'a>(path: &str, entries: &'a [Entry], wanted: Option<&str>) -> Result<&'a Entry, String> {
    let names = || {
        entries
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match wanted {
        Some(wanted) => entries
            .iter()
            .find(|(name, _)| name == wanted)
            .ok_or_else(|| format!("{path}: no server named '{wanted}' (it has: {})", names())),
        None => match entries {
            [only] => Ok(only),
            [] => Err(format!("{path}: no servers in it")),
            _ => Err(format!(
                "{path}: {} servers ({}): pick one with --server NAME",
                entries.len(),
                names()
            )),
        },
    }
}

/// Every entry of the file `path` with what it names (`stdio: node server.js`, `http: host`)
/// or what is wrong with it, in the file's order: the servers the TUI opens.
pub fn choices(
    path: &str,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, String> {
    Ok(entries(path, text)?
        .into_iter()
        .map(|(name, entry)| {
            let described = match target(&entry, &|value: &str| expand(value, env)) {
                Ok(target) => target.describe(),
                Err(problem) => format!("✗ {problem}"),
            };
            (name, described)
        })
        .collect())
}

/// A named server entry, as written.
type Entry = (String, Map<String, Value>);

/// The named entries, in the file's order.
fn entries(path: &str, text: &str) -> Result<Vec<Entry>, String> {
    let root: Value = serde_json::from_str(text).map_err(|error| {
        format!(
            "{path}: not JSON at line {} column {}: {}",
            error.line(),
            error.column(),
            error
                .to_string()
                .split(" at line ")
                .next()
                .unwrap_or_default()
        )
    })?;
    let servers = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .ok_or_else(|| format!("{path}: no `mcpServers` or `servers` object"))?;
    let Value::Object(servers) = servers else {
        return Err(format!("{path}: `mcpServers`/`servers` must be an object"));
    };
    servers
        .iter()
        .map(|(name, entry)| match entry {
            Value::Object(entry) => Ok((name.clone(), entry.clone())),
            _ => Err(format!("{path}: server '{name}' must be an object")),
        })
        .collect()
}

fn target(
    entry: &Map<String, Value>,
    expand: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Target, String> {
    let text = |key: &str| -> Result<Option<String>, String> {
        match entry.get(key) {
            None => Ok(None),
            Some(Value::String(value)) => expand(value).map(Some),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let pairs = |key: &str| -> Result<Vec<(String, String)>, String> {
        match entry.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Object(pairs)) => pairs
                .iter()
                .map(|(name, value)| match value {
                    Value::String(value) => Ok((name.clone(), expand(value)?)),
                    _ => Err(format!("`{key}.{name}` must be a string")),
                })
                .collect(),
            Some(_) => Err(format!("`{key}` must be an object")),
        }
    };
    let kind = text("type")?;
    let http = match kind.as_deref() {
        None => entry.contains_key("url") && !entry.contains_key("command"),
        Some("stdio") => false,
        // `sse`: the deprecated HTTP+SSE transport, reached from its URL by the spec's
        // fallback (a POST refused with 405, then the GET stream and its `endpoint`).
        Some("http" | "streamable-http" | "streamableHttp" | "sse") => true,
        Some(other) => {
            return Err(format!(
                "unknown type '{other}' (stdio, http, streamable-http or sse)"
            ));
        }
    };
    if http {
        let url = text("url")?.ok_or("an HTTP server needs a `url`")?;
        let mut target = HttpTarget {
            url,
            headers: pairs("headers")?,
            client: None,
            token_cache: None,
            client_metadata_url: None,
            grant: None,
            dpop: DpopChoice::Auto,
        };
        if let Some(oauth) = entry.get("oauth") {
            let oauth = oauth.as_object().ok_or("`oauth` must be an object")?;
            authorization(&mut target, oauth, expand)
                .map_err(|problem| format!("`oauth`: {problem}"))?;
        }
        return Ok(Target::Http(target));
    }
    let program = text("command")?.ok_or("a stdio server needs a `command` (or a `url`)")?;
    let args = match entry.get("args") {
        None => Vec::new(),
        Some(Value::Array(args)) => args
            .iter()
            .map(|arg| match arg {
                Value::String(arg) => expand(arg),
                _ => Err("`args` must be strings".to_owned()),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`args` must be an array of strings".into()),
    };
    Ok(Target::Stdio(StdioCommand {
        program,
        args,
        env: pairs("env")?.into_iter().collect::<HashMap<_, _>>(),
        cwd: text("cwd")?,
    }))
}

/// An HTTP entry's `oauth` member (sightline's own, as `roots` is): the client and how it
/// gets its tokens, member for member the flags of the same names (`clientId` is
/// `--client-id`…), every string `${VAR}`-expanded.
fn authorization(
    target: &mut HttpTarget,
    oauth: &Map<String, Value>,
    expand: &dyn Fn(&str) -> Result<String, String>,
) -> Result<(), String> {
    const MEMBERS: [&str; 12] = [
        "clientId",
        "clientSecret",
        "clientKey",
        "clientCredentials",
        "tokenCache",
        "clientMetadataUrl",
        "workloadJwt",
        "idToken",
        "idpTokenEndpoint",
        "idpClientId",
        "idpClientSecret",
        "dpop",
    ];
    if let Some(unknown) = oauth.keys().find(|key| !MEMBERS.contains(&key.as_str())) {
        return Err(format!(
            "unknown member `{unknown}` (known: {})",
            MEMBERS.join(", ")
        ));
    }
    let text = |key: &str| -> Result<Option<String>, String> {
        match oauth.get(key) {
            None => Ok(None),
            Some(Value::String(value)) => expand(value).map(Some),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    };
    let machine = match oauth.get("clientCredentials") {
        None => false,
        Some(Value::Bool(machine)) => *machine,
        Some(_) => return Err("`clientCredentials` must be true or false".into()),
    };
    let needs_client = |what: &str| format!("`{what}` needs a `clientId`");
    let (secret, key) = (text("clientSecret")?, text("clientKey")?);
    // As the flags: what describes a client is refused without the client's id.
    let id = text("clientId")?;
    let given = [
        ("clientSecret", secret.is_some()),
        ("clientKey", key.is_some()),
        ("clientCredentials", machine),
    ];
    if let (None, Some((what, _))) = (&id, given.iter().find(|(_, given)| *given)) {
        return Err(needs_client(what));
    }
    if machine && secret.is_none() && key.is_none() {
        return Err("`clientCredentials` needs a `clientSecret` or a `clientKey`".into());
    }
    target.client = id.map(|id| OAuthClient {
        id,
        machine,
        secret,
        key: key.map(Into::into),
    });
    target.token_cache = text("tokenCache")?.map(Into::into);
    target.client_metadata_url = text("clientMetadataUrl")?;
    if let Some(source) = text("workloadJwt")? {
        target
            .client
            .as_ref()
            .ok_or_else(|| needs_client("workloadJwt"))?;
        target.grant = Some(Grant::Workload {
            assertion: JwtSource::parse(&source),
        });
    }
    if let Some(source) = text("idToken")? {
        target
            .client
            .as_ref()
            .ok_or_else(|| needs_client("idToken"))?;
        let endpoint = text("idpTokenEndpoint")?.ok_or("`idToken` needs an `idpTokenEndpoint`")?;
        let token_endpoint = url::Url::parse(&endpoint)
            .map_err(|error| format!("`idpTokenEndpoint` {endpoint:?}: {error}"))?;
        target.grant = Some(Grant::Enterprise(Box::new(Enterprise {
            token_endpoint,
            client_id: text("idpClientId")?.ok_or("`idToken` needs an `idpClientId`")?,
            client_secret: text("idpClientSecret")?,
            id_token: JwtSource::parse(&source),
        })));
    }
    target.dpop = match oauth.get("dpop") {
        None => DpopChoice::Auto,
        Some(Value::Bool(false)) => DpopChoice::Never,
        Some(Value::String(path)) => DpopChoice::Key(expand(path)?.into()),
        Some(_) => {
            return Err("`dpop` must be false (Bearer tokens only) or a key file's path".into());
        }
    };
    Ok(())
}

/// `${VAR}` and `${env:VAR}` replaced by the variable's value; an undefined one is an error.
fn expand(value: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("'{value}': `${{` without its `}}`"))?;
        let name = after[..end].strip_prefix("env:").unwrap_or(&after[..end]);
        let found = env(name).ok_or_else(|| format!("the variable ${{{name}}} is not set"))?;
        out.push_str(&found);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_http_entry_s_oauth_member_gives_the_client_and_its_grant() {
        let text = r#"{"mcpServers": {"corp": {"url": "https://mcp.example.com/mcp", "oauth": {
            "clientId": "app", "clientSecret": "${TOKEN}", "idToken": "env:ID_TOKEN",
            "idpTokenEndpoint": "https://idp.example.com/token", "idpClientId": "idp-app",
            "dpop": "keys/dpop.pem"}}}}"#;
        let Ok(Target::Http(target)) = pick(text, None) else {
            panic!("an HTTP target");
        };
        let client = target.client.expect("a client");
        assert_eq!(
            (client.id.as_str(), client.secret.as_deref()),
            ("app", Some("s3cret"))
        );
        let Some(Grant::Enterprise(enterprise)) = target.grant else {
            panic!("the enterprise grant");
        };
        assert_eq!(
            enterprise.token_endpoint.as_str(),
            "https://idp.example.com/token"
        );
        assert_eq!(enterprise.client_id, "idp-app");
        assert_eq!(enterprise.id_token, JwtSource::Env("ID_TOKEN".into()));
        assert!(!format!("{enterprise:?}").contains("s3cret"));
        assert_eq!(target.dpop, DpopChoice::Key("keys/dpop.pem".into()));
        let workload = r#"{"mcpServers": {"w": {"url": "https://m.example/mcp", "oauth": {"clientId": "w", "workloadJwt": "/var/run/token", "dpop": false}}}}"#;
        let Ok(Target::Http(target)) = pick(workload, None) else {
            panic!("an HTTP target");
        };
        assert_eq!(
            target.grant,
            Some(Grant::Workload {
                assertion: JwtSource::File("/var/run/token".into())
            })
        );
        assert_eq!(target.dpop, DpopChoice::Never);
    }

    #[test]
    fn a_wrong_oauth_member_is_named() {
        let wrong = |oauth: &str| {
            let text = format!(
                r#"{{"mcpServers": {{"s": {{"url": "https://m.example/mcp", "oauth": {oauth}}}}}}}"#
            );
            pick(&text, None).err().unwrap_or_default()
        };
        assert!(
            wrong(r#"{"clientID": "a"}"#).contains("unknown member `clientID`"),
            "{}",
            wrong(r#"{"clientID": "a"}"#)
        );
        assert!(wrong(r#"{"workloadJwt": "f"}"#).contains("`workloadJwt` needs a `clientId`"));
        assert!(
            wrong(r#"{"clientId": "a", "idToken": "f"}"#).contains("needs an `idpTokenEndpoint`")
        );
        assert!(wrong(r#"{"dpop": true}"#).contains("`dpop` must be false"));
        assert!(wrong(r#"{"clientSecret": "s"}"#).contains("`clientSecret` needs a `clientId`"));
        assert!(
            wrong(r#"{"clientId": "a", "clientCredentials": true}"#)
                .contains("`clientCredentials` needs a `clientSecret` or a `clientKey`")
        );
        assert!(
            wrong(r#"{"clientId": "a", "clientSecret": "${NOPE}"}"#).contains("${NOPE} is not set")
        );
        assert!(wrong("[]").contains("`oauth` must be an object"));
    }

    fn env(name: &str) -> Option<String> {
        (name == "TOKEN").then(|| "s3cret".to_owned())
    }

    fn pick(text: &str, wanted: Option<&str>) -> Result<Target, String> {
        select("mcp.json", text, wanted, &env)
    }

    #[test]
    fn stdio_and_http_entries_of_each_tool() {
        let claude = r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server", "${env:TOKEN}"], "env": {"KEY": "${TOKEN}"}, "cwd": "/tmp"}}}"#;
        let Ok(Target::Stdio(command)) = pick(claude, None) else {
            panic!()
        };
        assert_eq!(command.program, "npx");
        assert_eq!(command.args, ["-y", "server", "s3cret"]);
        assert_eq!(command.env["KEY"], "s3cret");
        assert_eq!(command.cwd.as_deref(), Some("/tmp"));
        let vscode = r#"{"servers": {"a": {"type": "stdio", "command": "x"}, "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}"#;
        let Ok(Target::Http(http)) = pick(vscode, Some("remote")) else {
            panic!()
        };
        assert_eq!(http.url, "https://example.com/mcp");
        assert_eq!(
            http.headers,
            [("Authorization".into(), "Bearer s3cret".into())]
        );
        let cursor = r#"{"mcpServers": {"r": {"url": "http://localhost:3000/mcp"}}}"#;
        assert!(matches!(pick(cursor, None), Ok(Target::Http(_))));
    }

    #[test]
    fn every_error_names_the_file_the_entry_and_the_problem() {
        let cases = [
            (
                "{\n  \"mcpServers\": {,}\n}",
                None,
                "mcp.json: not JSON at line 2 column 18: key must be a string",
            ),
            (
                r#"{"other": {}}"#,
                None,
                "mcp.json: no `mcpServers` or `servers` object",
            ),
            (
                r#"{"mcpServers": {"a": {"args": []}}}"#,
                None,
                "mcp.json: server 'a': a stdio server needs a `command` (or a `url`)",
            ),
            (
                r#"{"mcpServers": {"a": {"type": "ws", "url": "x"}}}"#,
                None,
                "mcp.json: server 'a': unknown type 'ws' (stdio, http, streamable-http or sse)",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x", "env": {"K": "${NOPE}"}}}}"#,
                None,
                "mcp.json: server 'a': the variable ${NOPE} is not set",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#,
                None,
                "mcp.json: 2 servers (a, b): pick one with --server NAME",
            ),
            (
                r#"{"mcpServers": {"a": {"command": "x"}}}"#,
                Some("z"),
                "mcp.json: no server named 'z' (it has: a)",
            ),
        ];
        for (text, wanted, message) in cases {
            assert_eq!(pick(text, wanted).unwrap_err(), message, "{text}");
        }
    }

    #[test]
    fn choices_describe_each_entry_or_say_what_is_wrong() {
        let text = r#"{"servers": {"local": {"command": "node", "args": ["s.js"]}, "remote": {"type": "http", "url": "http://h:8/mcp"}, "broken": {"type": "ws"}}}"#;
        let choices = choices("mcp.json", text, &env).unwrap();
        let expected = [
            ("local", "stdio: node s.js"),
            ("remote", "http: h:8"),
            (
                "broken",
                "✗ unknown type 'ws' (stdio, http, streamable-http or sse)",
            ),
        ];
        assert_eq!(
            choices,
            expected.map(|(name, what)| (name.to_owned(), what.to_owned()))
        );
        assert!(super::choices("mcp.json", "{", &env).is_err());
    }

    #[test]
    fn an_entry_may_list_roots_for_roots_list() {
        let text = r#"{"mcpServers": {"a": {"command": "x", "roots": ["file:///${TOKEN}", "file:///b"]}, "b": {"command": "y"}}}"#;
        let roots = roots("mcp.json", text, Some("a"), &env).unwrap();
        assert_eq!(roots, ["file:///s3cret", "file:///b"]);
        assert!(
            super::roots("mcp.json", text, Some("b"), &env)
                .unwrap()
                .is_empty()
        );
        let bad = r#"{"mcpServers": {"a": {"command": "x", "roots": "file:///a"}}}"#;
        assert_eq!(
            super::roots("mcp.json", bad, None, &env).unwrap_err(),
            "mcp.json: server 'a': `roots` must be a list of URIs"
        );
    }

    #[test]
    fn well_known_paths() {
        assert_eq!(
            well_known("cursor", "/home/u").as_deref(),
            Some("/home/u/.cursor/mcp.json")
        );
        assert_eq!(
            well_known("vscode", "/home/u").as_deref(),
            Some(".vscode/mcp.json")
        );
        assert_eq!(well_known("nope", "/home/u"), None);
    }
}
