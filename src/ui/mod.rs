//! Rendering, pure: `&AppState` and a `&Theme` in, cells out. Never awaits; long lists draw only
//! their visible rows. The one parse is of visible log rows kept as their small raw text (at
//! most 4 KiB each), which is what keeps a flood of notifications at little more than its bytes.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget, Wrap};

use crate::app::layout;
use crate::app::state::{AppState, Focus, LineKind, Link, Tone, ToolRow};
use crate::app::update::window_start;
use crate::classify::Class;
use crate::classify::findings::Severity;
use crate::input::keymap::help_rows;
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
    editor_pane(panes.editor, buf, state, theme);
    if state.log.show_console {
        console_pane(panes.log, buf, state, theme);
    } else {
        log_pane(panes.log, buf, state, theme);
    }
    detail_pane(panes.detail, buf, state, theme);
    model_pane(panes.model, buf, state, theme);
    status_bar(panes.status, buf, state, theme);
    if state.show_help {
        help_overlay(area, buf, theme);
    }
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
    let title = format!("Tools ({})", tools.tools.len());
    let block = pane(&title, state.focus == Focus::Tools, theme);
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
    let selected = tools.selected_row.as_ref();
    let details: Vec<Line> = match selected {
        Some(row) if tools.show_schema => row
            .schema
            .iter()
            .map(|l| Line::styled(l.as_str(), theme.style(Meaning::TextMuted)))
            .collect(),
        Some(row) => {
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
            lines.push(Line::styled(
                "Enter: edit arguments · s: schema",
                theme.style(Meaning::TextMuted),
            ));
            lines
        }
        None => Vec::new(),
    };
    let list_height = u16::try_from(tools.tools.len())
        .unwrap_or(u16::MAX)
        .min(inner.height.saturating_sub(3).max(inner.height / 2));
    let [list, _, about] = Layout::vertical([
        Constraint::Length(list_height),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    let start = window_start(tools.selected, tools.tools.len(), usize::from(list.height));
    let rows: Vec<Line> = tools
        .tools
        .iter()
        .enumerate()
        .skip(start)
        .take(usize::from(list.height))
        .map(|(i, tool)| {
            let marker = if i == tools.selected { "▸ " } else { "  " };
            // Labels of the visible rows only, made as they are drawn.
            let (name, title) = ToolRow::label(tool);
            let mut spans = vec![Span::raw(marker), Span::raw(name)];
            if let Some(title) = title {
                spans.push(Span::styled(
                    format!(" — {title}"),
                    theme.style(Meaning::TextMuted),
                ));
            }
            let line = Line::from(spans);
            if i == tools.selected {
                line.style(theme.style(Meaning::Selection))
            } else {
                line
            }
        })
        .collect();
    Paragraph::new(rows).render(list, buf);
    Paragraph::new(details)
        .wrap(Wrap { trim: false })
        .render(about, buf);
}

fn editor_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let editor = &state.editor;
    let title = match &editor.tool {
        Some(tool) => format!("Request · {}", crate::sanitize::text(tool)),
        None => "Request".to_owned(),
    };
    let focused = state.focus == Focus::Editor;
    let block = pane(&title, focused, theme);
    let inner = block.inner(area);
    block.render(area, buf);
    let notes: Vec<Line> = editor
        .problems
        .iter()
        .map(|p| Line::styled(format!("✗ {p}"), theme.style(Meaning::EditorError)))
        .chain(
            editor
                .hints
                .iter()
                .map(|h| Line::styled(h.as_str(), theme.style(Meaning::TextMuted))),
        )
        .collect();
    let validation = if state.settings.validation {
        "Ctrl-S sends · validation on (v)"
    } else {
        "Ctrl-S sends · validation off: sent exactly as typed (v)"
    };
    let note_height = u16::try_from(notes.len() + 1)
        .unwrap_or(u16::MAX)
        .min(inner.height / 2);
    let [text, info] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(note_height)]).areas(inner);
    if editor.tool.is_none() && editor.textarea.is_empty() {
        Paragraph::new("Select a tool and press Enter.")
            .style(theme.style(Meaning::TextMuted))
            .render(text, buf);
    } else {
        // Drawn as it is: its cursor style follows the focus in `update`, so nothing is copied.
        (&editor.textarea).render(text, buf);
    }
    let mut lines = vec![Line::styled(validation, theme.style(Meaning::TextMuted))];
    lines.extend(notes);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(info, buf);
}

fn kind_style(kind: LineKind, theme: &Theme) -> Style {
    theme.style(match kind {
        LineKind::Outgoing => Meaning::LogOutgoing,
        LineKind::Response(class) => class_meaning(class),
        LineKind::ServerRequest | LineKind::Notification => Meaning::LogNotification,
        LineKind::Stderr => Meaning::LogStderr,
        LineKind::Invalid => Meaning::LogInvalid,
        LineKind::Failure => Meaning::OutcomeTransportFailure,
        LineKind::Note => Meaning::LogNote,
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
    let current = log.current().unwrap_or(0);
    let start = window_start(current, log.lines.len(), height);
    let rows: Vec<Line> = log.lines[start..(start + height).min(log.lines.len())]
        .iter()
        .enumerate()
        .map(|(offset, line)| {
            // The marker leads the row: a long summary is cut at the pane's edge, the marker never.
            let marker = if line.flagged {
                Span::styled("⚑ ", theme.style(Meaning::FindingSep1303))
            } else {
                Span::raw("")
            };
            let row = Line::from(vec![
                Span::styled(format!("{} ", line.at), theme.style(Meaning::TextMuted)),
                marker,
                Span::styled(log.summary(line), kind_style(line.kind, theme)),
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

fn detail_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let log = &state.log;
    let title = match log.selected {
        Some(_) => "Detail: selected entry".to_owned(),
        None => "Detail: latest call".to_owned(),
    };
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
    Paragraph::new(rows).render(inner, buf);
}

fn model_pane(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let host = state.settings.host();
    let block = pane(
        &format!("What the model sees · host '{}'", host.name),
        state.focus == Focus::Model,
        theme,
    );
    let inner = block.inner(area);
    block.render(area, buf);
    let Some((view, call)) = state
        .model
        .as_ref()
        .and_then(|view| Some((view, state.calls.get(view.call)?)))
    else {
        let text = "Send a tools/call to see what would reach the model.";
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
                    "#{} {} ",
                    call.exchange.id,
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
    for finding in &call.findings {
        let meaning = match finding.severity {
            Severity::Warning if finding.id.starts_with("sep1303") => Meaning::FindingSep1303,
            Severity::Warning => Meaning::FindingWarning,
            Severity::Info => Meaning::FindingInfo,
        };
        let severity = match finding.severity {
            Severity::Warning => "warning",
            Severity::Info => "info",
        };
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("⚑ finding ({severity})"),
            theme.style(meaning),
        ));
        lines.push(Line::styled(finding.id, theme.style(meaning)));
        lines.push(Line::styled(
            crate::sanitize::text(&finding.message).into_owned(),
            theme.style(Meaning::Text),
        ));
    }
    let scroll = u16::try_from(state.model_scroll).unwrap_or(u16::MAX);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
        .render(inner, buf);
}

fn status_bar(area: Rect, buf: &mut Buffer, state: &AppState, theme: &Theme) {
    let bar = theme.style(Meaning::StatusBar);
    let server = match &state.link {
        Link::Connected(c) => {
            let era = match c.era {
                Era::Legacy => "legacy",
                Era::Modern => "modern",
            };
            format!(
                "{} {} · {era} {}",
                crate::sanitize::text(&c.server.name),
                crate::sanitize::text(&c.server.version),
                c.protocol_version
            )
        }
        Link::Starting | Link::Connecting => "connecting…".to_owned(),
        Link::Failed(_) => "not connected".to_owned(),
        Link::Disconnected => "disconnected (r reconnects)".to_owned(),
    };
    let host = state.settings.host();
    let onoff = |on: bool| if on { "on" } else { "off" };
    let transport = state.transport.split(':').next().unwrap_or_default();
    let mut spans = vec![
        Span::styled(" ? help ", bar.patch(theme.style(Meaning::StatusKey))),
        Span::styled(format!("│ {server} · {transport} "), bar),
        Span::styled(
            format!(
                "│ host {} · MAY {} · validation {} · pending {} ",
                host.name,
                onoff(state.settings.forwards_protocol_errors()),
                onoff(state.settings.validation),
                state.pending_calls
            ),
            bar,
        ),
    ];
    if let Some((tone, text)) = &state.status {
        let style = match tone {
            Tone::Info => theme.style(Meaning::StatusOk),
            Tone::Error => theme.style(Meaning::StatusError),
        };
        spans.push(Span::styled(format!("│ {text} "), bar.patch(style)));
    }
    Paragraph::new(Line::from(spans))
        .style(bar)
        .render(area, buf);
}

fn help_overlay(area: Rect, buf: &mut Buffer, theme: &Theme) {
    let rows: Vec<Line> = help_rows()
        .map(|binding| {
            Line::from(vec![
                Span::styled(
                    format!("{:>12}  ", binding.keys),
                    theme.style(Meaning::HelpKey),
                ),
                Span::styled(binding.help, theme.style(Meaning::Text)),
            ])
        })
        .chain([
            Line::raw(""),
            Line::styled(
                "To send a call: select a tool, Enter, edit the JSON, Ctrl-S.",
                theme.style(Meaning::TextMuted),
            ),
            Line::styled(
                "The mouse focuses panes, selects rows and scrolls.",
                theme.style(Meaning::TextMuted),
            ),
        ])
        .collect();
    let height = u16::try_from(rows.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let width = 72.min(area.width);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    Clear.render(popup, buf);
    let block = pane("Keys · any key closes", true, theme);
    Paragraph::new(rows)
        .block(block)
        .style(theme.style(Meaning::Text))
        .render(popup, buf);
}
