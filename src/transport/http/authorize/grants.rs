//! Tokens by a JWT someone else issued, no user and no browser (RFC 7523's `jwt-bearer`
//! grant): a workload's platform token (SEP-1933), or the ID-JAG an enterprise IdP gives for
//! the user's ID token (RFC 8693 token exchange, SEP-990). Neither JWT is ever logged.

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::Value;

use crate::mcp::dpop::DpopKey;
use crate::mcp::oauth::AuthStep;
use crate::transport::http::poster::Poster;
use crate::transport::http::tokens::{Enterprise, Grant, OAuthClient, Server, Tokens};

/// RFC 7523 §2.1's grant type.
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 8693 §2.1's grant type.
pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 8693 §3: an `OpenID` Connect ID token.
pub const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
/// SEP-990: the Identity Assertion JWT Authorization Grant.
pub const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

impl Poster {
    /// The tokens `grant` gets from `server` for `client`, for `resource`.
    pub(super) async fn assertion_grant(
        &self,
        grant: &Grant,
        server: Server,
        client: OAuthClient,
        scope: Option<String>,
        resource: &str,
        key: Option<DpopKey>,
    ) -> Result<Tokens, String> {
        let assertion = match grant {
            Grant::Workload { assertion } => {
                let jwt = assertion
                    .read()
                    .map_err(|error| format!("authorization: the workload's JWT: {error}"))?;
                self.step(AuthStep::WorkloadAssertion {
                    source: assertion.to_string(),
                })
                .await;
                jwt
            }
            Grant::Enterprise(enterprise) => {
                self.id_jag(enterprise, &server, scope.as_deref(), resource)
                    .await?
            }
        };
        let mut form = vec![
            ("grant_type", JWT_BEARER.to_owned()),
            ("assertion", assertion),
            ("resource", resource.to_owned()),
        ];
        if let Some(scope) = &scope {
            form.push(("scope", scope.clone()));
        }
        self.granted(server, client, scope, form, key).await
    }

    /// The ID-JAG the enterprise IdP gives for the user's ID token, for `server` (its
    /// audience) and `resource` (SEP-990 §4.3, RFC 8693 §2.1).
    async fn id_jag(
        &self,
        enterprise: &Enterprise,
        server: &Server,
        scope: Option<&str>,
        resource: &str,
    ) -> Result<String, String> {
        let id_token = enterprise
            .id_token
            .read()
            .map_err(|error| format!("authorization: the ID token: {error}"))?;
        self.step(AuthStep::TokenExchange {
            idp: enterprise.token_endpoint.to_string(),
            source: enterprise.id_token.to_string(),
        })
        .await;
        let mut form = vec![
            ("grant_type", TOKEN_EXCHANGE.to_owned()),
            ("requested_token_type", ID_JAG.to_owned()),
            ("audience", server.issuer.clone()),
            ("resource", resource.to_owned()),
            ("subject_token", id_token),
            ("subject_token_type", ID_TOKEN.to_owned()),
        ];
        if let Some(scope) = scope {
            form.push(("scope", scope.to_owned()));
        }
        let mut request = self
            .client
            .post(enterprise.token_endpoint.clone())
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        match &enterprise.client_secret {
            Some(secret) => request = request.basic_auth(&enterprise.client_id, Some(secret)),
            None => form.push(("client_id", enterprise.client_id.clone())),
        }
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let (status, answer) = self.send(request.body(body)).await?;
        let said = |name: &str| {
            answer
                .as_ref()
                .and_then(|answer| answer.get(name))
                .and_then(Value::as_str)
        };
        let Some(jag) = said("access_token").filter(|_| status.is_success()) else {
            let error = said("error").unwrap_or("no access_token");
            return Err(format!(
                "authorization: the enterprise IdP refused the token exchange (HTTP {status}: {error})"
            ));
        };
        if let Some(kind) = said("issued_token_type").filter(|kind| *kind != ID_JAG) {
            return Err(format!(
                "authorization: the enterprise IdP issued a {kind}, not an ID-JAG ({ID_JAG})"
            ));
        }
        self.step(AuthStep::IdJagGranted {
            audience: server.issuer.clone(),
        })
        .await;
        Ok(jag.to_owned())
    }
}
