//! How the client proves itself at the token endpoint, as the authorization server's metadata
//! says it takes it: a `private_key_jwt` assertion signed with its key (RFC 7523 §2.2), its
//! secret by HTTP Basic or in the form (RFC 6749 §2.3.1), or only its id (a public client).

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::RequestBuilder;

use super::random;
use crate::mcp::jwt;
use crate::mcp::oauth::{self, AuthStep};
use crate::transport::http::poster::Poster;
use crate::transport::http::tokens::{OAuthClient, Server};

impl Poster {
    /// `request` and `form` with `client` authenticated for `server`. A key is used where the
    /// metadata lists `private_key_jwt` (and ES256, when it names algorithms); where it does
    /// not, a secret given too is used instead, else the request is refused before anything is
    /// sent: an assertion the server says it does not take would only fail there, less clearly.
    pub(super) async fn authenticated(
        &self,
        server: &Server,
        client: &OAuthClient,
        request: RequestBuilder,
        form: &mut Vec<(&str, String)>,
    ) -> Result<RequestBuilder, String> {
        let supports = |method: &str| server.auth_methods.iter().any(|m| m == method);
        if let Some(path) = &client.key {
            let not_taken = if !supports(jwt::METHOD) {
                Some(format!(
                    "its token_endpoint_auth_methods_supported ({}) does not list private_key_jwt",
                    server.auth_methods.join(", ")
                ))
            } else if !server.signing_algs.is_empty()
                && !server.signing_algs.iter().any(|alg| alg == jwt::ALGORITHM)
            {
                Some(format!(
                    "its token_endpoint_auth_signing_alg_values_supported ({}) does not list ES256, the only algorithm sightline signs with",
                    server.signing_algs.join(", ")
                ))
            } else {
                None
            };
            match not_taken {
                None => {
                    let assertion = assertion(server, client, path)?;
                    self.step(AuthStep::KeyAssertion {
                        client_id: client.id.clone(),
                        audience: server.issuer.clone(),
                    })
                    .await;
                    form.push(("client_id", client.id.clone()));
                    form.push(("client_assertion_type", jwt::ASSERTION_TYPE.to_owned()));
                    form.push(("client_assertion", assertion));
                    return Ok(request);
                }
                Some(reason) if client.secret.is_some() => {
                    self.step(AuthStep::KeyNotUsed { reason }).await;
                }
                Some(reason) => {
                    return Err(format!(
                        "authorization: the authorization server does not take the client key: {reason}; no token request sent (give --client-secret if the client has one)"
                    ));
                }
            }
        }
        Ok(match &client.secret {
            Some(secret) if supports("client_secret_basic") || !supports("client_secret_post") => {
                request.basic_auth(&client.id, Some(secret))
            }
            Some(secret) => {
                form.push(("client_id", client.id.clone()));
                form.push(("client_secret", secret.clone()));
                request
            }
            None => {
                form.push(("client_id", client.id.clone()));
                request
            }
        })
    }
}

/// A fresh assertion for `client` at `server`, signed with the key in the file at `path`
/// (read now, so that the key is in memory only while it signs).
fn assertion(server: &Server, client: &OAuthClient, path: &Path) -> Result<String, String> {
    let shown = path.display();
    let rng = ring::rand::SystemRandom::new();
    let pem = std::fs::read(path)
        .map_err(|error| format!("authorization: cannot read the client key {shown}: {error}"))?;
    let key = jwt::ClientKey::from_pem(&pem, &rng)
        .map_err(|error| format!("authorization: the client key {shown}: {error}"))?;
    // A clock before 1970 would make every assertion expired; the server then says so.
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let claims = jwt::claims(
        &client.id,
        &server.issuer,
        now,
        &oauth::base64url(&random(16)),
    );
    key.assertion(&claims, &rng)
        .map_err(|error| format!("authorization: {error}"))
}
