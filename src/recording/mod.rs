//! Transcripts on disk: a session written to its file as it happens (the recorder, `--record`),
//! and a transcript file read back line by line, whole, or one line again by its place
//! (`replay`, `diff`). The format itself is [`crate::transcript`]'s.

mod reader;
pub mod recorder;

pub use reader::{Loaded, Places, Reader, RecordedCall, Source, TranscriptError, load, open};
pub use recorder::Recorder;
