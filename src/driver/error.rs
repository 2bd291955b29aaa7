//! Why a session could not do what was asked, and the settings it runs with.

use std::time::Duration;

use crate::classify::{Class, Outcome, classify};
use crate::mcp::era::{self, EraChoice};
use crate::mcp::framing::DEFAULT_MAX_FRAME_BYTES;
use crate::mcp::input::Answers;
use crate::mcp::jsonrpc::ErrorObject;
use crate::mcp::log::{SessionEvent, Stage};
use crate::mcp::session::Exchange;
use crate::mcp::wire::TransportError;

/// Client settings.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub era: EraChoice,
    /// Per-request timeout.
    pub timeout: Duration,
    /// What to answer when a server asks for input (elicitation, sampling, roots).
    pub answers: Answers,
    /// Declare the tasks extension (2026-07-28) and follow task handles to their end.
    pub tasks: bool,
    /// Ask someone (the TUI's user) instead of answering from `answers`: each question is
    /// emitted as `SessionEvent::Asked`, and its answer comes as `Command::Answer`.
    pub ask: bool,
    /// List the tools again, unasked, when the server says they changed (the TUI's list).
    pub follow_list_changes: bool,
    /// How long `auto` waits for a `server/discover` answer before assuming a legacy server.
    pub probe_timeout: Duration,
    /// Longest line accepted from the server; longer ones are reported and skipped.
    pub max_frame_bytes: usize,
    /// Who hears of a call's, a request's and a held request's end.
    pub ends: Ends,
}

/// Who hears of a command's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ends {
    /// The stream, and the caller who awaits it (headless) as a `Done`.
    Awaited,
    /// The stream only: the live session awaits nothing, and a call's result is never copied.
    OnStream,
}

impl Default for SessionOptions {
    fn default() -> Self {
        Self {
            era: EraChoice::Auto,
            timeout: Duration::from_secs(30),
            answers: Answers::default(),
            tasks: false,
            ask: false,
            follow_list_changes: false,
            probe_timeout: Duration::from_secs(2),
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            ends: Ends::Awaited,
        }
    }
}

/// Why the client could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error("{} failed: {}", .0.method, classify(.0).detail)]
    Exchange(Box<Exchange>),
    #[error(
        "the server answered initialize with protocol version '{answered}', which sightline does \
         not support (sightline offered '{offered}' and accepts {})",
        era::LEGACY_VERSIONS.join(", ")
    )]
    UnsupportedVersion { offered: String, answered: String },
    #[error(
        "the server supports protocol versions [{}] but sightline speaks [{}] in the modern era{}",
        .supported.join(", "), era::MODERN_VERSIONS.join(", "),
        if .supported.iter().any(|v| era::supports_legacy(v)) { "; try --era legacy" } else { "" }
    )]
    NoSharedVersion { supported: Vec<String> },
    #[error(
        "the server refused protocol version '{version}' twice, although its own list of \
         supported versions names it"
    )]
    VersionRefused { version: String },
    #[error("server/discover failed with {} {}; the server speaks the modern era but refused us", .error.code, .error.message)]
    ModernError {
        error: ErrorObject,
        exchange: Box<Exchange>,
    },
    #[error(
        "the server answered server/discover with {} {}: it is not a modern (2026-07-28) server; \
         use --era auto or --era legacy",
        .error.code, .error.message
    )]
    NotModern {
        error: ErrorObject,
        exchange: Box<Exchange>,
    },
    #[error("{method} returned a result sightline cannot read: {reason}")]
    UnexpectedResult { method: String, reason: String },
}

impl SessionError {
    /// The step of the session that failed.
    pub fn stage(&self) -> Stage {
        match self {
            SessionError::Transport(_) => Stage::Spawn,
            SessionError::Exchange(exchange) => Stage::of_method(&exchange.method),
            SessionError::UnexpectedResult { method, .. } => Stage::of_method(method),
            SessionError::UnsupportedVersion { .. } => Stage::Initialize,
            SessionError::NoSharedVersion { .. }
            | SessionError::VersionRefused { .. }
            | SessionError::ModernError { .. }
            | SessionError::NotModern { .. } => Stage::Discover,
        }
    }

    /// The failed exchange, when a reply (or its absence) is what failed.
    pub fn exchange(&self) -> Option<&Exchange> {
        match self {
            SessionError::Exchange(exchange)
            | SessionError::ModernError { exchange, .. }
            | SessionError::NotModern { exchange, .. } => Some(exchange),
            SessionError::Transport(_)
            | SessionError::UnsupportedVersion { .. }
            | SessionError::NoSharedVersion { .. }
            | SessionError::VersionRefused { .. }
            | SessionError::UnexpectedResult { .. } => None,
        }
    }

    /// How the run ended, as a class: a JSON-RPC error from the server is a protocol error,
    /// everything else (no server, no usable reply) a transport failure. Never a success.
    pub fn outcome(&self) -> Outcome {
        let detail = self.to_string();
        let protocol = |code| Outcome {
            class: Class::ProtocolError,
            code,
            detail: detail.clone(),
        };
        match self {
            SessionError::Exchange(exchange) => match classify(exchange) {
                Outcome {
                    class: Class::ProtocolError,
                    code,
                    ..
                } => protocol(code),
                Outcome { .. } => Outcome {
                    class: Class::TransportFailure,
                    code: None,
                    detail,
                },
            },
            SessionError::ModernError { error, .. } | SessionError::NotModern { error, .. } => {
                protocol(Some(error.code))
            }
            SessionError::NoSharedVersion { .. } => protocol(None),
            SessionError::VersionRefused { .. } => {
                protocol(Some(era::UNSUPPORTED_PROTOCOL_VERSION))
            }
            SessionError::Transport(_)
            | SessionError::UnsupportedVersion { .. }
            | SessionError::UnexpectedResult { .. } => Outcome {
                class: Class::TransportFailure,
                code: None,
                detail,
            },
        }
    }

    /// The event that says the session could not connect, and why.
    pub fn as_event(&self) -> SessionEvent {
        SessionEvent::ConnectFailed {
            stage: self.stage(),
            reason: self.to_string(),
        }
    }
}
