//! The mark of sightline's replay stand-in on the errors it makes up, so that they are never judged as the recorded server's.

use serde_json::{Value, json};

use crate::mcp::jsonrpc::ErrorObject;

/// The value of `error.data.sightline` on a refusal of `sightline replay --serve`.
pub const MARK: &str = "replay-stand-in";

/// The `data` member of a stand-in's refusal: the mark, and the recording it answers from.
pub fn data(recording: &str) -> Value {
    json!({"sightline": MARK, "recording": recording})
}

/// Whether `error` is a refusal of sightline's replay stand-in (a request the recording does
/// not hold), not an answer the recorded server gave.
pub fn made_up(error: &ErrorObject) -> bool {
    error
        .data
        .as_ref()
        .and_then(|data| data.get("sightline"))
        .is_some_and(|mark| mark.as_str().as_deref() == Some(MARK))
}
