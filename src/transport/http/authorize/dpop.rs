//! DPoP in the flow (RFC 9449): whether tokens are asked for bound to a key, which key (the
//! user's, the one already bound for this server, or a new one), the proofs of the token
//! requests with the nonce the authorization server gave.

use std::sync::PoisonError;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;
use url::Url;

use super::random;
use crate::mcp::dpop::{self, DpopKey, ProofRequest};
use crate::mcp::oauth::{self, AuthStep};
use crate::transport::http::poster::Poster;
use crate::transport::http::tokens::{DpopChoice, Server};

/// The proof of `key` for a `method` request to `url`, presenting `access_token` where one
/// is, with the server's `nonce` where it gave one; `None` only if signing failed.
pub(in crate::transport::http) fn proof(
    key: &DpopKey,
    method: &str,
    url: &Url,
    access_token: Option<&str>,
    nonce: Option<&str>,
) -> Option<String> {
    let rng = ring::rand::SystemRandom::new();
    let jti = oauth::base64url(&random(16));
    let request = ProofRequest {
        method,
        url,
        access_token,
        nonce,
        now: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs()),
        jti: &jti,
    };
    key.proof(&request, &rng).ok()
}

impl Poster {
    /// The key tokens are to be bound to, or none for Bearer tokens: the user's key; else,
    /// where the authorization server offers DPoP, the resource challenges with `DPoP` or its
    /// metadata requires bound tokens, the key already bound for this server, or a new one.
    pub(super) async fn dpop_key(
        &self,
        server: &Server,
        challenges: &[String],
        resource_metadata: Option<&Value>,
    ) -> Result<Option<DpopKey>, String> {
        let (key, why) = match &self.dpop {
            DpopChoice::Never => return Ok(None),
            DpopChoice::Key(path) => {
                let pem = std::fs::read(path)
                    .map_err(|error| format!("--dpop-key {}: {error}", path.display()))?;
                let key = DpopKey::from_pem(&pem, &ring::rand::SystemRandom::new())
                    .map_err(|error| format!("--dpop-key {}: {error}", path.display()))?;
                (key, format!("the key in {}", path.display()))
            }
            DpopChoice::Auto => {
                let Some(reason) = wanted(server, challenges, resource_metadata) else {
                    return Ok(None);
                };
                let held = self
                    .token
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .as_ref()
                    .and_then(|tokens| tokens.dpop.clone());
                if let Some(key) = held {
                    (
                        key,
                        format!("{reason}; the key already bound for this server"),
                    )
                } else {
                    let key = DpopKey::generate(&ring::rand::SystemRandom::new())
                        .map_err(|error| format!("authorization: {error}"))?;
                    (key, format!("{reason}; a key made for this server"))
                }
            }
        };
        self.step(AuthStep::DpopKey {
            thumbprint: key.thumbprint(),
            why,
        })
        .await;
        Ok(Some(key))
    }

    /// The proof for a token request at `endpoint`.
    pub(super) fn token_proof(&self, key: &DpopKey, endpoint: &Url) -> Result<String, String> {
        let nonce = self
            .dpop_nonces
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .authorization
            .clone();
        proof(key, "POST", endpoint, None, nonce.as_deref())
            .ok_or_else(|| "authorization: signing the DPoP proof failed".to_owned())
    }
}

/// Why tokens are to be bound, when they are.
fn wanted(
    server: &Server,
    challenges: &[String],
    resource_metadata: Option<&Value>,
) -> Option<String> {
    let dpop_challenge = challenges
        .iter()
        .flat_map(|value| oauth::parse_challenges(value))
        .any(|challenge| challenge.scheme.eq_ignore_ascii_case(dpop::SCHEME));
    let required = resource_metadata
        .and_then(|metadata| metadata.get("dpop_bound_access_tokens_required"))
        .and_then(Value::as_bool)
        == Some(true);
    if required {
        Some("the protected resource requires DPoP-bound tokens".into())
    } else if dpop_challenge {
        Some("the server challenges with DPoP".into())
    } else if server.dpop_offered {
        Some("the authorization server offers DPoP with ES256".into())
    } else {
        None
    }
}
