//! The status line: segments that give way by priority as the width shrinks.

use crate::app::action::{Question, ToServer};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::shared::fit;
use crate::app::Command;
use crate::app::keys::Keymap;
use crate::app::keys::Mode;
use crate::app::state::{Link, Settings, Status, Tone};
use crate::mcp::era::Era;
use crate::theme::{Meaning, Theme};

/// One piece of the status line.
struct Segment {
    /// Lower stays longer.
    priority: u8,
    text: String,
    /// A shorter text, tried before the segment gives way.
    short: Option<String>,
    style: Style,
}

/// The status line over what it reports: the mode and its keys, a replay, pending calls, the
/// message, the settings and the link.
pub(super) struct StatusBar<'a> {
    pub mode: Mode,
    /// The Chat pane takes the keys (its prompt is typed as the editor's text is).
    pub chatting: bool,
    pub keys: &'a Keymap,
    pub replay: bool,
    /// The replay follows a running proxy (`sightline attach`).
    pub live: bool,
    pub pending_calls: usize,
    /// The call on its way, and the tick now (its elapsed time is counted in ticks).
    pub pending: Option<&'a crate::app::pending::PendingCall>,
    pub ticks: u64,
    pub status: Option<&'a Status>,
    pub settings: &'a Settings,
    pub link: &'a Link,
    /// How the server is reached (`stdio: …`, `http: …`).
    pub transport: &'a str,
    /// The server's name when several are open: said always, as the mode is.
    pub label: Option<&'a str>,
    pub theme: &'a Theme,
}

/// Segments that give way by priority, so the mode, a message and a pending call are never cut,
/// at 80 columns or less.
impl Widget for StatusBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = self.theme;
        let width = usize::from(area.width);
        let mut used = 0;
        let spans: Vec<Span> = fit_segments(self.segments(), width)
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
}

impl StatusBar<'_> {
    /// The mode, and the key that leaves it (or opens the help), as this run binds them: a
    /// `keys.toml` may have moved them.
    fn mode_hint(&self) -> String {
        let mode = self.mode;
        let key = |command| self.keys.key_for(command, mode);
        let hint = |command, what: &str| key(command).map(|key| format!("· {key} {what} "));
        match mode {
            Mode::Editing if self.chatting => format!(
                " CHAT {}",
                hint(Command::Back, "closes").unwrap_or_default()
            ),
            Mode::Editing => format!(
                " EDITING {}",
                hint(Command::Back, "stops").unwrap_or_default()
            ),
            Mode::Help => format!(
                " HELP {}",
                hint(Command::Back, "closes").unwrap_or_default()
            ),
            Mode::Answering => format!(
                " THE SERVER ASKS {}",
                hint(Command::Question(Question::Accept), "accept").unwrap_or_default()
            ),
            Mode::Browsing => {
                key(Command::Help).map_or_else(String::new, |key| format!(" {key} help "))
            }
        }
    }

    /// The server as the link stands, long and short.
    fn server_words(&self) -> (String, Option<String>) {
        let (replay, live, link) = (self.replay, self.live, self.link);
        let era = |era: Era| match era {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        };
        match link {
            Link::Connected(c) => {
                // A version's note in parentheses stays in the short form: the demo says its
                // style there ("0.1.0 (legacy style)"), and the two styles look alike otherwise.
                let note = c
                    .server
                    .version
                    .split_once('(')
                    .and_then(|(_, rest)| rest.strip_suffix(')'))
                    .map(|note| format!(" ({})", crate::sanitize::text(note)))
                    .unwrap_or_default();
                let name = format!("{}{note}", crate::sanitize::text(&c.server.name));
                (
                    format!(
                        "{} · {} {}",
                        crate::sanitize::text(&c.server.label()),
                        era(c.era),
                        c.protocol_version
                    ),
                    Some(format!("│ {name} · {} ", era(c.era))),
                )
            }
            Link::Starting | Link::Connecting if live => {
                ("waiting for the host's first request".to_owned(), None)
            }
            Link::Starting | Link::Connecting => ("connecting…".to_owned(), None),
            Link::Failed(_) => ("not connected (r retries)".to_owned(), None),
            Link::Disconnected if live => ("the proxy's server ended".to_owned(), None),
            Link::Disconnected if replay => ("the server ended (as recorded)".to_owned(), None),
            Link::Disconnected => ("disconnected (r reconnects)".to_owned(), None),
        }
    }

    /// The pending call: its tool, for how long, its progress, the key that cancels it, then
    /// the server's message (last: at 80 columns it is what the edge cuts).
    fn pending_words(&self) -> Option<String> {
        let pending_calls = self.pending_calls;
        if pending_calls == 0 {
            return None;
        }
        let cancel = self
            .keys
            .key_for(Command::ToServer(ToServer::Cancel), self.mode)
            .map_or_else(String::new, |key| format!(" ({key} cancels)"));
        let Some(call) = self.pending else {
            let plural = if pending_calls == 1 { "" } else { "s" };
            return Some(format!(" {pending_calls} call{plural} pending{cancel} "));
        };
        let (count, message) = call
            .progress
            .as_ref()
            .map_or_else(Default::default, |progress| {
                let bar = progress
                    .ratio()
                    .map(|ratio| format!(" {}", super::shared::progress_bar(ratio, 6)))
                    .unwrap_or_default();
                let message = progress
                    .message
                    .as_deref()
                    .map(|message| format!(" {message}"))
                    .unwrap_or_default();
                (format!("{bar} {}", progress.count()), message)
            });
        Some(format!(
            " {} pending {} s{count}{cancel}{message} ",
            call.tool,
            call.elapsed(self.ticks)
        ))
    }

    fn segments(&self) -> Vec<Segment> {
        let StatusBar {
            replay,
            live,
            status,
            settings,
            link,
            transport,
            theme,
            ..
        } = *self;
        let bar = theme.style(Meaning::StatusBar);
        let (server, short_server) = self.server_words();
        let mode = self.mode_hint();
        let mut segments = vec![Segment {
            priority: 0,
            text: mode,
            short: None,
            style: bar.patch(theme.style(Meaning::StatusKey)),
        }];
        if let Some(label) = self.label {
            segments.push(Segment {
                priority: 1,
                text: format!("▸ {} ", fit(&crate::sanitize::text(label), 16)),
                short: None,
                style: bar.patch(theme.style(Meaning::StatusKey)),
            });
        }
        if replay {
            segments.push(Segment {
                priority: 1,
                text: if live {
                    " ATTACHED · read-only ".to_owned()
                } else {
                    " REPLAY · read-only ".to_owned()
                },
                short: None,
                style: bar.patch(theme.style(Meaning::StatusKey)),
            });
        }
        if let Some(text) = self.pending_words() {
            segments.push(Segment {
                priority: 1,
                text,
                short: None,
                style: bar.patch(theme.style(Meaning::StatusError)),
            });
        }
        if let Some(status) = status {
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
        let host = crate::sanitize::text(&settings.host().name);
        let may = onoff(settings.forwards_protocol_errors());
        let validation = onoff(settings.validation);
        // Said only when on: off is the default, and the line is short.
        let tasks = if settings.tasks { " · tasks on" } else { "" };
        segments.push(Segment {
            priority: 3,
            text: format!("│ host {host} · MAY {may} · validation {validation}{tasks} "),
            short: Some(format!("│ {host} · MAY {may} · val {validation}{tasks} ")),
            style: bar,
        });
        let transport = transport.split(':').next().unwrap_or_default();
        let session = match link {
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
