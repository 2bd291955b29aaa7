//! The audit panel: a tool's audit plan for consent, then each case's verdict as it finishes.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

use super::shared::{fit, pane};
use crate::app::audit_panel::{AuditPanel, Phase as AuditPhase};
use crate::app::layout;
use crate::app::update::keep_in_view;
use crate::theme::{Meaning, Theme};

/// The audit panel over the audit's state; drawn over `area`, the whole screen.
pub(super) struct AuditOverlay<'a> {
    pub audit: &'a AuditPanel,
    pub theme: &'a Theme,
}

/// The audit of a tool: its plan for consent, then a row per case as it finishes, and under
/// the table what the model saw of the selected case and the rule it was judged by.
impl Widget for AuditOverlay<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let AuditOverlay { audit, theme } = self;
        let cases = &audit.plan.cases;
        // Rows: the cases, a blank, two lines about the selected one, the hint.
        let popup = layout::help_popup(area, cases.len() + 4);
        let width = usize::from(popup.width.saturating_sub(2));
        let shown = usize::from(popup.height.saturating_sub(6)).max(1);
        let start = keep_in_view(0, audit.selected, shown);
        // The arguments take at most a third of the row, so what is wrong keeps its place.
        let column = audit.arguments_width.min((width / 3).max(12));
        let mut rows: Vec<Line> = Vec::new();
        for i in (0..cases.len()).skip(start).take(shown) {
            let marker = if i == audit.selected { "▸" } else { " " };
            let (text, meaning) = audit_row(audit, i, marker, column);
            let mut style = theme.style(meaning);
            if i == audit.selected {
                style = style.patch(theme.style(Meaning::Selection));
            }
            rows.push(Line::styled(fit(&text, width).into_owned(), style));
        }
        rows.push(Line::raw(""));
        let about: Vec<String> = match (audit.phase, audit.rows.get(audit.selected)) {
            (AuditPhase::Confirm, _) => {
                let these = if cases.len() == 1 {
                    "This call sends"
                } else {
                    "These calls send"
                };
                let mut about = vec![format!(
                    "{these} invalid input on purpose; a lenient server may run the tool."
                )];
                if audit.destructive {
                    about.push(format!(
                        "⚠ {} may be destructive (its annotations, or the spec's default).",
                        crate::sanitize::text(&audit.tool)
                    ));
                }
                about
            }
            (_, Some(Some(row))) => vec![
                format!(
                    "the model sees: {}",
                    crate::audit::report::line(&row.judged.model_sees)
                ),
                format!(
                    "{} {}: \"{}\"",
                    row.judged.rule.version, row.judged.rule.source, row.judged.rule.text
                ),
            ],
            _ => vec![String::new()],
        };
        for line in about.iter().take(2) {
            rows.push(Line::styled(
                fit(line, width).into_owned(),
                theme.style(Meaning::TextMuted),
            ));
        }
        let hint = match audit.phase {
            AuditPhase::Confirm if cases.len() == 1 => "Enter send this call · Esc cancel",
            AuditPhase::Confirm => "Enter send these calls · Esc cancel",
            AuditPhase::Running { .. } => "↑↓ choose · Esc stop (the call in flight finishes)",
            AuditPhase::Done => "↑↓ choose · Enter open its exchange · Esc close",
        };
        rows.push(Line::styled(hint, theme.style(Meaning::TextMuted)));
        Clear.render(popup, buf);
        let done = audit.rows.iter().flatten().count();
        let title = match audit.phase {
            AuditPhase::Confirm => format!(
                "Audit {}: {}",
                crate::sanitize::text(&audit.tool),
                crate::audit::report::plural(cases.len(), "call")
            ),
            _ => format!(
                "Audit {} · {done}/{} · {}",
                crate::sanitize::text(&audit.tool),
                cases.len(),
                audit.summary()
            ),
        };
        let title = fit(&title, width.saturating_sub(2)).into_owned();
        Paragraph::new(rows)
            .block(pane(&title, true, theme))
            .style(theme.style(Meaning::Text))
            .render(popup, buf);
    }
}

/// A row of the audit table, its arguments in a `column` that wide: its text and colour.
fn audit_row(audit: &AuditPanel, i: usize, marker: &str, column: usize) -> (String, Meaning) {
    use crate::audit::Verdict;
    let case = &audit.plan.cases[i];
    let what = crate::sanitize::text(&case.what);
    match (&audit.rows[i], audit.phase) {
        (Some(row), _) => {
            let verdict = row.judged.verdict;
            let mark = if verdict == Verdict::Conformant {
                "✓"
            } else {
                "✗"
            };
            let meaning = match verdict {
                Verdict::Conformant => Meaning::OutcomeSuccess,
                Verdict::ModelBlind => Meaning::OutcomeProtocolError,
                Verdict::Lenient | Verdict::Misfiled => Meaning::OutcomeToolError,
                Verdict::Unclear => Meaning::OutcomeTransportFailure,
            };
            let text = format!(
                "{marker} {mark} {:<11} {what} → {}",
                verdict.name(),
                row.judged.got
            );
            (text, meaning)
        }
        (None, AuditPhase::Confirm) => {
            let text = format!(
                "{marker} {:<20} {:<column$} {what}",
                case.kind.name(),
                fit(&audit.arguments[i], column),
            );
            (text, Meaning::Text)
        }
        (None, AuditPhase::Running { next }) if next == i => {
            (format!("{marker} …           {what}"), Meaning::TextMuted)
        }
        (None, _) => (format!("{marker} ·           {what}"), Meaning::TextMuted),
    }
}
