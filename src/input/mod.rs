//! Input mapping, pure: a terminal event and the state's mode in, an [`Action`] out.

pub mod keymap;

use crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};

use crate::app::state::{AppState, Focus};
use crate::app::{Action, Command, Mouse};

/// The action a terminal event means now, if any.
pub fn action_for(event: &Event, state: &AppState) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            let editing = state.focus == Focus::Editor && !state.show_help;
            if let Some(command) = keymap::command_for(*key, editing) {
                return Some(Action::Command(command));
            }
            if state.show_help {
                // "Any key closes" the help, unbound keys included.
                return Some(Action::Command(Command::Back));
            }
            editing.then(|| Action::EditorInput((*key).into()))
        }
        Event::Mouse(mouse) => {
            let (column, row) = (mouse.column, mouse.row);
            match mouse.kind {
                MouseEventKind::Down(MouseButton::Left) => {
                    Some(Action::Mouse(Mouse::Clicked { column, row }))
                }
                MouseEventKind::ScrollUp => Some(Action::Mouse(Mouse::ScrolledUp { column, row })),
                MouseEventKind::ScrollDown => {
                    Some(Action::Mouse(Mouse::ScrolledDown { column, row }))
                }
                _ => None,
            }
        }
        Event::Resize(width, height) => Some(Action::Resized {
            width: *width,
            height: *height,
        }),
        Event::Key(_) | Event::FocusGained | Event::FocusLost | Event::Paste(_) => None,
    }
}
