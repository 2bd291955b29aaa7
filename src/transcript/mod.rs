//! The transcript format, pure: a session as JSON lines, one per event of the session stream
//! (format version 1, in docs/reference.md), each event to its line and back, secrets redacted. No
//! file is read or written here: that is [`crate::recording`]'s.

mod call_document;
mod convert;
mod format;
mod legacy;
mod probe;
mod redact;

/// A header's `started` is RFC 3339: the format's own timestamps.
pub use crate::time::rfc3339;
pub use call_document::{SAVED_CALL, from_call_document, is_call_document};
pub use convert::{Frames, LastReceived, class_name, to_text};
pub use format::{
    CallRecord, EndRecord, Header, Judged, ModelTurn, Record, RoleRecord, RoundRecord,
    ServerRecord, TaskRecord, ToolRecord, ToolText, ToolsLine, VERSION,
};
pub use probe::ProbeTrail;
pub use redact::{MASK, Redactor, secret_env};

#[cfg(test)]
pub(crate) mod fixtures;
