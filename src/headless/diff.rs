//! `sightline diff A B`: what changed between two recordings, as text or one JSON object.

use super::exit;
use super::output::{emit, print_json};
use crate::config;
use crate::model_view::hosts;
use crate::sanitize;

/// `sightline diff A B`: exit 0 when nothing changed, 1 when something did, 2 when a
/// recording cannot be read to its end.
pub fn diff(before: &str, after: &str, host: &str, as_json: bool) -> u8 {
    let host = match config::user_host_profiles().and_then(|user| hosts::resolve(host, &user)) {
        Ok(host) => host,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let loaded = crate::recording::load(before)
        .and_then(|before| Ok((before, crate::recording::load(after)?)));
    let (before, after) = match loaded {
        Ok(both) => both,
        Err(error) => {
            eprintln!("sightline: {}", sanitize::text(&error.to_string()));
            return exit::USAGE;
        }
    };
    for stopped in [&before.stopped, &after.stopped].into_iter().flatten() {
        eprintln!("sightline: {}", sanitize::text(&stopped.to_string()));
    }
    let diff = crate::diff::diff(&before, &after, &host);
    if as_json {
        print_json(&serde_json::json!({
            "changed": diff.changed(),
            "diff": diff,
        }));
    } else {
        emit(|out| out.write_all(diff.text().as_bytes()));
    }
    match (
        before.stopped.is_some() || after.stopped.is_some(),
        diff.changed(),
    ) {
        (true, _) => exit::USAGE,
        (false, true) => exit::TOOL_ERROR,
        (false, false) => exit::SUCCESS,
    }
}
