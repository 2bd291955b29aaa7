//! Rendering, pure: `&AppState` and a `&Theme` in, cells out. Never awaits; long lists draw only
//! their visible rows. Two things are read from text as they are drawn, for the visible rows
//! only: log rows kept as their small raw text (at most 4 KiB each) and the tool list's labels
//! (a tool's name and title, from its listed text). That is what keeps a flood of
//! notifications, or a listing of 200,000 tools, at little more than its bytes.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget, Wrap};

use std::borrow::Cow;

use ratatui::layout::Position;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::app::Command;
use crate::app::ask::{AskKind, AskPanel, CANNED_REPLY};
use crate::app::audit::{AuditPanel, Phase as AuditPhase};
use crate::app::describe::id_label;
use crate::app::layout;
use crate::app::state::{AppState, Focus, LineKind, Link, Picker, Tone, ToolRow};
use crate::app::update::keep_in_view;
use crate::classify::Class;
use crate::classify::findings::{Finding, Severity};
use crate::input::keymap::{HelpEntry, Mode, Scope, help_entries, help_rows};
use crate::mcp::era::Era;
use crate::model_view::Rule;
use crate::theme::{Meaning, Theme};

/// Draws the whole screen.
pub fn render(frame: &mut Frame, state: &AppState, theme: &Theme) {
    let area = frame.area();
    let buf = frame.buffer_mut();
    let panes = layout::areas(area);
    Block::new()
        .style(theme.style(Meaning::Text))
        .render(area, buf);
    tools_pane(panes.tools, buf, state, theme);
    let cursor = editor_pane(panes.editor, buf, state, theme);
    if state.log.show_console {
        console_pane(panes.log, buf, state, theme);
    } else {
        log_pane(panes.log, buf, state, theme);
    }
    detail_pane(panes.detail, buf, state, theme);
    model_pane(panes.model, buf, state, theme);
    status_bar(panes.status, buf, state, theme);
    if state.show_help {
        help_overlay(area, buf, state, theme);
    } else if let Some(panel) = &state.asking {
        ask_overlay(area, buf, panel, theme);
    } else if let Some(audit) = &state.audit {
        audit_overlay(area, buf, audit, theme);
    } else if let Some(picker) = &state.picker {
        picker_overlay(area, buf, picker, theme);
    } else if let Some(cursor) = cursor {
        // The terminal's own cursor, where typing goes (the runtime makes it a blinking bar).
        frame.set_cursor_position(cursor);
    }
}

/// `text` cut to `width` columns, with `…` where it was cut.
pub fn fit(text: &str, width: usize) -> Cow<'_, str> {
    if text.width() <= width {
        return Cow::Borrowed(text);
    }
    let mut kept = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        kept.push(c);
        used += w;
    }
    if width > 0 {
        kept.push('…');
    }
    Cow::Owned(kept)
}

/// The columns of `text` from `skip` on, at most `width` of them, with `…` where more follows
/// (sideways scrolling with wrap off).
fn window(text: &str, skip: usize, width: usize) -> Cow<'_, str> {
    if skip == 0 {
        return fit(text, width);
    }
    let mut at = 0;
    let rest = text
        .char_indices()
        .find(|(_, c)| {
            let before = at;
            at += c.width().unwrap_or(0);
            before >= skip
        })
        .map_or("", |(i, _)| &text[i..]);
    Cow::Owned(fit(rest, width).into_owned())
}

fn pane<'a>(title: &str, focused: bool, theme: &Theme) -> Block<'a> {
    let (border, kind) = if focused {
        (theme.style(Meaning::BorderFocused), BorderType::Thick)
    } else {
        (theme.style(Meaning::Border), BorderType::Rounded)
    };
    Block::bordered()
        .border_type(kind)
        .border_style(border)
        .title(Span::styled(
            format!(" {title} "),
            if focused {
                theme.style(Meaning::TextTitle)
            } else {
                theme.style(Meaning::Text)
            },
        ))
}

fn tools_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let tools = &state.tools;
    let focused = state.focus == Focus::Tools;
    let title = if tools.show_schema {
        format!("Tools ({}) · s: back to the list", tools.tools.len())
    } else {
        format!("Tools ({})", tools.tools.len())
    };
    let block = pane(&title, focused, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    if tools.tools.is_empty() {
        let text = match (&tools.problem, &state.link) {
            (Some(problem), _) => format!("tools/list failed: {problem}"),
            (None, Link::Failed(reason)) => format!("not connected: {reason}"),
            (None, Link::Connected(_)) => "the server lists no tools".to_owned(),
            (None, _) => "connecting…".to_owned(),
        };
        Paragraph::new(text)
            .style(theme.style(Meaning::TextMuted))
            .wrap(Wrap { trim: false })
            .render(inner, buf);
        return;
    }
    let about = about_lines(state, theme);
    if tools.show_schema {
        // The whole pane for the selected tool: description, annotations and schema, scrolled.
        let scroll = tools.about_scroll.min(about.len().saturating_sub(1));
        Paragraph::new(about)
            .wrap(Wrap { trim: false })
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
            .render(inner, buf);
        return;
    }
    let list_rows = layout::tool_list_rows(area, tools.tools.len());
    let [list, _, below] = Layout::vertical([
        Constraint::Length(u16::try_from(list_rows).unwrap_or(u16::MAX)),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    let start = keep_in_view(tools.offset, tools.selected, list_rows);
    let width = usize::from(list.width);
    let rows: Vec<Line> = tools
        .tools
        .iter()
        .enumerate()
        .skip(start)
        .take(list_rows)
        .map(|(i, tool)| {
            let marker = if i == tools.selected { "▸ " } else { "  " };
            // Labels of the visible rows only, made as they are drawn.
            let (name, title) = ToolRow::label(tool);
            let rejected = if tool.rejected.is_some() {
                "  ✗ rejected"
            } else {
                ""
            };
            let label = match title {
                Some(title) => format!("{marker}{name} — {title}{rejected}"),
                None => format!("{marker}{name}{rejected}"),
            };
            let line = Line::raw(fit(&label, width).into_owned());
            if i == tools.selected {
                line.style(theme.style(Meaning::Selection))
            } else if tool.rejected.is_some() {
                // Greyed: not called unless the user asks (I), as a conforming host drops it.
                line.style(theme.style(Meaning::TextMuted))
            } else {
                line
            }
        })
        .collect();
    Paragraph::new(rows).render(list, buf);
    // The description below the list, as much as fits; `s` shows all of it.
    let paragraph = Paragraph::new(about).wrap(Wrap { trim: false });
    let needed = paragraph.line_count(below.width);
    if needed > usize::from(below.height) && below.height > 1 {
        let [text, more] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(below);
        paragraph.render(text, buf);
        Line::styled(
            "… s: all of it, and the schema",
            theme.style(Meaning::TextMuted),
        )
        .render(more, buf);
    } else {
        paragraph.render(below, buf);
    }
}

/// The selected tool's description and annotations, then its schema when `s` is on.
fn about_lines<'a>(state: &'a AppState, theme: &Theme) -> Vec<Line<'a>> {
    let Some(row) = state.tools.selected_row.as_ref() else {
        return Vec::new();
    };
    let mut lines = vec![Line::styled(
        row.description.as_str(),
        theme.style(Meaning::Text),
    )];
    if !row.annotations.is_empty() {
        lines.push(Line::styled(
            row.annotations.as_str(),
            theme.style(Meaning::TextMuted),
        ));
    }
    if state.tools.show_schema {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "inputSchema:",
            theme.style(Meaning::TextTitle),
        ));
        lines.extend(
            row.schema
                .iter()
                .map(|l| Line::styled(l.as_str(), theme.style(Meaning::TextMuted))),
        );
    } else {
        lines.push(Line::styled(
            "Enter: edit its request · s: schema",
            theme.style(Meaning::TextMuted),
        ));
    }
    lines
}

/// The request editor; while editing, where the terminal cursor goes.
fn editor_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) -> Option<Position> {
    let editor = &state.editor;
    let editing = state.key_mode() == Mode::Editing;
    let tool = editor
        .tool
        .as_deref()
        .map(|tool| crate::sanitize::text(tool).into_owned());
    let title = match (&tool, editing) {
        (Some(tool), true) => format!("Editing · {tool}"),
        (Some(tool), false) => format!("Request · {tool}"),
        (None, _) => "Request".to_owned(),
    };
    let focused = state.focus == Focus::Editor;
    let block = pane(&title, focused, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let mut notes: Vec<Line> = vec![Line::styled(
        editor_footer(state),
        theme.style(Meaning::TextMuted),
    )];
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
    let note_height = u16::try_from(notes.line_count(inner.width))
        .unwrap_or(u16::MAX)
        .min(inner.height / 2);
    let [text, info] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(note_height)]).areas(inner);
    notes.render(info, buf);
    if editor.tool.is_none() && editor.textarea.is_empty() {
        Paragraph::new("Select a tool and press Enter.")
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
fn editor_footer(state: &AppState) -> String {
    let onoff = |on: bool| if on { "on" } else { "off" };
    if state.key_mode() == Mode::Editing {
        let keys: Vec<String> = help_rows(Scope::Global)
            .filter(|b| b.command == Command::SendRequest)
            .chain(help_rows(Scope::Editing))
            .map(|binding| match binding.command {
                Command::ToggleValidation => format!(
                    "{} validation ({})",
                    binding.keys,
                    onoff(state.settings.validation)
                ),
                Command::ToggleForwarding => format!(
                    "{} MAY ({})",
                    binding.keys,
                    onoff(state.settings.forwards_protocol_errors())
                ),
                Command::CycleHost => format!("{} host", binding.keys),
                Command::SendRequest => format!("{} send", binding.keys),
                Command::Back => format!("{} stop editing", binding.keys),
                Command::NextPlaceholder => format!("{} next value", binding.keys),
                _ => String::new(),
            })
            .filter(|text| !text.is_empty())
            .collect();
        keys.join(" · ")
    } else {
        format!(
            "Enter edit · Ctrl-S send · v validation ({}): {}",
            onoff(state.settings.validation),
            if state.settings.validation {
                "checked against the schema"
            } else {
                "sent exactly as typed"
            }
        )
    }
}

fn kind_style(kind: LineKind, theme: &Theme) -> Style {
    theme.style(match kind {
        LineKind::Outgoing => Meaning::LogOutgoing,
        LineKind::Response(class) => class_meaning(class),
        LineKind::ServerRequest | LineKind::Notification => Meaning::LogNotification,
        LineKind::Stderr => Meaning::LogStderr,
        LineKind::Invalid => Meaning::LogInvalid,
        LineKind::Failure => Meaning::OutcomeTransportFailure,
        LineKind::Note | LineKind::Probe | LineKind::Http => Meaning::LogNote,
    })
}

/// The theme meaning of an outcome class.
pub fn class_meaning(class: Class) -> Meaning {
    match class {
        Class::Success => Meaning::OutcomeSuccess,
        Class::ToolError => Meaning::OutcomeToolError,
        Class::ProtocolError => Meaning::OutcomeProtocolError,
        Class::TransportFailure => Meaning::OutcomeTransportFailure,
    }
}

fn log_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let log = &state.log;
    let follow = if log.selected.is_none() {
        " · following"
    } else {
        ""
    };
    let title = format!("Exchange ({}){follow}", log.lines.len());
    let block = pane(&title, state.focus == Focus::Log, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    if log.lines.is_empty() {
        Paragraph::new("No frames yet.")
            .style(theme.style(Meaning::TextMuted))
            .render(inner, buf);
        return;
    }
    let height = usize::from(inner.height);
    let start = match log.selected {
        Some(selected) => keep_in_view(log.offset, selected, height),
        None => log.lines.len().saturating_sub(height),
    };
    let width = usize::from(inner.width);
    let rows: Vec<Line> = log.lines[start..(start + height).min(log.lines.len())]
        .iter()
        .enumerate()
        .map(|(offset, line)| {
            // The marker leads the row: a long summary is cut at the pane's edge, the marker never.
            let marker = if line.flagged { "⚑ " } else { "" };
            let time = format!("{} ", line.at);
            let room = width.saturating_sub(time.width() + marker.width());
            let summary = log.summary(line);
            let row = Line::from(vec![
                Span::styled(time, theme.style(Meaning::TextMuted)),
                Span::styled(marker, theme.style(Meaning::FindingSep1303)),
                Span::styled(
                    fit(&summary, room).into_owned(),
                    kind_style(line.kind, theme),
                ),
            ]);
            if log.selected == Some(start + offset) {
                row.style(theme.style(Meaning::Selection))
            } else {
                row
            }
        })
        .collect();
    Paragraph::new(rows).render(inner, buf);
}

fn console_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let block = pane(
        &format!(
            "Console: server stderr and log messages ({}) · ` back",
            state.log.console_lines
        ),
        state.focus == Focus::Log,
        theme,
    );
    let inner = block.inner(area);
    block.render(area, buf);
    let height = usize::from(inner.height);
    let rows: Vec<Line> = state
        .log
        .console_window(height, state.log.console_scroll)
        .into_iter()
        .map(|line| {
            Line::from(vec![
                Span::styled(format!("{} ", line.at), theme.style(Meaning::TextMuted)),
                Span::styled(
                    format!("{:<8}", line.source),
                    theme.style(Meaning::LogNotification),
                ),
                Span::styled(format!(" {}", line.text), theme.style(Meaning::LogStderr)),
            ])
        })
        .collect();
    if rows.is_empty() {
        Paragraph::new("The server has written nothing to stderr yet.")
            .style(theme.style(Meaning::TextMuted))
            .render(inner, buf);
    } else {
        Paragraph::new(rows).render(inner, buf);
    }
}

/// Which call (or entry) Detail and the model view show, in words.
fn showing(state: &AppState) -> String {
    let line = state.log.selected.and_then(|i| state.log.lines.get(i));
    let call = |index: usize| {
        state.calls.get(index).map(|call| {
            format!(
                "{} {}",
                id_label(call.session, &call.exchange.id),
                crate::sanitize::text(&call.tool)
            )
        })
    };
    match line {
        Some(line) => match line.exchange.and_then(call) {
            Some(call) => format!("selected {call}"),
            None => "selected entry".to_owned(),
        },
        None => match state.calls.len().checked_sub(1).and_then(call) {
            Some(call) => format!("latest call {call}"),
            None => "latest call".to_owned(),
        },
    }
}

fn detail_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let log = &state.log;
    let title = format!("Detail · {}", showing(state));
    let block = pane(&title, state.focus == Focus::Detail, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let rows: Vec<Line> = log
        .detail
        .iter()
        .skip(log.detail_scroll)
        .take(usize::from(inner.height))
        .map(|line| {
            let style = if line.starts_with('→') || line.starts_with('←') {
                theme.style(Meaning::TextTitle)
            } else {
                theme.style(Meaning::Text)
            };
            Line::styled(line.as_str(), style)
        })
        .collect();
    wrapped_or_cut(rows, state, 0, inner, buf);
}

fn model_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let host = crate::sanitize::text(&state.settings.host().name);
    // The host's name matters more than the pane's: the long title gives way first.
    let room = usize::from(area.width.saturating_sub(4));
    let title = [
        format!("What the model sees · host '{host}'"),
        format!("What the model sees · {host}"),
        format!("Model · {host}"),
    ]
    .into_iter()
    .find(|title| title.chars().count() <= room)
    .unwrap_or_else(|| host.into_owned());
    let block = pane(&title, state.focus == Focus::Model, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let Some((view, call)) = state
        .model
        .as_ref()
        .and_then(|view| Some((view, state.calls.get(view.call)?)))
    else {
        let text = match (&state.read_back.failed, state.current_call()) {
            (Some(_), Some(_)) => "This call could not be read back from the transcript.",
            (None, Some(_)) => "Reading this call back from the transcript…",
            (_, None) => "Send a tools/call to see what would reach the model.",
        };
        Paragraph::new(text)
            .style(theme.style(Meaning::TextMuted))
            .wrap(Wrap { trim: false })
            .render(inner, buf);
        return;
    };
    let verdict_style = theme.style(if view.forwarded {
        Meaning::ModelForwarded
    } else {
        Meaning::ModelNotForwarded
    });
    let mut lines = vec![
        Line::from(vec![
            Span::styled(
                format!(
                    "{}: {} {} ",
                    // A selected line that is no call's leaves the pane on the latest call.
                    if state
                        .log
                        .selected
                        .and_then(|i| state.log.lines.get(i)?.exchange)
                        == Some(view.call)
                    {
                        "selected"
                    } else {
                        "latest"
                    },
                    id_label(call.session, &call.exchange.id),
                    crate::sanitize::text(&call.tool)
                ),
                theme.style(Meaning::Text),
            ),
            Span::styled(
                call.outcome.class.label(),
                theme.style(class_meaning(call.outcome.class)),
            ),
        ]),
        Line::styled(view.verdict.as_str(), verdict_style),
    ];
    let structured = view.structured;
    let marker = match (view.forwarded, view.is_error, view.rule) {
        (true, true, Rule::May) => "marked as an error, less likely to help",
        (true, true, _) => "marked as an error",
        (false, _, _) => "the host's own words, not the server's:",
        (true, false, _) if structured => "includes structuredContent, serialized",
        (true, false, _) => "",
    };
    for note in &view.notes {
        lines.push(Line::styled(
            format!("▸ {note}"),
            theme.style(Meaning::FindingInfo),
        ));
    }
    if !marker.is_empty() {
        lines.push(Line::styled(marker, theme.style(Meaning::TextMuted)));
    }
    lines.push(Line::raw(""));
    lines.extend(
        view.text
            .split('\n')
            .map(|l| Line::styled(l, theme.style(Meaning::Text))),
    );
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("why: {}", view.reason),
        theme.style(Meaning::TextMuted),
    ));
    if let Some(captured) = &view.captured {
        lines.extend(captured_lines(captured, &view.host, theme));
    }
    for finding in call.findings.iter().chain(&view.findings) {
        lines.extend(finding_lines(finding, theme));
    }
    wrapped_or_cut(lines, state, state.model_scroll, inner, buf);
}

/// What the real host sent its model (`H`), beside the prediction above it.
fn captured_lines<'a>(
    captured: &'a crate::app::state::Captured,
    host: &str,
    theme: &Theme,
) -> Vec<Line<'a>> {
    use crate::app::state::Captured;
    let mut lines = vec![Line::raw("")];
    match captured {
        Captured::Running => lines.push(Line::styled(
            format!("── the real {host}: running… ──"),
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
                ("sent its model exactly this", Meaning::ModelForwarded)
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

/// A finding in the model pane: a blank line, the flag, the id, the message.
fn finding_lines<'a>(finding: &'a Finding, theme: &Theme) -> [Line<'a>; 4] {
    let meaning = match finding.severity {
        Severity::Warning if finding.id.starts_with("sep1303") => Meaning::FindingSep1303,
        Severity::Warning => Meaning::FindingWarning,
        Severity::Info => Meaning::FindingInfo,
    };
    let severity = match finding.severity {
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    [
        Line::raw(""),
        Line::styled(format!("⚑ finding ({severity})"), theme.style(meaning)),
        Line::styled(finding.id, theme.style(meaning)),
        Line::styled(
            crate::sanitize::text(&finding.message).into_owned(),
            theme.style(Meaning::Text),
        ),
    ]
}

/// Lines wrapped at the pane's edge, or (wrap off) cut there with `…` and scrolled sideways.
fn wrapped_or_cut(lines: Vec<Line>, state: &AppState, scroll: usize, area: Rect, buf: &mut Buffer) {
    let scroll = u16::try_from(scroll).unwrap_or(u16::MAX);
    if state.wrap {
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .render(area, buf);
    } else {
        let width = usize::from(area.width);
        let cut: Vec<Line> = lines
            .into_iter()
            .map(|line| {
                let text: String = line
                    .spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect();
                let style = line
                    .spans
                    .first()
                    .map_or(line.style, |span| line.style.patch(span.style));
                Line::styled(window(&text, state.hscroll, width).into_owned(), style)
            })
            .collect();
        Paragraph::new(cut).scroll((scroll, 0)).render(area, buf);
    }
}

/// One piece of the status line.
struct Segment {
    /// Lower stays longer.
    priority: u8,
    text: String,
    /// A shorter text, tried before the segment gives way.
    short: Option<String>,
    style: Style,
}

/// The status line: segments that give way by priority, so the mode, a message and a pending
/// call are never cut, at 80 columns or less.
fn status_bar(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let width = usize::from(area.width);
    let mut used = 0;
    let spans: Vec<Span> = fit_segments(status_segments(state, theme), width)
        .into_iter()
        .map(|segment| {
            let text = fit(&segment.text, width.saturating_sub(used)).into_owned();
            used += text.width();
            Span::styled(text, segment.style)
        })
        .collect();
    Paragraph::new(Line::from(spans))
        .style(theme.style(Meaning::StatusBar))
        .render(area, buf);
}

fn status_segments(state: &AppState, theme: &Theme) -> Vec<Segment> {
    let bar = theme.style(Meaning::StatusBar);
    let era = |era: Era| match era {
        Era::Legacy => "legacy",
        Era::Modern => "modern",
    };
    let (server, short_server) = match &state.link {
        Link::Connected(c) => {
            let name = crate::sanitize::text(&c.server.name);
            (
                format!(
                    "{name} {} · {} {}",
                    crate::sanitize::text(&c.server.version),
                    era(c.era),
                    c.protocol_version
                ),
                Some(format!("│ {name} · {} ", era(c.era))),
            )
        }
        Link::Starting | Link::Connecting => ("connecting…".to_owned(), None),
        Link::Failed(_) => ("not connected (r retries)".to_owned(), None),
        Link::Disconnected => ("disconnected (r reconnects)".to_owned(), None),
    };
    let mode = match state.key_mode() {
        Mode::Editing => " EDITING · Esc stops ",
        Mode::Help => " HELP · Esc closes ",
        Mode::Answering => " THE SERVER ASKS · Enter accept ",
        Mode::Browsing => " ? help ",
    };
    let mut segments = vec![Segment {
        priority: 0,
        text: mode.to_owned(),
        short: None,
        style: bar.patch(theme.style(Meaning::StatusKey)),
    }];
    if state.replay.is_some() {
        segments.push(Segment {
            priority: 1,
            text: " REPLAY · read-only ".to_owned(),
            short: None,
            style: bar.patch(theme.style(Meaning::StatusKey)),
        });
    }
    if state.pending_calls > 0 {
        let plural = if state.pending_calls == 1 { "" } else { "s" };
        segments.push(Segment {
            priority: 1,
            text: format!(" {} call{plural} pending (x cancels) ", state.pending_calls),
            short: None,
            style: bar.patch(theme.style(Meaning::StatusError)),
        });
    }
    if let Some(status) = &state.status {
        let tone = match status.tone {
            Tone::Info => theme.style(Meaning::StatusOk),
            Tone::Error => theme.style(Meaning::StatusError),
        };
        segments.push(Segment {
            priority: 2,
            text: format!(" {} ", status.text),
            short: None,
            style: bar.patch(tone),
        });
    }
    let onoff = |on: bool| if on { "on" } else { "off" };
    let host = crate::sanitize::text(&state.settings.host().name);
    let may = onoff(state.settings.forwards_protocol_errors());
    let validation = onoff(state.settings.validation);
    // Said only when on: off is the default, and the line is short.
    let tasks = if state.settings.tasks {
        " · tasks on"
    } else {
        ""
    };
    segments.push(Segment {
        priority: 3,
        text: format!("│ host {host} · MAY {may} · validation {validation}{tasks} "),
        short: Some(format!("│ {host} · MAY {may} · val {validation}{tasks} ")),
        style: bar,
    });
    let transport = state.transport.split(':').next().unwrap_or_default();
    let session = match &state.link {
        Link::Connected(c) => c.http_session.as_deref().map(|id| {
            format!(
                " · session {}",
                crate::sanitize::text(&crate::app::describe::short_session(id))
            )
        }),
        _ => None,
    }
    .unwrap_or_default();
    segments.push(Segment {
        priority: 4,
        text: format!("│ {server} · {transport}{session} "),
        short: short_server,
        style: bar,
    });
    segments
}

/// The least important segments give way first: their short form, then their place. The mode,
/// a pending call and a message always stay (a message too long is cut at the edge).
fn fit_segments(mut segments: Vec<Segment>, width: usize) -> Vec<Segment> {
    let total = |segments: &[Segment]| segments.iter().map(|s| s.text.width()).sum::<usize>();
    for priority in [4, 3] {
        if total(&segments) <= width {
            return segments;
        }
        if let Some(segment) = segments.iter_mut().find(|s| s.priority == priority)
            && let Some(short) = segment.short.take()
        {
            segment.text = short;
        }
    }
    for priority in [4, 3] {
        if total(&segments) > width {
            segments.retain(|s| s.priority != priority);
        }
    }
    segments
}

/// The server's question: what it asks, the answer as it will be sent, and the keys.
fn ask_overlay(area: Rect, buf: &mut Buffer, panel: &AskPanel, theme: &Theme) {
    let safe = |text: &str| crate::sanitize::text(text).into_owned();
    let muted = theme.style(Meaning::TextMuted);
    let strong = theme.style(Meaning::TextTitle);
    let mut lines: Vec<Line> = Vec::new();
    let (what, hint) = match &panel.kind {
        AskKind::Form { message, fields } => {
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
                let line = Line::raw(text);
                lines.push(if i == panel.selected {
                    line.style(theme.style(Meaning::Selection))
                } else {
                    line
                });
            }
            (
                "elicitation (form)",
                "↑↓ field · ←→ Space change · Enter accept · Ctrl-D decline · Esc cancel",
            )
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

/// The server picker: each entry of the `--config` file and what it names; Enter connects.
fn picker_overlay(area: Rect, buf: &mut Buffer, picker: &Picker, theme: &Theme) {
    // The list, a blank row and the hint.
    let popup = layout::help_popup(area, picker.choices.len() + 2);
    let inner_width = usize::from(popup.width.saturating_sub(2));
    let shown = usize::from(popup.height.saturating_sub(4)).max(1);
    let start = keep_in_view(0, picker.selected, shown);
    let name_width = picker
        .choices
        .iter()
        .map(|(name, _)| crate::sanitize::text(name).chars().count())
        .max()
        .unwrap_or(0)
        .min(inner_width / 2);
    let mut rows: Vec<Line> = picker
        .choices
        .iter()
        .enumerate()
        .skip(start)
        .take(shown)
        .map(|(i, (name, what))| {
            let marker = if i == picker.selected { "▸ " } else { "  " };
            let name = crate::sanitize::text(name);
            let text = format!(
                "{marker}{name:<name_width$}  {}",
                crate::sanitize::text(what)
            );
            let line = Line::raw(fit(&text, inner_width).into_owned());
            if i == picker.selected {
                line.style(theme.style(Meaning::Selection))
            } else {
                line
            }
        })
        .collect();
    rows.push(Line::raw(""));
    rows.push(Line::styled(
        "↑↓ choose · Enter connect · q quit",
        theme.style(Meaning::TextMuted),
    ));
    Clear.render(popup, buf);
    let title = format!(
        "{} servers in {}: pick one",
        picker.choices.len(),
        crate::sanitize::text(&picker.file)
    );
    let block = pane(&title, true, theme);
    Paragraph::new(rows)
        .block(block)
        .style(theme.style(Meaning::Text))
        .render(popup, buf);
}

/// The audit of a tool: its plan for consent, then a row per case as it finishes, and under
/// the table what the model saw of the selected case and the rule it was judged by.
fn audit_overlay(area: Rect, buf: &mut Buffer, audit: &AuditPanel, theme: &Theme) {
    let cases = &audit.plan.cases;
    // Rows: the cases, a blank, two lines about the selected one, the hint.
    let popup = layout::help_popup(area, cases.len() + 4);
    let width = usize::from(popup.width.saturating_sub(2));
    let shown = usize::from(popup.height.saturating_sub(6)).max(1);
    let start = keep_in_view(0, audit.selected, shown);
    let mut rows: Vec<Line> = Vec::new();
    for i in (0..cases.len()).skip(start).take(shown) {
        let marker = if i == audit.selected { "▸" } else { " " };
        let (text, meaning) = audit_row(audit, i, marker);
        let mut style = theme.style(meaning);
        if i == audit.selected {
            style = style.patch(theme.style(Meaning::Selection));
        }
        rows.push(Line::styled(fit(&text, width).into_owned(), style));
    }
    rows.push(Line::raw(""));
    let about: Vec<String> = match (audit.phase, audit.rows.get(audit.selected)) {
        (AuditPhase::Confirm, _) => {
            let mut about = vec![
                "These calls send invalid input on purpose; a lenient server may run the tool."
                    .to_owned(),
            ];
            if audit.destructive {
                about.push(format!(
                    "⚠ {} may be destructive (its annotations, or the spec's default).",
                    crate::sanitize::text(&audit.tool)
                ));
            }
            about
        }
        (_, Some(Some(row))) => vec![
            format!("the model sees: {}", row.judged.model_sees),
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
        AuditPhase::Confirm => "Enter send these calls · Esc cancel",
        AuditPhase::Running { .. } => "↑↓ choose · Esc stop (the call in flight finishes)",
        AuditPhase::Done => "↑↓ choose · Enter open its exchange · Esc close",
    };
    rows.push(Line::styled(hint, theme.style(Meaning::TextMuted)));
    Clear.render(popup, buf);
    let done = audit.rows.iter().flatten().count();
    let title = match audit.phase {
        AuditPhase::Confirm => format!(
            "Audit {}: {} calls",
            crate::sanitize::text(&audit.tool),
            cases.len()
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

/// A row of the audit table: its text and colour.
fn audit_row(audit: &AuditPanel, i: usize, marker: &str) -> (String, Meaning) {
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
                "{marker} {:<20} {:<26} {what}",
                case.kind.name(),
                audit.arguments[i]
            );
            (text, Meaning::Text)
        }
        (None, AuditPhase::Running { next }) if next == i => {
            (format!("{marker} …           {what}"), Meaning::TextMuted)
        }
        (None, _) => (format!("{marker} ·           {what}"), Meaning::TextMuted),
    }
}

fn help_overlay(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let entries = help_entries();
    let popup = layout::help_popup(area, entries.len());
    let shown = usize::from(popup.height.saturating_sub(2));
    let scroll = state.help_scroll.min(entries.len().saturating_sub(shown));
    let rows: Vec<Line> = entries
        .iter()
        .skip(scroll)
        .take(shown)
        .map(|entry| match entry {
            HelpEntry::Heading(text) => Line::styled(*text, theme.style(Meaning::TextTitle)),
            HelpEntry::Key(binding) => Line::from(vec![
                Span::styled(
                    format!("{:>12}  ", binding.keys),
                    theme.style(Meaning::HelpKey),
                ),
                Span::styled(binding.help, theme.style(Meaning::Text)),
            ]),
            HelpEntry::Note(text) => Line::styled(*text, theme.style(Meaning::TextMuted)),
            HelpEntry::Blank => Line::raw(""),
        })
        .collect();
    let more = if scroll + shown < entries.len() {
        format!(" · ↓ {} more", entries.len() - scroll - shown)
    } else {
        String::new()
    };
    Clear.render(popup, buf);
    let block = pane(&format!("Keys · Esc closes{more}"), true, theme);
    Paragraph::new(rows)
        .block(block)
        .style(theme.style(Meaning::Text))
        .render(popup, buf);
}
