//! `A` in the TUI: the audit of the selected tool, pure. The plan is shown for consent; the
//! cases are then sent one at a time as ordinary calls (each lands in the log), each judged as
//! it finishes; the table's rows open the exchange they came from.

use serde_json::Value;

use super::action::{Command, Effect, SessionCommand};
use super::model_pane::call_context;
use super::navigation::open_call;
use super::state::AppState;
use super::status::{complain, inform};
use super::update::apply_command;
use crate::audit::plan::{self, Case, Options, Plan};
use crate::audit::{Judged, Verdict};

/// Where the audit stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The plan is on screen; nothing was sent.
    Confirm,
    /// Case `next` was sent; its call has not finished.
    Running { next: usize },
    /// Every case ran, or the user stopped it.
    Done,
}

/// One finished case: its verdict and the call it was (an index in `AppState::calls`).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub judged: Judged,
    pub call: usize,
}

/// The audit panel.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditPanel {
    pub tool: String,
    pub plan: Plan,
    /// The tool may be destructive (by its annotations or the spec's default).
    pub destructive: bool,
    pub phase: Phase,
    /// Per case, once it finished.
    pub rows: Vec<Option<Row>>,
    /// Per case, its arguments as the plan shows them (terminal-safe, formatted once).
    pub arguments: Vec<String>,
    pub selected: usize,
}

impl AuditPanel {
    /// The plan for `tool` of `tools` (the user chose the tool: a destructive one is planned,
    /// and the consent says so; one with an invalid `x-mcp-header` only when `I` allows it).
    pub fn new(
        tool: &str,
        tools: &[crate::mcp::messages::Tool],
        include_invalid_headers: bool,
    ) -> Self {
        let options = Options {
            tools: vec![tool.to_owned()],
            include_destructive: true,
            include_invalid_headers,
        };
        let plan = plan::plan(tools, &options);
        let annotations = tools
            .iter()
            .find(|listed| listed.name == tool)
            .and_then(|listed| listed.raw.get("annotations"))
            .map(|annotations| annotations.value());
        AuditPanel {
            tool: tool.to_owned(),
            destructive: plan::destructive(annotations.as_ref()),
            rows: vec![None; plan.cases.len()],
            arguments: plan
                .cases
                .iter()
                .map(|case| crate::sanitize::text(&case.arguments.to_string()).into_owned())
                .collect(),
            plan,
            phase: Phase::Confirm,
            selected: 0,
        }
    }

    /// The case to send now, if the audit is running.
    pub fn pending(&self) -> Option<&Case> {
        match self.phase {
            Phase::Running { next } => self.plan.cases.get(next),
            Phase::Confirm | Phase::Done => None,
        }
    }

    /// Whether a finished call with this tool name and arguments is the pending case's.
    pub fn is_pending(&self, tool: &str, arguments: Option<&Value>) -> bool {
        self.pending()
            .is_some_and(|case| case.tool == tool && arguments == Some(&case.arguments))
    }

    /// Records the pending case's verdict; the next case to send, if any.
    pub fn finished(&mut self, row: Row) -> Option<&Case> {
        let Phase::Running { next } = self.phase else {
            return None;
        };
        if let Some(slot) = self.rows.get_mut(next) {
            *slot = Some(row);
        }
        self.selected = next;
        let after = next + 1;
        if after < self.plan.cases.len() {
            self.phase = Phase::Running { next: after };
            self.plan.cases.get(after)
        } else {
            self.phase = Phase::Done;
            None
        }
    }

    /// How many finished cases had each verdict (those that had any), for the panel's title.
    pub fn summary(&self) -> String {
        Verdict::ALL
            .iter()
            .filter_map(|verdict| {
                let count = self
                    .rows
                    .iter()
                    .flatten()
                    .filter(|row| row.judged.verdict == *verdict)
                    .count();
                (count > 0).then(|| format!("{count} {}", verdict.name()))
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }

    pub fn select(&mut self, step: isize) {
        let last = self.plan.cases.len().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(step).min(last);
    }
}

/// A finished call that was the running audit's case: its verdict, and the next case sent.
pub(super) fn audited(state: &mut AppState, index: usize) -> Vec<Effect> {
    let Some(record) = state.calls.get(index) else {
        return Vec::new();
    };
    let arguments = record.exchange.params().and_then(|p| p.get("arguments"));
    let Some(audit) = state.audit.as_ref() else {
        return Vec::new();
    };
    if !audit.is_pending(&record.tool, arguments) {
        return Vec::new();
    }
    let Some(case) = audit.pending().cloned() else {
        return Vec::new();
    };
    let judged = crate::audit::judge(&case, &record.exchange, &call_context(state));
    let Some(audit) = state.audit.as_mut() else {
        return Vec::new();
    };
    let next = audit.finished(Row {
        judged,
        call: index,
    });
    if let Some(case) = next.cloned() {
        return send_case(state, &case);
    }
    let summary = state
        .audit
        .as_ref()
        .map(AuditPanel::summary)
        .unwrap_or_default();
    inform(state, format!("audit done: {summary}"));
    Vec::new()
}

/// Sends an audit case as an ordinary call.
fn send_case(state: &mut AppState, case: &crate::audit::Case) -> Vec<Effect> {
    state.pending_calls += 1;
    vec![Effect::Session(SessionCommand::Call {
        tool: case.tool.clone(),
        arguments: case.arguments.clone(),
    })]
}

/// `A`: the plan of the selected tool's audit, for consent.
pub(super) fn start_audit(state: &mut AppState) {
    let Some(tool) = state
        .tools
        .selected_tool()
        .map(|tool| tool.name.to_string())
    else {
        complain(state, "select a tool to audit first".into());
        return;
    };
    if state.pending_calls > 0 {
        complain(
            state,
            "a call is still pending: wait for it, or x cancels it".into(),
        );
        return;
    }
    if !state.link_is_up() {
        complain(state, "not connected (r reconnects)".into());
        return;
    }
    state.audit = Some(AuditPanel::new(
        &tool,
        &state.tools.tools,
        state.settings.allow_invalid_tool_headers,
    ));
}

/// The audit panel is modal: Enter sends the plan (and, once done, opens a row's exchange),
/// ↑↓ move, Esc stops the audit or closes its table; help and quit get through.
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn audit_command(state: &mut AppState, command: Command) -> Vec<Effect> {
    let Some(audit) = state.audit.as_mut() else {
        return Vec::new();
    };
    match command {
        Command::SelectNext => audit.select(1),
        Command::SelectPrev => audit.select(-1),
        Command::SelectFirst | Command::PageUp => audit.selected = 0,
        Command::SelectLast | Command::PageDown => audit.select(isize::MAX),
        Command::OpenEditor | Command::SendRequest | Command::Accept => match audit.phase {
            Phase::Confirm => {
                let Some(first) = audit.plan.cases.first().cloned() else {
                    return Vec::new();
                };
                audit.phase = Phase::Running { next: 0 };
                return send_case(state, &first);
            }
            // Running, the table stays: its next case is about to be sent.
            Phase::Running { .. } => {}
            Phase::Done => {
                let call = audit
                    .rows
                    .get(audit.selected)
                    .and_then(|row| Some(row.as_ref()?.call));
                if let Some(call) = call {
                    state.audit = None;
                    open_call(state, call);
                }
            }
        },
        Command::Back => {
            if audit.pending().is_some() {
                // The call in flight finishes as an ordinary call; nothing more is sent.
                audit.phase = Phase::Done;
                inform(state, "audit stopped".into());
            } else {
                state.audit = None;
            }
        }
        Command::Quit | Command::ToggleHelp => return apply_command(state, command),
        // The panel covers the panes: their commands wait for it to close.
        Command::Decline
        | Command::FocusNext
        | Command::FocusPrev
        | Command::NextPlaceholder
        | Command::PrevPlaceholder
        | Command::ToggleSchema
        | Command::ToggleConsole
        | Command::ToggleWrap
        | Command::ScrollLeft
        | Command::ScrollRight
        | Command::ToggleValidation
        | Command::ToggleForwarding
        | Command::ToggleInvalidHeaders
        | Command::ToggleTasks
        | Command::CycleHost
        | Command::CopyRequest
        | Command::CopyResponse
        | Command::CopyModelView
        | Command::CopyCommandLine
        | Command::CaptureOnHost
        | Command::SaveCall
        | Command::SaveCallJson
        | Command::SaveLog
        | Command::Audit
        | Command::Reconnect
        | Command::CancelCall => {}
    }
    Vec::new()
}
