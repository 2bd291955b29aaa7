//! What the recording relay logged, judged: a capture's sessions read through the proxy's
//! watch (the one that pairs requests and answers), and the host's first `tools/call` with the
//! version and tools of its session.

use std::path::Path;
use std::sync::Arc;

use crate::headless::relay::LoggedFrame;
use crate::mcp::Timestamp;
use crate::mcp::catalog::Catalog;
use crate::mcp::framing::InvalidLine;
use crate::mcp::jsonrpc::{self, Frame, Message};
use crate::mcp::log::SessionEvent;
use crate::mcp::session::Exchange;
use crate::proxy::watch::{Side, Watch};

/// The call a capture judges, with what its session said first.
pub struct Judged {
    /// The exchange of the host's `tools/call`, when it made one: answered, or ended without
    /// an answer (the server exited first).
    pub exchange: Option<Exchange>,
    pub version: String,
    pub catalog: Option<Arc<Catalog>>,
}

/// The relay's logs in `dir` (files starting `prefix`), session by session in the order they
/// started.
pub fn sessions(dir: &Path, prefix: &str) -> Vec<Vec<LoggedFrame>> {
    let mut sessions: Vec<Vec<LoggedFrame>> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(prefix))
        .map(|entry| read_log(&entry.path()))
        .collect();
    sessions.sort_by_key(|lines| lines.first().map(|line| line.ms));
    sessions
}

/// The first `tools/call` the host made, with the version and tools of its session (with none,
/// the last listing and version: a host that answers a call itself judged it by them).
pub fn judged(sessions: &[Vec<LoggedFrame>]) -> Judged {
    let mut judged = Judged {
        exchange: None,
        version: "unknown".to_owned(),
        catalog: None,
    };
    for lines in sessions {
        let (mut version, mut catalog) = (None, None);
        for event in watched(lines) {
            let called = judged.exchange.is_some();
            match event {
                SessionEvent::Connected(connection) => {
                    if !called {
                        judged.version.clone_from(&connection.protocol_version);
                    }
                    version = Some(connection.protocol_version);
                }
                SessionEvent::ToolsListed(tools) => {
                    if !called {
                        judged.catalog = Some(Arc::clone(&tools));
                    }
                    catalog = Some(tools);
                }
                SessionEvent::CallFinished(finished)
                    if finished.exchange.method == "tools/call" && !called =>
                {
                    // A modern request names its version in `_meta`; no result repeats it.
                    judged.version = modern_version(&finished.exchange.request)
                        .or_else(|| version.clone())
                        .unwrap_or_else(|| "unknown".to_owned());
                    judged.catalog.clone_from(&catalog);
                    judged.exchange = Some(finished.exchange);
                }
                _ => {}
            }
        }
    }
    judged
}

/// One session's lines as the proxy's watch sees them: requests paired with their answers, the
/// calls judged; a call still waiting when the log ends ended with the server (its exit
/// logged) or with the host's session.
fn watched(lines: &[LoggedFrame]) -> Vec<SessionEvent> {
    let mut watch = Watch::new();
    let mut events = Vec::new();
    let mut closed = false;
    for line in lines {
        let at = Timestamp(line.ms);
        let from = match line.dir.as_str() {
            "send" => Side::Host,
            "recv" => Side::Server,
            _ => {
                events.extend(watch.closed(&line.frame, at));
                closed = true;
                continue;
            }
        };
        events.extend(match jsonrpc::parse(&line.frame) {
            Ok(frame) => watch.frame(from, frame, at),
            Err(error) => watch.invalid(
                InvalidLine {
                    raw: line.frame.clone().into(),
                    error,
                },
                at,
            ),
        });
    }
    if !closed {
        let at = Timestamp(lines.last().map_or(0, |line| line.ms));
        events.extend(watch.closed("the host ended the session before the server answered", at));
    }
    events
}

fn modern_version(frame: &Frame) -> Option<String> {
    let Message::Request {
        params: Some(params),
        ..
    } = &frame.message
    else {
        return None;
    };
    params
        .get("_meta")?
        .get(crate::mcp::era::META_PROTOCOL_VERSION)?
        .as_str()
        .map(str::to_owned)
}

fn read_log(log: &Path) -> Vec<LoggedFrame> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::session::{End, Failure};

    fn logged(dir: &str, ms: u64, frame: &str) -> LoggedFrame {
        LoggedFrame {
            dir: dir.to_owned(),
            ms,
            frame: frame.to_owned(),
        }
    }

    fn calls(lines: &[LoggedFrame]) -> Vec<Exchange> {
        watched(lines)
            .into_iter()
            .filter_map(|event| match event {
                SessionEvent::CallFinished(finished) => Some(finished.exchange),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_call_is_paired_with_its_answer_and_one_the_server_died_during_ends_with_it() {
        let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash"}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":2,"result":{"content":[]}}"#;
        let answered = calls(&[logged("send", 1, call), logged("recv", 2, answer)]);
        assert_eq!(answered.len(), 1);
        assert!(answered[0].answer().is_some());
        let died = calls(&[logged("send", 1, call), logged("exit", 3, "exit status: 3")]);
        assert!(matches!(
            &died[0].end,
            End::Failed(Failure::ServerExited { status, .. }) if status == "exit status: 3"
        ));
        // No exit logged after it: the host's session ended first.
        let left = calls(&[logged("send", 1, call)]);
        assert!(matches!(
            &left[0].end,
            End::Failed(Failure::ServerExited { status, .. }) if status.contains("host ended")
        ));
    }
}
