//! The facts of an OAuth flow as data, pure: each step the client takes, and each requirement of
//! the spec that a server's part of the flow fails, as the transport reports them and the log
//! keeps them. A step's words are its `Display`; a problem is judged (its finding id, weight and
//! words) in `classify::oauth`, never here.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One fact of an OAuth flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthFact {
    /// Where the flow stands: a step the client took or is about to take.
    Step(AuthStep),
    /// What the server's metadata or answer fails of the spec.
    Problem(AuthProblem),
}

/// A step of the flow. `Display` says it as the log does, after `authorization: `.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum AuthStep {
    /// A 401 (or a 403 asking for scope) starts discovery.
    Started,
    /// A step-up goes back to the authorization server that registered this client.
    SameClient { client_id: String },
    /// A token was granted: the request goes again with it.
    Done,
    /// A machine client asks for its token by its own credentials (RFC 6749 §4.4).
    MachineClient { client_id: String },
    /// A refused token is refreshed (RFC 6749 §6).
    Refreshing,
    /// The refreshed token is in hand: the request goes again.
    Refreshed,
    /// No protected resource metadata: the 2025-03-26 way, the server's own origin.
    NoResourceMetadata,
    /// No authorization server metadata: the 2025-03-26 default endpoints.
    DefaultEndpoints,
    /// The client given with `--client-id` is used.
    GivenClient { client_id: String },
    /// The client is its Client ID Metadata Document, at this URL.
    MetadataDocument { url: String },
    /// The authorization server takes no Client ID Metadata Documents: registering instead.
    NoMetadataDocuments,
    /// Dynamic registration (RFC 7591) gave this client.
    Registered { client_id: String },
    /// The client authenticates with a `private_key_jwt` assertion (RFC 7523 §2.2).
    KeyAssertion { client_id: String, audience: String },
    /// The client key is not taken there, for this reason: the secret is used instead.
    KeyNotUsed { reason: String },
    /// The redirect port of the earlier registration is taken: another port is used.
    PortTaken { port: u16, error: String },
    /// The user is to open this URL (it is opened in a browser where one can be).
    OpenUrl { url: String },
    /// No browser could be opened; the URL is in the log to open by hand.
    NoBrowser { error: String },
    /// A 403 asked for more scope than the token has: a new authorization asks for these.
    StepUp { scope: String },
    /// The token could not be kept in the token cache at this path.
    NotCached { path: String, error: String },
    /// Tokens are asked for bound to this key (RFC 9449), named by its JWK thumbprint.
    DpopKey { thumbprint: String, why: String },
    /// A server wants a nonce in the DPoP proof: the request goes again with the one it gave.
    DpopNonce { server: String },
    /// The authorization server gave a Bearer token for a DPoP proof: it is sent as Bearer.
    DpopNotBound,
    /// A token asked for by the workload's JWT (RFC 7523 `jwt-bearer`, SEP-1933), read here.
    WorkloadAssertion { source: String },
    /// The user's ID token, read here, is exchanged at the enterprise IdP for an ID-JAG
    /// (RFC 8693, SEP-990).
    TokenExchange { idp: String, source: String },
    /// The IdP granted the ID-JAG: it is presented to the authorization server as the grant.
    IdJagGranted { audience: String },
}

/// A requirement of the spec that a server's part of the flow fails. The three the client
/// must act on (a resource or issuer that is not the one asked, no PKCE S256) make it refuse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum AuthProblem {
    /// A 401 without `WWW-Authenticate` (RFC 9110 §15.5.2).
    MissingChallenge,
    /// The protected resource metadata is for another resource (RFC 9728 §3.3).
    ResourceMismatch { said: String, expected: String },
    /// The protected resource metadata names no `resource` (RFC 9728 §2).
    ResourceMissing,
    /// The protected resource metadata names no authorization server.
    NoAuthorizationServer,
    /// The authorization server metadata is for another issuer (RFC 8414 §3.3).
    IssuerMismatch {
        said: Option<String>,
        looked_up: String,
    },
    /// The authorization server does not list PKCE S256.
    NoPkceS256,
}

impl AuthProblem {
    /// Protected resource metadata that is not this server's: the client must not use it.
    pub fn foreign_resource(&self) -> bool {
        matches!(
            self,
            AuthProblem::ResourceMismatch { .. } | AuthProblem::ResourceMissing
        )
    }
}

impl fmt::Display for AuthStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthStep::Started => f.write_str("starting OAuth discovery"),
            AuthStep::SameClient { client_id } => write!(
                f,
                "asking the same authorization server again, as the client {client_id} it registered"
            ),
            AuthStep::Done => f.write_str("done; the request is sent again with the token"),
            AuthStep::MachineClient { client_id } => write!(
                f,
                "asking for a token as the machine client {client_id} (client credentials)"
            ),
            AuthStep::Refreshing => f.write_str("the token was refused; refreshing it"),
            AuthStep::Refreshed => f.write_str("refreshed; the request is sent again"),
            AuthStep::NoResourceMetadata => f.write_str(
                "no protected resource metadata; trying the server's own origin (2025-03-26)",
            ),
            AuthStep::DefaultEndpoints => f.write_str(
                "no authorization server metadata; using the 2025-03-26 default endpoints /authorize, /token, /register",
            ),
            AuthStep::GivenClient { client_id } => write!(f, "using the client given, {client_id}"),
            AuthStep::MetadataDocument { url } => {
                write!(f, "the client is its metadata document, {url}")
            }
            AuthStep::NoMetadataDocuments => f.write_str(
                "the authorization server takes no Client ID Metadata Documents; registering instead",
            ),
            AuthStep::Registered { client_id } => write!(f, "registered as client {client_id}"),
            AuthStep::KeyAssertion {
                client_id,
                audience,
            } => write!(
                f,
                "authenticating as {client_id} with a private_key_jwt assertion (ES256, audience {audience})"
            ),
            AuthStep::KeyNotUsed { reason } => write!(
                f,
                "the client key is not used ({reason}); authenticating with the client secret instead"
            ),
            AuthStep::PortTaken { port, error } => write!(
                f,
                "the registered redirect port {port} is taken ({error}); listening on another"
            ),
            AuthStep::OpenUrl { url } => write!(f, "open this URL to authorize: {url}"),
            AuthStep::NoBrowser { error } => write!(f, "no browser could be opened ({error})"),
            AuthStep::StepUp { scope } => write!(
                f,
                "the token's scope is not enough; asking again for {scope:?}"
            ),
            AuthStep::NotCached { path, error } => {
                write!(f, "the token could not be kept in {path}: {error}")
            }
            AuthStep::DpopKey { thumbprint, why } => write!(
                f,
                "binding the token to the DPoP key {thumbprint} ({why}; RFC 9449)"
            ),
            AuthStep::DpopNonce { server } => write!(
                f,
                "the {server} wants a DPoP nonce; sending the request again with the one it gave"
            ),
            AuthStep::DpopNotBound => f.write_str(
                "the authorization server gave a Bearer token, not a DPoP-bound one; sending it as Bearer",
            ),
            AuthStep::WorkloadAssertion { source } => write!(
                f,
                "asking for a token with the workload's JWT from {source} (jwt-bearer grant, RFC 7523)"
            ),
            AuthStep::TokenExchange { idp, source } => write!(
                f,
                "exchanging the ID token from {source} at the enterprise IdP {idp} for an ID-JAG (RFC 8693)"
            ),
            AuthStep::IdJagGranted { audience } => write!(
                f,
                "the IdP granted an ID-JAG for {audience}; presenting it as the grant (jwt-bearer)"
            ),
        }
    }
}

impl AuthStep {
    /// The step starts a flow, whose HTTP requests are then its steps too.
    pub fn starts_flow(&self) -> bool {
        matches!(self, AuthStep::Started | AuthStep::Refreshing)
    }

    /// The step ends a flow with a token.
    pub fn ends_flow(&self) -> bool {
        matches!(self, AuthStep::Done | AuthStep::Refreshed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_serializes_tagged_and_reads_back() {
        let facts = [
            AuthFact::Step(AuthStep::Started),
            AuthFact::Step(AuthStep::PortTaken {
                port: 4000,
                error: "in use".into(),
            }),
            AuthFact::Problem(AuthProblem::IssuerMismatch {
                said: None,
                looked_up: "https://a.example".into(),
            }),
        ];
        let json = serde_json::to_string(&facts).unwrap();
        assert_eq!(
            json,
            r#"[{"step":{"step":"started"}},{"step":{"step":"port_taken","port":4000,"error":"in use"}},{"problem":{"problem":"issuer_mismatch","said":null,"looked_up":"https://a.example"}}]"#
        );
        let back: Vec<AuthFact> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, facts);
    }

    #[test]
    fn steps_say_where_the_flow_stands_in_the_words_the_log_always_had() {
        assert_eq!(
            AuthStep::StepUp {
                scope: "a b".into()
            }
            .to_string(),
            "the token's scope is not enough; asking again for \"a b\""
        );
        assert!(AuthStep::Refreshing.starts_flow() && AuthStep::Refreshed.ends_flow());
        assert!(!AuthStep::OpenUrl { url: "u".into() }.starts_flow());
    }
}
