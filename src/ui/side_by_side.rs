//! The side-by-side screen: the last request sent to every server, one column each with the answer's class (colour and word), code, message, findings and what the model sees under the shared host; pending and unsent columns say so.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use super::shared::{class_meaning, fit, with_hidden};
use crate::app::Command;
use crate::app::keys::Mode;
use crate::app::state::Link;
use crate::app::workspace::{Answer, Column, Comparison, Sent, Server, Workspace};
use crate::classify::findings::{Finding, Severity};
use crate::theme::{Meaning, Theme};

pub(super) struct SideBySide<'a> {
    pub workspace: &'a Workspace,
    pub comparison: &'a Comparison,
    pub theme: &'a Theme,
}

impl Widget for SideBySide<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let shown = self.workspace.shown();
        let host = crate::sanitize::text(&shown.settings.host().name).into_owned();
        let keys = &shown.settings.keys;
        let key = |command| keys.key_for(command, Mode::Browsing).unwrap_or_default();
        let pending = self.comparison.pending();
        let waiting = if pending > 0 {
            format!(" · {pending} pending")
        } else {
            String::new()
        };
        let title = format!(
            " Side by side · host '{host}'{waiting} · {} ",
            self.comparison.title
        );
        let footer = format!(
            " {} closes · {} sends again · {} host · {} MAY ",
            key(Command::Back),
            key(Command::SideBySide),
            key(Command::CycleHost),
            key(Command::ToggleForwarding)
        );
        Clear.render(area, buf);
        let outer = Block::new()
            .borders(Borders::ALL)
            .border_style(theme.style(Meaning::BorderFocused))
            .title(fit(&title, usize::from(area.width.saturating_sub(2))).into_owned())
            .title_bottom(fit(&footer, usize::from(area.width.saturating_sub(2))).into_owned())
            .style(theme.style(Meaning::Text));
        let inner = outer.inner(area);
        outer.render(area, buf);
        let count = self.comparison.columns.len().max(1);
        let ratio = u32::try_from(count).unwrap_or(u32::MAX);
        let places = Layout::horizontal(vec![Constraint::Ratio(1, ratio); count]).split(inner);
        let servers = &self.workspace.servers;
        for (index, (column, place)) in self
            .comparison
            .columns
            .iter()
            .zip(places.iter())
            .enumerate()
        {
            let Some(server) = servers.get(index) else {
                continue;
            };
            let block = Block::new()
                .borders(Borders::ALL)
                .border_style(theme.style(Meaning::Border))
                .title(
                    fit(
                        &format!(" {} {} ", index + 1, server.name),
                        usize::from(place.width.saturating_sub(2)),
                    )
                    .into_owned(),
                );
            let answer =
                Paragraph::new(column_lines(server, column, theme)).wrap(Wrap { trim: false });
            // A long answer is cut at the column's foot: its border counts what is below.
            let inside = block.inner(*place);
            let below = answer
                .line_count(inside.width)
                .saturating_sub(usize::from(inside.height));
            answer
                .block(with_hidden(block, 0, below, theme))
                .render(*place, buf);
        }
    }
}

/// A column's lines: who answered, then the answer, or why there is none.
fn column_lines<'a>(server: &Server, column: &'a Column, theme: &Theme) -> Vec<Line<'a>> {
    let muted = theme.style(Meaning::TextMuted);
    let mut lines = Vec::new();
    if let Link::Connected(connection) = &server.state.link {
        lines.push(Line::styled(
            crate::sanitize::text(&connection.server.label()).into_owned(),
            muted,
        ));
    }
    if !column.listed && matches!(column.sent, Sent::From(_)) {
        lines.push(Line::styled(
            "not listed by this server (sent anyway)",
            theme.style(Meaning::FindingWarning),
        ));
    }
    match (&column.sent, &column.answer) {
        (Sent::Not(why), _) => {
            lines.push(Line::styled(why.clone(), theme.style(Meaning::StatusError)));
        }
        (Sent::From(_), None) => lines.push(Line::styled("pending…", muted)),
        (Sent::From(_), Some(answer)) => lines.extend(answer_lines(answer, theme)),
    }
    lines
}

fn answer_lines<'a>(answer: &'a Answer, theme: &Theme) -> Vec<Line<'a>> {
    let class = theme
        .style(class_meaning(answer.class))
        .add_modifier(Modifier::BOLD);
    let code = answer
        .code
        .map(|code| format!(" · {code}"))
        .unwrap_or_default();
    let flag = if answer.findings.is_empty() {
        ""
    } else {
        "⚑ "
    };
    let mut lines = vec![
        Line::styled(format!("{flag}{}{code}", answer.class.label()), class),
        Line::raw(answer.detail.clone()),
    ];
    // One line each, the rule's name: the model pane of the server has the whole message.
    for finding in &answer.findings {
        let severity = match finding.severity {
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        lines.push(Line::styled(
            format!("⚑ {} ({severity})", finding.id),
            theme.style(finding_meaning(finding)),
        ));
    }
    lines.push(Line::raw(""));
    let seen = if answer.forwarded {
        Meaning::ModelForwarded
    } else {
        Meaning::ModelNotForwarded
    };
    let words = &answer.words;
    lines.push(Line::styled(
        format!("the model: {}", words.verdict),
        theme.style(seen).add_modifier(Modifier::BOLD),
    ));
    if !words.marker.is_empty() {
        lines.push(Line::styled(words.marker, theme.style(Meaning::TextMuted)));
    }
    lines.extend(words.text.lines().map(|line| Line::raw(line.to_owned())));
    lines.push(Line::styled(
        format!("why: {}", words.reason),
        theme.style(Meaning::TextMuted),
    ));
    lines
}

fn finding_meaning(finding: &Finding) -> Meaning {
    match finding.severity {
        Severity::Warning if finding.id.starts_with("sep1303") => Meaning::FindingSep1303,
        Severity::Warning => Meaning::FindingWarning,
        Severity::Info => Meaning::FindingInfo,
    }
}
