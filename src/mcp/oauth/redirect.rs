//! The authorization response, checked before its code may reach any token endpoint: the
//! `state` sent, and the issuer as RFC 9207 ties it to the request (SEP-2468).

use serde_json::Value;

/// RFC 9207 §3: whether the authorization server says it puts `iss` in every authorization
/// response, which makes a response without one a refusal.
pub fn iss_supported(metadata: &Value) -> bool {
    metadata
        .get("authorization_response_iss_parameter_supported")
        .and_then(Value::as_bool)
        == Some(true)
}

/// What a client keeps of an authorization request until the browser comes back: the
/// `state` and PKCE verifier it sent, and the issuer of the authorization server it sent them
/// to, which RFC 9207 §2.4 ties to the response.
#[derive(Debug, Clone)]
pub struct PendingAuthorization {
    pub state: String,
    pub verifier: String,
    /// The issuer identifier, exactly as its metadata gave it.
    pub issuer: String,
    /// The metadata advertised `authorization_response_iss_parameter_supported: true`.
    pub iss_required: bool,
}

impl PendingAuthorization {
    /// The code of the redirect's query `params`, or why it is refused; decided before the
    /// code may reach any token endpoint. A mismatched `state` or `iss` means the response is
    /// not known to come from the server asked, so its `error` and `error_description` are
    /// not repeated: they are an unverified party's words.
    pub fn accept(&self, params: &[(String, String)]) -> Result<String, String> {
        let get = |name: &str| {
            params
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.as_str())
        };
        match get("state") {
            Some(state) if state == self.state => {}
            Some(_) => {
                return Err("authorization: the redirect's state does not match the one sent: refused (a forged or stale answer)".to_owned());
            }
            None => {
                return Err("authorization: the redirect carried no state: refused".to_owned());
            }
        }
        // RFC 9207 §2.4, byte for byte: a normalised comparison would let a mix-up attacker
        // whose issuer differs only by a slash or a case pass.
        match get("iss") {
            Some(iss) if iss == self.issuer => {}
            Some(iss) => {
                return Err(format!(
                    "authorization: the redirect's iss {iss:?} is not the issuer {:?} the request went to: refused, the code not used (RFC 9207 §2.4; a mix-up attack or a misconfigured server)",
                    self.issuer
                ));
            }
            None if self.iss_required => {
                return Err(format!(
                    "authorization: the redirect carried no iss although the authorization server {:?} advertises authorization_response_iss_parameter_supported: refused, the code not used (RFC 9207 §2.4)",
                    self.issuer
                ));
            }
            None => {}
        }
        if let Some(error) = get("error") {
            let description = get("error_description")
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            return Err(format!(
                "authorization: the authorization server refused: {error}{description}"
            ));
        }
        get("code")
            .map(str::to_owned)
            .ok_or_else(|| "authorization: the redirect carried no code: refused".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pending(iss_required: bool) -> PendingAuthorization {
        PendingAuthorization {
            state: "s1".into(),
            verifier: "v".into(),
            issuer: "https://auth.example.com".into(),
            iss_required,
        }
    }

    fn query(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// RFC 9207 §2.4's table: advertised or not, iss present or not, equal or not.
    #[test]
    fn the_redirects_iss_is_checked_as_rfc_9207_says() {
        let right = [
            ("code", "c"),
            ("state", "s1"),
            ("iss", "https://auth.example.com"),
        ];
        let without = [("code", "c"), ("state", "s1")];
        for required in [true, false] {
            assert_eq!(pending(required).accept(&query(&right)).as_deref(), Ok("c"));
        }
        assert_eq!(pending(false).accept(&query(&without)).as_deref(), Ok("c"));
        let missing = pending(true).accept(&query(&without)).unwrap_err();
        assert!(missing.contains("carried no iss"), "{missing}");
        assert!(missing.contains("RFC 9207 §2.4"), "{missing}");
        // Present and different refuses whether advertised or not, and nothing is normalised.
        for iss in [
            "https://evil.example.com",
            "https://auth.example.com/",
            "HTTPS://auth.example.com",
            "https://Auth.example.com",
            "https://auth.example.com:443",
            "https://auth.example.com/%7E",
            "",
        ] {
            for required in [true, false] {
                let refused = pending(required)
                    .accept(&query(&[("code", "c"), ("state", "s1"), ("iss", iss)]))
                    .unwrap_err();
                assert!(refused.contains("is not the issuer"), "{iss}: {refused}");
            }
        }
    }

    #[test]
    fn an_unverified_redirects_error_is_not_repeated() {
        let error = [
            ("state", "s1"),
            ("error", "access_denied"),
            ("error_description", "visit evil.example.com"),
        ];
        let mut forged = error.to_vec();
        forged.push(("iss", "https://evil.example.com"));
        let refused = pending(false).accept(&query(&forged)).unwrap_err();
        assert!(!refused.contains("access_denied") && !refused.contains("evil.example.com/"));
        assert!(!refused.contains("visit"), "{refused}");
        let missing = pending(true).accept(&query(&error)).unwrap_err();
        assert!(!missing.contains("visit"), "{missing}");
        // From the server asked, its refusal is said.
        let said = pending(false).accept(&query(&error)).unwrap_err();
        assert!(
            said.contains("refused: access_denied (visit evil.example.com)"),
            "{said}"
        );
        let stale = pending(false)
            .accept(&query(&[("state", "old"), ("error", "access_denied")]))
            .unwrap_err();
        assert!(stale.contains("state does not match") && !stale.contains("access_denied"));
        assert!(pending(false).accept(&query(&[("state", "s1")])).is_err());
        assert!(pending(false).accept(&query(&[("code", "c")])).is_err());
    }

    #[test]
    fn iss_support_is_only_a_literal_true() {
        assert!(iss_supported(
            &json!({"authorization_response_iss_parameter_supported": true})
        ));
        assert!(!iss_supported(
            &json!({"authorization_response_iss_parameter_supported": "true"})
        ));
        assert!(!iss_supported(&json!({})));
    }
}
