//! The Detail pane's lines: the selected call or line, pretty-printed and terminal-safe.

use super::state::{AppState, LogLine, Raw};
use crate::present::call::{CallDocument, http_lines, pretty_lines};

/// Most lines of a stderr run the detail shows (all of them are in the console).
const DETAIL_STDERR_LINES: u32 = 2000;

pub(super) fn refresh_detail(state: &mut AppState) {
    let line = state.log.selected.and_then(|i| state.log.lines.get(i));
    let index = match line {
        Some(line) => line.exchange,
        None => state.calls.len().checked_sub(1),
    };
    let call = index.and_then(|index| state.whole_call(index));
    if call.is_none() && index.is_some_and(|index| state.calls.get(index).is_some()) {
        state.log.detail = vec![reading_back(state)];
        return;
    }
    state.log.detail = match (call, line) {
        // An HTTP row shows its own details, also when it belongs to a call.
        (
            _,
            Some(LogLine {
                raw: Some(Raw::Http(http)),
                ..
            }),
        ) => http_lines(http, state.settings.show_secrets),
        // The call's document, as Detail shows it.
        (Some(call), _) => CallDocument {
            exchange: &call.exchange,
            outcome: &call.outcome,
            findings: &call.findings,
            view: None,
            connection: None,
            transport: "",
        }
        .detail(state.settings.show_secrets),
        (None, Some(line)) => match &line.raw {
            Some(Raw::Stderr { first, count }) => {
                let shown = (*count).min(DETAIL_STDERR_LINES);
                let mut lines = vec![format!(
                    "stderr: {}{}",
                    crate::audit::report::plural(
                        usize::try_from(*count).unwrap_or(usize::MAX),
                        "line"
                    ),
                    if shown < *count {
                        format!(", the last {shown}")
                    } else {
                        String::new()
                    }
                )];
                let start = first + (count - shown);
                lines.extend((start..first + count).map(|n| state.log.stderr.line(n).to_owned()));
                lines
            }
            Some(Raw::Http(http)) => http_lines(http, state.settings.show_secrets),
            Some(Raw::Stored { frame, .. }) => match &state.read_back.frame {
                Some((read, whole)) if read == frame => pretty_lines(&whole.raw),
                _ => vec![reading_back(state)],
            },
            Some(raw) => pretty_lines(raw.as_str()),
            None => vec![state.log.summary(line).into_owned()],
        },
        (None, None) => Vec::new(),
    };
}

/// What Detail says of a replay's call or frame not yet read back from the transcript.
fn reading_back(state: &AppState) -> String {
    match &state.read_back.failed {
        Some(error) => format!("could not read this back from the transcript: {error}"),
        None => "reading this back from the transcript…".to_owned(),
    }
}
