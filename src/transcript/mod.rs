//! Transcripts: a session on disk as JSON lines, one per event of the session stream, written
//! as it happens and read back into the same events (format version 1, in the README).

mod convert;
mod format;
mod reader;
pub mod recorder;
mod redact;

/// A header's `started` is RFC 3339: the format's own timestamps.
pub use crate::time::rfc3339;
pub use convert::{Frames, class_name, to_text};
pub use format::{
    CallRecord, EndRecord, Header, Judged, Record, RoleRecord, RoundRecord, ServerRecord,
    TaskRecord, ToolRecord, ToolText, ToolsLine, VERSION,
};
pub use reader::{Loaded, Places, Reader, RecordedCall, TranscriptError, load, open};
pub use redact::{MASK, Redactor, secret_env};

#[cfg(test)]
mod fixtures;
