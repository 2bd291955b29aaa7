//! The Chat pane's state: the model it talks to, the prompt line, every run with its story
//! (prompt, the model's words, its calls and what the host sent it of each) and how it stands.

use std::collections::VecDeque;

use serde_json::Value;
use tui_textarea::TextArea;

use crate::classify::Class;
use crate::model_api::{Api, Ending, Message, Offered, ToolCall, ToolNaming, Usage};

/// The model the Chat pane talks to (`--model`), as the pure core knows it: no URL, no key.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatModel {
    pub api: Api,
    /// The model's name in a request (`gpt-4.1`).
    pub name: String,
    /// As the user wrote it (`openai:gpt-4.1`).
    pub label: String,
    /// Model requests per run at most.
    pub max_turns: u32,
    /// How each host names the server's tools, by profile name; a host not named here offers
    /// them under their own names.
    pub naming: Vec<(String, ToolNaming)>,
}

/// The pane: the prompt line, and every run since the session started.
#[derive(Debug, Clone, Default)]
pub struct ChatPane {
    /// It shows (and takes the keys); closed, runs go on behind it.
    pub open: bool,
    pub prompt: TextArea<'static>,
    pub runs: Vec<Run>,
    /// Lines scrolled up from the end (0: the end, following).
    pub scroll: usize,
    /// The last prompt run, for `Alt-r` and every server's run.
    pub last_prompt: Option<String>,
    /// The run shown from its start (opened on a call it made), until the user scrolls.
    pub focus: Option<usize>,
    /// With several servers open: each server's name and how its last run stands.
    pub elsewhere: Vec<(String, String)>,
    /// A replay's model turns, told as its runs (again as its calls arrive).
    pub recorded: Vec<crate::transcript::ModelTurn>,
}

impl PartialEq for ChatPane {
    fn eq(&self, other: &Self) -> bool {
        self.open == other.open
            && self.prompt.lines() == other.prompt.lines()
            && self.runs == other.runs
            && self.scroll == other.scroll
            && self.last_prompt == other.last_prompt
            && self.focus == other.focus
            && self.elsewhere == other.elsewhere
            && self.recorded == other.recorded
    }
}

/// One run: a prompt, the model's turns and calls, how it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// From 1, in this session.
    pub number: usize,
    /// The host profile whose eyes the model saw through.
    pub host: String,
    pub model: String,
    pub entries: Vec<Entry>,
    /// Model requests so far.
    pub turns: u32,
    pub max_turns: u32,
    pub tokens: Usage,
    pub phase: Phase,
    /// The model's words so far while its answer streams in.
    pub streaming: Option<String>,
    pub(super) conversation: Vec<Message>,
    pub(super) offered: Vec<Offered>,
    /// The calls of the last turn not yet answered; the first is in flight while `Calling`.
    pub(super) waiting: VecDeque<ToolCall>,
}

/// Where a run is.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// Waiting for the model's turn.
    Asking,
    /// Waiting for the server's answer to one of the model's calls.
    Calling,
    Ended(Ending),
    /// The user stopped it.
    Stopped,
    /// Read back from a transcript, its last turn still calling tools.
    Recorded,
    /// The model API failed (its words; never the request).
    Failed(String),
}

impl Phase {
    /// Whether the run is still going.
    pub fn is_running(&self) -> bool {
        matches!(self, Phase::Asking | Phase::Calling)
    }
}

/// One line of a run's story.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// What the user asked.
    Prompt(String),
    /// The model's words in turn `turn`.
    Said {
        turn: u32,
        text: String,
    },
    Call(CallEntry),
}

/// A tool call the model made, and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallEntry {
    pub turn: u32,
    /// The name the model called (the host's name for the tool).
    pub name: String,
    pub arguments: Value,
    /// The server's tool it stands for, when it stands for one.
    pub tool: Option<String>,
    /// Its call in [`AppState::calls`], once finished; `None` for a call the host answered.
    pub call: Option<usize>,
    /// Its request's JSON-RPC id, as the log shows it (`#7`).
    pub id: Option<String>,
    pub class: Option<Class>,
    /// What the host sent its model; `None` while the call is in flight.
    pub read: Option<String>,
    /// The host answered it itself; the server was not called.
    pub by_host: bool,
    /// The same name with the same arguments was called before in this run.
    pub repeated: bool,
}

impl Run {
    /// How the run stands, in one line: going on, or how it ended with its tally.
    pub fn summary(&self) -> String {
        let calls = self
            .entries
            .iter()
            .filter(|entry| matches!(entry, Entry::Call(_)))
            .count();
        let repeated = self
            .entries
            .iter()
            .filter(|entry| matches!(entry, Entry::Call(call) if call.repeated))
            .count();
        let tally = format!(
            "{calls} call{}, {repeated} repeated · tokens {} in, {} out",
            if calls == 1 { "" } else { "s" },
            self.tokens.input,
            self.tokens.output
        );
        match &self.phase {
            Phase::Asking => format!(
                "… asking the model (turn {} of {})",
                self.turns, self.max_turns
            ),
            Phase::Calling => "… waiting for the server".to_owned(),
            Phase::Ended(Ending::Answered) => format!(
                "✓ answered after {} turn{} · {tally}",
                self.turns,
                if self.turns == 1 { "" } else { "s" }
            ),
            Phase::Ended(Ending::TurnsRanOut) => format!(
                "✗ the turns ran out ({}), the model still calling tools · {tally}",
                self.turns
            ),
            Phase::Ended(Ending::HostEndedRun) => format!(
                "✗ {} fails its whole run on this call: the model read nothing of it · {tally}",
                crate::sanitize::text(&self.host)
            ),
            Phase::Stopped => format!("■ stopped · {tally}"),
            Phase::Recorded => format!("■ recorded so far · {tally}"),
            Phase::Failed(why) => format!("✗ {why}"),
        }
    }
}

impl ChatModel {
    /// How `host` names the server's tools.
    pub(super) fn naming(&self, host: &str) -> ToolNaming {
        self.naming
            .iter()
            .find(|(name, _)| name == host)
            .map(|(_, naming)| naming.clone())
            .unwrap_or_default()
    }
}

impl ChatPane {
    /// The run going on, if any.
    pub fn running(&self) -> Option<&Run> {
        self.runs.last().filter(|run| run.phase.is_running())
    }

    /// The calls the model made, by their index in [`AppState::calls`].
    pub fn made_calls(&self) -> Vec<usize> {
        self.runs
            .iter()
            .flat_map(|run| &run.entries)
            .filter_map(|entry| match entry {
                Entry::Call(entry) => entry.call,
                Entry::Prompt(_) | Entry::Said { .. } => None,
            })
            .collect()
    }

    /// The run and turn whose call is `call` in [`AppState::calls`].
    pub fn made(&self, call: usize) -> Option<(usize, u32)> {
        self.runs.iter().find_map(|run| {
            run.entries.iter().find_map(|entry| match entry {
                Entry::Call(entry) if entry.call == Some(call) => Some((run.number, entry.turn)),
                Entry::Prompt(_) | Entry::Said { .. } | Entry::Call(_) => None,
            })
        })
    }
}
