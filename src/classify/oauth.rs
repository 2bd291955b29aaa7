//! OAuth findings, pure: each problem a flow met in a server's part of it (the typed
//! [`AuthProblem`]s the transport reports) judged as a finding, with its id, weight and the
//! words that cite the rule; and the log's line for every fact of a flow.

use super::findings::{Finding, Severity};
use crate::mcp::oauth::{AuthFact, AuthProblem};

/// The finding `problem` is.
pub fn finding(problem: &AuthProblem) -> Finding {
    let (id, message) = match problem {
        AuthProblem::MissingChallenge => (
            "auth.401-without-www-authenticate",
            "RFC 9110 §15.5.2: a 401 response MUST send WWW-Authenticate; the client can only guess where to authorize".to_owned(),
        ),
        AuthProblem::ResourceMismatch { said, expected } => (
            "auth.resource-mismatch",
            format!(
                "RFC 9728 §3.3: the metadata's resource {said:?} is not the server asked ({expected:?}); a client must not use it"
            ),
        ),
        AuthProblem::ResourceMissing => (
            "auth.resource-mismatch",
            "RFC 9728 §2: protected resource metadata without its required `resource`".to_owned(),
        ),
        AuthProblem::NoAuthorizationServer => (
            "auth.no-authorization-server",
            "2025-11-25 authorization: the protected resource metadata MUST include `authorization_servers` with at least one".to_owned(),
        ),
        AuthProblem::IssuerMismatch { said, looked_up } => (
            "auth.issuer-mismatch",
            format!(
                "RFC 8414 §3.3: the metadata's issuer {said:?} is not the issuer looked up ({looked_up:?}); a client must not use it"
            ),
        ),
        AuthProblem::NoPkceS256 => (
            "auth.no-pkce-s256",
            "2025-11-25 authorization: `code_challenge_methods_supported` must list S256; without it MCP clients MUST refuse to proceed".to_owned(),
        ),
    };
    Finding {
        id,
        severity: Severity::Warning,
        message,
        frames: Vec::new(),
    }
}

/// The log's line for a fact of a flow: `authorization: …` for a step, `⚑ id: message` for a
/// problem (the TUI log, `-v`, the steps shown without `-v`, and a transcript's note).
pub fn line(fact: &AuthFact) -> String {
    match fact {
        AuthFact::Step(step) => format!("authorization: {step}"),
        AuthFact::Problem(problem) => {
            let finding = finding(problem);
            format!("⚑ {}: {}", finding.id, finding.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::oauth::AuthStep;

    #[test]
    fn problems_are_warnings_named_as_the_log_always_named_them() {
        let mismatch = AuthFact::Problem(AuthProblem::ResourceMismatch {
            said: "https://evil.example.com/mcp".into(),
            expected: "https://mcp.example.com/mcp".into(),
        });
        assert_eq!(
            line(&mismatch),
            "⚑ auth.resource-mismatch: RFC 9728 §3.3: the metadata's resource \"https://evil.example.com/mcp\" is not the server asked (\"https://mcp.example.com/mcp\"); a client must not use it"
        );
        let issuer = AuthProblem::IssuerMismatch {
            said: None,
            looked_up: "https://auth.example.com".into(),
        };
        assert_eq!(
            finding(&issuer).message,
            "RFC 8414 §3.3: the metadata's issuer None is not the issuer looked up (\"https://auth.example.com\"); a client must not use it"
        );
        for (problem, id) in [
            (
                AuthProblem::MissingChallenge,
                "auth.401-without-www-authenticate",
            ),
            (AuthProblem::ResourceMissing, "auth.resource-mismatch"),
            (
                AuthProblem::NoAuthorizationServer,
                "auth.no-authorization-server",
            ),
            (AuthProblem::NoPkceS256, "auth.no-pkce-s256"),
        ] {
            let finding = finding(&problem);
            assert_eq!((finding.id, finding.severity), (id, Severity::Warning));
        }
    }

    #[test]
    fn a_step_is_said_after_authorization() {
        let fact = AuthFact::Step(AuthStep::Registered {
            client_id: "demo-client-1".into(),
        });
        assert_eq!(
            line(&fact),
            "authorization: registered as client demo-client-1"
        );
    }
}
