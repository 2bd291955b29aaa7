//! Themes: semantic [`Meaning`]s mapped to styles. Call sites name the meaning, never a colour.

mod loader;

use std::collections::HashMap;

use ratatui::style::{Color, Modifier, Style};

pub use loader::{Loaded, ThemeError, ThemeSource, available, bundled_names, load, user_theme_dir};

/// Everything the UI styles, by what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Meaning {
    Text,
    TextMuted,
    TextTitle,
    Border,
    BorderFocused,
    Selection,
    LogOutgoing,
    LogIncoming,
    LogNotification,
    LogStderr,
    LogInvalid,
    LogNote,
    OutcomeSuccess,
    OutcomeToolError,
    OutcomeProtocolError,
    OutcomeTransportFailure,
    FindingSep1303,
    FindingWarning,
    FindingInfo,
    ModelForwarded,
    ModelNotForwarded,
    StatusBar,
    StatusKey,
    StatusError,
    StatusOk,
    HelpKey,
    EditorError,
}

impl Meaning {
    pub const ALL: [Meaning; 27] = [
        Meaning::Text,
        Meaning::TextMuted,
        Meaning::TextTitle,
        Meaning::Border,
        Meaning::BorderFocused,
        Meaning::Selection,
        Meaning::LogOutgoing,
        Meaning::LogIncoming,
        Meaning::LogNotification,
        Meaning::LogStderr,
        Meaning::LogInvalid,
        Meaning::LogNote,
        Meaning::OutcomeSuccess,
        Meaning::OutcomeToolError,
        Meaning::OutcomeProtocolError,
        Meaning::OutcomeTransportFailure,
        Meaning::FindingSep1303,
        Meaning::FindingWarning,
        Meaning::FindingInfo,
        Meaning::ModelForwarded,
        Meaning::ModelNotForwarded,
        Meaning::StatusBar,
        Meaning::StatusKey,
        Meaning::StatusError,
        Meaning::StatusOk,
        Meaning::HelpKey,
        Meaning::EditorError,
    ];

    /// The dotted key in theme files; lookups fall back along the dots.
    pub fn key(self) -> &'static str {
        match self {
            Meaning::Text => "text",
            Meaning::TextMuted => "text.muted",
            Meaning::TextTitle => "text.title",
            Meaning::Border => "border",
            Meaning::BorderFocused => "border.focused",
            Meaning::Selection => "selection",
            Meaning::LogOutgoing => "log.outgoing",
            Meaning::LogIncoming => "log.incoming",
            Meaning::LogNotification => "log.notification",
            Meaning::LogStderr => "log.stderr",
            Meaning::LogInvalid => "log.invalid",
            Meaning::LogNote => "log.note",
            Meaning::OutcomeSuccess => "outcome.success",
            Meaning::OutcomeToolError => "outcome.tool_error",
            Meaning::OutcomeProtocolError => "outcome.protocol_error",
            Meaning::OutcomeTransportFailure => "outcome.transport_failure",
            Meaning::FindingSep1303 => "finding.sep1303",
            Meaning::FindingWarning => "finding.warning",
            Meaning::FindingInfo => "finding.info",
            Meaning::ModelForwarded => "model.forwarded",
            Meaning::ModelNotForwarded => "model.not_forwarded",
            Meaning::StatusBar => "status.bar",
            Meaning::StatusKey => "status.key",
            Meaning::StatusError => "status.error",
            Meaning::StatusOk => "status.ok",
            Meaning::HelpKey => "help.key",
            Meaning::EditorError => "editor.error",
        }
    }
}

/// A resolved theme: every meaning has a style, looked up without strings.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    styles: HashMap<Meaning, Style>,
}

impl Theme {
    pub fn style(&self, meaning: Meaning) -> Style {
        self.styles.get(&meaning).copied().unwrap_or_default()
    }

    /// The bundled default theme (`themes/default.toml`); never fails.
    pub fn fallback() -> Theme {
        // The embedded file is tested to load; the hard-coded set is a last resort.
        load("default", None).map_or_else(|_| Theme::builtin(), |loaded| loaded.theme)
    }

    /// `themes/default.toml` in code, for when the embedded file fails to load.
    fn builtin() -> Theme {
        let fg = |color: Color| Style::new().fg(color);
        let bold = |color: Color| fg(color).add_modifier(Modifier::BOLD);
        let muted = Color::Indexed(244);
        let styles = Meaning::ALL
            .iter()
            .map(|m| {
                let style = match m {
                    Meaning::Text | Meaning::LogIncoming => fg(Color::Reset),
                    Meaning::TextMuted
                    | Meaning::Border
                    | Meaning::LogNotification
                    | Meaning::LogStderr => fg(muted),
                    Meaning::LogNote => fg(muted).add_modifier(Modifier::ITALIC),
                    Meaning::TextTitle
                    | Meaning::BorderFocused
                    | Meaning::StatusKey
                    | Meaning::HelpKey => bold(Color::Cyan),
                    Meaning::Selection => Style::new().add_modifier(Modifier::REVERSED),
                    Meaning::LogOutgoing => fg(Color::Blue),
                    Meaning::LogInvalid | Meaning::EditorError => fg(Color::Red),
                    Meaning::OutcomeSuccess | Meaning::ModelForwarded | Meaning::StatusOk => {
                        fg(Color::Green)
                    }
                    Meaning::OutcomeToolError | Meaning::FindingWarning => fg(Color::Yellow),
                    Meaning::OutcomeProtocolError
                    | Meaning::ModelNotForwarded
                    | Meaning::StatusError => bold(Color::Red),
                    Meaning::OutcomeTransportFailure => bold(Color::Magenta),
                    Meaning::FindingSep1303 => fg(Color::Red).add_modifier(Modifier::REVERSED),
                    Meaning::FindingInfo => fg(Color::Cyan),
                    Meaning::StatusBar => fg(Color::Indexed(252)).bg(Color::Indexed(236)),
                };
                (*m, style)
            })
            .collect();
        Theme {
            name: "default".into(),
            styles,
        }
    }

    /// No colours at all (`NO_COLOR`): classes are told by their labels.
    pub fn monochrome() -> Theme {
        let styles = Meaning::ALL
            .iter()
            .map(|m| {
                let style = match m {
                    Meaning::Selection | Meaning::StatusBar => {
                        Style::new().add_modifier(Modifier::REVERSED)
                    }
                    Meaning::BorderFocused
                    | Meaning::TextTitle
                    | Meaning::HelpKey
                    | Meaning::StatusKey => Style::new().add_modifier(Modifier::BOLD),
                    _ => Style::new(),
                };
                (*m, style)
            })
            .collect();
        Theme {
            name: "monochrome".into(),
            styles,
        }
    }
}

impl Default for Theme {
    fn default() -> Theme {
        Theme::fallback()
    }
}

/// The theme to draw with and its warnings: `NO_COLOR` wins (monochrome), else the named theme.
pub fn for_terminal(name: &str) -> Result<(Theme, Vec<String>), String> {
    if std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty()) {
        return Ok((Theme::monochrome(), Vec::new()));
    }
    load(name, user_theme_dir().as_deref())
        .map(|loaded| (loaded.theme, loaded.warnings))
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_matches_default_toml() {
        let loaded = load("default", None).unwrap();
        for meaning in Meaning::ALL {
            assert_eq!(
                Theme::builtin().style(meaning),
                loaded.theme.style(meaning),
                "{}: update `Theme::builtin` to match themes/default.toml",
                meaning.key()
            );
        }
    }

    #[test]
    fn meaning_keys_are_unique() {
        let mut keys: Vec<&str> = Meaning::ALL.iter().map(|m| m.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), Meaning::ALL.len());
    }
}
