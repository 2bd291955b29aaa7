//! The call on its way, pure: what was sent (tool, arguments, the request), since when (in
//! ticks: `update` has no clock), and the progress the server reports for its token, until
//! the call finishes. The status line, Detail and the model pane show it while it runs.

use serde_json::Value;

use crate::mcp::Timestamp;
use crate::mcp::jsonrpc::{Frame, Id, Message};
use crate::mcp::log::LogEvent;
use crate::present::call::pretty_lines;
use crate::sanitize;

/// A `tools/call` sent and not yet finished.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingCall {
    /// The connection it was sent on.
    pub session: u32,
    /// The id of its latest request (a call asking for input is retried under a new one).
    pub id: Id,
    /// Terminal-safe.
    pub tool: String,
    /// The arguments as sent, compact and terminal-safe.
    pub arguments: String,
    /// The request, pretty and terminal-safe, made once when it was sent.
    pub request: Vec<String>,
    /// The request's size on the wire.
    pub bytes: usize,
    /// The `_meta.progressToken` that progress notifications for it carry.
    token: Option<Value>,
    /// When it was sent, and the tick then (elapsed time is counted in ticks).
    pub sent_at: Timestamp,
    pub since_tick: u64,
    pub progress: Option<Progress>,
}

/// The latest `notifications/progress` for the pending call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    /// Terminal-safe.
    pub message: Option<String>,
}

impl PendingCall {
    /// Seconds since it was sent, at tick `now`.
    pub fn elapsed(&self, now: u64) -> u64 {
        now.saturating_sub(self.since_tick)
    }
}

impl Progress {
    /// `4/6`, or `4` with no total known; whole numbers without a fraction.
    pub fn count(&self) -> String {
        let number = |value: f64| {
            if value.fract() == 0.0 && value.abs() < 1e15 {
                format!("{value:.0}")
            } else {
                format!("{value:.1}")
            }
        };
        match self.total {
            Some(total) => format!("{}/{}", number(self.progress), number(total)),
            None => number(self.progress),
        }
    }

    /// The share done, in 0..=1, when the total is known (and positive).
    pub fn ratio(&self) -> Option<f64> {
        let total = self.total.filter(|total| *total > 0.0)?;
        Some((self.progress / total).clamp(0.0, 1.0))
    }
}

/// A log entry: a `tools/call` sent starts or moves the pending call, a notification may be
/// its progress.
pub(super) fn on_logged(
    pending: &mut Option<PendingCall>,
    (session, tick): (u32, u64),
    event: &LogEvent,
    at: Timestamp,
) {
    match event {
        LogEvent::Sent(frame) => on_sent(pending, (session, tick), frame, at),
        LogEvent::Received { frame, .. } => on_notification(pending, frame),
        LogEvent::Invalid(_)
        | LogEvent::Stderr(_)
        | LogEvent::TimedOut { .. }
        | LogEvent::WriteFailed(_)
        | LogEvent::Closed { .. }
        | LogEvent::Note(_)
        | LogEvent::Authorization(_)
        | LogEvent::Http(_) => {}
    }
}

/// A frame sightline sent: a `tools/call` starts the pending call (or, for a call retried with
/// the user's answers, moves it to its new id and token).
fn on_sent(
    pending: &mut Option<PendingCall>,
    (session, tick): (u32, u64),
    frame: &Frame,
    at: Timestamp,
) {
    let Message::Request {
        id,
        method,
        params: Some(params),
    } = &frame.message
    else {
        return;
    };
    if method != "tools/call" {
        return;
    }
    let token = params.pointer("/_meta/progressToken").cloned();
    if let Some(pending) = pending.as_mut()
        && pending.session == session
        && pending.tool == sanitize::text(params_tool(params))
    {
        pending.id = id.clone();
        pending.token = token;
        return;
    }
    let arguments = params
        .get("arguments")
        .map_or_else(|| "(none)".to_owned(), Value::to_string);
    *pending = Some(PendingCall {
        session,
        id: id.clone(),
        tool: sanitize::text(params_tool(params)).into_owned(),
        arguments: crate::present::log::clip_line(&arguments),
        request: pretty_lines(&frame.raw),
        bytes: frame.raw.len(),
        token,
        sent_at: at,
        since_tick: tick,
        progress: None,
    });
}

fn params_tool(params: &Value) -> &str {
    params.get("name").and_then(Value::as_str).unwrap_or("?")
}

/// A notification from the server: progress for the pending call's token updates it.
fn on_notification(pending: &mut Option<PendingCall>, frame: &Frame) {
    let Message::Notification {
        method,
        params: Some(params),
    } = &frame.message
    else {
        return;
    };
    let Some(pending) = pending.as_mut() else {
        return;
    };
    if method != "notifications/progress" {
        return;
    }
    let params = params.value();
    if pending.token.is_none() || params.get("progressToken") != pending.token.as_ref() {
        return;
    }
    let Some(progress) = params.get("progress").and_then(Value::as_f64) else {
        return;
    };
    pending.progress = Some(Progress {
        progress,
        total: params.get("total").and_then(Value::as_f64),
        message: params
            .get("message")
            .and_then(Value::as_str)
            .map(crate::present::log::clip_line),
    });
}

/// A call of connection `session` finished under `ids`: when it is the pending one (or no
/// call is pending any more, `pending_calls`), nothing is.
pub(super) fn on_finished(
    pending: &mut Option<PendingCall>,
    session: u32,
    ids: &[&Id],
    pending_calls: usize,
) {
    let ended = pending
        .as_ref()
        .is_some_and(|pending| pending.session == session && ids.contains(&&pending.id));
    if ended || pending_calls == 0 {
        *pending = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_read_as_numbers_and_ratios_stay_in_bounds() {
        let progress = |progress, total| Progress {
            progress,
            total,
            message: None,
        };
        assert_eq!(progress(4.0, Some(6.0)).count(), "4/6");
        assert_eq!(progress(0.5, None).count(), "0.5");
        assert_eq!(progress(9.0, Some(6.0)).ratio(), Some(1.0));
        assert_eq!(progress(1.0, Some(0.0)).ratio(), None);
    }
}
