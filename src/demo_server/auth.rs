//! `demo-server --http --auth`: the endpoint as an OAuth protected resource, with a small
//! authorization server beside it, so the whole flow runs offline. RFC 9728 metadata at the
//! endpoint's path, RFC 8414 metadata for an issuer with a path (`/auth`), dynamic registration
//! (RFC 7591), the authorization code grant with PKCE S256 only and the `resource` parameter
//! (RFC 8707) checked, refresh tokens. Authorization is granted at once (no login page): the
//! browser's visit is the consent. Tokens start `demo-token-`, so tests can look for leaks.
//! `cancel_booking` needs the scope `bookings:cancel` (a 403 `insufficient_scope` without it);
//! the machine client `demo-machine` (secret `demo-machine-secret`) gets tokens by the client
//! credentials grant;
//! and `--token-uses N` makes each access token good for N requests, to show refreshing.
//! Tokens may be asked for any http(s) resource, and `/auth/introspect` (RFC 7662) tells another
//! resource server what a token is good for, so the authorization server serves servers beside
//! this one (only tokens bound to this `/mcp` are taken here).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{
    AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION, WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};

use super::NAME;
use crate::http_listener::{Body, plain};
use crate::mcp::jsonrpc::Message;
use crate::mcp::oauth::{base64url, s256_challenge};

/// The scope the demo's tools need.
pub const SCOPE: &str = "flights";
/// The machine client the demo knows (client credentials grant).
pub const MACHINE_ID: &str = "demo-machine";
pub const MACHINE_SECRET: &str = "demo-machine-secret";
/// The scope `cancel_booking` needs on top.
pub const CANCEL_SCOPE: &str = "bookings:cancel";
/// How long an access token lives, in seconds.
const TOKEN_SECONDS: u64 = 3600;
/// The largest registration or token request taken.
const MAX_BODY: usize = 64 * 1024;

/// The introspection endpoint: what a token is good for, without spending a use.
const INTROSPECT_PATH: &str = "/auth/introspect";

/// A code handed out by `/auth/authorize`, until it is exchanged.
struct Grant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    resource: String,
    scope: String,
}

/// What a token is good for.
#[derive(Clone)]
struct Access {
    client_id: String,
    resource: String,
    scope: String,
    /// When it dies, in seconds since the Unix epoch.
    expires: u64,
    /// Requests left, with `--token-uses`.
    uses: Option<u32>,
}

impl Access {
    /// Whether the token is neither expired nor spent.
    fn live(&self) -> bool {
        self.expires > now() && self.uses != Some(0)
    }
}

#[derive(Default)]
struct State {
    /// Registered clients and their redirect URIs.
    clients: HashMap<String, Vec<String>>,
    grants: HashMap<String, Grant>,
    tokens: HashMap<String, Access>,
    /// Refresh tokens: the client, resource and scope they renew.
    refresh: HashMap<String, (String, String, String)>,
}

/// The protected resource and its authorization server.
#[derive(Clone)]
pub struct Auth {
    /// `http://HOST:PORT`, no trailing slash.
    origin: String,
    state: Arc<Mutex<State>>,
    token_uses: Option<u32>,
}

impl Auth {
    pub fn new(endpoint: &str, token_uses: Option<u32>) -> Self {
        let origin = endpoint.trim_end_matches("/mcp").to_owned();
        Auth {
            origin,
            state: Arc::default(),
            token_uses,
        }
    }

    fn resource(&self) -> String {
        format!("{}/mcp", self.origin)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// For a message to `/mcp`: `None` when its token is live and has the scope the message
    /// needs, else the 401 (no token, or a dead one) or 403 (too little scope) to send.
    pub fn refuse(&self, headers: &HeaderMap, message: &Message) -> Option<Response<Body>> {
        let given = headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "));
        let metadata = format!("{}/.well-known/oauth-protected-resource/mcp", self.origin);
        let needs_cancel = matches!(message, Message::Request { method, params: Some(params), .. }
            if method == "tools/call"
                && params.get("name").and_then(Value::as_str) == Some("cancel_booking"));
        let access = given.and_then(|token| self.spend(token));
        let scoped = |access: &Access| {
            !needs_cancel || access.scope.split(' ').any(|scope| scope == CANCEL_SCOPE)
        };
        let (status, challenge) = match (given, access) {
            (Some(_), Some(access)) if scoped(&access) => return None,
            (Some(_), Some(_)) => (
                StatusCode::FORBIDDEN,
                format!(
                    r#"Bearer resource_metadata="{metadata}", scope="{SCOPE} {CANCEL_SCOPE}", error="insufficient_scope""#
                ),
            ),
            (Some(_), None) => (
                StatusCode::UNAUTHORIZED,
                format!(
                    r#"Bearer resource_metadata="{metadata}", scope="{SCOPE}", error="invalid_token""#
                ),
            ),
            (None, _) => (
                StatusCode::UNAUTHORIZED,
                format!(r#"Bearer resource_metadata="{metadata}", scope="{SCOPE}""#),
            ),
        };
        let mut response = plain(status, "authorization required");
        if let Ok(value) = HeaderValue::try_from(challenge) {
            response.headers_mut().insert(WWW_AUTHENTICATE, value);
        }
        Some(response)
    }

    /// A token's grant, one use spent, when it is live and for this resource.
    fn spend(&self, token: &str) -> Option<Access> {
        let resource = self.resource();
        let mut state = self.lock();
        let access = state.tokens.get_mut(token)?;
        if access.resource != resource || !access.live() {
            return None;
        }
        if let Some(uses) = &mut access.uses {
            *uses -= 1;
        }
        Some(access.clone())
    }

    /// The metadata and authorization endpoints; `None` for any other path.
    pub async fn serve(&self, request: Request<Incoming>) -> Option<Response<Body>> {
        let path = request.uri().path().to_owned();
        let query = request.uri().query().unwrap_or_default().to_owned();
        let method = request.method().clone();
        Some(match (method, path.as_str()) {
            (
                Method::GET,
                "/.well-known/oauth-protected-resource/mcp"
                | "/.well-known/oauth-protected-resource",
            ) => json(
                StatusCode::OK,
                &json!({
                    "resource": self.resource(),
                    "authorization_servers": [format!("{}/auth", self.origin)],
                    "scopes_supported": [SCOPE, CANCEL_SCOPE],
                    "bearer_methods_supported": ["header"],
                }),
            ),
            (Method::GET, "/.well-known/oauth-authorization-server/auth") => {
                json(StatusCode::OK, &self.server_metadata())
            }
            (Method::POST, "/auth/register") => {
                let body = read(request).await;
                self.register(body.as_deref())
            }
            (Method::GET, "/auth/authorize") => {
                let known = self.client_document(&query).await;
                self.authorize(&query, known)
            }
            (Method::GET, "/clients/sightline.json") => json(StatusCode::OK, &self.document()),
            (Method::POST, "/auth/token") => {
                let headers = request.headers().clone();
                let body = read(request).await.unwrap_or_default();
                self.token(&headers, &body)
            }
            (Method::POST, INTROSPECT_PATH) => {
                let body = read(request).await.unwrap_or_default();
                self.introspect(&body)
            }
            _ => return None,
        })
    }

    fn server_metadata(&self) -> Value {
        let auth = format!("{}/auth", self.origin);
        json!({
            "issuer": auth,
            "authorization_endpoint": format!("{auth}/authorize"),
            "token_endpoint": format!("{auth}/token"),
            "registration_endpoint": format!("{auth}/register"),
            "introspection_endpoint": format!("{}{INTROSPECT_PATH}", self.origin),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"],
            "client_id_metadata_document_supported": true,
            "scopes_supported": [SCOPE, CANCEL_SCOPE],
        })
    }

    /// A sample Client ID Metadata Document, served here for the demo (a real client hosts its
    /// own): loopback redirects on any port (RFC 8252 §7.3).
    fn document(&self) -> Value {
        json!({
            "client_id": format!("{}/clients/sightline.json", self.origin),
            "client_name": "sightline (the demo's sample document)",
            "redirect_uris": ["http://127.0.0.1/callback"],
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        })
    }

    /// For a client id that is a URL: its metadata document's redirect URIs, when the
    /// document is there and names itself by that URL.
    async fn client_document(&self, query: &str) -> Option<Vec<String>> {
        let client_id = url::form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == "client_id")?
            .1
            .into_owned();
        if !client_id.starts_with("https://") && !client_id.starts_with("http://127.0.0.1") {
            return None;
        }
        // One process-wide TLS provider, as the client installs it.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let fetch = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(5))
            .build()
            .ok()?;
        let body = fetch
            .get(&client_id)
            .send()
            .await
            .ok()?
            .bytes()
            .await
            .ok()?;
        let document: Value = serde_json::from_slice(&body).ok()?;
        if document.get("client_id").and_then(Value::as_str) != Some(client_id.as_str()) {
            return None;
        }
        let uris = document.get("redirect_uris")?.as_array()?;
        Some(
            uris.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        )
    }

    /// RFC 7591: a public client with the redirect URIs it names.
    fn register(&self, body: Option<&str>) -> Response<Body> {
        let request: Value = body
            .and_then(|body| serde_json::from_str(body).ok())
            .unwrap_or(Value::Null);
        let uris: Vec<String> = request
            .get("redirect_uris")
            .and_then(Value::as_array)
            .map(|uris| {
                uris.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if uris.is_empty() {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_redirect_uri",
                "redirect_uris is required",
            );
        }
        let client_id = format!("demo-client-{}", random(8));
        self.lock().clients.insert(client_id.clone(), uris.clone());
        eprintln!("{NAME}: registered client {client_id}");
        json(
            StatusCode::CREATED,
            &json!({
                "client_id": client_id,
                "redirect_uris": uris,
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            }),
        )
    }

    /// The authorization endpoint: every parameter checked, then the code, at once.
    fn authorize(&self, query: &str, document: Option<Vec<String>>) -> Response<Body> {
        let params: HashMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        let get = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
        let client_id = get("client_id");
        let redirect_uri = get("redirect_uri");
        let uris = document.or_else(|| self.lock().clients.get(client_id).cloned());
        let registered =
            uris.is_some_and(|uris| uris.iter().any(|uri| same_redirect(uri, redirect_uri)));
        if !registered {
            // Never redirect to a URI not registered for the client (RFC 6749 §4.1.2.1).
            return plain(StatusCode::BAD_REQUEST, "unknown client or redirect_uri");
        }
        let problem = if get("response_type") != "code" {
            Some("unsupported_response_type")
        } else if get("code_challenge_method") != "S256" || get("code_challenge").is_empty() {
            Some("invalid_request")
        } else if !acceptable_resource(get("resource")) {
            Some("invalid_target")
        } else {
            None
        };
        let mut location = url::form_urlencoded::Serializer::new(String::new());
        if let Some(error) = problem {
            location.append_pair("error", error);
        } else {
            let code = format!("demo-code-{}", random(16));
            self.lock().grants.insert(
                code.clone(),
                Grant {
                    client_id: client_id.to_owned(),
                    redirect_uri: redirect_uri.to_owned(),
                    challenge: get("code_challenge").to_owned(),
                    resource: get("resource").to_owned(),
                    scope: granted_scope(get("scope")),
                },
            );
            location.append_pair("code", &code);
        }
        if let Some(state) = params.get("state") {
            location.append_pair("state", state);
        }
        let separator = if redirect_uri.contains('?') { '&' } else { '?' };
        let target = format!("{redirect_uri}{separator}{}", location.finish());
        let mut response = plain(StatusCode::FOUND, "authorized: redirecting");
        if let Ok(value) = HeaderValue::try_from(target) {
            response.headers_mut().insert(LOCATION, value);
        }
        response
    }

    /// The token endpoint: a code (with its verifier, redirect URI and resource) or a refresh
    /// token becomes an access token.
    fn token(&self, headers: &HeaderMap, body: &str) -> Response<Body> {
        let params: HashMap<String, String> = url::form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect();
        let get = |name: &str| params.get(name).map(String::as_str).unwrap_or_default();
        let mut state = self.lock();
        let (client_id, resource, scope) = match get("grant_type") {
            "authorization_code" => {
                let Some(grant) = state.grants.remove(get("code")) else {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "unknown or used code",
                    );
                };
                let wrong = grant.client_id != get("client_id")
                    || grant.redirect_uri != get("redirect_uri")
                    || grant.challenge != s256_challenge(get("code_verifier"))
                    || grant.resource != get("resource");
                if wrong {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "client, redirect_uri, code_verifier or resource does not match the code",
                    );
                }
                (grant.client_id, grant.resource, grant.scope)
            }
            "client_credentials" => {
                if basic_client(headers) != Some((MACHINE_ID.to_owned(), MACHINE_SECRET.to_owned()))
                {
                    return oauth_error(
                        StatusCode::UNAUTHORIZED,
                        "invalid_client",
                        "unknown client or secret",
                    );
                }
                if !acceptable_resource(get("resource")) {
                    return oauth_error(StatusCode::BAD_REQUEST, "invalid_target", "resource");
                }
                (
                    MACHINE_ID.to_owned(),
                    get("resource").to_owned(),
                    granted_scope(get("scope")),
                )
            }
            "refresh_token" => match state.refresh.remove(get("refresh_token")) {
                Some(renewed) => renewed,
                None => {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_grant",
                        "unknown refresh token",
                    );
                }
            },
            _ => {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "unsupported_grant_type",
                    "use authorization_code or refresh_token",
                );
            }
        };
        let access = format!("demo-token-{}", random(24));
        let refresh = format!("demo-refresh-{}", random(24));
        state.tokens.insert(
            access.clone(),
            Access {
                client_id: client_id.clone(),
                resource: resource.clone(),
                scope: scope.clone(),
                expires: now() + TOKEN_SECONDS,
                uses: self.token_uses,
            },
        );
        state
            .refresh
            .insert(refresh.clone(), (client_id, resource, scope.clone()));
        json(
            StatusCode::OK,
            &json!({
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": TOKEN_SECONDS,
                "refresh_token": refresh,
                "scope": scope,
            }),
        )
    }

    /// RFC 7662: what the token of the form's `token` is good for, when it is a live access
    /// token (of any resource), else only `{"active": false}`. No use is spent. The demo asks
    /// no client authentication of the resource server (§2.1 wants some): loopback only.
    fn introspect(&self, body: &str) -> Response<Body> {
        let token = url::form_urlencoded::parse(body.as_bytes())
            .find(|(name, _)| name == "token")
            .map(|(_, token)| token.into_owned())
            .unwrap_or_default();
        let access = self.lock().tokens.get(&token).cloned();
        let answer = match access.filter(Access::live) {
            Some(access) => json!({
                "active": true,
                "client_id": access.client_id,
                "scope": access.scope,
                "aud": access.resource,
                "resource": access.resource,
                "iss": format!("{}/auth", self.origin),
                "token_type": "Bearer",
                "exp": access.expires,
            }),
            None => json!({"active": false}),
        };
        json(StatusCode::OK, &answer)
    }
}

/// Whether a token may be asked for this resource (RFC 8707 §2): an absolute http(s) URL
/// without a fragment. Any server's, not only this one's; `refuse` takes only its own.
fn acceptable_resource(resource: &str) -> bool {
    url::Url::parse(resource).is_ok_and(|url| {
        matches!(url.scheme(), "http" | "https")
            && url.host_str().is_some()
            && url.fragment().is_none()
    })
}

/// Seconds since the Unix epoch.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// Whether a redirect URI is the registered one; for loopback, whatever the port (RFC 8252
/// §7.3: a native client listens on a port it gets from the system).
fn same_redirect(registered: &str, given: &str) -> bool {
    let (Ok(registered), Ok(given)) = (url::Url::parse(registered), url::Url::parse(given)) else {
        return false;
    };
    let loopback = registered.host_str() == Some("127.0.0.1");
    registered.scheme() == given.scheme()
        && registered.host_str() == given.host_str()
        && registered.path() == given.path()
        && (loopback || registered.port() == given.port())
}

/// The client of a `Basic` `Authorization` header, and its secret.
fn basic_client(headers: &HeaderMap) -> Option<(String, String)> {
    use base64::Engine;
    let encoded = headers
        .get(AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Basic ")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    let (id, secret) = std::str::from_utf8(&decoded).ok()?.split_once(':')?;
    Some((id.to_owned(), secret.to_owned()))
}

/// The scopes a grant gets: those asked for that the server knows, else the default one.
fn granted_scope(asked: &str) -> String {
    let known: Vec<&str> = asked
        .split_whitespace()
        .filter(|scope| [SCOPE, CANCEL_SCOPE].contains(scope))
        .collect();
    if known.is_empty() {
        SCOPE.to_owned()
    } else {
        known.join(" ")
    }
}

/// `bytes` random bytes as base64url.
fn random(bytes: usize) -> String {
    use ring::rand::SecureRandom;
    let mut buffer = vec![0; bytes];
    // The system's random source does not fail on the platforms we run on; zeros would only
    // make the demo's codes guessable, never wrong.
    let _ = ring::rand::SystemRandom::new().fill(&mut buffer);
    base64url(&buffer)
}

async fn read(request: Request<Incoming>) -> Option<String> {
    let body = Limited::new(request.into_body(), MAX_BODY)
        .collect()
        .await
        .ok()?;
    String::from_utf8(body.to_bytes().to_vec()).ok()
}

fn json(status: StatusCode, value: &Value) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// RFC 6749 §5.2: an error response of the token or registration endpoint.
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response<Body> {
    json(
        status,
        &json!({"error": error, "error_description": description}),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // a panic is a failed test
    use super::*;

    const HERE: &str = "http://127.0.0.1:9/mcp";
    const ELSEWHERE: &str = "http://127.0.0.1:10/mcp";

    /// The JSON of a response of these endpoints (always a full body).
    fn answer(response: Response<Body>) -> Value {
        let body = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(response.into_body().collect())
            .unwrap()
            .to_bytes();
        serde_json::from_slice(&body).unwrap()
    }

    /// A machine client's token for `resource`, or the token endpoint's error.
    fn machine_token(auth: &Auth, resource: &str) -> Value {
        let mut headers = HeaderMap::new();
        let basic = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD
                .encode(format!("{MACHINE_ID}:{MACHINE_SECRET}"))
        };
        headers.insert(
            AUTHORIZATION,
            HeaderValue::try_from(format!("Basic {basic}")).unwrap(),
        );
        let body = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "client_credentials")
            .append_pair("resource", resource)
            .finish();
        answer(auth.token(&headers, &body))
    }

    /// What the introspection endpoint says of `token`.
    fn introspect(auth: &Auth, token: &str) -> Value {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .finish();
        answer(auth.introspect(&body))
    }

    #[test]
    fn introspection_spends_no_use_and_says_when_a_token_is_dead() {
        let auth = Auth::new(HERE, Some(1));
        let token = machine_token(&auth, HERE)["access_token"]
            .as_str()
            .unwrap()
            .to_owned();
        for _ in 0..2 {
            let info = introspect(&auth, &token);
            assert_eq!(info["active"], true, "{info}");
            assert_eq!(info["client_id"], MACHINE_ID);
            assert_eq!(info["scope"], SCOPE);
            assert_eq!(info["aud"], HERE);
            assert_eq!(info["token_type"], "Bearer");
            assert!(info["exp"].as_u64().unwrap() > now());
        }
        assert!(auth.spend(&token).is_some(), "its one use is still there");
        assert_eq!(introspect(&auth, &token), json!({"active": false}));
        assert_eq!(
            introspect(&auth, "demo-token-unknown"),
            json!({"active": false})
        );
    }

    #[test]
    fn tokens_for_other_servers_are_issued_but_not_taken_here() {
        let auth = Auth::new(HERE, None);
        let token = machine_token(&auth, ELSEWHERE)["access_token"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(introspect(&auth, &token)["aud"], ELSEWHERE);
        assert!(auth.spend(&token).is_none(), "bound to another server");
        for wrong in [
            "",
            "urn:example:thing",
            "ftp://127.0.0.1/mcp",
            "http://h/mcp#x",
        ] {
            assert_eq!(
                machine_token(&auth, wrong)["error"],
                "invalid_target",
                "{wrong:?}"
            );
        }
    }
}
