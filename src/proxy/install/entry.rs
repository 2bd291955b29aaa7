//! A host's server entry and its proxied form, pure: `{command: C, args: A}` ⇄ `{command:
//! sightline, args: [proxy, OPTIONS…, --, C, A…]}`, every other member kept as it was.

use serde_json::{Map, Value};

/// What an entry runs.
#[derive(Debug, PartialEq, Eq)]
pub enum Kind {
    /// A command over stdio, not (yet) through sightline.
    Stdio,
    /// Already `sightline proxy … -- C A…`.
    Proxied,
    /// A remote server: its address (`url`, Gemini CLI's `httpUrl` or `tcp`).
    Remote(String),
}

/// What `entry` runs, or what is wrong with it.
pub fn kind(entry: &Map<String, Value>) -> Result<Kind, String> {
    if unwrapped(entry).is_some() {
        return Ok(Kind::Proxied);
    }
    let remote_type = matches!(
        entry.get("type").and_then(Value::as_str),
        Some("http" | "sse" | "streamable-http" | "streamableHttp" | "ws")
    );
    let address = ["url", "httpUrl", "tcp"]
        .iter()
        .find_map(|key| entry.get(*key).and_then(Value::as_str));
    match (entry.get("command"), address) {
        (Some(Value::String(_)), _) if !remote_type => Ok(Kind::Stdio),
        (Some(_), _) if !remote_type => Err("`command` must be a string".into()),
        (_, Some(address)) => Ok(Kind::Remote(address.to_owned())),
        _ => Err("neither a `command` nor a `url`".into()),
    }
}

/// `entry` running through `sightline proxy OPTIONS… --`: `args` follows `command` when the
/// entry had none.
pub fn wrap(
    entry: &Map<String, Value>,
    sightline: &str,
    options: &[String],
) -> Result<Map<String, Value>, String> {
    let command = entry
        .get("command")
        .and_then(Value::as_str)
        .ok_or("a stdio server needs a `command`")?;
    let args = match entry.get("args") {
        None => Vec::new(),
        Some(args) => strings(args).ok_or("`args` must be an array of strings")?,
    };
    let proxied: Vec<Value> = ["proxy"]
        .into_iter()
        .chain(options.iter().map(String::as_str))
        .chain(["--", command])
        .chain(args.iter().copied())
        .map(|arg| Value::String(arg.to_owned()))
        .collect();
    let mut out = Map::new();
    for (key, value) in entry {
        match key.as_str() {
            "command" => {
                out.insert(key.clone(), Value::String(sightline.to_owned()));
                if !entry.contains_key("args") {
                    out.insert("args".into(), Value::Array(proxied.clone()));
                }
            }
            "args" => {
                out.insert(key.clone(), Value::Array(proxied.clone()));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(out)
}

/// A proxied entry taken apart.
#[derive(Debug, PartialEq)]
pub struct Unwrapped {
    /// The sightline the host runs.
    pub sightline: String,
    /// The proxy's own options, between `proxy` and `--`.
    pub options: Vec<String>,
    /// The entry as it runs the server itself.
    pub entry: Map<String, Value>,
}

/// `entry` taken apart when it runs `sightline proxy … -- C A…`; `None` otherwise.
pub fn unwrapped(entry: &Map<String, Value>) -> Option<Unwrapped> {
    let sightline = entry.get("command")?.as_str()?;
    let name = sightline.rsplit(['/', '\\']).next().unwrap_or(sightline);
    if !name.starts_with("sightline") {
        return None;
    }
    let args = strings(entry.get("args")?)?;
    let (first, rest) = args.split_first()?;
    if *first != "proxy" {
        return None;
    }
    let dashes = rest.iter().position(|arg| *arg == "--")?;
    let (command, args) = rest[dashes + 1..].split_first()?;
    let mut out = entry.clone();
    out.insert("command".into(), Value::String((*command).to_owned()));
    out.insert(
        "args".into(),
        Value::Array(
            args.iter()
                .map(|arg| Value::String((*arg).to_owned()))
                .collect(),
        ),
    );
    Some(Unwrapped {
        sightline: sightline.to_owned(),
        options: rest[..dashes].iter().map(|arg| (*arg).to_owned()).collect(),
        entry: out,
    })
}

/// The entry that runs `sightline proxy PROXY_ARGS…` (`-- CMD…`, or `--url URL`), as
/// `"NAME": {…}`, two spaces.
pub fn printed(name: &str, sightline: &str, proxy_args: &[String], typed: bool) -> String {
    let mut entry = Map::new();
    if typed {
        entry.insert("type".into(), Value::String("stdio".into()));
    }
    entry.insert("command".into(), Value::String(sightline.to_owned()));
    let args = std::iter::once("proxy")
        .chain(proxy_args.iter().map(String::as_str))
        .map(|arg| Value::String(arg.to_owned()))
        .collect();
    entry.insert("args".into(), Value::Array(args));
    let body = serde_json::to_string_pretty(&Value::Object(entry)).unwrap_or_default();
    format!("{}: {body}", Value::String(name.to_owned()))
}

fn strings(value: &Value) -> Option<Vec<&str>> {
    value.as_array()?.iter().map(Value::as_str).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn wrapping_keeps_every_other_member_in_its_place() {
        let entry = map(json!({
            "type": "stdio", "command": "npx", "args": ["-y", "srv"], "env": {"K": "v"}, "cwd": "/w"
        }));
        let wrapped = wrap(
            &entry,
            "/bin/sightline",
            &["--record".into(), "/t.jsonl".into()],
        );
        let wrapped = wrapped.unwrap();
        assert_eq!(
            Value::Object(wrapped.clone()).to_string(),
            json!({
                "type": "stdio", "command": "/bin/sightline",
                "args": ["proxy", "--record", "/t.jsonl", "--", "npx", "-y", "srv"],
                "env": {"K": "v"}, "cwd": "/w"
            })
            .to_string()
        );
        let back = unwrapped(&wrapped).unwrap();
        assert_eq!(back.entry, entry);
        assert_eq!(back.sightline, "/bin/sightline");
        assert_eq!(back.options, ["--record", "/t.jsonl"]);
        assert_eq!(kind(&wrapped), Ok(Kind::Proxied));
    }

    #[test]
    fn args_follow_the_command_when_there_were_none() {
        let entry = map(json!({"command": "srv", "env": {}}));
        let wrapped = wrap(&entry, "sightline", &[]).unwrap();
        assert_eq!(
            Value::Object(wrapped).to_string(),
            r#"{"command":"sightline","args":["proxy","--","srv"],"env":{}}"#
        );
    }

    #[test]
    fn only_sightline_proxy_with_a_command_after_dashes_is_proxied() {
        for not in [
            json!({"command": "node", "args": ["proxy", "--", "x"]}),
            json!({"command": "/u/sightline", "args": ["call", "--", "x"]}),
            json!({"command": "/u/sightline", "args": ["proxy", "--"]}),
            json!({"command": "/u/sightline", "args": ["proxy", "x"]}),
        ] {
            assert_eq!(unwrapped(&map(not.clone())), None, "{not}");
        }
        let odd = map(json!({"command": "npx", "args": [1]}));
        assert!(wrap(&odd, "s", &[]).is_err());
    }

    #[test]
    fn remote_entries_of_every_host_are_told_apart() {
        for (entry, address) in [
            (json!({"url": "https://e/mcp"}), "https://e/mcp"),
            (
                json!({"type": "http", "url": "https://e/mcp"}),
                "https://e/mcp",
            ),
            (
                json!({"httpUrl": "https://e/mcp", "trust": true}),
                "https://e/mcp",
            ),
            (
                json!({"type": "sse", "url": "https://e/sse"}),
                "https://e/sse",
            ),
        ] {
            assert_eq!(kind(&map(entry)), Ok(Kind::Remote(address.into())));
        }
        assert_eq!(
            kind(&map(json!({"command": "x", "url": "u"}))),
            Ok(Kind::Stdio)
        );
        assert!(kind(&map(json!({"env": {}}))).is_err());
    }

    #[test]
    fn a_printed_entry_is_a_member_to_paste() {
        let printed = printed(
            "files",
            "/bin/sightline",
            &["--".into(), "node".into(), "s.js".into()],
            true,
        );
        let parsed: Value = serde_json::from_str(&format!("{{{printed}}}")).unwrap();
        assert_eq!(
            parsed,
            json!({"files": {"type": "stdio", "command": "/bin/sightline", "args": ["proxy", "--", "node", "s.js"]}})
        );
    }
}
