//! The two protocol eras: legacy (`initialize` handshake, up to 2025-11-25) and modern
//! (2026-07-28: `server/discover` and per-request `_meta`). Pure decisions, no I/O.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::json::{self, Json};
use super::jsonrpc::{ErrorObject, Reply};

/// Versions of the `initialize` era we accept in reply, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/// The version we offer in `initialize`.
pub const LEGACY_OFFER: &str = LEGACY_VERSIONS[0];
/// Versions of the stateless era we speak, newest first.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// `_meta` keys of the modern era.
/// Why `ping` is not sent to a 2026-07-28 server (headless and the TUI say it alike).
pub const PING_REMOVED: &str = "ping is not sent: 2026-07-28 removed it (changelog, major change \
    5: 'Remove ping, logging/setLevel, and notifications/roots/list_changed'), and this server \
    speaks 2026-07-28";
/// Why `logging/setLevel` is not sent to a 2026-07-28 server.
pub const SET_LEVEL_REMOVED: &str = "logging/setLevel is not sent: 2026-07-28 removed it \
    (changelog, major change 5: 'Remove ping, logging/setLevel, and \
    notifications/roots/list_changed'; a request asks for its own logs in _meta), and this \
    server speaks 2026-07-28";
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// Error codes the 2026-07-28 spec reserves for its own errors.
pub const HEADER_MISMATCH: i64 = -32020;
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Which era a session speaks.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// `initialize` + `notifications/initialized`, versions up to 2025-11-25.
    Legacy,
    /// Stateless 2026-07-28: `server/discover`, `_meta` on every request.
    Modern,
}

/// What the user asked for with `--era`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum EraChoice {
    Legacy,
    Modern,
    /// Probe with `server/discover`, fall back to `initialize` as the versioning rules say.
    #[default]
    Auto,
}

/// Whether a legacy `initialize` reply names a version we support.
pub fn supports_legacy(version: &str) -> bool {
    LEGACY_VERSIONS.contains(&version)
}

/// The `_meta` every modern request carries.
pub fn request_meta(
    version: &str,
    client_info: &Value,
    capabilities: &Value,
) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(META_PROTOCOL_VERSION.into(), version.into());
    meta.insert(META_CLIENT_CAPABILITIES.into(), capabilities.clone());
    meta.insert(META_CLIENT_INFO.into(), client_info.clone());
    meta
}

/// Adds `meta` to a request's params, keeping any `_meta` keys already there.
/// Params that are not an object (a deliberately malformed request) have nowhere to carry
/// `_meta`: they go out exactly as given.
pub fn with_meta(params: Option<Value>, meta: &Map<String, Value>) -> Value {
    let mut params = match params {
        Some(Value::Object(object)) => object,
        None => Map::new(),
        Some(other) => return other,
    };
    let entry = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(existing) = entry {
        for (key, value) in meta {
            existing.insert(key.clone(), value.clone());
        }
    }
    Value::Object(params)
}

/// What a reply to `server/discover` tells the client.
#[derive(Debug, Clone, PartialEq)]
pub enum DiscoverVerdict {
    /// The server speaks the modern era at `version`.
    Modern { version: String },
    /// The server refused the version sent and lists `version`, which we speak too: retry with
    /// it (once: the caller keeps count).
    Retry { version: String },
    /// The server is modern but shares no version with us.
    NoSharedVersion { supported: Vec<String> },
    /// A recognised modern error other than a version mismatch: the server is modern, and failed.
    ModernError(ErrorObject),
    /// Any other error: the server is legacy (the fallback is not keyed to one code).
    Legacy { error: ErrorObject },
    /// A result that is no `DiscoverResult` (`{}` from a server that answers every unknown
    /// method): nothing says the server is modern, so it falls back as a refusal does.
    NotDiscoverResult { why: String },
}

/// Judges a `server/discover` reply to a request made at `requested`.
pub fn judge_discover(reply: &Reply, requested: &str) -> DiscoverVerdict {
    match reply {
        Reply::Result(result) => {
            let supported = match discover_versions(result) {
                Ok(supported) => supported,
                Err(why) => return DiscoverVerdict::NotDiscoverResult { why },
            };
            // A result answers the version we asked for; pick ours if the list says otherwise.
            let version = if supported.iter().any(|v| v == requested) {
                requested.to_owned()
            } else {
                match shared_modern_version(&supported) {
                    Some(version) => version,
                    None => return DiscoverVerdict::NoSharedVersion { supported },
                }
            };
            DiscoverVerdict::Modern { version }
        }
        Reply::Error(error) if error.code == UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = string_list(error.data.as_ref().and_then(|data| data.get("supported")));
            match shared_modern_version(&supported) {
                Some(version) => DiscoverVerdict::Retry { version },
                None => DiscoverVerdict::NoSharedVersion { supported },
            }
        }
        Reply::Error(error)
            if [HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY].contains(&error.code) =>
        {
            DiscoverVerdict::ModernError(error.clone())
        }
        Reply::Error(error) => DiscoverVerdict::Legacy {
            error: error.clone(),
        },
    }
}

/// The `supportedVersions` of a `DiscoverResult` (2026-07-28 `schema.ts`: a required, non-empty
/// list of version strings, beside a `capabilities` object), or why the result is not one.
fn discover_versions(result: &Json) -> Result<Vec<String>, String> {
    let Some(listed) = result.get("supportedVersions") else {
        return Err("it has no supportedVersions".into());
    };
    let Some(items) = listed.elements() else {
        return Err("its supportedVersions is not a list".into());
    };
    let mut versions = Vec::new();
    for item in items {
        match json::string(item) {
            Some(version) => versions.push(version.into_owned()),
            None => return Err("its supportedVersions holds a value that is not a string".into()),
        }
    }
    if versions.is_empty() {
        return Err("its supportedVersions is empty".into());
    }
    if !result.get("capabilities").is_some_and(|c| c.is_object()) {
        return Err("it has no capabilities object".into());
    }
    Ok(versions)
}

fn shared_modern_version(supported: &[String]) -> Option<String> {
    MODERN_VERSIONS
        .iter()
        .find(|ours| supported.iter().any(|s| s == *ours))
        .map(|v| (*v).to_owned())
}

fn string_list(value: Option<Json>) -> Vec<String> {
    let Some(value) = value else {
        return Vec::new();
    };
    value.elements().map_or_else(Vec::new, |items| {
        items
            .filter_map(json::string)
            .map(Cow::into_owned)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn error(code: i64, data: Option<Value>) -> Reply {
        Reply::Error(ErrorObject {
            code,
            message: "m".into(),
            data: data.map(Into::into),
        })
    }

    #[test]
    fn a_discover_result_means_modern() {
        let reply =
            Reply::Result(json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}).into());
        assert_eq!(
            judge_discover(&reply, "2026-07-28"),
            DiscoverVerdict::Modern {
                version: "2026-07-28".into()
            }
        );
    }

    #[test]
    fn a_result_that_is_no_discover_result_is_no_sign_of_a_modern_server() {
        let cases = [
            (json!({}), "it has no supportedVersions"),
            (
                json!({"supportedVersions": "2026-07-28", "capabilities": {}}),
                "its supportedVersions is not a list",
            ),
            (
                json!({"supportedVersions": [], "capabilities": {}}),
                "its supportedVersions is empty",
            ),
            (
                json!({"supportedVersions": [2026], "capabilities": {}}),
                "its supportedVersions holds a value that is not a string",
            ),
            (
                json!({"supportedVersions": ["2026-07-28"]}),
                "it has no capabilities object",
            ),
        ];
        for (result, why) in cases {
            assert_eq!(
                judge_discover(&Reply::Result(result.clone().into()), "2026-07-28"),
                DiscoverVerdict::NotDiscoverResult { why: why.into() },
                "{result}"
            );
        }
    }

    #[test]
    fn unsupported_version_retries_with_a_shared_version_or_gives_up() {
        let data = json!({"supported": ["2027-01-01", "2026-07-28"], "requested": "2099-01-01"});
        assert_eq!(
            judge_discover(&error(-32022, Some(data)), "2099-01-01"),
            DiscoverVerdict::Retry {
                version: "2026-07-28".into()
            }
        );
        let data = json!({"supported": ["2027-01-01"]});
        assert_eq!(
            judge_discover(&error(-32022, Some(data)), "2026-07-28"),
            DiscoverVerdict::NoSharedVersion {
                supported: vec!["2027-01-01".into()]
            }
        );
        // Refused although listed: retried (once, which the client counts), not given up on.
        let data = json!({"supported": ["2026-07-28"]});
        assert_eq!(
            judge_discover(&error(-32022, Some(data)), "2026-07-28"),
            DiscoverVerdict::Retry {
                version: "2026-07-28".into()
            }
        );
    }

    #[test]
    fn any_non_modern_error_means_legacy() {
        for code in [-32601, -32602, -32600, -32603, -32000, 42] {
            assert!(matches!(
                judge_discover(&error(code, None), "2026-07-28"),
                DiscoverVerdict::Legacy { .. }
            ));
        }
        assert!(matches!(
            judge_discover(&error(-32021, None), "2026-07-28"),
            DiscoverVerdict::ModernError(_)
        ));
    }

    #[test]
    fn meta_is_merged_into_params() {
        let meta = request_meta("2026-07-28", &json!({"name": "sightline"}), &json!({}));
        let params = with_meta(
            Some(json!({"name": "t", "_meta": {"progressToken": 3}})),
            &meta,
        );
        assert_eq!(params["_meta"]["progressToken"], 3);
        assert_eq!(params["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(params["_meta"][META_CLIENT_CAPABILITIES], json!({}));
        assert_eq!(
            with_meta(None, &meta)["_meta"][META_CLIENT_INFO]["name"],
            "sightline"
        );
        assert_eq!(with_meta(Some(json!([1, 2])), &meta), json!([1, 2]));
    }

    #[test]
    fn legacy_versions_are_the_four_released_ones() {
        for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
            assert!(supports_legacy(v));
        }
        assert!(!supports_legacy("2026-07-28"));
        assert!(!supports_legacy("1.0"));
    }
}
