//! The same call to every server, pure: what was sent to which, and each answer as the model pane judges it under the one host all servers share; filled in as the answers come.

use serde_json::Value;

use super::super::action::{Effect, SessionCommand};
use super::super::editor::parse_arguments;
use super::super::model_pane::call_context;
use super::super::navigation::select_line;
use super::super::state::{AppState, CallRecord, Link};
use super::super::status::{complain, inform};
use super::{Server, Tagged, Workspace};
use crate::analysis;
use crate::classify::Class;
use crate::classify::findings::Finding;
use crate::present::call::ViewWords;
use crate::sanitize;

/// One request sent to every server, and their answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The tool called (terminal-safe in `title`, as sent in `Call`).
    pub tool: String,
    /// The arguments as typed in the editor, the request's identity for reopening.
    pub text: String,
    /// `tool {arguments}` on one line, terminal-safe.
    pub title: String,
    /// One per server, in the servers' order.
    pub columns: Vec<Column>,
    /// Rows scrolled past, every column together (a short one as far as it goes).
    pub scroll: usize,
}

/// What became of the request at one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub sent: Sent,
    /// Whether the server lists the tool (it is called either way).
    pub listed: bool,
    /// Its answer once it came, judged.
    pub answer: Option<Answer>,
}

/// Whether the request went out to a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// Sent; its answer is the first call of the tool from this index of the server's calls.
    From(usize),
    /// Not sent, and why (terminal-safe).
    Not(String),
}

/// One server's answer, in the words of the model pane and `call`.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The call's index in the server's calls.
    pub call: usize,
    pub class: Class,
    pub code: Option<i64>,
    /// The outcome's detail: the error's message, the tool error's text (terminal-safe).
    pub detail: String,
    /// The call's findings, and those that depend on the host, each once.
    pub findings: Vec<Finding>,
    pub forwarded: bool,
    pub words: ViewWords,
}

impl Answer {
    fn of(state: &AppState, call: usize, record: &CallRecord) -> Self {
        let view = analysis::view(&record.exchange, &record.outcome, &call_context(state));
        let mut findings = record.findings.clone();
        for finding in &view.findings {
            if !findings.iter().any(|kept| kept.id == finding.id) {
                findings.push(finding.clone());
            }
        }
        Self {
            call,
            class: record.outcome.class,
            code: record.outcome.code,
            detail: sanitize::text(&record.outcome.detail).into_owned(),
            findings,
            forwarded: view.forwarded,
            words: ViewWords::of(&view),
        }
    }
}

impl Comparison {
    /// Looks for server `index`'s answer, when it has not come yet.
    pub(super) fn fill(&mut self, index: usize, servers: &[Server]) {
        let (Some(column), Some(server)) = (self.columns.get_mut(index), servers.get(index)) else {
            return;
        };
        if column.answer.is_some() {
            return;
        }
        let Sent::From(from) = column.sent else {
            return;
        };
        let state = &server.state;
        let found = state
            .calls
            .iter()
            .enumerate()
            .skip(from)
            .find(|(_, call)| call.tool == self.tool);
        column.answer = found.map(|(call, record)| Answer::of(state, call, record));
    }

    /// Judges every answer again: the host or the MAY rule changed.
    pub(super) fn refresh(&mut self, servers: &[Server]) {
        for (column, server) in self.columns.iter_mut().zip(servers) {
            let state = &server.state;
            if let Some(answer) = column.answer.as_mut()
                && let Some(record) = state.calls.get(answer.call)
            {
                *answer = Answer::of(state, answer.call, record);
            }
        }
    }

    /// Answers still awaited.
    pub fn pending(&self) -> usize {
        self.columns
            .iter()
            .filter(|column| matches!(column.sent, Sent::From(_)) && column.answer.is_none())
            .count()
    }
}

/// `B`: the shown server's request (its editor's tool and arguments) to every server that is
/// connected, and the comparison on screen. With the comparison closed and the same request in
/// the editor, the last comparison comes back instead; open, it is sent again.
pub(super) fn side_by_side(workspace: &mut Workspace) -> Vec<Tagged> {
    let shown = workspace.shown_mut();
    if shown.replay.is_some() {
        complain(shown, "a replay sends nothing".into());
        return Vec::new();
    }
    let Some(tool) = shown.editor.tool.clone().or_else(|| {
        shown
            .tools
            .selected_tool()
            .map(|tool| tool.name.to_string())
    }) else {
        complain(
            shown,
            "select a tool first (Enter on a tool opens the editor)".into(),
        );
        return Vec::new();
    };
    let text = shown.editor.text();
    let arguments = if text.trim().is_empty() && shown.editor.tool.is_none() {
        Value::Object(serde_json::Map::new())
    } else {
        match parse_arguments(&text) {
            Ok(arguments) => arguments,
            Err(problem) => {
                shown.editor.problems = vec![problem.clone()];
                complain(shown, format!("not sent: the arguments are {problem}"));
                return Vec::new();
            }
        }
    };
    shown.editing = false;
    let same = workspace
        .comparison
        .as_ref()
        .is_some_and(|last| last.tool == tool && last.text == text);
    if same && !workspace.comparing {
        workspace.comparing = true;
        return Vec::new();
    }
    let mut effects = Vec::new();
    let mut columns = Vec::new();
    for (index, server) in workspace.servers.iter_mut().enumerate() {
        let state = &mut server.state;
        let listed = state.tools.tools.iter().any(|listed| listed.name == *tool);
        let sent = if let Some(why) = not_sent(state) {
            Sent::Not(why)
        } else {
            state.pending_calls += 1;
            select_line(state, None);
            effects.push((
                index,
                Effect::Session(SessionCommand::Call {
                    tool: tool.clone(),
                    arguments: arguments.clone(),
                }),
            ));
            Sent::From(state.calls.len())
        };
        columns.push(Column {
            sent,
            listed,
            answer: None,
        });
    }
    let title = format!(
        "{} {}",
        sanitize::text(&tool),
        sanitize::text(&serde_json::to_string(&arguments).unwrap_or_default())
    );
    let count = effects.len();
    workspace.comparison = Some(Comparison {
        tool: tool.clone(),
        text,
        title,
        columns,
        scroll: 0,
    });
    workspace.comparing = true;
    let total = workspace.servers.len();
    inform(
        workspace.shown_mut(),
        format!(
            "sent tools/call '{}' to {count} of {total} servers",
            sanitize::text(&tool)
        ),
    );
    effects
}

/// Why a server cannot take the request now, in a few words.
fn not_sent(state: &AppState) -> Option<String> {
    if state.pending_calls > 0 {
        return Some("not sent: a call is still pending".into());
    }
    match &state.link {
        Link::Connected(_) => None,
        Link::Starting | Link::Connecting => Some("not sent: still connecting".into()),
        Link::Failed(why) => Some(format!("not sent: failed: {}", sanitize::text(why))),
        Link::Disconnected => Some("not sent: the server ended (r restarts it)".into()),
    }
}
