//! The audit panel's state, as data: the plan on screen, where the run stands, and the rows of
//! the cases that finished (`audit` holds how the TUI runs it).

use serde_json::Value;

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
    /// Per case, its arguments as the plan shows them (cut, terminal-safe, formatted once).
    pub arguments: Vec<String>,
    /// The widest of them, in characters: the column they are padded to.
    pub arguments_width: usize,
    pub selected: usize,
}

impl AuditPanel {
    /// The plan for `tool` of `tools` (the user chose the tool: a destructive one is planned,
    /// and the consent says so; one with an invalid `x-mcp-header` only when `I` allows it).
    pub fn new(
        tool: &str,
        tools: &crate::mcp::catalog::Catalog,
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
        let arguments: Vec<String> = plan.cases.iter().map(Case::shown_arguments).collect();
        AuditPanel {
            tool: tool.to_owned(),
            destructive: plan::destructive(annotations.as_ref()),
            rows: vec![None; plan.cases.len()],
            arguments_width: arguments
                .iter()
                .map(|shown| shown.chars().count())
                .max()
                .unwrap_or(0),
            arguments,
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
