//! What an OAuth flow gives and keeps: the client it authorized as, the tokens and what
//! refreshing them needs, what it learnt of the authorization server, and the `--token-cache`
//! file they are kept in between runs. Secrets never print, not even by `{:?}`.

use url::Url;

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
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("access", &"****")
            .field("client", &self.client)
            .field("scope", &self.scope)
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
