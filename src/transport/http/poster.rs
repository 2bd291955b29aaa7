//! What every POST task shares (the client, the endpoint, the session, the token), and how it
//! tells the client what happened: lines, notes, OAuth facts, failures.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc;

use super::order;
use super::posted::Posted;
use super::tokens::{DpopChoice, Grant, OAuthClient, Tokens};
use crate::mcp::headers::HeaderParam;
use crate::mcp::jsonrpc::Id;
use crate::mcp::oauth::{AuthFact, AuthProblem, AuthStep};
use crate::transport::{TransportEvent, now};

/// The header a DPoP proof goes in (RFC 9449 §4.1).
const DPOP: HeaderName = HeaderName::from_static("dpop");

/// What the session carries from one POST to the next.
#[derive(Debug, Default)]
pub(super) struct SessionState {
    /// `Mcp-Session-Id`, as the server gave it on `initialize` (legacy era).
    pub(super) id: Option<String>,
    /// The version `initialize` negotiated, sent as `MCP-Protocol-Version` (legacy era).
    pub(super) protocol_version: Option<String>,
    /// The deprecated HTTP+SSE transport (2024-11-05): where messages are posted, as the
    /// server's `endpoint` event named it; answers come on the GET stream.
    pub(super) sse_endpoint: Option<reqwest::Url>,
    /// HTTP+SSE: the requests whose POST has not been answered yet, each with what tells the
    /// stream's reader once it has.
    pub(super) posts_in_flight: HashMap<Id, Arc<tokio::sync::Notify>>,
}

pub(super) type Shared = Arc<Mutex<SessionState>>;

/// The nonces to put in DPoP proofs: the MCP server's and its authorization server's.
#[derive(Debug, Default)]
pub(super) struct DpopNonces {
    pub(super) resource: Option<String>,
    pub(super) authorization: Option<String>,
}

/// Everything a POST task needs.
#[derive(Clone)]
pub(super) struct Poster {
    pub(super) client: reqwest::Client,
    pub(super) url: reqwest::Url,
    pub(super) headers: HeaderMap,
    pub(super) session: Shared,
    /// 2026-07-28: the `x-mcp-header` parameters of each listed tool that has any, learnt
    /// from the answers to `tools/list`.
    pub(super) header_params: Arc<Mutex<HashMap<String, Vec<HeaderParam>>>>,
    /// Header values this POST sends instead of the computed ones (a deliberate mismatch).
    pub(super) overrides: Vec<(String, String)>,
    pub(super) events: mpsc::Sender<TransportEvent>,
    pub(super) max_frame_bytes: usize,
    /// What OAuth gave: the access token, sent on every request from then on.
    pub(super) token: Arc<Mutex<Option<Tokens>>>,
    /// One authorization flow at a time: requests that meet a 401 meanwhile wait for it.
    pub(super) authorizing: Arc<tokio::sync::Mutex<()>>,
    pub(super) oauth_client: Option<OAuthClient>,
    pub(super) token_cache: Option<std::path::PathBuf>,
    pub(super) client_metadata_url: Option<String>,
    pub(super) grant: Option<Grant>,
    pub(super) dpop: DpopChoice,
    /// The nonces the servers last gave for DPoP proofs (RFC 9449 §8, §9).
    pub(super) dpop_nonces: Arc<Mutex<DpopNonces>>,
    /// This POST's turn: told once the server has accepted it, so that what follows may go.
    pub(super) accepted: order::Accepted,
}

impl Poster {
    pub(super) async fn post(self, line: crate::mcp::SharedText) {
        // A refused token refreshed, then more scope asked for: two at most.
        self.post_as(line, 2).await;
    }

    /// The headers of a `method` request to `url`: the user's, and the OAuth token once there
    /// is one (a user's own `Authorization` wins); a DPoP-bound token with a fresh proof of
    /// its key for this request.
    pub(super) fn headers(&self, method: &str, url: &reqwest::Url) -> HeaderMap {
        let mut headers = self.headers.clone();
        if headers.contains_key(AUTHORIZATION) {
            return headers;
        }
        let tokens = self
            .token
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let Some(tokens) = tokens else {
            return headers;
        };
        let scheme = match &tokens.dpop {
            Some(key) => {
                let nonce = self.resource_nonce();
                let proof = super::authorize::proof(
                    key,
                    method,
                    url,
                    Some(&tokens.access),
                    nonce.as_deref(),
                );
                if let Some(proof) = proof.and_then(|proof| HeaderValue::try_from(proof).ok()) {
                    headers.insert(DPOP, proof);
                }
                crate::mcp::dpop::SCHEME
            }
            None => "Bearer",
        };
        if let Ok(value) = HeaderValue::try_from(format!("{scheme} {}", tokens.access)) {
            headers.insert(AUTHORIZATION, value);
        }
        headers
    }

    /// The nonce the MCP server last gave for DPoP proofs.
    fn resource_nonce(&self) -> Option<String> {
        let nonces = self
            .dpop_nonces
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        nonces.resource.clone()
    }

    /// Keeps the nonce a response gives (RFC 9449 §8, §9: any response may) as the one of
    /// the server `of` picks; whether it is a new one.
    pub(super) fn keep_nonce(
        &self,
        headers: &HeaderMap,
        of: fn(&mut DpopNonces) -> &mut Option<String>,
    ) -> bool {
        let Some(nonce) = headers
            .get(crate::mcp::dpop::NONCE_HEADER)
            .and_then(|value| value.to_str().ok())
        else {
            return false;
        };
        let mut nonces = self
            .dpop_nonces
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let kept = of(&mut nonces);
        let new = kept.as_deref() != Some(nonce);
        *kept = Some(nonce.to_owned());
        new
    }

    /// Whether the token in hand is DPoP-bound.
    pub(super) fn bound(&self) -> bool {
        let tokens = self.token.lock().unwrap_or_else(PoisonError::into_inner);
        tokens.as_ref().is_some_and(|tokens| tokens.dpop.is_some())
    }

    pub(super) fn access_token(&self) -> Option<String> {
        let tokens = self.token.lock().unwrap_or_else(PoisonError::into_inner);
        tokens.as_ref().map(|tokens| tokens.access.clone())
    }

    pub(super) async fn deliver(
        &self,
        lines: Vec<Result<crate::mcp::jsonrpc::Frame, crate::mcp::framing::InvalidLine>>,
    ) {
        self.deliver_body(lines, None).await;
    }

    /// Lines that are the JSON body of the POST of request `body_of`.
    pub(super) async fn deliver_body(
        &self,
        lines: Vec<Result<crate::mcp::jsonrpc::Frame, crate::mcp::framing::InvalidLine>>,
        body_of: Option<Id>,
    ) {
        let _ = self
            .events
            .send(TransportEvent::Received {
                lines,
                at: now(),
                mark: crate::transport::wire_mark(),
                body_of,
            })
            .await;
    }

    pub(super) async fn note(&self, text: String) {
        let _ = self
            .events
            .send(TransportEvent::Note { text, at: now() })
            .await;
    }

    /// A step of an OAuth flow, for the log (and for the client, which waits longer while the
    /// user authorizes).
    pub(super) async fn step(&self, step: AuthStep) {
        self.authorization(AuthFact::Step(step)).await;
    }

    /// A problem of the server's part of an OAuth flow, for the log.
    pub(super) async fn problem(&self, problem: AuthProblem) {
        self.authorization(AuthFact::Problem(problem)).await;
    }

    async fn authorization(&self, fact: AuthFact) {
        let _ = self
            .events
            .send(TransportEvent::Authorization { fact, at: now() })
            .await;
    }

    /// The request failed at the HTTP level: its own failure, or (a notification, an answer)
    /// a note in the log.
    pub(super) async fn fail(&self, outgoing: &Posted, reason: String) {
        let method = outgoing.method.as_deref().unwrap_or("a message");
        let event = match &outgoing.id {
            Some(id) if outgoing.method.is_some() => TransportEvent::RequestFailed {
                id: id.clone(),
                reason,
                at: now(),
            },
            _ => TransportEvent::Note {
                text: format!("{method} was not taken: {reason}"),
                at: now(),
            },
        };
        let _ = self.events.send(event).await;
    }
}
