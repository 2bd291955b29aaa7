//! OAuth for remote MCP servers, pure: the 401's `WWW-Authenticate` challenge read, the
//! discovery URLs in the order the spec gives (RFC 9728 protected resource metadata, RFC 8414 and
//! `OpenID` discovery), PKCE's S256 challenge, what a server's metadata fails of the spec (the
//! problems the client acts on, as data), and the flow's facts as the log keeps them.

use serde_json::Value;
use url::Url;

mod facts;
mod redirect;

pub use facts::{AuthFact, AuthProblem, AuthStep};
pub use redirect::{PendingAuthorization, iss_supported};

/// One challenge of a `WWW-Authenticate` header: its scheme and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    /// `name=value` pairs, names lower-cased, quoted values unquoted.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// A parameter's value (names are case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// RFC 9728 §5.1: where the protected resource metadata is.
    pub fn resource_metadata(&self) -> Option<&str> {
        self.param("resource_metadata")
    }

    /// RFC 6750 §3: the scopes the request needs.
    pub fn scope(&self) -> Option<&str> {
        self.param("scope")
    }

    /// RFC 6750 §3.1: `invalid_token`, `insufficient_scope`…
    pub fn error(&self) -> Option<&str> {
        self.param("error")
    }
}

/// The challenges of a `WWW-Authenticate` value (RFC 9110 §11.6.1): `Bearer realm="x",
/// scope="a b", Basic realm="y"`. A `token68` is kept as the parameter `""`. Malformed parts
/// are skipped, never a panic.
pub fn parse_challenges(header: &str) -> Vec<Challenge> {
    let mut challenges: Vec<Challenge> = Vec::new();
    let mut rest = header.trim();
    while !rest.is_empty() {
        rest = rest.trim_start_matches([',', ' ', '\t']);
        if rest.is_empty() {
            break;
        }
        let (token, after) = split_token(rest);
        if token.is_empty() {
            // Not a token: skip one character and carry on.
            let mut chars = rest.chars();
            chars.next();
            rest = chars.as_str();
            continue;
        }
        let after_spaces = after.trim_start_matches([' ', '\t']);
        if let Some(value) = after_spaces.strip_prefix('=') {
            // `name=value` belongs to the challenge before it.
            let (value, after_value) = split_value(value.trim_start_matches([' ', '\t']));
            if let Some(challenge) = challenges.last_mut() {
                challenge.params.push((token.to_ascii_lowercase(), value));
            }
            rest = after_value;
        } else {
            challenges.push(Challenge {
                scheme: token.to_owned(),
                params: Vec::new(),
            });
            // A token68 right after the scheme (`Basic dXNlcg==`), unless that is a parameter.
            let (word, after_word) = split_token68(after_spaces);
            if !word.is_empty() && !starts_with_param(after_spaces) {
                if let Some(challenge) = challenges.last_mut() {
                    challenge.params.push((String::new(), word.to_owned()));
                }
                rest = after_word;
            } else {
                rest = after;
            }
        }
    }
    challenges
}

/// The `Bearer` challenge among `WWW-Authenticate` header values, else the `DPoP` one (RFC
/// 9449 §7.1: it carries the same parameters), if any.
pub fn token_challenge<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Challenge> {
    let challenges: Vec<Challenge> = values.into_iter().flat_map(parse_challenges).collect();
    let scheme = |name: &str| {
        challenges
            .iter()
            .find(|challenge| challenge.scheme.eq_ignore_ascii_case(name))
            .cloned()
    };
    scheme("bearer").or_else(|| scheme("dpop"))
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

fn split_token(text: &str) -> (&str, &str) {
    let end = text.find(|c: char| !is_tchar(c)).unwrap_or(text.len());
    text.split_at(end)
}

/// Whether `text` opens with `name=value` (a value: a quoted string or a token).
fn starts_with_param(text: &str) -> bool {
    let (name, after) = split_token(text);
    let Some(value) = after.trim_start_matches([' ', '\t']).strip_prefix('=') else {
        return false;
    };
    let value = value.trim_start_matches([' ', '\t']);
    !name.is_empty() && (value.starts_with('"') || value.starts_with(is_tchar))
}

fn split_token68(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/=".contains(c)))
        .unwrap_or(text.len());
    text.split_at(end)
}

/// A parameter's value: a quoted string (with `\` escapes) or a token; and what follows.
fn split_value(text: &str) -> (String, &str) {
    let Some(quoted) = text.strip_prefix('"') else {
        let (token, rest) = split_token(text);
        return (token.to_owned(), rest);
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &quoted[at + 1..]),
            c => value.push(c),
        }
    }
    // An unterminated string runs to the end.
    (value, "")
}

/// Where to look for the protected resource metadata of the MCP endpoint `server`: the
/// challenge's `resource_metadata` when it names one, else the well-known URI at the endpoint's
/// path, then at the root (2025-11-25 `basic/authorization.mdx`).
pub fn resource_metadata_urls(server: &Url, challenge: Option<&Challenge>) -> Vec<Url> {
    if let Some(named) = challenge
        .and_then(Challenge::resource_metadata)
        .and_then(|url| server.join(url).ok())
    {
        return vec![named];
    }
    let mut urls = Vec::new();
    let path = server.path().trim_end_matches('/');
    if !path.is_empty() {
        urls.push(at_path(
            server,
            &format!("/.well-known/oauth-protected-resource{path}"),
        ));
    }
    urls.push(at_path(server, "/.well-known/oauth-protected-resource"));
    urls
}

/// Where to look for an authorization server's metadata, in the spec's priority order: with a
/// path in the issuer, OAuth path insertion, `OpenID` path insertion, `OpenID` path appending;
/// without, OAuth then `OpenID`.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            "/.well-known/oauth-authorization-server".to_owned(),
            "/.well-known/openid-configuration".to_owned(),
        ]
    } else {
        vec![
            format!("/.well-known/oauth-authorization-server{path}"),
            format!("/.well-known/openid-configuration{path}"),
            format!("{path}/.well-known/openid-configuration"),
        ]
    };
    candidates
        .iter()
        .map(|candidate| at_path(issuer, candidate))
        .collect()
}

/// The 2025-03-26 fallback for a server without protected resource metadata: the MCP server's
/// origin is the authorization server, its endpoints at `/authorize`, `/token`, `/register`.
pub fn legacy_default_endpoints(server: &Url) -> (Url, Url, Url) {
    (
        at_path(server, "/authorize"),
        at_path(server, "/token"),
        at_path(server, "/register"),
    )
}

/// `server`'s origin as a URL: where a server without protected resource metadata has its
/// authorization server (2025-03-26).
pub fn at_origin(server: &Url) -> Url {
    at_path(server, "/")
}

/// `base`'s origin with `path`, no query or fragment.
fn at_path(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// The canonical URI of an MCP server for the `resource` parameter (RFC 8707, as the spec
/// asks): scheme and host lower-case, no fragment, no trailing slash unless that is the path.
pub fn canonical_resource(server: &Url) -> String {
    let mut url = server.clone();
    url.set_fragment(None);
    let text = url.to_string();
    match text.strip_suffix('/') {
        Some(trimmed) if url.path() != "/" => trimmed.to_owned(),
        _ => text,
    }
}

/// PKCE (RFC 7636 §4.2): the S256 challenge of a code verifier, base64url without padding.
pub fn s256_challenge(verifier: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    base64url(digest.as_ref())
}

/// base64url without padding (RFC 4648 §5), as PKCE and tokens use it.
pub fn base64url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// What a protected resource's metadata fails of the spec (RFC 9728 §3.3 and the MCP
/// authorization page): its `resource` is the server the client asked, and it names at least
/// one authorization server. `location` is where it was read: at the origin's well-known URI
/// (no path suffix) the resource identifier that URI was built from is the origin, so the
/// origin is an acceptable `resource` there, and only there. A foreign resource (see
/// [`AuthProblem::foreign_resource`]) makes the client refuse the metadata.
pub fn protected_resource_problems(
    metadata: &Value,
    server: &Url,
    location: &Url,
) -> Vec<AuthProblem> {
    let mut found = Vec::new();
    let expected = canonical_resource(server);
    let at_origin = *location == at_path(server, "/.well-known/oauth-protected-resource");
    let origin = canonical_resource(&at_path(server, "/"));
    match metadata.get("resource").and_then(Value::as_str) {
        Some(resource) if same_resource(resource, &expected) => {}
        Some(resource) if at_origin && same_resource(resource, &origin) => {}
        Some(resource) => found.push(AuthProblem::ResourceMismatch {
            said: resource.to_owned(),
            expected,
        }),
        None => found.push(AuthProblem::ResourceMissing),
    }
    let servers = metadata
        .get("authorization_servers")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if servers == 0 {
        found.push(AuthProblem::NoAuthorizationServer);
    }
    found
}

/// What an authorization server's metadata fails of the spec: its `issuer` is identical to the
/// issuer identifier its well-known URL was built from (RFC 8414 §3.3: a simple string
/// comparison, so a trailing slash or a case difference is a different issuer), and it offers
/// PKCE with S256 (MCP clients MUST refuse one that does not say so).
pub fn authorization_server_problems(metadata: &Value, issuer: &str) -> Vec<AuthProblem> {
    let mut found = Vec::new();
    match metadata.get("issuer").and_then(Value::as_str) {
        Some(said) if said == issuer => {}
        said => found.push(AuthProblem::IssuerMismatch {
            said: said.map(str::to_owned),
            looked_up: issuer.to_owned(),
        }),
    }
    let s256 = metadata
        .get("code_challenge_methods_supported")
        .and_then(Value::as_array)
        .is_some_and(|methods| methods.iter().any(|m| m.as_str() == Some("S256")));
    if !s256 {
        found.push(AuthProblem::NoPkceS256);
    }
    found
}

/// The RFC 7591 registration of a CLI: a public client (no secret it could keep) with a
/// loopback redirect, which SEP-837 and RFC 8252 §8.4 call a native application.
pub fn registration_request(redirect: &str) -> Value {
    serde_json::json!({
        "client_name": "sightline",
        "application_type": "native",
        "redirect_uris": [redirect],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// The scopes to ask for: the challenge's (authoritative for this request), else the
/// resource's `scopes_supported`; `None` when neither gives any (then the parameter is left out).
pub fn scopes(challenge: Option<&Challenge>, resource_metadata: Option<&Value>) -> Option<String> {
    if let Some(scope) = challenge
        .and_then(Challenge::scope)
        .filter(|s| !s.trim().is_empty())
    {
        return Some(scope.to_owned());
    }
    let supported: Vec<&str> = resource_metadata?
        .get("scopes_supported")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    (!supported.is_empty()).then(|| supported.join(" "))
}

fn same_resource(said: &str, expected: &str) -> bool {
    said.trim_end_matches('/') == expected.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn challenges_are_read_with_quoted_values_escapes_and_several_schemes() {
        let header = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write", error="insufficient_scope", Basic realm="say \"hi\"""#;
        let challenges = parse_challenges(header);
        assert_eq!(challenges.len(), 2);
        let bearer = &challenges[0];
        assert_eq!(bearer.scheme, "Bearer");
        assert_eq!(
            bearer.resource_metadata(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(bearer.scope(), Some("files:read files:write"));
        assert_eq!(bearer.error(), Some("insufficient_scope"));
        assert_eq!(challenges[1].param("REALM"), Some(r#"say "hi""#));
        let token68 = parse_challenges("Basic dXNlcjpwYXNz==, Bearer");
        assert_eq!(token68[0].param(""), Some("dXNlcjpwYXNz=="));
        assert_eq!(token68[1].scheme, "Bearer");
        assert_eq!(
            super::token_challenge(["Basic x=1", "bearer error=invalid_token"])
                .unwrap()
                .error(),
            Some("invalid_token")
        );
        // RFC 9449 §7.1: a DPoP challenge carries the same parameters; Bearer's comes first.
        let dpop = super::token_challenge([
            r#"DPoP algs="ES256", resource_metadata="https://m.example/prm""#,
        ]);
        assert_eq!(
            dpop.unwrap().resource_metadata(),
            Some("https://m.example/prm")
        );
        let both =
            super::token_challenge(["DPoP error=use_dpop_nonce", "Bearer error=invalid_token"]);
        assert_eq!(both.unwrap().scheme, "Bearer");
    }

    #[test]
    fn hostile_challenges_end_without_a_panic() {
        for header in [
            "",
            ",,,",
            "=",
            "Bearer =",
            "Bearer a=\"unterminated",
            "Bearer ,a=b,,c",
            "\u{1b}[2J Bearer x=\"\u{1b}\"",
            "é=é Bearer",
        ] {
            let _ = parse_challenges(header);
        }
        assert_eq!(
            parse_challenges("Bearer a=\"unterminated")[0].param("a"),
            Some("unterminated")
        );
    }

    proptest::proptest! {
        #[test]
        fn any_header_reads_without_a_panic(header in "\\PC{0,80}") {
            for challenge in parse_challenges(&header) {
                proptest::prop_assert!(!challenge.scheme.is_empty());
            }
        }
    }

    #[test]
    fn resource_metadata_is_looked_up_where_the_header_says_else_at_the_path_then_the_root() {
        let server = url("https://example.com/public/mcp?x=1");
        let named = Challenge {
            scheme: "Bearer".into(),
            params: vec![(
                "resource_metadata".into(),
                "https://example.com/meta".into(),
            )],
        };
        assert_eq!(
            resource_metadata_urls(&server, Some(&named)),
            [url("https://example.com/meta")]
        );
        assert_eq!(
            resource_metadata_urls(&server, None),
            [
                url("https://example.com/.well-known/oauth-protected-resource/public/mcp"),
                url("https://example.com/.well-known/oauth-protected-resource"),
            ]
        );
        assert_eq!(
            resource_metadata_urls(&url("https://example.com/"), None),
            [url(
                "https://example.com/.well-known/oauth-protected-resource"
            )]
        );
    }

    #[test]
    fn authorization_server_metadata_is_tried_in_the_spec_order() {
        assert_eq!(
            authorization_server_metadata_urls(&url("https://auth.example.com/tenant1")),
            [
                url("https://auth.example.com/.well-known/oauth-authorization-server/tenant1"),
                url("https://auth.example.com/.well-known/openid-configuration/tenant1"),
                url("https://auth.example.com/tenant1/.well-known/openid-configuration"),
            ]
        );
        assert_eq!(
            authorization_server_metadata_urls(&url("https://auth.example.com")),
            [
                url("https://auth.example.com/.well-known/oauth-authorization-server"),
                url("https://auth.example.com/.well-known/openid-configuration"),
            ]
        );
        let (authorize, token, register) =
            legacy_default_endpoints(&url("http://127.0.0.1:8000/mcp"));
        assert_eq!(authorize.as_str(), "http://127.0.0.1:8000/authorize");
        assert_eq!(token.as_str(), "http://127.0.0.1:8000/token");
        assert_eq!(register.as_str(), "http://127.0.0.1:8000/register");
    }

    #[test]
    fn pkce_s256_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    /// Each problem by its kind, as a transcript tags it.
    fn kinds(problems: &[AuthProblem]) -> Vec<String> {
        problems
            .iter()
            .map(|problem| {
                serde_json::to_value(problem).unwrap()["problem"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn metadata_problems_name_what_the_spec_requires() {
        let server = url("https://mcp.example.com/mcp");
        let at_path = url("https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
        let good = json!({"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://auth.example.com"]});
        assert!(protected_resource_problems(&good, &server, &at_path).is_empty());
        let other =
            json!({"resource": "https://evil.example.com/mcp", "authorization_servers": []});
        assert_eq!(
            protected_resource_problems(&other, &server, &at_path),
            [
                AuthProblem::ResourceMismatch {
                    said: "https://evil.example.com/mcp".into(),
                    expected: "https://mcp.example.com/mcp".into(),
                },
                AuthProblem::NoAuthorizationServer
            ]
        );
        assert_eq!(
            protected_resource_problems(
                &json!({"authorization_servers": ["a"]}),
                &server,
                &at_path
            ),
            [AuthProblem::ResourceMissing]
        );

        let issuer = "https://auth.example.com";
        let fine = json!({"issuer": "https://auth.example.com", "code_challenge_methods_supported": ["S256"]});
        assert!(authorization_server_problems(&fine, issuer).is_empty());
        let plain = json!({"issuer": "https://other.example.com", "code_challenge_methods_supported": ["plain"]});
        assert_eq!(
            authorization_server_problems(&plain, issuer),
            [
                AuthProblem::IssuerMismatch {
                    said: Some("https://other.example.com".into()),
                    looked_up: issuer.into(),
                },
                AuthProblem::NoPkceS256
            ]
        );
        assert_eq!(
            canonical_resource(&url("HTTPS://MCP.Example.com/mcp/")),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical_resource(&url("https://mcp.example.com")),
            "https://mcp.example.com/"
        );
    }

    #[test]
    fn the_origin_is_a_resource_only_in_the_metadata_at_the_origins_well_known_uri() {
        let server = url("https://mcp.example.com/mcp");
        let at_origin = url("https://mcp.example.com/.well-known/oauth-protected-resource");
        let at_path = url("https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
        let kinds = |metadata: &Value, location: &Url| {
            kinds(&protected_resource_problems(metadata, &server, location))
        };
        let servers = json!(["https://auth.example.com"]);
        for origin in ["https://mcp.example.com", "https://mcp.example.com/"] {
            let metadata = json!({"resource": origin, "authorization_servers": servers});
            assert!(kinds(&metadata, &at_origin).is_empty(), "{origin}");
            // Read at the endpoint's own location, the origin is another resource.
            assert_eq!(kinds(&metadata, &at_path), ["resource_mismatch"]);
        }
        // Neither the server nor the origin: refused wherever it was read.
        for resource in [
            "https://evil.example.com/mcp",
            "https://evil.example.com",
            "https://mcp.example.com/other",
            "https://mcp.example.com:8443",
        ] {
            let metadata = json!({"resource": resource, "authorization_servers": servers});
            assert_eq!(
                kinds(&metadata, &at_origin),
                ["resource_mismatch"],
                "{resource}"
            );
        }
    }

    #[test]
    fn the_metadata_issuer_must_be_the_issuer_looked_up_exactly() {
        let metadata =
            |issuer: &str| json!({"issuer": issuer, "code_challenge_methods_supported": ["S256"]});
        let kinds = |said: &str, looked_up: &str| {
            kinds(&authorization_server_problems(&metadata(said), looked_up))
        };
        assert!(
            kinds(
                "https://auth.example.com/tenant1",
                "https://auth.example.com/tenant1"
            )
            .is_empty()
        );
        for (said, looked_up) in [
            ("https://attacker.example.com", "https://auth.example.com"),
            ("https://auth.example.com/", "https://auth.example.com"),
            ("https://AUTH.example.com", "https://auth.example.com"),
            ("https://auth.example.com:443", "https://auth.example.com"),
        ] {
            assert_eq!(kinds(said, looked_up), ["issuer_mismatch"], "{said}");
        }
        let none = json!({"code_challenge_methods_supported": ["S256"]});
        assert_eq!(
            authorization_server_problems(&none, "https://auth.example.com"),
            [AuthProblem::IssuerMismatch {
                said: None,
                looked_up: "https://auth.example.com".into()
            }]
        );
    }

    #[test]
    fn registration_says_the_client_is_a_native_application() {
        let body = registration_request("http://127.0.0.1:4000/callback");
        assert_eq!(body["application_type"], "native");
        assert_eq!(
            body["redirect_uris"],
            json!(["http://127.0.0.1:4000/callback"])
        );
        assert_eq!(body["token_endpoint_auth_method"], "none");
    }

    #[test]
    fn scopes_come_from_the_challenge_else_the_resource_else_none() {
        let challenge = Challenge {
            scheme: "Bearer".into(),
            params: vec![("scope".into(), "files:read".into())],
        };
        let metadata = json!({"scopes_supported": ["a", "b"]});
        assert_eq!(
            scopes(Some(&challenge), Some(&metadata)).as_deref(),
            Some("files:read")
        );
        assert_eq!(scopes(None, Some(&metadata)).as_deref(), Some("a b"));
        assert_eq!(scopes(None, Some(&json!({}))), None);
        assert_eq!(scopes(None, None), None);
    }
}
