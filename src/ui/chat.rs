//! The Chat pane: each run's prompt, the model's words and calls (with the log's `#id` of each
//! and what the host sent the model of it), how the run ended; the prompt line under them.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, StatefulWidget, Widget, Wrap};

use super::shared::{class_meaning, pane};
use crate::app::chat::{CallEntry, ChatPane, Entry, Phase, Run};
use crate::model_api::Ending;
use crate::sanitize;
use crate::theme::{Meaning, Theme};

/// The Chat pane over its state; drawn over `area`, the whole screen but its status line.
pub(super) struct ChatOverlay<'a> {
    pub chat: &'a ChatPane,
    /// The model's label (`openai:gpt-4.1`), if there is one.
    pub model: Option<&'a str>,
    /// The host profile the next run will see through.
    pub host: &'a str,
    /// A replay: its recorded runs, nothing to run.
    pub replay: bool,
    pub theme: &'a Theme,
}

/// Its state is where the terminal's cursor goes: at the end of the prompt.
impl StatefulWidget for ChatOverlay<'_> {
    type State = Option<Position>;

    fn render(self, area: Rect, buf: &mut Buffer, cursor: &mut Option<Position>) {
        let ChatOverlay {
            chat,
            model,
            host,
            replay,
            theme,
        } = self;
        let width = 100.min(area.width);
        let popup = Rect::new(
            area.x + (area.width - width) / 2,
            area.y,
            width,
            area.height.saturating_sub(1),
        );
        Clear.render(popup, buf);
        let title = match (model, chat.running()) {
            (None, _) if replay => "Chat · as recorded".to_owned(),
            (None, _) => "Chat · no model (--model)".to_owned(),
            (Some(model), Some(run)) => format!(
                "Chat · {} through {}'s eyes · turn {}/{}",
                sanitize::text(model),
                sanitize::text(&run.host),
                run.turns,
                run.max_turns
            ),
            (Some(model), None) => format!(
                "Chat · {} · next run through {}'s eyes",
                sanitize::text(model),
                sanitize::text(host)
            ),
        };
        let block = pane(&title, true, theme);
        let inner = block.inner(popup);
        block.render(popup, buf);
        let [story, prompt, hint] = Layout::vertical([
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(inner);
        let (lines, starts) = story_lines(chat, model.is_some(), replay, theme);
        // Where the focused run starts, in wrapped rows.
        let focused = chat.focus.and_then(|run| {
            let first = *starts.get(run.checked_sub(1)?)?;
            let before = lines.get(..first)?.to_vec();
            Some(
                Paragraph::new(before)
                    .wrap(Wrap { trim: false })
                    .line_count(story.width),
            )
        });
        let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false });
        let total = paragraph.line_count(story.width);
        let height = usize::from(story.height);
        // Follow the end; scrolled up, stay where the user put it; opened on a run, at it.
        let bottom = total.saturating_sub(height);
        let top = focused.map_or_else(
            || bottom.saturating_sub(chat.scroll.min(bottom)),
            |first| first.min(bottom),
        );
        paragraph
            .scroll((u16::try_from(top).unwrap_or(u16::MAX), 0))
            .render(story, buf);
        let typed = chat.prompt.lines().join(" ");
        let shown = format!("› {}", sanitize::text(&typed));
        let room = usize::from(prompt.width);
        let skip = shown.chars().count().saturating_sub(room.saturating_sub(1));
        let visible: String = shown.chars().skip(skip).collect();
        Paragraph::new(Line::styled(visible.clone(), theme.style(Meaning::Text)))
            .render(prompt, buf);
        let column = u16::try_from(visible.chars().count()).unwrap_or(u16::MAX);
        let at = Position {
            x: prompt.x.saturating_add(column),
            y: prompt.y,
        };
        *cursor = prompt.contains(at).then_some(at);
        let keys = if replay {
            "↑↓ scroll · Esc close · a replay runs nothing".to_owned()
        } else if chat.running().is_some() {
            format!("Ctrl-K stop · Alt-h host ({host}) · ↑↓ scroll · Esc close")
        } else {
            format!("Enter run · Alt-r again · Alt-h host ({host}) · ↑↓ scroll · Esc close")
        };
        Paragraph::new(Line::styled(keys, theme.style(Meaning::TextMuted))).render(hint, buf);
    }
}

/// Every run's story, oldest first, and the line each run starts at.
fn story_lines<'a>(
    chat: &ChatPane,
    has_model: bool,
    replay: bool,
    theme: &Theme,
) -> (Vec<Line<'a>>, Vec<usize>) {
    let mut lines = Vec::new();
    let mut starts = Vec::new();
    if chat.runs.is_empty() {
        let words = if replay {
            "This recording holds no model turns (a run of sightline agent or of the Chat \
             pane, recorded with --record, does)."
        } else if has_model {
            "Type what to ask the model; Enter runs it. The server's tools are offered as the \
             host offers them, each call the model makes goes to the server (it lands in the \
             Exchange log), and the model reads exactly what that host sends it. Alt-h \
             switches the host; Alt-r runs the prompt again; with several servers open, Alt-b \
             runs it on every one."
        } else {
            "No model to talk to. Start sightline with --model PROVIDER:MODEL (openai:, \
             openai-responses:, anthropic:, gemini:) and, for a local or compatible endpoint, \
             --model-url URL; the key is read from OPENAI_API_KEY, ANTHROPIC_API_KEY or \
             GEMINI_API_KEY (or --model-key-env NAME)."
        };
        lines.push(Line::styled(words, theme.style(Meaning::TextMuted)));
        return (lines, starts);
    }
    for run in &chat.runs {
        starts.push(lines.len());
        run_lines(run, theme, &mut lines);
    }
    if !chat.elsewhere.is_empty() {
        lines.push(Line::styled(
            "── every server's last run",
            theme.style(Meaning::TextMuted),
        ));
        for (server, summary) in &chat.elsewhere {
            lines.push(Line::styled(
                format!("{}: {summary}", sanitize::text(server)),
                theme.style(Meaning::Text),
            ));
        }
    }
    (lines, starts)
}

fn run_lines(run: &Run, theme: &Theme, lines: &mut Vec<Line<'_>>) {
    let muted = theme.style(Meaning::TextMuted);
    let eyes = if run.host.is_empty() {
        ", as recorded".to_owned()
    } else {
        format!(" through {}'s eyes", sanitize::text(&run.host))
    };
    lines.push(Line::styled(
        format!(
            "── run {} · {}{eyes}",
            run.number,
            sanitize::text(&run.model)
        ),
        muted,
    ));
    for entry in &run.entries {
        match entry {
            Entry::Prompt(text) => lines.push(Line::from(vec![
                Span::styled("you   ", theme.style(Meaning::TextTitle)),
                Span::styled(
                    sanitize::text(text).into_owned(),
                    theme.style(Meaning::Text),
                ),
            ])),
            Entry::Said { text, .. } => lines.push(Line::from(vec![
                Span::styled("model ", theme.style(Meaning::TextTitle)),
                Span::styled(
                    sanitize::text(text).into_owned(),
                    theme.style(Meaning::Text),
                ),
            ])),
            Entry::Call(call) => call_lines(call, !run.phase.is_running(), theme, lines),
        }
    }
    if let (Phase::Asking, Some(text)) = (&run.phase, &run.streaming) {
        lines.push(Line::from(vec![
            Span::styled("model ", theme.style(Meaning::TextTitle)),
            Span::styled(
                format!("{}▌", sanitize::text(text)),
                theme.style(Meaning::Text),
            ),
        ]));
    }
    let meaning = match &run.phase {
        Phase::Asking | Phase::Calling | Phase::Stopped | Phase::Recorded => Meaning::TextMuted,
        Phase::Ended(Ending::Answered) => Meaning::OutcomeSuccess,
        Phase::Ended(Ending::TurnsRanOut | Ending::HostEndedRun) => Meaning::OutcomeProtocolError,
        Phase::Failed(_) => Meaning::OutcomeTransportFailure,
    };
    let text = run.summary();
    lines.push(Line::styled(text, theme.style(meaning)));
}

/// A call and what came of it; `ended`: the run is over, so a call not read was never read.
fn call_lines(call: &CallEntry, ended: bool, theme: &Theme, lines: &mut Vec<Line<'_>>) {
    let mut head = vec![Span::styled(
        format!(
            "→ {} {}",
            sanitize::text(&call.name),
            sanitize::text(&call.arguments.to_string())
        ),
        theme.style(Meaning::LogOutgoing),
    )];
    let mut notes = Vec::new();
    if let Some(id) = &call.id {
        notes.push(format!("#{}", sanitize::text(id)));
    }
    notes.push(format!("turn {}", call.turn));
    head.push(Span::styled(
        format!("  {}", notes.join(" · ")),
        theme.style(Meaning::TextMuted),
    ));
    if call.repeated {
        head.push(Span::styled(
            " · the same call again",
            theme.style(Meaning::FindingWarning),
        ));
    }
    lines.push(Line::from(head));
    let (said, meaning) = match (&call.read, call.class, call.by_host) {
        (None, Some(class), _) if ended => (
            format!(
                "  ← {} · the run ended before the model read it",
                class.label()
            ),
            class_meaning(class),
        ),
        (None, None, _) if ended => (
            "  ← the run ended before the model read it".to_owned(),
            Meaning::TextMuted,
        ),
        (None, _, _) => (
            "  … the server has not answered".to_owned(),
            Meaning::TextMuted,
        ),
        (Some(read), _, true) => (
            format!(
                "  ← answered by the host, the server not called · the model read: {}",
                sanitize::text(read)
            ),
            Meaning::FindingWarning,
        ),
        (Some(read), Some(class), false) if read.is_empty() => (
            format!("  ← {} · the model read nothing", class.label()),
            class_meaning(class),
        ),
        (Some(read), Some(class), false) => (
            format!(
                "  ← {} · the model read: {}",
                class.label(),
                sanitize::text(read)
            ),
            class_meaning(class),
        ),
        (Some(read), None, false) => (
            format!("  ← the model read: {}", sanitize::text(read)),
            Meaning::Text,
        ),
    };
    lines.push(Line::styled(said, theme.style(meaning)));
}
