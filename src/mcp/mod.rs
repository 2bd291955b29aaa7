//! The MCP protocol, sans I/O: JSON-RPC frames, correlation, eras and the payloads we read.
//! Nothing here reads a clock, spawns a task or touches a file; time arrives as [`Timestamp`].

pub mod catalog;
pub mod dpop;
pub mod era;
pub mod framing;
pub mod headers;
pub mod http;
pub mod input;
pub mod json;
pub mod jsonrpc;
pub mod jwt;
pub mod log;
pub mod messages;
pub mod oauth;
pub mod session;
pub mod sse;
pub mod uri_template;
pub mod verdict;
pub mod wire;

use std::fmt;
use std::sync::Arc;

/// Text a peer sent, shared by everything that holds it. An `Arc<String>` rather than an
/// `Arc<str>`: a line is taken over from the buffer it was read into, where an `Arc<str>` would
/// copy it (a 50 MB line would need 100 MB for a moment).
pub type SharedText = Arc<String>;

/// `text` without surrounding whitespace, shared: moved, not copied, when there is none.
pub fn shared_trimmed(text: String) -> SharedText {
    if text.trim().len() == text.len() {
        Arc::new(text)
    } else {
        Arc::new(text.trim().to_owned())
    }
}

/// Milliseconds since the Unix epoch, taken at the I/O edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// Milliseconds from `earlier` to `self` (zero if `earlier` is later).
    pub fn since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}

impl fmt::Display for Timestamp {
    /// `HH:MM:SS.mmm`, UTC.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0 % 1000;
        let secs = self.0 / 1000;
        let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
        write!(f, "{h:02}:{m:02}:{s:02}.{ms:03}")
    }
}

#[cfg(test)]
mod tests {
    use super::Timestamp;

    #[test]
    fn timestamps_print_as_utc_clock_time() {
        assert_eq!(
            Timestamp(86_400_000 + 3_723_004).to_string(),
            "01:02:03.004"
        );
        assert_eq!(Timestamp(5).since(Timestamp(9)), 0);
    }
}
