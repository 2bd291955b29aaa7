//! The "What the model sees" pane: the host's prediction, what the real host sent, findings.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::shared::{
    Sideways, class_meaning, finding_lines, hidden_rows, pane, progress_words, with_hidden,
    wrapped_or_cut,
};
use crate::app::describe::id_label;
use crate::app::pending::PendingCall;
use crate::app::state::{CallRecord, ModelPane};
use crate::theme::{Meaning, Theme};

/// The model pane over what the model sees of the current call, the calls, and the host.
pub(super) struct ModelViewPane<'a> {
    /// The active host profile's name (not yet terminal-safe).
    pub host: &'a str,
    pub model: Option<&'a ModelPane>,
    pub calls: &'a [CallRecord],
    /// The call of the selected log line, if it is one's.
    pub selected_call: Option<usize>,
    /// Whether there is a call to show (the model view may still be being read back).
    pub has_call: bool,
    /// Whether reading the call back from a replay's transcript failed.
    pub read_back_failed: bool,
    /// The call on its way: shown, while no row is selected, instead of the previous call.
    pub pending: Option<&'a PendingCall>,
    pub ticks: u64,
    /// Why no call can be sent yet (not connected), said while there is none.
    pub unconnected: Option<&'a str>,
    /// The first row in view.
    pub scroll: usize,
    pub sideways: Sideways,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for ModelViewPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let ModelViewPane {
            host,
            model,
            calls,
            selected_call,
            has_call,
            read_back_failed,
            unconnected,
            pending,
            ticks,
            scroll,
            sideways,
            focused,
            theme,
        } = self;
        let host = crate::sanitize::text(host);
        // The host's name matters more than the pane's: the long title gives way first, and
        // the host reads the same in every width ("host 'NAME'").
        let room = usize::from(area.width.saturating_sub(4));
        let title = [
            format!("What the model sees · host '{host}'"),
            format!("Model · host '{host}'"),
            format!("host '{host}'"),
        ]
        .into_iter()
        .find(|title| title.chars().count() <= room)
        .unwrap_or_else(|| host.into_owned());
        let block = pane(&title, focused, theme);
        let inner = block.inner(area);
        if let Some(call) = pending.filter(|_| selected_call.is_none()) {
            let lines = pending_lines(call, ticks, theme);
            let (above, below) = hidden_rows(&lines, sideways, 0, inner);
            with_hidden(block, above, below, theme).render(area, buf);
            wrapped_or_cut(lines, sideways, 0, inner, buf);
            return;
        }
        let Some((view, call)) = model.and_then(|view| Some((view, calls.get(view.call)?))) else {
            let text = match (read_back_failed, has_call) {
                (true, true) => "This call could not be read back from the transcript.".to_owned(),
                (false, true) => "Reading this call back from the transcript…".to_owned(),
                (_, false) => unconnected
                    .unwrap_or("Send a tools/call to see what would reach the model.")
                    .to_owned(),
            };
            block.render(area, buf);
            Paragraph::new(text)
                .style(theme.style(Meaning::TextMuted))
                .wrap(Wrap { trim: false })
                .render(inner, buf);
            return;
        };
        let latest = selected_call != Some(view.call);
        let mut lines = view_lines(view, call, latest, false, ticks, theme);
        if hidden_rows(&lines, sideways, 0, inner).1 > 0 {
            // Too tall for the pane: the key line and the findings' names come first, so that
            // the first look shows why, not only the text.
            lines = view_lines(view, call, latest, true, ticks, theme);
        }
        let (above, below) = hidden_rows(&lines, sideways, scroll, inner);
        with_hidden(block, above, below, theme).render(area, buf);
        wrapped_or_cut(lines, sideways, scroll, inner, buf);
    }
}

/// What the model sees of `call`: the call and its class, the verdict, the text, why, what a
/// real host sent, the findings. `key_first` puts the why and a line per finding right after
/// the verdict (for a pane too short for all of it).
fn view_lines<'a>(
    view: &'a ModelPane,
    call: &'a CallRecord,
    latest: bool,
    key_first: bool,
    ticks: u64,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let verdict_style = theme.style(if view.forwarded {
        Meaning::ModelForwarded
    } else {
        Meaning::ModelNotForwarded
    });
    let findings = || call.findings.iter().chain(&view.findings);
    let why = Line::styled(
        format!("why: {}", view.reason),
        theme.style(Meaning::TextMuted),
    );
    let mut lines = vec![
        Line::from(vec![
            Span::styled(
                format!(
                    "{}: {} {} ",
                    // A selected line that is no call's leaves the pane on the latest call.
                    if latest { "latest" } else { "selected" },
                    id_label(call.session, &call.exchange.id),
                    crate::sanitize::text(&call.tool)
                ),
                theme.style(Meaning::Text),
            ),
            Span::styled(
                crate::present::call::class_words(&call.outcome, &call.exchange.end),
                theme.style(class_meaning(call.outcome.class)),
            ),
        ]),
        Line::styled(view.verdict.as_str(), verdict_style),
    ];
    if key_first {
        // The findings' names first: one row each, where the reason may take four.
        for finding in findings() {
            lines.push(Line::styled(
                format!("⚑ {} (below)", finding.id),
                theme.style(Meaning::FindingSep1303),
            ));
        }
        lines.push(why.clone());
    }
    for note in &view.notes {
        lines.push(Line::styled(
            format!("▸ {note}"),
            theme.style(Meaning::FindingInfo),
        ));
    }
    if !view.marker.is_empty() {
        lines.push(Line::styled(view.marker, theme.style(Meaning::TextMuted)));
    }
    lines.push(Line::raw(""));
    lines.extend(
        view.text
            .split('\n')
            .map(|l| Line::styled(l, theme.style(Meaning::Text))),
    );
    if !key_first {
        lines.push(Line::raw(""));
        lines.push(why);
    }
    if let Some(captured) = &view.captured {
        lines.extend(captured_lines(captured, &view.host, ticks, theme));
    }
    for finding in findings() {
        lines.extend(finding_lines(finding, theme));
    }
    lines
}

/// The pending call: nothing reaches the model before the server answers.
fn pending_lines<'a>(call: &'a PendingCall, ticks: u64, theme: &Theme) -> Vec<Line<'a>> {
    let mut lines = vec![
        Line::styled(
            format!(
                "pending: {} {}",
                id_label(call.session, &call.id),
                call.tool
            ),
            theme.style(Meaning::Text),
        ),
        Line::styled(
            format!("waiting for the answer · {} s", call.elapsed(ticks)),
            theme.style(Meaning::TextTitle),
        ),
    ];
    if let Some(progress) = &call.progress {
        lines.push(Line::styled(
            progress_words(progress, 10),
            theme.style(Meaning::Text),
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("arguments sent: {}", call.arguments),
        theme.style(Meaning::TextMuted),
    ));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "What reaches the model is judged when the answer comes.",
        theme.style(Meaning::TextMuted),
    ));
    lines
}

/// What the real host sent its model (`H`), beside the prediction above it.
fn captured_lines<'a>(
    captured: &'a crate::app::state::Captured,
    host: &str,
    ticks: u64,
    theme: &Theme,
) -> Vec<Line<'a>> {
    use crate::app::state::Captured;
    let mut lines = vec![Line::raw("")];
    match captured {
        Captured::Running { since } => lines.push(Line::styled(
            format!("── the real {host}: {} s… ──", ticks.saturating_sub(*since)),
            theme.style(Meaning::TextMuted),
        )),
        Captured::Failed(error) => lines.push(Line::styled(
            format!("── the real {host} could not be run: {error}"),
            theme.style(Meaning::FindingWarning),
        )),
        Captured::Done {
            host,
            version,
            text,
            server_called,
            differences,
        } => {
            let (verdict, meaning) = if differences.is_empty() {
                (
                    "sent its model exactly the text above (matches the profile)",
                    Meaning::ModelForwarded,
                )
            } else {
                ("sent its model something else", Meaning::FindingWarning)
            };
            lines.push(Line::styled(
                format!("── the real {host} {version} (H): {verdict} ──"),
                theme.style(meaning),
            ));
            if !server_called {
                lines.push(Line::styled(
                    "it did not call the server",
                    theme.style(Meaning::TextMuted),
                ));
            }
            for difference in differences {
                lines.push(Line::styled(
                    format!("▸ {difference}"),
                    theme.style(Meaning::FindingWarning),
                ));
            }
            if !differences.is_empty() {
                lines.push(Line::styled(
                    "what its model read:",
                    theme.style(Meaning::TextMuted),
                ));
                let read = text.as_deref().unwrap_or("(nothing)");
                lines.extend(
                    read.split('\n')
                        .map(|l| Line::styled(l, theme.style(Meaning::Text))),
                );
            }
        }
    }
    lines
}
