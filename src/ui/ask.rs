//! The question panel: what the server asks (elicitation, sampling, roots) and what will be sent.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::shared::{fit, pane};
use crate::app::ask::{AskKind, AskPanel, CANNED_REPLY};
use crate::app::layout;
use crate::theme::{Meaning, Theme};

/// The question panel over the question on screen; drawn over `area`, the whole screen.
pub(super) struct AskOverlay<'a> {
    pub panel: &'a AskPanel,
    pub theme: &'a Theme,
}

/// The server's question: what it asks, the answer as it will be sent, and the keys.
impl Widget for AskOverlay<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let AskOverlay { panel, theme } = self;
        let safe = |text: &str| crate::sanitize::text(text).into_owned();
        let muted = theme.style(Meaning::TextMuted);
        let strong = theme.style(Meaning::TextTitle);
        let mut lines: Vec<Line> = Vec::new();
        let (what, hint) = match &panel.kind {
            AskKind::Form { message, fields } => {
                let hint = form_lines(panel, message, fields, theme, &mut lines);
                ("elicitation (form)", hint)
            }
            AskKind::Url { message, url, host } => {
                lines.push(Line::styled(safe(message), strong));
                lines.push(Line::raw(""));
                lines.push(Line::from(vec![
                    Span::styled("goes to  ", muted),
                    Span::styled(safe(host), strong),
                ]));
                lines.push(Line::styled(safe(url), muted));
                lines.push(Line::raw(""));
                lines.push(Line::raw(
                    "sightline never opens it: accepting tells the server you will go there.",
                ));
                (
                    "elicitation (URL)",
                    "Enter accept · Ctrl-D decline · Esc cancel",
                )
            }
            AskKind::Sample { messages, reply } => {
                lines.extend(messages.iter().map(|message| Line::raw(safe(message))));
                lines.push(Line::raw(""));
                lines.push(Line::from(vec![
                    Span::styled("you, as the model: ", muted),
                    Span::raw(format!("{}▏", safe(reply))),
                ]));
                if reply.is_empty() {
                    lines.push(Line::styled(
                        format!("(nothing typed: \"{CANNED_REPLY}\")"),
                        muted,
                    ));
                }
                ("sampling", "type the reply · Enter send · Ctrl-D refuse")
            }
            AskKind::Roots { roots } => {
                if roots.is_empty() {
                    lines.push(Line::raw("No --root was given: sending means refusing."));
                }
                lines.extend(roots.iter().map(|root| Line::raw(safe(root))));
                ("roots", "Enter send · Ctrl-D refuse")
            }
        };
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled("sends  ", muted),
            Span::raw(safe(&panel.preview)),
        ]));
        lines.push(Line::styled(hint, muted));
        let popup = layout::help_popup(area, lines.len());
        let width = usize::from(popup.width.saturating_sub(2));
        let lines: Vec<Line> = lines
            .into_iter()
            .map(|line| {
                let style = line.style;
                let text: String = line
                    .spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect();
                if text.chars().count() > width {
                    Line::styled(fit(&text, width).into_owned(), style)
                } else {
                    line
                }
            })
            .collect();
        Clear.render(popup, buf);
        let title = format!("The server asks · {what}");
        Paragraph::new(lines)
            .block(pane(&title, true, theme))
            .style(theme.style(Meaning::Text))
            .render(popup, buf);
    }
}

/// The form's lines (its message, a row per field with its problem beside it, what is wrong
/// in all) into `lines`; the keys that work, as the hint.
fn form_lines(
    panel: &AskPanel,
    message: &str,
    fields: &[crate::app::ask::Field],
    theme: &Theme,
    lines: &mut Vec<Line<'_>>,
) -> &'static str {
    let safe = |text: &str| crate::sanitize::text(text).into_owned();
    let strong = theme.style(Meaning::TextTitle);
    lines.push(Line::styled(safe(message), strong));
    lines.push(Line::raw(""));
    for (i, field) in fields.iter().enumerate() {
        let marker = if i == panel.selected { "▸ " } else { "  " };
        let required = if field.required { "*" } else { "" };
        let text = format!(
            "{marker}{}{required}  {}",
            safe(&field.title),
            safe(&field.value.shown())
        );
        let mut spans = vec![Span::raw(text)];
        if let Some(problem) = panel.problem_of(i) {
            spans.push(Span::styled(
                format!("  ✗ {problem}"),
                theme.style(Meaning::EditorError),
            ));
        }
        let line = Line::from(spans);
        lines.push(if i == panel.selected {
            line.style(theme.style(Meaning::Selection))
        } else {
            line
        });
    }
    if !panel.problems.is_empty() {
        let count = panel.problems.len();
        let plural = if count == 1 { "" } else { "s" };
        let said = if panel.warned {
            format!("✗ not sent: {count} problem{plural} · Enter again sends anyway")
        } else {
            format!("✗ {count} problem{plural} against the server's schema")
        };
        lines.push(Line::raw(""));
        lines.push(Line::styled(said, theme.style(Meaning::EditorError)));
    }
    if panel.warned {
        "↑↓ field · ←→ Space edit · Enter send anyway · Ctrl-D decline · Esc cancel"
    } else if panel.problems.is_empty() {
        "↑↓ field · ←→ Space change · Enter accept · Ctrl-D decline · Esc cancel"
    } else {
        "↑↓ field · ←→ Space edit · Enter×2 send anyway · Ctrl-D decline · Esc cancel"
    }
}
