//! The request editor pane: the text being edited, the keys that work, problems and hints.

use crate::app::action::{Edit, Lens, ToServer};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, StatefulWidget, Widget, Wrap};

use super::shared::{pane, with_hidden};
use crate::app::Command;
use crate::app::keys::{Keymap, Scope};
use crate::app::state::{EditorState, Settings};
use crate::theme::{Meaning, Theme};

/// The Request pane over the editor, the keys of the run and the settings its footer names.
pub(super) struct EditorPane<'a> {
    pub editor: &'a EditorState,
    pub keys: &'a Keymap,
    /// The validation and MAY settings the footer shows.
    pub settings: &'a Settings,
    /// Why no tool can be sent yet (not connected), said by the empty pane.
    pub unconnected: Option<&'a str>,
    /// Typing goes into the editor (the editing mode).
    pub editing: bool,
    /// The editor holds a prompt or template form whose server completes arguments.
    pub completing: bool,
    /// The completion suggestions for the form, shown first (terminal-safe).
    pub suggestions: Option<String>,
    /// With Resources or Prompts in the left column and no form in the editor: the pane's
    /// title and what Enter does there, instead of a tool's draft that nothing would send.
    pub shelf: Option<(&'a str, &'a str)>,
    pub focused: bool,
    pub theme: &'a Theme,
}

/// Its state is where the terminal's cursor goes, written as it is drawn: at the typing
/// position while editing, else nowhere.
impl StatefulWidget for EditorPane<'_> {
    type State = Option<Position>;

    fn render(self, area: Rect, buf: &mut Buffer, cursor: &mut Option<Position>) {
        *cursor = self.draw(area, buf);
    }
}

impl EditorPane<'_> {
    /// Draws the pane; where the cursor goes, when editing.
    fn draw(&self, area: Rect, buf: &mut Buffer) -> Option<Position> {
        let EditorPane {
            editor,
            editing,
            focused,
            theme,
            ..
        } = *self;
        if let Some((title, words)) = self.shelf {
            let block = pane(title, focused, theme);
            let inner = block.inner(area);
            block.render(area, buf);
            Paragraph::new(words)
                .wrap(Wrap { trim: false })
                .style(theme.style(Meaning::TextMuted))
                .render(inner, buf);
            return None;
        }
        let tool = editor
            .tool
            .as_deref()
            .map(|tool| crate::sanitize::text(tool).into_owned());
        let title = match (&tool, editing) {
            (Some(tool), true) => format!("Editing · {tool}"),
            (Some(tool), false) => format!("Request · {tool}"),
            (None, _) => "Request".to_owned(),
        };
        let block = pane(&title, focused, theme);
        let inner = block.inner(area);
        let mut notes: Vec<Line> = self
            .suggestions
            .iter()
            .map(|line| Line::styled(line.as_str(), theme.style(Meaning::TextTitle)))
            .collect();
        notes.push(Line::styled(self.footer(), theme.style(Meaning::TextMuted)));
        notes.extend(
            editor
                .problems
                .iter()
                .map(|p| Line::styled(format!("✗ {p}"), theme.style(Meaning::EditorError))),
        );
        notes.extend(
            editor
                .hints
                .iter()
                .map(|h| Line::styled(h.as_str(), theme.style(Meaning::TextMuted))),
        );
        let notes = Paragraph::new(notes).wrap(Wrap { trim: false });
        let note_rows = notes.line_count(inner.width);
        let note_height = u16::try_from(note_rows)
            .unwrap_or(u16::MAX)
            .min(inner.height / 2);
        // The hints that do not fit are counted in the border: the schema says more.
        let hidden = note_rows.saturating_sub(usize::from(note_height));
        with_hidden(block, 0, hidden, theme).render(area, buf);
        let [text, info] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(note_height)]).areas(inner);
        notes.render(info, buf);
        if editor.tool.is_none() && editor.textarea.is_empty() {
            let idle = self.unconnected.unwrap_or("Select a tool and press Enter.");
            Paragraph::new(idle)
                .wrap(Wrap { trim: false })
                .style(theme.style(Meaning::TextMuted))
                .render(text, buf);
            return None;
        }
        // Drawn as it is: its cursor style follows the mode in `update`, so nothing is copied.
        (&editor.textarea).render(text, buf);
        if !editing {
            return None;
        }
        let cursor = editor.textarea.screen_cursor();
        let (top, left) = editor.textarea.scroll_offset();
        let row = cursor.row.checked_sub(usize::from(top))?;
        let column = cursor.col.checked_sub(usize::from(left))?;
        let position = Position {
            x: text.x + u16::try_from(column).ok()?,
            y: text.y + u16::try_from(row).ok()?,
        };
        text.contains(position).then_some(position)
    }

    /// The first line under the editor: exactly the keys that work in the current mode.
    // Every command is decided here, by name: a new one must be, too (no catch-all arm).
    #[deny(clippy::wildcard_enum_match_arm)]
    fn footer(&self) -> String {
        let onoff = |on: bool| if on { "on" } else { "off" };
        if self.editing {
            let keys: Vec<String> = self
                .keys
                .help_rows(Scope::Global)
                .filter(|b| b.command == Command::ToServer(ToServer::Request))
                .chain(self.keys.help_rows(Scope::Editing))
                .map(|binding| match binding.command {
                    Command::Lens(Lens::Validation) => {
                        format!(
                            "{} validation ({})",
                            binding.keys,
                            onoff(self.settings.validation)
                        )
                    }
                    Command::Lens(Lens::Forwarding) => {
                        format!(
                            "{} MAY ({})",
                            binding.keys,
                            onoff(self.settings.forwards_protocol_errors())
                        )
                    }
                    Command::Lens(Lens::Host) => format!("{} host", binding.keys),
                    Command::ToServer(ToServer::Request) => format!("{} send", binding.keys),
                    Command::Back => format!("{} stop editing", binding.keys),
                    Command::Edit(Edit::NextPlaceholder) => format!("{} next value", binding.keys),
                    // Shift-Tab goes without saying beside Tab; the help lists it.
                    // Only forms complete: a tool's arguments have nothing to take.
                    Command::Edit(Edit::AcceptCompletion) if self.completing => {
                        format!("{} completion", binding.keys)
                    }
                    // Shown in the help and by the server bar, which only several servers have:
                    // the footer stays the same for one.
                    Command::Edit(Edit::PrevPlaceholder | Edit::AcceptCompletion)
                    | Command::ToServer(ToServer::SideBySide)
                    | Command::Servers(_)
                    | Command::Chat(_) => String::new(),
                    // Only a keys.toml binds these while editing: shown with their help.
                    Command::Quit
                    | Command::Help
                    | Command::Question(_)
                    | Command::Move(_)
                    | Command::View(_)
                    | Command::Edit(_)
                    | Command::ToServer(_)
                    | Command::Lens(_)
                    | Command::Output(_)
                    | Command::Shelves(_) => format!("{} {}", binding.keys, binding.help),
                })
                .filter(|text| !text.is_empty())
                .collect();
            keys.join(" · ")
        } else {
            format!(
                "Enter edit · Ctrl-S send · v validation ({}): {}",
                onoff(self.settings.validation),
                if self.settings.validation {
                    "checked against the schema"
                } else {
                    "sent exactly as typed"
                }
            )
        }
    }
}
