//! Streamable HTTP, the client side: every line a POST to one endpoint; the answer a JSON body or
//! an event stream whose events are lines; an HTTP status without a JSON-RPC body becomes the
//! failure of its request, said in words. Legacy sessions (`Mcp-Session-Id`, the negotiated
//! `MCP-Protocol-Version`) and the modern era's per-request headers are kept here, read from
//! the lines themselves.

mod authorize;
mod deprecated;
mod events;
mod listen;
mod order;
mod params;
mod post;
mod posted;
mod poster;
mod reauthorize;
mod record;
mod resume;
mod session;
mod status;
mod task;
mod tokens;

pub use task::connect;
pub use tokens::{DpopChoice, Enterprise, Grant, JwtSource, OAuthClient, cache as token_cache};

/// A Streamable HTTP endpoint and the headers to send it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpTarget {
    pub url: String,
    /// `-H 'Name: value'`, in order.
    pub headers: Vec<(String, String)>,
    /// The OAuth client to use when the server wants authorization (`--client-id`); without
    /// one, sightline registers itself where the server allows.
    pub client: Option<OAuthClient>,
    /// Where OAuth tokens are kept between runs (`--token-cache`); in memory only without.
    pub token_cache: Option<std::path::PathBuf>,
    /// The URL of sightline's Client ID Metadata Document (`--client-metadata-url`), used as
    /// its client id where the authorization server takes one.
    pub client_metadata_url: Option<String>,
    /// A grant by a JWT issued elsewhere (workload identity, enterprise IdP) instead of the
    /// authorization code flow.
    pub grant: Option<Grant>,
    /// Whether tokens are bound to a key (DPoP).
    pub dpop: DpopChoice,
}

impl HttpTarget {
    /// `http: example.com:8080` — the host, for the status line.
    pub fn display(&self) -> String {
        let host = reqwest::Url::parse(&self.url)
            .ok()
            .and_then(|url| {
                let host = url.host_str()?.to_owned();
                Some(match url.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host,
                })
            })
            .unwrap_or_else(|| self.url.clone());
        format!("http: {host}")
    }
}
