//! The shelves of the left column as the user drives them: showing one (`T` `R` `P` `W`), and
//! what a shelf or a form changes of the common keys: Enter on a resource, prompt or skill,
//! `Ctrl-S` with a form in the editor, moving in a shelf or Detail's view.

use super::action::{Command, Edit, Effect, Move, ToServer};
use super::catalog::{declares, move_selection};
use super::catalog_state::Shelf;
use super::state::{AppState, Focus};

/// Shows `shelf` in the left column.
pub(super) fn show_shelf(state: &mut AppState, shelf: Shelf) -> Vec<Effect> {
    state.catalog.shelf = shelf;
    state.tools.show_schema = false;
    if state.focus != Focus::Editor {
        state.focus = Focus::Tools;
    }
    // A row selected in the log would keep Detail on its frames.
    super::navigation::select_line(state, None);
    if shelf == Shelf::Tools {
        super::forms::put_back_tool(state);
    }
    super::catalog::list_shelf(state, shelf)
}

/// The commands whose meaning a catalog shelf or form changes: Enter on a resource, prompt
/// or skill, Ctrl-S with a form in the editor, moving in a shelf or in Detail's view, Tab in a
/// form (it asks for completions of the value it lands on). `None`: not the catalog's.
pub(super) fn intercept(state: &mut AppState, command: Command) -> Option<Vec<Effect>> {
    let on_shelf =
        matches!(state.focus, Focus::Tools | Focus::Editor) && state.catalog.shelf != Shelf::Tools;
    match command {
        Command::Edit(Edit::OpenEditor) if on_shelf && state.focus == Focus::Tools => {
            Some(match state.catalog.shelf {
                Shelf::Resources => super::resources::open(state),
                Shelf::Prompts => super::prompts::open(state),
                Shelf::Skills => super::skills::open(state),
                Shelf::Tools => Vec::new(),
            })
        }
        Command::Edit(Edit::OpenEditor)
            if on_shelf && super::forms::form_in_editor(state).is_none() =>
        {
            // The editor holds a tool's draft while a shelf shows: Enter opens the shelf's row.
            state.focus = Focus::Tools;
            intercept(state, command)
        }
        // No tool is in the Request pane while a shelf shows (it says what Enter does there):
        // Ctrl-S sends a form, or nothing.
        Command::ToServer(ToServer::Request) => super::forms::send_form(state).or_else(|| {
            (state.catalog.shelf != Shelf::Tools).then(|| {
                super::status::complain(
                    state,
                    "nothing to send: Enter on a row reads or fills it (T shows the tools)".into(),
                );
                Vec::new()
            })
        }),
        Command::Move(Move::SelectNext) => move_selection(state, 1, false).then(Vec::new),
        Command::Move(Move::SelectPrev) => move_selection(state, 1, true).then(Vec::new),
        Command::Move(Move::PageDown) => {
            let page = super::navigation::page(state);
            move_selection(state, page, false).then(Vec::new)
        }
        Command::Move(Move::PageUp) => {
            let page = super::navigation::page(state);
            move_selection(state, page, true).then(Vec::new)
        }
        Command::Move(Move::SelectFirst) => move_selection(state, usize::MAX, true).then(Vec::new),
        Command::Move(Move::SelectLast) => move_selection(state, usize::MAX, false).then(Vec::new),
        Command::Edit(Edit::NextPlaceholder | Edit::PrevPlaceholder)
            if super::forms::form_in_editor(state).is_some() =>
        {
            super::editor::jump_to_placeholder(
                state,
                command == Command::Edit(Edit::PrevPlaceholder),
            );
            Some(super::completion::typed(state))
        }
        _ => None,
    }
}

impl AppState {
    /// The editor holds a prompt or template form, and the server completes arguments.
    pub fn completes_form(&self) -> bool {
        super::forms::form_in_editor(self).is_some() && declares(self, "completions")
    }
}
