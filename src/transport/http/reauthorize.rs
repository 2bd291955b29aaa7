//! When a response calls for (another) authorization, and getting the token that may pass:
//! refreshed, or by a new flow asking for more scope.

use std::sync::PoisonError;

use reqwest::header::AUTHORIZATION;

use super::poster::Poster;
use super::tokens;
use crate::mcp::oauth::{self, AuthStep};

impl Poster {
    /// Whether a response calls for (another) authorization: a 401, or a 403
    /// `insufficient_scope` (RFC 6750 §3.1) naming a scope not yet asked for; not when the user
    /// gave the `Authorization`, or none are left.
    pub(super) fn wants_authorization(
        &self,
        status: reqwest::StatusCode,
        challenges: &[String],
        authorizations: u8,
    ) -> Option<Reauthorize> {
        if authorizations == 0 || self.headers.contains_key(AUTHORIZATION) {
            return None;
        }
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Some(Reauthorize::Token);
        }
        let challenge = oauth::token_challenge(challenges.iter().map(String::as_str))?;
        let granted = self.granted_scope();
        let insufficient = status == reqwest::StatusCode::FORBIDDEN
            && challenge.error() == Some("insufficient_scope");
        insufficient
            .then(|| step_up_scope(challenge.scope(), granted.clone()))
            .filter(|scope| Some(scope) != granted.as_ref())
            .map(Reauthorize::Scope)
    }

    fn granted_scope(&self) -> Option<String> {
        let tokens = self.token.lock().unwrap_or_else(PoisonError::into_inner);
        tokens.as_ref().and_then(|tokens| tokens.scope.clone())
    }

    /// After a 401, or a 403 asking for `more` scope: a token that may pass, from this flow or
    /// from one that ran while this request was out (`used` is the token it carried). A refused
    /// token is refreshed first; more scope takes a new authorization.
    pub(super) async fn authorized(
        &self,
        used: Option<String>,
        challenges: &[String],
        again: Reauthorize,
    ) -> Result<(), String> {
        let more = match again {
            Reauthorize::Token => None,
            Reauthorize::Scope(scope) => {
                self.step(AuthStep::StepUp {
                    scope: scope.clone(),
                })
                .await;
                Some(scope)
            }
        };
        let _one_at_a_time = self.authorizing.lock().await;
        let current = self
            .token
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let access = current.as_ref().map(|tokens| tokens.access.clone());
        if access.is_some() && access != used {
            return Ok(());
        }
        let refreshed = match (&current, &more) {
            (Some(tokens), None) => self.refresh(tokens).await.ok(),
            _ => None,
        };
        let tokens = match refreshed {
            Some(tokens) => tokens,
            None => self.authorize(challenges, more).await?,
        };
        if let Some(path) = &self.token_cache {
            let resource = oauth::canonical_resource(&self.url);
            if let Err(error) = tokens::cache::save(path, &resource, &tokens) {
                self.step(AuthStep::NotCached {
                    path: path.display().to_string(),
                    error: error.to_string(),
                })
                .await;
            }
        }
        *self.token.lock().unwrap_or_else(PoisonError::into_inner) = Some(tokens);
        Ok(())
    }
}

/// Why a request needs authorizing again.
pub(super) enum Reauthorize {
    /// A 401: no token, or a refused one.
    Token,
    /// A 403 asking for more scope: these scopes.
    Scope(String),
}

/// The scopes to ask for when stepping up: those held and those the challenge names, once
/// each (the challenge alone may drop a scope an earlier request needed).
fn step_up_scope(challenged: Option<&str>, held: Option<String>) -> String {
    let held = held.unwrap_or_default();
    let mut scopes: Vec<&str> = Vec::new();
    for scope in held
        .split_whitespace()
        .chain(challenged.unwrap_or_default().split_whitespace())
    {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    scopes.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_up_asks_for_what_is_held_and_what_is_missing() {
        assert_eq!(
            step_up_scope(Some("flights bookings:cancel"), Some("flights".into())),
            "flights bookings:cancel"
        );
        assert_eq!(step_up_scope(Some("b"), Some("a b".into())), "a b");
        assert_eq!(step_up_scope(None, None), "");
    }
}
