//! One POST: the request and its headers, the response read as a JSON body or handed to the
//! event stream, an HTTP status without an answer turned into the request's failure.

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::authorize;
use super::posted::Posted;
use super::poster::Poster;
use super::record::Record;
use super::status::{ERROR_BODY_BYTES, describe_status, is_event_stream, read_body, words};
use crate::mcp::framing::{InvalidLine, Line, decode};
use crate::mcp::headers::encode_value;
use crate::mcp::jsonrpc::Frame;
use crate::mcp::jsonrpc::{Message, Reply};
use crate::mcp::oauth::{self, AuthStep};
use crate::mcp::shared_trimmed;

impl Poster {
    /// Posts a line; on a 401, or a 403 asking for more scope (while `authorizations` are left,
    /// and the user gave no `Authorization`), gets a token (refreshed, or by the OAuth flow) and
    /// posts it once more with it. A scope already asked for is not asked again: no loops.
    pub(super) async fn post_as(self, line: crate::mcp::SharedText, authorizations: u8) {
        let outgoing = Posted::read(&line);
        let endpoint = self.session_state().sse_endpoint.clone();
        if let Some(endpoint) = endpoint {
            return self.post_deprecated(&outgoing, &line, endpoint).await;
        }
        let carried_session =
            outgoing.modern_version.is_none() && self.session_state().id.is_some();
        let request = match self.request(&outgoing, &line).build() {
            Ok(request) => request,
            Err(error) => return self.fail(&outgoing, words(&error)).await,
        };
        let mut record = Record::new(&request, outgoing.id.clone());
        let used = self.access_token();
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(error) => {
                let reason = words(&error);
                self.emit_http(&mut record, Some(reason.clone())).await;
                return self.fail(&outgoing, reason).await;
            }
        };
        record.response(&response);
        let status = response.status();
        let challenges = authorize::challenges(response.headers());
        if self.wants_resource_nonce(&response, &challenges, authorizations) {
            // RFC 9449 §9: the same request, its proof with the nonce the server gave.
            let said = describe_status(status, response.headers(), "");
            drop(response);
            self.emit_http(&mut record, Some(said)).await;
            self.step(AuthStep::DpopNonce {
                server: "MCP server".into(),
            })
            .await;
            return Box::pin(self.post_as(line, authorizations - 1)).await;
        }
        if let Some(again) = self.wants_authorization(status, &challenges, authorizations) {
            let said = describe_status(status, response.headers(), "");
            drop(response);
            self.emit_http(&mut record, Some(said.clone())).await;
            return match self.authorized(used, &challenges, again).await {
                Ok(()) => Box::pin(self.post_as(line, authorizations - 1)).await,
                Err(reason) => self.fail(&outgoing, format!("{said}; {reason}")).await,
            };
        }
        // The server has the line: what the protocol orders after it may go now. After the
        // handshake's last line, not before the server's own stream is open (see `listen`).
        let opens_stream = ends_the_handshake(&outgoing, &response);
        if !opens_stream {
            self.accepted.tell();
        }
        self.track_session(&outgoing, &response, carried_session)
            .await;
        if status.is_success() && is_event_stream(&response) {
            return self.read_stream(&outgoing, response, record).await;
        }
        if status == reqwest::StatusCode::ACCEPTED && outgoing.id.is_none() {
            self.emit_http(&mut record, None).await;
            if opens_stream {
                // The legacy handshake is over: the server may now talk on its own stream.
                self.listen().await;
            }
            return;
        }
        let headers = response.headers().clone();
        let (quoted, answer) = self.body_answer(response).await;
        // The spec's fallback to the deprecated HTTP+SSE transport: `initialize` refused with
        // 400, 404 or 405, and no modern JSON-RPC error in the body.
        let refused = matches!(status.as_u16(), 400 | 404 | 405);
        if refused
            && outgoing.method.as_deref() == Some("initialize")
            && !answer.as_ref().is_some_and(is_modern_error)
        {
            let reason = describe_status(status, &headers, &quoted);
            self.emit_http(&mut record, Some(reason)).await;
            if self.open_deprecated(&outgoing, &line).await {
                return;
            }
        }
        match answer {
            Some(Ok(frame)) if status.is_success() || is_response(&frame.message) => {
                self.emit_http(&mut record, None).await;
                if !status.is_success() {
                    self.note(format!(
                        "HTTP {status}: the server's JSON-RPC answer came with this status"
                    ))
                    .await;
                }
                self.remember_version(&outgoing, &frame.message);
                self.learn_header_params(&outgoing, &frame.message);
                self.deliver_body(vec![Ok(frame)], outgoing.id.clone())
                    .await;
            }
            line => {
                // No answer in the body: its own text is logged as the line it is (a 200 that
                // is not JSON-RPC), and the request fails with the status in words.
                let reason = describe_status(status, &headers, &quoted);
                self.emit_http(&mut record, Some(reason.clone())).await;
                if let Some(line @ Err(_)) = line.filter(|_| status.is_success()) {
                    self.deliver(vec![line]).await;
                }
                self.fail(&outgoing, reason).await;
            }
        }
    }

    /// A response's body: its opening words, and the line it is (none when empty or cut).
    async fn body_answer(
        &self,
        response: reqwest::Response,
    ) -> (String, Option<Result<Frame, InvalidLine>>) {
        let limit = if response.status().is_success() {
            self.max_frame_bytes
        } else {
            ERROR_BODY_BYTES
        };
        let (body, whole) = read_body(response, limit).await;
        let text = String::from_utf8(body)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
        // The body itself becomes the answer's line, moved rather than copied.
        let quoted = opening(&text);
        let answer = (whole && !text.trim().is_empty())
            .then(|| decode(Line::Text(shared_trimmed(text)), self.max_frame_bytes));
        (quoted, answer)
    }

    fn request(&self, outgoing: &Posted, line: &crate::mcp::SharedText) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.url.clone())
            .headers(self.headers("POST", &self.url))
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json");
        if let Some(version) = &outgoing.modern_version {
            // 2026-07-28: no session; the version and the method on every request.
            request = request.header("MCP-Protocol-Version", version.as_str());
            if let Some(method) = &outgoing.method {
                request = request.header("Mcp-Method", encode_value(method));
            }
            if let Some(name) = &outgoing.name {
                request = request.header("Mcp-Name", encode_value(name));
                if outgoing.method.as_deref() == Some("tools/call") {
                    for (header, value) in self.param_headers(name, line) {
                        request = request.header(header, value);
                    }
                }
            }
        } else {
            request = self.with_session(request);
        }
        if !self.overrides.is_empty() {
            // `headers` replaces the values of the names it sets (`header` would append).
            let mut replaced = HeaderMap::new();
            for (name, value) in &self.overrides {
                if let (Ok(name), Ok(value)) = (
                    HeaderName::try_from(name.as_str()),
                    HeaderValue::try_from(value.as_str()),
                ) {
                    replaced.append(name, value);
                }
            }
            request = request.headers(replaced);
        }
        request.body(line.to_string())
    }
}

impl Poster {
    /// Whether the response is a 401 asking for a DPoP nonce (RFC 9449 §9) for the bound
    /// token in hand, with a nonce not tried yet (kept, as any response's is).
    fn wants_resource_nonce(
        &self,
        response: &reqwest::Response,
        challenges: &[String],
        authorizations: u8,
    ) -> bool {
        let new_nonce = self.keep_nonce(response.headers(), |nonces| &mut nonces.resource);
        let asked = challenges
            .iter()
            .flat_map(|value| oauth::parse_challenges(value))
            .any(|challenge| {
                challenge
                    .scheme
                    .eq_ignore_ascii_case(crate::mcp::dpop::SCHEME)
                    && challenge.error() == Some(crate::mcp::dpop::USE_NONCE)
            });
        response.status() == reqwest::StatusCode::UNAUTHORIZED
            && new_nonce
            && asked
            && authorizations > 0
            && self.bound()
    }
}

/// Whether a POST's answer ends the legacy handshake: `notifications/initialized` accepted.
fn ends_the_handshake(outgoing: &Posted, response: &reqwest::Response) -> bool {
    response.status() == reqwest::StatusCode::ACCEPTED
        && !is_event_stream(response)
        && outgoing.method.as_deref() == Some("notifications/initialized")
}

/// A JSON-RPC error with one of the 2026-07-28 codes: a modern server refusing, not an old one.
fn is_modern_error(
    line: &Result<crate::mcp::jsonrpc::Frame, crate::mcp::framing::InvalidLine>,
) -> bool {
    use crate::mcp::era::{
        HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION,
    };
    matches!(
        line,
        Ok(frame) if matches!(
            &frame.message,
            Message::Response { reply: Reply::Error(error), .. }
                if [HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION]
                    .contains(&error.code)
        )
    )
}

fn is_response(message: &Message) -> bool {
    matches!(message, Message::Response { .. })
}

/// What a status in words quotes of a body: its start.
fn opening(text: &str) -> String {
    let mut end = text.len().min(ERROR_BODY_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_2026_07_28_error_codes_keep_a_refused_initialize_from_the_sse_fallback() {
        let answer = |code: i64| {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"}}}}"#);
            decode(Line::Text(line.into()), 1024)
        };
        assert!(is_modern_error(&answer(-32022)));
        assert!(is_modern_error(&answer(-32020)));
        assert!(!is_modern_error(&answer(-32600)));
        assert!(!is_modern_error(&decode(
            Line::Text(std::sync::Arc::new("<html>".into())),
            1024
        )));
    }
}
