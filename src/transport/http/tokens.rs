//! What an OAuth flow gives and keeps: the client it authorized as, the tokens and what
//! refreshing them needs, what it learnt of the authorization server, and the `--token-cache`
//! file they are kept in between runs. Secrets never print, not even by `{:?}`.

use url::Url;

use crate::mcp::dpop::DpopKey;

/// A client registered beforehand (`--client-id`, `--client-secret`, `--client-key`).
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OAuthClient {
    pub id: String,
    pub secret: Option<String>,
    /// The PEM file of the key its `private_key_jwt` assertions are signed with: only the
    /// path is kept (in the token cache too), the key read each time it signs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<std::path::PathBuf>,
    /// A machine client (`--client-credentials`): its own credentials get the token, no user
    /// and no browser (the client credentials grant, RFC 6749 §4.4).
    #[serde(default)]
    pub machine: bool,
}

/// Secrets are never printed, not even by `{:?}`.
impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "****"))
            .field("key", &self.key)
            .field("machine", &self.machine)
            .finish()
    }
}

/// Where a JWT the user's platform or identity provider issued is read from, each time it is
/// needed (a workload's token is rotated under it): a file, or an environment variable. Only
/// where it is can print, never the JWT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwtSource {
    File(std::path::PathBuf),
    Env(String),
}

impl JwtSource {
    /// `FILE`, or `env:NAME` for an environment variable.
    pub fn parse(text: &str) -> Self {
        match text.strip_prefix("env:") {
            Some(name) => JwtSource::Env(name.to_owned()),
            None => JwtSource::File(text.into()),
        }
    }

    /// The JWT, trimmed; or why there is none.
    pub fn read(&self) -> Result<String, String> {
        let text = match self {
            JwtSource::File(path) => std::fs::read_to_string(path)
                .map_err(|error| format!("{}: {error}", path.display()))?,
            JwtSource::Env(name) => std::env::var(name)
                .map_err(|_| format!("the environment variable {name} is not set"))?,
        };
        let jwt = text.trim();
        if jwt.split('.').count() != 3 {
            return Err(format!(
                "{self} does not hold a JWT (three dot-separated parts)"
            ));
        }
        Ok(jwt.to_owned())
    }
}

impl std::fmt::Display for JwtSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JwtSource::File(path) => write!(f, "{}", path.display()),
            JwtSource::Env(name) => write!(f, "${name}"),
        }
    }
}

/// A token got without a user or a browser, by a JWT someone else issued (RFC 7523's
/// `jwt-bearer` grant), instead of the authorization code flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Workload identity federation (SEP-1933): the platform's JWT is the grant.
    Workload { assertion: JwtSource },
    /// Enterprise-managed authorization (SEP-990, cross-app access): the user's ID token
    /// exchanged at the enterprise IdP for an ID-JAG (RFC 8693), which is the grant.
    Enterprise(Box<Enterprise>),
}

/// The enterprise identity provider of cross-app access, and the user's ID token from it.
#[derive(Clone, PartialEq, Eq)]
pub struct Enterprise {
    pub token_endpoint: Url,
    /// sightline's client at the IdP (not the one at the MCP server's authorization server).
    pub client_id: String,
    pub client_secret: Option<String>,
    pub id_token: JwtSource,
}

impl std::fmt::Debug for Enterprise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Enterprise")
            .field("token_endpoint", &self.token_endpoint.as_str())
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "****"),
            )
            .field("id_token", &self.id_token)
            .finish()
    }
}

/// Whether tokens are bound to a key by DPoP (RFC 9449).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum DpopChoice {
    /// Where the authorization server offers it (ES256), the resource's challenge is `DPoP`,
    /// or its metadata requires bound tokens; with a key made for the server and kept with its
    /// tokens.
    #[default]
    Auto,
    /// Bearer tokens only (`--no-dpop`).
    Never,
    /// Always, with the user's key (`--dpop-key FILE`).
    Key(std::path::PathBuf),
}

/// What an authorization gave: the access token, and what refreshing it needs.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
pub struct Tokens {
    pub(super) access: String,
    pub(super) refresh: Option<String>,
    pub(super) server: Server,
    pub(super) client: OAuthClient,
    /// The scopes asked for, to keep asking for them.
    pub(super) scope: Option<String>,
    /// The loopback redirect URI the client was registered with, for a step-up to come back
    /// to (a registration is for its redirect URIs).
    #[serde(default)]
    pub(super) redirect: Option<String>,
    /// The `resource` the tokens were asked for (RFC 8707), to refresh them for the same.
    #[serde(default)]
    pub(super) resource: Option<String>,
    /// The key the token is bound to (RFC 9449): sent as `DPoP`, with a proof by this key on
    /// every request. `None`: a Bearer token.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "kept_key")]
    pub(super) dpop: Option<DpopKey>,
}

/// A DPoP key as the token cache keeps it: its PKCS#8 document, base64url (the file is the
/// owner's only, as the refresh token it sits beside).
mod kept_key {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::mcp::dpop::DpopKey;

    // serde's `with` hands the field itself: `&Option<_>`.
    #[allow(clippy::ref_option)]
    pub fn serialize<S: Serializer>(key: &Option<DpopKey>, to: S) -> Result<S::Ok, S::Error> {
        match key {
            Some(key) => to.serialize_some(&crate::mcp::oauth::base64url(key.pkcs8())),
            None => to.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Option<DpopKey>, D::Error> {
        use base64::Engine;
        let Some(text) = Option::<String>::deserialize(from)? else {
            return Ok(None);
        };
        let der = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(text)
            .map_err(serde::de::Error::custom)?;
        DpopKey::from_pkcs8(&der, &ring::rand::SystemRandom::new())
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("access", &"****")
            .field("client", &self.client)
            .field("scope", &self.scope)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

/// What the flow learnt of the authorization server.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Server {
    /// Its issuer identifier, exactly as its metadata gave it (after RFC 8414 §3.3's check),
    /// or the origin the 2025-03-26 defaults are at: what a redirect's `iss` must be.
    #[serde(default)]
    pub(super) issuer: String,
    /// Its metadata advertised `authorization_response_iss_parameter_supported` (RFC 9207).
    #[serde(default)]
    pub(super) iss_required: bool,
    pub(super) authorization_endpoint: Url,
    pub(super) token_endpoint: Url,
    pub(super) registration_endpoint: Option<Url>,
    pub(super) auth_methods: Vec<String>,
    /// Its `token_endpoint_auth_signing_alg_values_supported`: empty when it names none.
    #[serde(default)]
    pub(super) signing_algs: Vec<String>,
    /// It takes a Client ID Metadata Document's URL as a client id.
    #[serde(default)]
    pub(super) client_documents: bool,
    /// It binds tokens to a key whose proofs are ES256 (`dpop_signing_alg_values_supported`).
    #[serde(default)]
    pub(super) dpop_offered: bool,
}

/// `--token-cache FILE`: tokens by the canonical URL of the server they are for, as JSON, the
/// file readable by its owner only. Never part of a transcript.
pub mod cache {
    use std::collections::BTreeMap;
    use std::path::Path;

    use super::Tokens;

    type Entries = BTreeMap<String, Tokens>;

    fn read(path: &Path) -> Entries {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    fn write(path: &Path, entries: &Entries) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let text = serde_json::to_string_pretty(entries).map_err(std::io::Error::other)?;
        let partial = path.with_extension("partial");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&partial)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&partial, path)
    }

    /// The tokens kept for `resource`.
    pub fn load(path: &Path, resource: &str) -> Option<Tokens> {
        read(path).remove(resource)
    }

    /// Keeps `tokens` for `resource`.
    pub fn save(path: &Path, resource: &str, tokens: &Tokens) -> std::io::Result<()> {
        let mut entries = read(path);
        entries.insert(resource.to_owned(), tokens.clone());
        write(path, &entries)
    }

    /// Forgets the tokens for `resource`, or all; how many were forgotten.
    pub fn forget(path: &Path, resource: Option<&str>) -> std::io::Result<usize> {
        let mut entries = read(path);
        let before = entries.len();
        match resource {
            Some(resource) => {
                entries.remove(resource);
            }
            None => entries.clear(),
        }
        write(path, &entries)?;
        Ok(before - entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        let url = |path: &str| Url::parse(&format!("https://as.example{path}")).expect("url");
        Server {
            issuer: "https://as.example".into(),
            iss_required: false,
            authorization_endpoint: url("/authorize"),
            token_endpoint: url("/token"),
            registration_endpoint: None,
            auth_methods: vec!["none".into()],
            signing_algs: Vec::new(),
            client_documents: false,
            dpop_offered: true,
        }
    }

    #[test]
    fn a_bound_token_is_kept_with_its_key_and_neither_prints() {
        let key = DpopKey::generate(&ring::rand::SystemRandom::new()).expect("key");
        let tokens = Tokens {
            access: "at-s3cret".into(),
            refresh: Some("rt-s3cret".into()),
            server: server(),
            client: OAuthClient {
                id: "c".into(),
                secret: None,
                key: None,
                machine: false,
            },
            scope: None,
            redirect: None,
            resource: None,
            dpop: Some(key.clone()),
        };
        let kept = serde_json::to_string(&tokens).expect("json");
        let back: Tokens = serde_json::from_str(&kept).expect("read back");
        let bound = back.dpop.expect("the key kept");
        assert_eq!(bound.thumbprint(), key.thumbprint());
        let shown = format!("{tokens:?}");
        assert!(
            !shown.contains("s3cret")
                && !shown.contains(&crate::mcp::oauth::base64url(key.pkcs8()))
        );
        // A cache written before DPoP reads as Bearer tokens.
        let mut old: serde_json::Value = serde_json::from_str(&kept).expect("json");
        old.as_object_mut().map(|tokens| tokens.remove("dpop"));
        let back: Tokens = serde_json::from_value(old).expect("old cache");
        assert!(back.dpop.is_none());
    }

    #[test]
    fn a_jwt_source_reads_a_jwt_and_says_where_it_looked() {
        let folder = std::env::temp_dir().join(format!("sightline-jwt-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("folder");
        let file = folder.join("token");
        std::fs::write(&file, "aaa.bbb.ccc\n").expect("write");
        assert_eq!(
            JwtSource::parse(file.to_str().unwrap_or_default()).read(),
            Ok("aaa.bbb.ccc".into())
        );
        std::fs::write(&file, "not a jwt").expect("write");
        let wrong = JwtSource::File(file.clone()).read().expect_err("not a JWT");
        assert!(
            wrong.contains("does not hold a JWT") && !wrong.contains("not a jwt"),
            "{wrong}"
        );
        let unset = JwtSource::parse("env:SIGHTLINE_TEST_NO_SUCH_VARIABLE").read();
        assert_eq!(
            unset,
            Err("the environment variable SIGHTLINE_TEST_NO_SUCH_VARIABLE is not set".into())
        );
        assert_eq!(JwtSource::Env("X".into()).to_string(), "$X");
        let _ = std::fs::remove_dir_all(folder);
    }
}
