//! Which host profile a host's `clientInfo` names, as the real hosts send it: each name here was
//! read from the host's own first request by `sightline capture` (tests/hosts.rs checks it on
//! every calibration run), at the version its profile was calibrated against.

use crate::mcp::jsonrpc::Message;

/// `clientInfo.name` → the profile of that host.
const CLIENTS: &[(&str, &str)] = &[
    // Claude Code 2.1.332: {"name":"claude-code","title":"Claude Code","version":"2.1.332",…}
    ("claude-code", "claude-code"),
    // Gemini CLI 0.61.0: {"name":"gemini-cli-mcp-client","version":"0.61.0"}
    ("gemini-cli-mcp-client", "gemini-cli"),
    // Codex 0.171.0: {"name":"codex-mcp-client","title":"Codex","version":"0.171.0"}
    ("codex-mcp-client", "codex"),
    // The Vercel AI SDK (@ai-sdk/mcp 1.0.102), on either API: {"name":"ai-sdk-mcp-client",
    // "version":"1.0.0"}; its default, the Responses API, is the profile.
    ("ai-sdk-mcp-client", "vercel-ai"),
    // opencode 1.18.33: {"name":"opencode","version":"1.18.33"}
    ("opencode", "opencode"),
    // GitHub Copilot CLI 1.0.102: {"name":"copilot-cli","version":"1.0.102"}
    ("copilot-cli", "copilot-cli"),
];

/// `clientInfo.name` prefixes → the profile: hosts that put the server's name in theirs.
const CLIENT_PREFIXES: &[(&str, &str)] = &[
    // Qwen Code 0.24.4: {"name":"qwen-cli-mcp-client-SERVER","version":"0.0.1"}, in either tool
    // mode; its default, tool search, is the profile.
    ("qwen-cli-mcp-client-", "qwen-code"),
];

/// `clientInfo.name`s that say which SDK a host is built on, not which host it is.
const AMBIGUOUS: &[(&str, &str)] = &[(
    "mcp",
    "the Python SDK's default clientInfo, which the OpenAI Agents SDK and LangChain both send",
)];

/// The profile for the host that sent `name`, if a captured profile describes it.
pub fn for_client(name: &str) -> Option<&'static str> {
    CLIENTS
        .iter()
        .find(|(client, _)| *client == name)
        .or_else(|| {
            CLIENT_PREFIXES
                .iter()
                .find(|(prefix, _)| name.starts_with(prefix))
        })
        .map(|(_, profile)| *profile)
}

/// The `clientInfo.name` a host's request carries: in `initialize`, or in a 2026-07-28
/// request's `_meta`.
pub fn client_name(message: &Message) -> Option<&str> {
    let Message::Request { method, params, .. } = message else {
        return None;
    };
    let info = match (method.as_str(), params) {
        ("initialize", Some(params)) => params.get("clientInfo"),
        (_, Some(params)) => params
            .pointer("/_meta")
            .and_then(|meta| meta.get(crate::mcp::era::META_CLIENT_INFO)),
        (_, None) => None,
    };
    info?.get("name")?.as_str()
}

/// Why `name` picks no profile although it is known, if it is.
pub fn ambiguous(name: &str) -> Option<&'static str> {
    AMBIGUOUS
        .iter()
        .find(|(client, _)| *client == name)
        .map(|(_, why)| *why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_profile_is_a_builtin_one() {
        let builtins = super::super::hosts::builtins();
        assert_eq!(for_client("qwen-cli-mcp-client-flights"), Some("qwen-code"));
        for (client, profile) in CLIENTS.iter().chain(CLIENT_PREFIXES) {
            assert!(
                builtins.iter().any(|host| host.name == *profile),
                "{client} names '{profile}', which is no built-in profile"
            );
        }
        assert_eq!(for_client("Visual Studio Code"), None);
        assert!(ambiguous("mcp").is_some());
    }
}
