//! OAuth from a 401, the transport's part: discovery, registration, the authorization code
//! with PKCE through the user's browser and a redirect listener on 127.0.0.1, the token. Every
//! request of the flow is an HTTP entry of the log (secrets masked as everywhere), every step a
//! typed fact saying where the flow stands, every requirement a server fails a typed problem.

mod browser;
mod client_auth;
mod dpop;
mod grants;

pub(super) use dpop::proof;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use serde_json::Value;
use url::Url;

use super::poster::Poster;
use super::record::Record;
use super::status::words;
use super::tokens::{OAuthClient, Server, Tokens};
use crate::mcp::dpop::DpopKey;
use crate::mcp::oauth::{self, AuthProblem, AuthStep, Challenge};

/// The largest metadata or token answer read.
const MAX_ANSWER: usize = 256 * 1024;

impl Poster {
    /// Runs the authorization flow for a 401 (or a 403 asking for more scope) whose
    /// `WWW-Authenticate` values are `challenges`; the tokens, or why there are none (said in
    /// words, for the request's failure). `scope` asks for more than the challenge names.
    pub(super) async fn authorize(
        &self,
        challenges: &[String],
        scope: Option<String>,
    ) -> Result<Tokens, String> {
        self.step(AuthStep::Started).await;
        let challenge = oauth::token_challenge(challenges.iter().map(String::as_str));
        if challenges.is_empty() {
            self.problem(AuthProblem::MissingChallenge).await;
        }
        let resource_metadata = self.resource_metadata(challenge.as_ref()).await?;
        let issuer = resource_metadata
            .as_ref()
            .and_then(|metadata| metadata.get("authorization_servers"))
            .and_then(Value::as_array)
            .and_then(|servers| servers.first())
            .and_then(Value::as_str);
        let server = self.authorization_server(issuer).await?;
        // RFC 8707 as the MCP spec asks: the identifier exactly as the protected resource
        // published it (checked to be this server, or its origin), else the canonical URI.
        let resource = resource_metadata
            .as_ref()
            .and_then(|metadata| metadata.get("resource"))
            .and_then(Value::as_str)
            .map_or_else(|| oauth::canonical_resource(&self.url), str::to_owned);
        // A step-up goes back to the authorization server that registered this client: the
        // registration still holds, and a second one would leave the first orphaned.
        let previous = scope
            .as_ref()
            .and_then(|_| {
                self.token
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone()
            })
            .filter(|tokens| !tokens.client.machine && tokens.server.issuer == server.issuer);
        let scope = scope.or_else(|| oauth::scopes(challenge.as_ref(), resource_metadata.as_ref()));
        let key = self
            .dpop_key(&server, challenges, resource_metadata.as_ref())
            .await?;
        let client = self.oauth_client.clone();
        if let (Some(grant), Some(client)) = (self.grant.clone(), client.clone()) {
            let mut tokens = self
                .assertion_grant(&grant, server, client, scope, &resource, key)
                .await?;
            tokens.resource = Some(resource);
            return Ok(tokens);
        }
        if let Some(client) = client.filter(|client| client.machine) {
            return self
                .client_credentials(server, client, scope, resource, key)
                .await;
        }
        let listener = self.listener(previous.as_ref()).await?;
        let port = listener
            .local_addr()
            .map_err(|error| format!("authorization: no port for the redirect: {error}"))?
            .port();
        let redirect = format!("http://127.0.0.1:{port}/callback");
        let client = match previous {
            Some(previous) if self.oauth_client.is_none() => {
                self.step(AuthStep::SameClient {
                    client_id: previous.client.id.clone(),
                })
                .await;
                previous.client
            }
            _ => self.client_for(&server, &redirect).await?,
        };
        let pending = oauth::PendingAuthorization {
            state: oauth::base64url(&random(16)),
            verifier: oauth::base64url(&random(32)),
            issuer: server.issuer.clone(),
            iss_required: server.iss_required,
        };
        let mut authorize = server.authorization_endpoint.clone();
        {
            let mut query = authorize.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.id)
                .append_pair("redirect_uri", &redirect)
                .append_pair("code_challenge", &oauth::s256_challenge(&pending.verifier))
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &pending.state)
                .append_pair("resource", &resource);
            if let Some(scope) = &scope {
                query.append_pair("scope", scope);
            }
        }
        self.open_browser(authorize.as_str()).await;
        let code = self.redirected(&listener, &pending).await?;
        let form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code),
            ("redirect_uri", redirect.clone()),
            ("code_verifier", pending.verifier),
            ("resource", resource.clone()),
        ];
        let mut tokens = self.granted(server, client, scope, form, key).await?;
        tokens.resource = Some(resource);
        tokens.redirect = Some(redirect);
        Ok(tokens)
    }

    /// The token request `form` asks for, as the tokens the flow ends with; bound to `key`
    /// where there is one and the authorization server binds it.
    async fn granted(
        &self,
        server: Server,
        client: OAuthClient,
        scope: Option<String>,
        form: Vec<(&str, String)>,
        key: Option<DpopKey>,
    ) -> Result<Tokens, String> {
        let granted = self.token(&server, &client, form, key.as_ref()).await?;
        let dpop = key.filter(|_| granted.bound);
        self.step(AuthStep::Done).await;
        Ok(Tokens {
            access: granted.access,
            refresh: granted.refresh,
            server,
            client,
            scope,
            redirect: None,
            resource: None,
            dpop,
        })
    }

    /// A machine client's token, by its own credentials (RFC 6749 §4.4).
    async fn client_credentials(
        &self,
        server: Server,
        client: OAuthClient,
        scope: Option<String>,
        resource: String,
        key: Option<DpopKey>,
    ) -> Result<Tokens, String> {
        self.step(AuthStep::MachineClient {
            client_id: client.id.clone(),
        })
        .await;
        let mut form = vec![
            ("grant_type", "client_credentials".to_owned()),
            ("resource", resource.clone()),
        ];
        if let Some(scope) = &scope {
            form.push(("scope", scope.clone()));
        }
        let mut tokens = self.granted(server, client, scope, form, key).await?;
        tokens.resource = Some(resource);
        Ok(tokens)
    }

    /// A refused token's refresh token, exchanged for new tokens (RFC 6749 §6).
    pub(super) async fn refresh(&self, tokens: &Tokens) -> Result<Tokens, String> {
        let refresh = tokens
            .refresh
            .clone()
            .ok_or("authorization: no refresh token")?;
        self.step(AuthStep::Refreshing).await;
        let mut form = vec![
            ("grant_type", "refresh_token".to_owned()),
            ("refresh_token", refresh.clone()),
            (
                "resource",
                tokens
                    .resource
                    .clone()
                    .unwrap_or_else(|| oauth::canonical_resource(&self.url)),
            ),
        ];
        if let Some(scope) = &tokens.scope {
            form.push(("scope", scope.clone()));
        }
        // A bound token's refresh is proven with the same key (RFC 9449 §5).
        let granted = self
            .token(&tokens.server, &tokens.client, form, tokens.dpop.as_ref())
            .await?;
        self.step(AuthStep::Refreshed).await;
        Ok(Tokens {
            access: granted.access,
            // A server that does not rotate refresh tokens keeps the old one valid.
            refresh: granted.refresh.or(Some(refresh)),
            dpop: tokens.dpop.clone().filter(|_| granted.bound),
            ..tokens.clone()
        })
    }

    /// The protected resource metadata, from where the challenge says or the well-known URIs;
    /// its findings noted. Metadata for another resource is refused (RFC 9728 §3.3).
    async fn resource_metadata(
        &self,
        challenge: Option<&Challenge>,
    ) -> Result<Option<Value>, String> {
        for url in oauth::resource_metadata_urls(&self.url, challenge) {
            if let Some(metadata) = self.get_json(&url).await {
                let problems = oauth::protected_resource_problems(&metadata, &self.url, &url);
                for problem in &problems {
                    self.problem(problem.clone()).await;
                }
                if problems.iter().any(AuthProblem::foreign_resource) {
                    return Err("authorization: the protected resource metadata is not for this server: refused (RFC 9728 §3.3)".into());
                }
                return Ok(Some(metadata));
            }
        }
        self.step(AuthStep::NoResourceMetadata).await;
        Ok(None)
    }

    /// The authorization server's endpoints: from its metadata (OAuth, then `OpenID`
    /// discovery), else, for a server without metadata, the 2025-03-26 defaults at its origin.
    /// `issuer` is the identifier the protected resource named, as it wrote it. Metadata that
    /// names another issuer is refused, none of its endpoints used (RFC 8414 §3.3).
    async fn authorization_server(&self, issuer: Option<&str>) -> Result<Server, String> {
        let origin = self.url.origin().ascii_serialization();
        let named = issuer.and_then(|issuer| Url::parse(issuer).ok().map(|url| (issuer, url)));
        let given = named.is_some();
        let (issuer, issuer_url) = match named {
            Some(named) => named,
            None => (origin.as_str(), oauth::at_origin(&self.url)),
        };
        for url in oauth::authorization_server_metadata_urls(&issuer_url) {
            let Some(metadata) = self.get_json(&url).await else {
                continue;
            };
            let problems = oauth::authorization_server_problems(&metadata, issuer);
            for problem in &problems {
                self.problem(problem.clone()).await;
            }
            let said = metadata.get("issuer").and_then(Value::as_str);
            // Only an issuer someone named can be impersonated: the 2025-03-26 fallback has
            // none, just the origin sightline derived, so there the finding stands but the
            // metadata is what there is (and its issuer is what `iss` must then be).
            let foreign = |p: &AuthProblem| matches!(p, AuthProblem::IssuerMismatch { .. });
            if given && problems.iter().any(foreign) {
                return Err(format!(
                    "authorization: the authorization server metadata at {url} names the issuer {said:?}, not {issuer:?} it was looked up for: refused, none of its endpoints used (RFC 8414 §3.3)"
                ));
            }
            if problems.contains(&AuthProblem::NoPkceS256) {
                return Err("authorization: the authorization server does not offer PKCE S256, which MCP clients MUST refuse".into());
            }
            let endpoint = |name: &str| {
                metadata
                    .get(name)
                    .and_then(Value::as_str)
                    .and_then(|url| Url::parse(url).ok())
            };
            let (Some(authorization_endpoint), Some(token_endpoint)) = (
                endpoint("authorization_endpoint"),
                endpoint("token_endpoint"),
            ) else {
                return Err("authorization: the authorization server's metadata names no authorization or token endpoint".into());
            };
            let mut auth_methods = strings(&metadata, "token_endpoint_auth_methods_supported");
            if metadata
                .get("token_endpoint_auth_methods_supported")
                .and_then(Value::as_array)
                .is_none()
            {
                // RFC 8414 §2: the default when the metadata says nothing.
                auth_methods.push("client_secret_basic".to_owned());
            }
            return Ok(Server {
                issuer: said.filter(|_| !given).unwrap_or(issuer).to_owned(),
                iss_required: oauth::iss_supported(&metadata),
                authorization_endpoint,
                token_endpoint,
                registration_endpoint: endpoint("registration_endpoint"),
                auth_methods,
                signing_algs: strings(
                    &metadata,
                    "token_endpoint_auth_signing_alg_values_supported",
                ),
                client_documents: metadata
                    .get("client_id_metadata_document_supported")
                    .and_then(Value::as_bool)
                    == Some(true),
                dpop_offered: crate::mcp::dpop::offered(&metadata),
            });
        }
        let (authorization_endpoint, token_endpoint, registration_endpoint) =
            oauth::legacy_default_endpoints(&self.url);
        self.step(AuthStep::DefaultEndpoints).await;
        Ok(Server {
            issuer: origin,
            iss_required: false,
            authorization_endpoint,
            token_endpoint,
            registration_endpoint: Some(registration_endpoint),
            auth_methods: vec!["none".to_owned()],
            signing_algs: Vec::new(),
            client_documents: false,
            dpop_offered: false,
        })
    }

    /// The client: the one given, else one registered dynamically (RFC 7591).
    async fn client_for(&self, server: &Server, redirect: &str) -> Result<OAuthClient, String> {
        if let Some(client) = &self.oauth_client {
            self.step(AuthStep::GivenClient {
                client_id: client.id.clone(),
            })
            .await;
            return Ok(client.clone());
        }
        if let Some(document) = &self.client_metadata_url {
            if server.client_documents {
                self.step(AuthStep::MetadataDocument {
                    url: document.clone(),
                })
                .await;
                return Ok(OAuthClient {
                    id: document.clone(),
                    secret: None,
                    key: None,
                    machine: false,
                });
            }
            self.step(AuthStep::NoMetadataDocuments).await;
        }
        let Some(registration) = &server.registration_endpoint else {
            return Err("authorization: the server offers no dynamic registration; give a client with --client-id".into());
        };
        let body = oauth::registration_request(redirect);
        let request = self
            .client
            .post(registration.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json")
            .body(body.to_string());
        let (status, answer) = self.send(request).await?;
        let id = answer
            .as_ref()
            .and_then(|answer| answer.get("client_id"))
            .and_then(Value::as_str)
            .filter(|_| status.is_success());
        match id {
            Some(id) => {
                self.step(AuthStep::Registered {
                    client_id: id.to_owned(),
                })
                .await;
                Ok(OAuthClient {
                    machine: false,
                    key: None,
                    id: id.to_owned(),
                    secret: answer
                        .as_ref()
                        .and_then(|answer| answer.get("client_secret"))
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                })
            }
            None => Err(format!(
                "authorization: dynamic registration failed (HTTP {status}); give a client with --client-id"
            )),
        }
    }

    /// The token request, with the client authenticated as the server supports; with a DPoP
    /// proof of `key` where there is one, sent once more with the nonce the server asks for.
    async fn token(
        &self,
        server: &Server,
        client: &OAuthClient,
        form: Vec<(&str, String)>,
        key: Option<&DpopKey>,
    ) -> Result<Granted, String> {
        let mut nonce_asked = false;
        loop {
            let mut form = form.clone();
            let mut request = self
                .client
                .post(server.token_endpoint.clone())
                .header(ACCEPT, "application/json")
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
            if let Some(key) = key {
                request = request.header("DPoP", self.token_proof(key, &server.token_endpoint)?);
            }
            let request = self
                .authenticated(server, client, request, &mut form)
                .await?;
            let body = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(form)
                .finish();
            let (status, headers, answer) = self.send_reading(request.body(body)).await?;
            let said = |name: &str| {
                answer
                    .as_ref()
                    .and_then(|answer| answer.get(name))
                    .and_then(Value::as_str)
            };
            let fresh_nonce =
                key.is_some() && self.keep_nonce(&headers, |nonces| &mut nonces.authorization);
            if let Some(token) = said("access_token").filter(|_| status.is_success()) {
                let bound = key.is_some()
                    && said("token_type")
                        .is_some_and(|kind| kind.eq_ignore_ascii_case(crate::mcp::dpop::SCHEME));
                if key.is_some() && !bound {
                    self.step(AuthStep::DpopNotBound).await;
                }
                return Ok(Granted {
                    access: token.to_owned(),
                    refresh: said("refresh_token").map(str::to_owned),
                    bound,
                });
            }
            let error = said("error").unwrap_or("no access_token");
            if error == crate::mcp::dpop::USE_NONCE && fresh_nonce && !nonce_asked {
                nonce_asked = true;
                self.step(AuthStep::DpopNonce {
                    server: "authorization server".into(),
                })
                .await;
                continue;
            }
            return Err(format!(
                "authorization: the token request failed (HTTP {status}: {error})"
            ));
        }
    }

    /// A GET whose 200 is JSON; `None` otherwise.
    async fn get_json(&self, url: &Url) -> Option<Value> {
        let request = self
            .client
            .get(url.clone())
            .header(ACCEPT, "application/json");
        match self.send(request).await {
            Ok((status, answer)) if status.is_success() => answer,
            _ => None,
        }
    }

    /// Sends one request of the flow, logged as an HTTP entry: its status and JSON answer.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<(reqwest::StatusCode, Option<Value>), String> {
        let (status, _, answer) = self.send_reading(request).await?;
        Ok((status, answer))
    }

    /// As [`Poster::send`], with the response's headers.
    async fn send_reading(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<
        (
            reqwest::StatusCode,
            reqwest::header::HeaderMap,
            Option<Value>,
        ),
        String,
    > {
        let request = request.build().map_err(|error| words(&error))?;
        let mut record = Record::new(&request, None);
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(error) => {
                let reason = words(&error);
                self.emit_http(&mut record, Some(reason.clone())).await;
                return Err(format!("authorization: {reason}"));
            }
        };
        record.response(&response);
        let status = response.status();
        let headers = response.headers().clone();
        let (body, _) = super::status::read_body(response, MAX_ANSWER).await;
        let answer: Option<Value> = serde_json::from_slice(&body).ok();
        let error = (!status.is_success()).then(|| format!("HTTP {status}"));
        // Shown in Detail and kept in transcripts: masked now, so no token is ever kept.
        record.details.body = answer.as_ref().map(crate::mcp::http::masked_json);
        self.emit_http(&mut record, error).await;
        Ok((status, headers, answer))
    }
}

/// What a token request gave.
struct Granted {
    access: String,
    refresh: Option<String>,
    /// The token is bound to the proof's key (`token_type` DPoP).
    bound: bool,
}

/// The `WWW-Authenticate` values of a response.
pub(super) fn challenges(headers: &reqwest::header::HeaderMap) -> Vec<String> {
    headers
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .map(|value: &HeaderValue| String::from_utf8_lossy(value.as_bytes()).into_owned())
        .collect()
}

/// The strings of the metadata's array `name` (none when it is absent or not an array).
fn strings(metadata: &Value, name: &str) -> Vec<String> {
    metadata
        .get(name)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `bytes` random bytes from the system's source (zeros only if it failed, which would make
/// the verifier guessable, never the flow wrong).
fn random(bytes: usize) -> Vec<u8> {
    use ring::rand::SecureRandom;
    let mut buffer = vec![0; bytes];
    let _ = ring::rand::SystemRandom::new().fill(&mut buffer);
    buffer
}
