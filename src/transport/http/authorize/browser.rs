//! The user's part of the authorization code flow: the authorization URL opened in a
//! browser, and the listener on 127.0.0.1 that the browser's redirect comes back to, taken
//! only once it answers the request sent (its `state`, and its issuer as RFC 9207 asks).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use url::Url;

use crate::mcp::oauth::{self, AuthStep};
use crate::transport::http::poster::Poster;
use crate::transport::http::tokens::Tokens;

/// How long the user has to authorize in the browser.
const BROWSER_WAIT: Duration = Duration::from_secs(300);

impl Poster {
    /// The redirect listener on 127.0.0.1: at the port of the earlier authorization being
    /// stepped up when it is free (the redirect URI the client was registered with), else any.
    pub(super) async fn listener(&self, previous: Option<&Tokens>) -> Result<TcpListener, String> {
        let port = previous
            .and_then(|tokens| tokens.redirect.as_deref())
            .and_then(|redirect| Url::parse(redirect).ok())
            .and_then(|redirect| redirect.port());
        if let Some(port) = port {
            match TcpListener::bind(("127.0.0.1", port)).await {
                Ok(listener) => return Ok(listener),
                Err(error) => {
                    // RFC 8252 §7.3 has authorization servers take any port of a loopback
                    // redirect, so another port should do.
                    self.step(AuthStep::PortTaken {
                        port,
                        error: error.to_string(),
                    })
                    .await;
                }
            }
        }
        TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|error| format!("authorization: no port for the redirect: {error}"))
    }

    /// Opens the authorization URL with `$BROWSER`, else the platform's opener; the URL is in
    /// the log either way, for the user to open by hand.
    pub(super) async fn open_browser(&self, url: &str) {
        self.step(AuthStep::OpenUrl {
            url: url.to_owned(),
        })
        .await;
        let opened = match std::env::var("BROWSER") {
            Ok(browser) if !browser.trim().is_empty() => tokio::process::Command::new("sh")
                .arg("-c")
                .arg(format!("{browser} \"$1\""))
                .arg("sh")
                .arg(url)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn(),
            _ => {
                let opener = if cfg!(target_os = "macos") {
                    "open"
                } else {
                    "xdg-open"
                };
                tokio::process::Command::new(opener)
                    .arg(url)
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
            }
        };
        if let Err(error) = opened {
            self.step(AuthStep::NoBrowser {
                error: error.to_string(),
            })
            .await;
        }
    }

    /// Waits for the browser's redirect to the listener: the code, once the response is known
    /// to answer `pending` (its state, and its issuer as RFC 9207 asks).
    pub(super) async fn redirected(
        &self,
        listener: &TcpListener,
        pending: &oauth::PendingAuthorization,
    ) -> Result<String, String> {
        let wait = async {
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    continue;
                };
                let mut head = vec![0; 8192];
                let read = stream.read(&mut head).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&head[..read]).into_owned();
                let target = head
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
                let Some(query) = target.strip_prefix("/callback?") else {
                    let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
                    continue;
                };
                let params: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
                    .into_owned()
                    .collect();
                let verdict = pending.accept(&params);
                let page = match &verdict {
                    Ok(_) => "sightline is authorized. You can close this tab.",
                    Err(_) => {
                        "sightline refused this answer, or the authorization was refused; see its log."
                    }
                };
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                return verdict;
            }
        };
        match tokio::time::timeout(BROWSER_WAIT, wait).await {
            Ok(result) => result,
            Err(_) => Err(format!(
                "authorization: nobody authorized within {} s",
                BROWSER_WAIT.as_secs()
            )),
        }
    }
}
