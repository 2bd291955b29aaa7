//! Several servers in one TUI, pure: one `AppState` per server, the one shown, and the side-by-side comparison; the user's actions go to the shown server, each session's events to its own, and effects come back tagged with the server they are for.

pub mod bar;
pub mod columns;
mod comparison;

pub use comparison::{Answer, Column, Comparison, Sent};

use ratatui::layout::Rect;

use super::action::{Action, Command, Effect, Mouse, Move, Servers, SessionCommand, ToServer};
use super::editor::check_editor;
use super::model_pane::refresh_model;
use super::state::{AppState, Link};
use super::status::inform;
use super::update::update as update_server;

/// An effect and the index of the server it is for (a `Session` command goes to that server's
/// session; a file's outcome comes back to that server's state).
pub type Tagged = (usize, Effect);

/// One server of the workspace.
#[derive(Debug, Clone)]
pub struct Server {
    /// How the command line chose it: a config entry's name, a demo style; terminal-safe.
    pub name: String,
    pub state: AppState,
}

/// Every open server, the one shown, and the last comparison.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Never empty.
    pub servers: Vec<Server>,
    pub selected: usize,
    pub comparison: Option<Comparison>,
    /// The comparison is on screen.
    pub comparing: bool,
}

/// The commands that change how every call is judged, or what every session declares: a lens
/// the user looks through, the same for all servers so that their answers compare.
fn is_lens(command: Command) -> bool {
    matches!(command, Command::Lens(_))
}

impl Workspace {
    /// One server: the TUI as it always was, no bar, no label.
    pub fn one(state: AppState) -> Self {
        Self {
            servers: vec![Server {
                name: String::new(),
                state,
            }],
            selected: 0,
            comparison: None,
            comparing: false,
        }
    }

    /// Several servers, named, each with its own state (`make` builds server `index`'s for a
    /// screen area); with more than one, a row at the top is the server bar and each state has
    /// the rest.
    pub fn several(
        names: Vec<String>,
        screen: Rect,
        mut make: impl FnMut(usize, Rect) -> AppState,
    ) -> Self {
        let several = names.len() > 1;
        let body = body_of(screen, several);
        let servers: Vec<Server> = names
            .into_iter()
            .enumerate()
            .map(|(index, name)| {
                let name = crate::sanitize::text(&name).into_owned();
                let mut state = make(index, body);
                if several {
                    state.label = Some(name.clone());
                }
                Server { name, state }
            })
            .collect();
        if servers.is_empty() {
            return Self::one(make(0, screen));
        }
        Self {
            servers,
            selected: 0,
            comparison: None,
            comparing: false,
        }
    }

    /// Whether the server bar is shown.
    pub fn has_bar(&self) -> bool {
        self.servers.len() > 1
    }

    /// The state of the server shown.
    pub fn shown(&self) -> &AppState {
        // `selected` is kept within `servers`, which is never empty.
        &self.servers[self.selected.min(self.servers.len() - 1)].state
    }

    fn shown_mut(&mut self) -> &mut AppState {
        let at = self.selected.min(self.servers.len() - 1);
        &mut self.servers[at].state
    }

    /// Whether the shown server's status line has a message (the runtime redraws when a tick
    /// clears it).
    pub fn has_status(&self) -> bool {
        self.shown().status.is_some()
    }
}

/// The screen below the server bar, when there is one.
pub fn body_of(screen: Rect, several: bool) -> Rect {
    if several && screen.height > 1 {
        Rect::new(screen.x, screen.y + 1, screen.width, screen.height - 1)
    } else {
        screen
    }
}

/// Applies one of the user's actions (or a tick, a resize): the shown server takes it, the
/// workspace keeps switching and comparing for itself.
pub fn update(workspace: &mut Workspace, action: Action) -> Vec<Tagged> {
    match action {
        Action::Command(command) => on_command(workspace, command),
        Action::Resized { width, height } => {
            let body = body_of(Rect::new(0, 0, width, height), workspace.has_bar());
            for server in &mut workspace.servers {
                update_server(&mut server.state, action.clone());
                server.state.screen = body;
            }
            Vec::new()
        }
        Action::Tick => {
            let mut effects = Vec::new();
            for (index, server) in workspace.servers.iter_mut().enumerate() {
                let done = update_server(&mut server.state, Action::Tick);
                effects.extend(done.into_iter().map(|effect| (index, effect)));
            }
            effects
        }
        // A click on a server's entry shows it, as its number does; a question or a panel on
        // the shown server keeps the click, as it keeps every click behind it.
        Action::Mouse(Mouse::Clicked { column, row })
            if row == 0 && workspace.has_bar() && workspace.shown().overlay().is_none() =>
        {
            let width = workspace.shown().screen.width;
            if let Some(to) = bar::server_at(workspace, width, column)
                && to != workspace.selected
            {
                switch(workspace, to);
            }
            Vec::new()
        }
        Action::Mouse(wheel @ (Mouse::ScrolledDown { .. } | Mouse::ScrolledUp { .. }))
            if workspace.comparing =>
        {
            columns::wheel(workspace, matches!(wheel, Mouse::ScrolledDown { .. }));
            Vec::new()
        }
        // The comparison covers the screen: nothing typed or clicked reaches what it hides.
        Action::Mouse(_) | Action::EditorInput(_) if workspace.comparing => Vec::new(),
        other => {
            let index = workspace.selected;
            to_server(workspace, index, other)
        }
    }
}

/// Applies what came back for server `index`: its session's events, a file it asked for.
pub fn update_for(workspace: &mut Workspace, index: usize, action: Action) -> Vec<Tagged> {
    let chatting = matches!(action, Action::ModelAnswered { .. } | Action::Session(_));
    let effects = to_server(workspace, index, action);
    workspace.look_for_answers(index);
    if chatting {
        share_runs(workspace);
    }
    effects
}

/// `Alt-b` in the Chat pane: its prompt (or the last one) run on every server at once.
fn chat_everywhere(workspace: &mut Workspace) -> Vec<Tagged> {
    let shown = workspace.shown_mut();
    let typed = shown.chat.prompt.lines().join(" ").trim().to_owned();
    let Some(prompt) = (!typed.is_empty())
        .then_some(typed)
        .or_else(|| shown.chat.last_prompt.clone())
    else {
        super::status::complain(
            shown,
            "type a prompt first: Alt-b runs it on every server".into(),
        );
        return Vec::new();
    };
    shown.chat.prompt = tui_textarea::TextArea::default();
    let mut effects = Vec::new();
    for (index, server) in workspace.servers.iter_mut().enumerate() {
        let started = super::chat::start(&mut server.state, &prompt);
        effects.extend(started.into_iter().map(|effect| (index, effect)));
    }
    share_runs(workspace);
    effects
}

/// With several servers open, each one's Chat pane says how every server's last run stands.
fn share_runs(workspace: &mut Workspace) {
    if !workspace.has_bar() {
        return;
    }
    let summaries: Vec<(String, String)> = workspace
        .servers
        .iter()
        .filter_map(|server| {
            let run = server.state.chat.runs.last()?;
            Some((server.name.clone(), run.summary()))
        })
        .collect();
    for server in &mut workspace.servers {
        server.state.chat.elsewhere.clone_from(&summaries);
    }
}

impl Workspace {
    /// Takes server `index`'s answer into the comparison, once its call has finished.
    pub fn look_for_answers(&mut self, index: usize) {
        if let Some(comparison) = self.comparison.as_mut() {
            comparison.fill(index, &self.servers);
        }
    }
}

fn to_server(workspace: &mut Workspace, index: usize, action: Action) -> Vec<Tagged> {
    let Some(server) = workspace.servers.get_mut(index) else {
        return Vec::new();
    };
    update_server(&mut server.state, action)
        .into_iter()
        .map(|effect| (index, effect))
        .collect()
}

fn on_command(workspace: &mut Workspace, command: Command) -> Vec<Tagged> {
    match command {
        Command::Servers(pick) => {
            let count = workspace.servers.len();
            let to = match pick {
                Servers::Next => (workspace.selected + 1) % count,
                Servers::Prev => (workspace.selected + count - 1) % count,
                Servers::Show(index) => usize::from(index),
            };
            switch(workspace, to);
            return Vec::new();
        }
        // In the Chat pane: the prompt run on every server, each through the same host.
        Command::ToServer(ToServer::SideBySide) if workspace.shown().chat.open => {
            return chat_everywhere(workspace);
        }
        Command::ToServer(ToServer::SideBySide) => return comparison::side_by_side(workspace),
        Command::Back if workspace.comparing => {
            workspace.comparing = false;
            return Vec::new();
        }
        Command::Quit => return vec![(workspace.selected, Effect::Quit)],
        Command::Move(
            Move::SelectNext
            | Move::SelectPrev
            | Move::PageDown
            | Move::PageUp
            | Move::SelectFirst
            | Move::SelectLast,
        ) if workspace.comparing => {
            columns::scroll(workspace, command);
            return Vec::new();
        }
        _ if workspace.comparing && !is_lens(command) => return Vec::new(),
        _ => {}
    }
    let index = workspace.selected;
    let before = workspace.shown().settings.clone();
    let mut effects = to_server(workspace, index, Action::Command(command));
    if is_lens(command) && workspace.shown().settings != before {
        effects.extend(share_settings(workspace, before.tasks));
    }
    effects
}

/// The shown server's settings, given to every other server; each one's model pane and editor
/// problems follow them, and a change of tasks reaches each session.
fn share_settings(workspace: &mut Workspace, tasks_before: bool) -> Vec<Tagged> {
    let settings = workspace.shown().settings.clone();
    let mut effects = Vec::new();
    for (index, server) in workspace.servers.iter_mut().enumerate() {
        if index == workspace.selected {
            continue;
        }
        server.state.settings = settings.clone();
        check_editor(&mut server.state);
        refresh_model(&mut server.state);
        if settings.tasks != tasks_before {
            effects.push((
                index,
                Effect::Session(SessionCommand::SetTasks(settings.tasks)),
            ));
        }
    }
    if let Some(comparison) = workspace.comparison.as_mut() {
        comparison.refresh(&workspace.servers);
    }
    effects
}

/// `]` / `[` / `1`…`9`: server `to` shown; its own screen comes back as it was left.
fn switch(workspace: &mut Workspace, to: usize) {
    let count = workspace.servers.len();
    if count < 2 {
        inform(
            workspace.shown_mut(),
            "one server is open (--config with several entries, or --demo twice, opens more)"
                .into(),
        );
        return;
    }
    if to >= count {
        inform(workspace.shown_mut(), format!("{count} servers are open"));
        return;
    }
    workspace.selected = to;
    let name = workspace.servers[workspace.selected].name.clone();
    let state = workspace.shown_mut();
    let words = match &state.link {
        Link::Connected(_) => "ready",
        Link::Starting | Link::Connecting => "connecting",
        Link::Failed(_) => "failed (r retries)",
        Link::Disconnected => "ended (r restarts it)",
    };
    inform(state, format!("server {name}: {words}"));
}

#[cfg(test)]
mod tests;
