//! The OAuth flags every server-facing command takes: the client, how it gets its tokens (the
//! authorization code, client credentials, a workload's or an enterprise IdP's JWT), DPoP and
//! the token cache; and what they come to for an HTTP target.

use clap::Args;

use crate::transport::http::OAuthClient;
use crate::transport::{DpopChoice, Enterprise, Grant, JwtSource};

/// How sightline authorizes at an HTTP server that answers 401 (flattened into `ServerArgs`).
#[derive(Debug, Clone, Args)]
// A machine client authenticates with its secret, its key, or both (the server picks).
#[command(group(clap::ArgGroup::new("client_auth").args(["client_secret", "client_key"]).multiple(true)))]
pub struct AuthArgs {
    /// With --url: the OAuth client to authorize as when the server answers 401 (without one,
    /// sightline registers itself where the server allows dynamic registration).
    #[arg(long, value_name = "ID", requires = "url")]
    pub client_id: Option<String>,
    /// With --url: keep OAuth tokens in this file (mode 0600) between runs; without it they
    /// live in memory for the run. `sightline auth logout` forgets them.
    #[arg(long, value_name = "FILE", requires = "url")]
    pub token_cache: Option<std::path::PathBuf>,
    /// With --client-id and --client-secret or --client-key: a machine client; its own
    /// credentials get the token (the client credentials grant), no browser.
    #[arg(long, requires = "client_auth")]
    pub client_credentials: bool,
    /// With --url: sightline's Client ID Metadata Document, an HTTPS URL you host, used as its
    /// client id where the authorization server takes one (else it registers itself).
    #[arg(long, value_name = "URL", requires = "url")]
    pub client_metadata_url: Option<String>,
    /// With --client-id: its secret, for a confidential client.
    #[arg(
        long,
        value_name = "SECRET",
        requires = "client_id",
        env = "SIGHTLINE_CLIENT_SECRET",
        hide_env_values = true
    )]
    pub client_secret: Option<String>,
    /// With --client-id: a PEM private key (PKCS#8, EC P-256) to authenticate with by a signed
    /// JWT (`private_key_jwt`, ES256) where the authorization server takes that.
    #[arg(long, value_name = "FILE", requires = "client_id", value_parser = parse_client_key)]
    pub client_key: Option<std::path::PathBuf>,
    /// With --client-id: workload identity federation; the platform's JWT is the grant (RFC
    /// 7523 jwt-bearer), read from this file, or `env:NAME`, each time a token is needed.
    #[arg(long, value_name = "FILE|env:NAME", requires = "client_id", value_parser = parse_jwt_source, conflicts_with_all = ["client_credentials", "id_token"])]
    pub workload_jwt: Option<JwtSource>,
    /// With --client-id: enterprise-managed authorization (cross-app access, SEP-990); the
    /// user's ID token from the enterprise IdP, in this file or `env:NAME`, exchanged there
    /// for an ID-JAG that is the grant at the MCP server's authorization server.
    #[arg(long, value_name = "FILE|env:NAME", requires_all = ["client_id", "idp_token_endpoint", "idp_client_id"], value_parser = parse_jwt_source, conflicts_with = "client_credentials")]
    pub id_token: Option<JwtSource>,
    /// With --id-token: the enterprise IdP's token endpoint (RFC 8693 token exchange).
    #[arg(long, value_name = "URL", requires = "id_token", value_parser = parse_url)]
    pub idp_token_endpoint: Option<reqwest::Url>,
    /// With --id-token: sightline's client id at the enterprise IdP.
    #[arg(long, value_name = "ID", requires = "id_token")]
    pub idp_client_id: Option<String>,
    /// With --idp-client-id: its secret, where the IdP wants one.
    #[arg(
        long,
        value_name = "SECRET",
        requires = "idp_client_id",
        env = "SIGHTLINE_IDP_CLIENT_SECRET",
        hide_env_values = true
    )]
    pub idp_client_secret: Option<String>,
    /// With --url: bind tokens to this key by DPoP (RFC 9449), a PEM private key (PKCS#8, EC
    /// P-256). Without it, a key is made for each server whose authorization server offers DPoP,
    /// and kept with its tokens.
    #[arg(long, value_name = "FILE", requires = "url", value_parser = parse_client_key, conflicts_with = "no_dpop")]
    pub dpop_key: Option<std::path::PathBuf>,
    /// With --url: Bearer tokens only, even where the authorization server offers DPoP.
    #[arg(long, requires = "url")]
    pub no_dpop: bool,
}

impl AuthArgs {
    /// The client given with `--client-id`, if any.
    pub fn client(&self) -> Option<OAuthClient> {
        self.client_id.clone().map(|id| OAuthClient {
            id,
            secret: self.client_secret.clone(),
            key: self.client_key.clone(),
            machine: self.client_credentials,
        })
    }

    /// The grant by a JWT issued elsewhere that the flags ask for, if any.
    pub fn grant(&self) -> Option<Grant> {
        if let Some(assertion) = &self.workload_jwt {
            return Some(Grant::Workload {
                assertion: assertion.clone(),
            });
        }
        let (Some(id_token), Some(token_endpoint), Some(client_id)) = (
            &self.id_token,
            &self.idp_token_endpoint,
            &self.idp_client_id,
        ) else {
            return None;
        };
        Some(Grant::Enterprise(Box::new(Enterprise {
            token_endpoint: token_endpoint.clone(),
            client_id: client_id.clone(),
            client_secret: self.idp_client_secret.clone(),
            id_token: id_token.clone(),
        })))
    }

    /// Whether tokens are bound to a key: the user's, none, or as the servers offer.
    pub fn dpop(&self) -> DpopChoice {
        match (&self.dpop_key, self.no_dpop) {
            (Some(path), _) => DpopChoice::Key(path.clone()),
            (None, true) => DpopChoice::Never,
            (None, false) => DpopChoice::Auto,
        }
    }
}

/// `--client-key FILE`: the file, once it reads as a key sightline signs with (so a wrong one
/// is said at once, not after discovery); it is read again for each token request.
fn parse_client_key(text: &str) -> Result<std::path::PathBuf, String> {
    let pem = std::fs::read(text).map_err(|error| format!("cannot read {text}: {error}"))?;
    crate::mcp::jwt::ClientKey::from_pem(&pem, &ring::rand::SystemRandom::new())?;
    Ok(text.into())
}

fn parse_jwt_source(text: &str) -> Result<JwtSource, String> {
    match JwtSource::parse(text) {
        JwtSource::Env(name) if name.is_empty() => Err("env: needs a variable's name".into()),
        source => Ok(source),
    }
}

fn parse_url(text: &str) -> Result<reqwest::Url, String> {
    let url = reqwest::Url::parse(text).map_err(|error| error.to_string())?;
    if matches!(url.scheme(), "http" | "https") {
        Ok(url)
    } else {
        Err("an http or https URL".into())
    }
}
