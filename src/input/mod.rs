//! Input mapping, pure: a terminal event and the state's mode in, an [`Action`] out, by the
//! state's own key table ([`crate::app::Keymap`]).

use crossterm::event::{Event, KeyEventKind, MouseButton, MouseEventKind};

use crate::app::state::AppState;
use crate::app::{Action, Mode, Mouse};

/// The action a terminal event means now, if any.
pub fn action_for(event: &Event, state: &AppState) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            let mode = state.key_mode();
            if let Some(command) = state.settings.keys.command(key.code, key.modifiers, mode) {
                return Some(Action::Command(command));
            }
            // In the editor every other key is text; elsewhere an unbound key does nothing.
            matches!(mode, Mode::Editing | Mode::Answering)
                .then(|| Action::EditorInput((*key).into()))
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
