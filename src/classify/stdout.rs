//! Text on a stdio server's stdout that is not an MCP message (a startup banner, a stray log
//! line), pure: watched over the session's log, reported once per session as a server-level
//! finding. The log keeps every such line as it came; this only counts and quotes them.

use crate::mcp::jsonrpc::FrameError;
use crate::mcp::log::LogEvent;

pub use crate::mcp::verdict::{Finding, Severity};

/// The finding's id.
pub const ID: &str = "stdout-not-json";

/// Lines quoted in the finding, at most; the rest are counted.
const QUOTED: usize = 2;
/// Characters of a quoted line, at most.
const LINE_CHARS: usize = 80;

/// What a session's stdout held besides MCP messages, as its log showed it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StdoutWatch {
    frames: usize,
    /// Lines before the first message.
    before: Lines,
    /// Lines after one.
    between: Lines,
}

/// The lines of one stretch: the first few quoted, all counted (a flood of stray lines costs
/// nothing here; the log has them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Lines {
    quoted: Vec<String>,
    count: usize,
}

impl StdoutWatch {
    /// Takes in one log event: a message read, or a line that is not one.
    pub fn see(&mut self, event: &LogEvent) {
        match event {
            LogEvent::Received { .. } => self.frames += 1,
            // A line too long to read may be a message: not counted as text.
            LogEvent::Invalid(line) if !matches!(line.error, FrameError::Oversized { .. }) => {
                let text = line.raw.trim();
                if text.is_empty() {
                    return;
                }
                let lines = if self.frames == 0 {
                    &mut self.before
                } else {
                    &mut self.between
                };
                lines.count += 1;
                if lines.quoted.len() < QUOTED {
                    lines.quoted.push(text.chars().take(LINE_CHARS).collect());
                }
            }
            _ => {}
        }
    }

    /// The finding, when stdout held anything else, under the negotiated `version`.
    pub fn finding(&self, version: &str) -> Option<Finding> {
        if self.before.count == 0 && self.between.count == 0 {
            return None;
        }
        let mut parts = Vec::new();
        for (lines, when) in [
            (&self.before, "before the first message"),
            (&self.between, "between messages"),
        ] {
            if lines.count == 0 {
                continue;
            }
            let quoted: Vec<String> = lines
                .quoted
                .iter()
                .map(|line| format!("'{line}'"))
                .collect();
            let more = lines.count - lines.quoted.len();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let count = if lines.count == 1 { "a line" } else { "lines" };
            parts.push(format!("{count} {when} ({}{more})", quoted.join(", ")));
        }
        let file = if version >= "2026-07-28" {
            "basic/transports/stdio.mdx"
        } else {
            "basic/transports.mdx"
        };
        Some(Finding {
            id: ID,
            severity: Severity::Warning,
            message: format!(
                "{version}: the server wrote text that is not JSON-RPC to stdout: {}. \"The \
                 server MUST NOT write anything to its stdout that is not a valid MCP message\" \
                 ({file}); a client that reads stdout strictly fails on it, so logs belong on \
                 stderr",
                parts.join("; ")
            ),
            frames: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::mcp::framing::InvalidLine;
    use crate::mcp::jsonrpc::parse;
    use crate::mcp::log::Role;

    fn text(raw: &str) -> LogEvent {
        LogEvent::Invalid(InvalidLine {
            raw: Arc::new(raw.to_owned()),
            error: FrameError::NotJson {
                reason: "expected value".into(),
                line: 1,
                column: 1,
            },
        })
    }

    fn frame() -> LogEvent {
        LogEvent::Received {
            frame: parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap(),
            role: Role::Notification,
        }
    }

    #[test]
    fn a_banner_and_a_stray_line_are_one_finding_saying_where_each_was() {
        let mut watch = StdoutWatch::default();
        assert_eq!(watch.finding("2025-11-25"), None);
        for event in [
            text("server v1 ready"),
            frame(),
            text("debug: listed"),
            text("  "),
        ] {
            watch.see(&event);
        }
        let finding = watch.finding("2025-11-25").unwrap();
        assert_eq!((finding.id, finding.severity), (ID, Severity::Warning));
        assert!(
            finding
                .message
                .contains("a line before the first message ('server v1 ready')")
        );
        assert!(
            finding
                .message
                .contains("a line between messages ('debug: listed')")
        );
        assert!(finding.message.contains("(basic/transports.mdx)"));
        assert!(
            watch
                .finding("2026-07-28")
                .unwrap()
                .message
                .contains("transports/stdio.mdx")
        );
    }

    #[test]
    fn many_lines_are_counted_and_oversized_lines_are_not_text() {
        let mut watch = StdoutWatch::default();
        for n in 0..5 {
            watch.see(&text(&format!("line {n}")));
        }
        watch.see(&LogEvent::Invalid(InvalidLine {
            raw: Arc::default(),
            error: FrameError::Oversized { len: 10, limit: 5 },
        }));
        let message = watch.finding("2025-11-25").unwrap().message;
        assert!(
            message.contains("lines before the first message ('line 0', 'line 1' and 3 more)"),
            "{message}"
        );
    }

    #[test]
    fn a_flood_of_stray_lines_is_counted_not_kept() {
        let mut watch = StdoutWatch::default();
        for _ in 0..100_000 {
            watch.see(&text("this line is not json"));
        }
        assert_eq!(watch.before.quoted.len(), QUOTED);
        assert_eq!(watch.before.count, 100_000);
        let message = watch.finding("2025-11-25").expect("a finding").message;
        assert!(message.contains("and 99998 more"), "{message}");
    }
}
