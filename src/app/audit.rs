//! `A` in the TUI: the audit of the selected tool, pure. The plan is shown for consent; the
//! cases are then sent one at a time as ordinary calls (each lands in the log), each judged as
//! it finishes; the table's rows open the exchange they came from.

use super::action::{Command, Edit, Effect, Move, Question, SessionCommand, ToServer, any_group};
use super::audit_panel::{AuditPanel, Phase, Row};
use super::modals::Panes;
use super::model_pane::call_context;
use super::navigation::open_call;
use super::state::AppState;
use super::status::{complain, inform};

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
        &state.tools.catalog,
        state.settings.allow_invalid_tool_headers,
    ));
}

/// The audit panel is modal: Enter sends the plan (and, once done, opens a row's exchange),
/// ↑↓ move, Esc stops the audit or closes its table; help and quit get through.
// Every command is decided here, by name: a new one must be, too (no catch-all arm).
#[deny(clippy::wildcard_enum_match_arm)]
pub(super) fn audit_command(
    state: &mut AppState,
    command: Command,
    to_panes: Panes,
) -> Vec<Effect> {
    let Some(audit) = state.audit.as_mut() else {
        return Vec::new();
    };
    match command {
        Command::Move(Move::SelectNext) => audit.select(1),
        Command::Move(Move::SelectPrev) => audit.select(-1),
        Command::Move(Move::SelectFirst | Move::PageUp) => audit.selected = 0,
        Command::Move(Move::SelectLast | Move::PageDown) => audit.select(isize::MAX),
        Command::Edit(Edit::OpenEditor)
        | Command::ToServer(ToServer::Request)
        | Command::Question(Question::Accept) => match audit.phase {
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
        Command::Quit | Command::Help => return to_panes(state, command),
        // The panel covers the panes: their commands wait for it to close.
        any_group!() => {}
    }
    Vec::new()
}
