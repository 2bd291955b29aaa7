//! Shared harness for screen tests: session events shaped like a real demo-server session,
//! fed through `update`, then drawn on a `TestBackend`.

#![allow(dead_code, clippy::unwrap_used)] // each test file uses part of the harness

pub mod peers;
pub mod sarif;
pub mod scripted_model;
pub mod servers;
pub mod tmux;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use serde_json::{Value, json};
use sightline::app::action::Lens;
use sightline::app::state::Settings;
use sightline::app::{Action, AppState, Command, update};
use sightline::mcp::Timestamp;
use sightline::mcp::era::Era;
use sightline::mcp::jsonrpc::{Id, parse};
use sightline::mcp::log::{HttpExchange, SessionEvent};
use sightline::mcp::messages::{ServerInfo, Tool};
use sightline::mcp::session::{End, Exchange};
use sightline::runner::{Connection, LogEntry, LogEvent, Role};
use sightline::theme::Theme;

/// 2026-11-29 10:00:00 UTC, so every screen shows the same clock.
pub const T0: u64 = 1_795_946_400_000;

pub struct Session {
    pub state: AppState,
    clock: u64,
}

impl Session {
    pub fn new(width: u16, height: u16) -> Self {
        let settings = Settings::default();
        Self {
            state: AppState::new(settings, Vec::new(), Rect::new(0, 0, width, height)),
            clock: T0,
        }
    }

    /// A session on a state made elsewhere (one server of several), its clock at the start.
    pub fn of(state: AppState) -> Self {
        Self { state, clock: T0 }
    }

    fn tick(&mut self) -> Timestamp {
        self.clock += 7;
        Timestamp(self.clock)
    }

    pub fn event(&mut self, event: SessionEvent) -> &mut Self {
        update(&mut self.state, Action::Session(event));
        self
    }

    pub fn command(&mut self, command: Command) -> &mut Self {
        update(&mut self.state, Action::Command(command));
        self
    }

    /// Presses `h` until the host profile is `name`, as a user would.
    pub fn host(&mut self, name: &str) -> &mut Self {
        for _ in 0..self.state.settings.hosts.len() {
            if self.state.settings.host().name == name {
                return self;
            }
            self.command(Command::Lens(Lens::Host));
        }
        panic!("no host profile '{name}'");
    }

    pub fn log(&mut self, event: LogEvent) -> &mut Self {
        let at = self.tick();
        self.event(SessionEvent::Logged(LogEntry { at, event }))
    }

    pub fn sent(&mut self, raw: &str) -> &mut Self {
        self.log(LogEvent::Sent(parse(raw).unwrap()))
    }

    pub fn received(&mut self, raw: &str, method: &str) -> &mut Self {
        let role = Role::Reply {
            method: method.into(),
        };
        self.log(LogEvent::Received {
            frame: parse(raw).unwrap(),
            role,
        })
    }

    /// A demo-server session: negotiated, tools listed.
    pub fn connected(&mut self, era: Era, version: &str, name: &str) -> &mut Self {
        self.event(SessionEvent::Connecting {
            transport: "stdio: sightline demo-server".into(),
        });
        self.sent(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#);
        self.log(LogEvent::Stderr(format!("{name}: serving on stdio")));
        self.received(
            &format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"{version}"}}}}"#),
            "initialize",
        );
        self.sent(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        let tools = sightline::demo_server::tools::definitions();
        self.received(
            &json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}}).to_string(),
            "tools/list",
        );
        self.event(SessionEvent::Connected(Box::new(Connection {
            era,
            protocol_version: version.into(),
            server: ServerInfo {
                name: name.into(),
                version: "0.1.0".into(),
            },
            capabilities: None,
            http_session: None,
            probe: None,
        })));
        let tools = tools
            .into_iter()
            .map(|raw| Tool::from_value(&raw))
            .collect::<Vec<_>>();
        self.event(SessionEvent::ToolsListed(std::sync::Arc::new(tools.into())))
    }

    /// A second's tick of the runtime.
    pub fn event_tick(&mut self) -> &mut Self {
        update(&mut self.state, Action::Tick);
        self
    }

    /// The server lists these tools instead.
    pub fn tools(&mut self, tools: &[Value]) -> &mut Self {
        let tools = tools.iter().map(Tool::from_value).collect::<Vec<_>>();
        self.event(SessionEvent::ToolsListed(std::sync::Arc::new(tools.into())))
    }

    /// One `tools/call` the user sent, answered with `reply` (a `"result":…` or `"error":…`
    /// member).
    pub fn call(&mut self, id: i64, tool: &str, arguments: &Value, reply: &str) -> &mut Self {
        // The user's send raised the count before the call went out.
        self.state.pending_calls += 1;
        self.call_the_app_sent(id, tool, arguments, reply)
    }

    /// One `tools/call` over Streamable HTTP, in the live order: the request, the HTTP details
    /// (before the answer), the answer, the finished call carrying the details.
    pub fn call_over_http(
        &mut self,
        id: i64,
        tool: &str,
        arguments: &Value,
        reply: &str,
        http: HttpExchange,
    ) -> &mut Self {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}).to_string();
        let response = format!(r#"{{"jsonrpc":"2.0","id":{id},{reply}}}"#);
        self.sent(&request);
        let sent_at = Timestamp(self.clock);
        let http = std::sync::Arc::new(http);
        self.log(LogEvent::Http(std::sync::Arc::clone(&http)));
        self.received(&response, "tools/call");
        let end = End::Replied(parse(&response).unwrap());
        self.finish(id, &request, sent_at, end, Some(http))
    }

    /// One `tools/call` that timed out.
    pub fn call_timing_out(&mut self, id: i64, tool: &str, arguments: &Value) -> &mut Self {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}).to_string();
        self.sent(&request);
        let sent_at = Timestamp(self.clock);
        self.log(LogEvent::TimedOut {
            id: Id::Number(id),
            method: "tools/call".into(),
            after_ms: 30_000,
        });
        self.sent(&format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"timeout"}}}}"#));
        self.finish(
            id,
            &request,
            sent_at,
            End::TimedOut { after_ms: 30_000 },
            None,
        )
    }

    /// One `tools/call` the user cancelled (`x`), in the live order: the request, our
    /// `notifications/cancelled`, the finished call.
    pub fn call_cancelled_by_user(&mut self, id: i64, tool: &str, arguments: &Value) -> &mut Self {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}).to_string();
        self.sent(&request);
        let sent_at = Timestamp(self.clock);
        self.sent(&format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"cancelled by the user"}}}}"#));
        self.finish(
            id,
            &request,
            sent_at,
            End::Failed(sightline::mcp::session::Failure::CancelledByUser),
            None,
        )
    }

    fn finish(
        &mut self,
        id: i64,
        request: &str,
        sent_at: Timestamp,
        end: End,
        http: Option<std::sync::Arc<HttpExchange>>,
    ) -> &mut Self {
        // The user's send raised the count before the call went out.
        self.state.pending_calls += 1;
        self.finished(id, request, sent_at, end, http)
    }

    /// A call the app sent by itself (an audit's case, the Chat model's call): the app raised
    /// its pending count when it asked for it.
    pub fn call_the_app_sent(
        &mut self,
        id: i64,
        tool: &str,
        arguments: &Value,
        reply: &str,
    ) -> &mut Self {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}).to_string();
        let response = format!(r#"{{"jsonrpc":"2.0","id":{id},{reply}}}"#);
        self.sent(&request);
        let sent_at = Timestamp(self.clock);
        self.received(&response, "tools/call");
        let end = End::Replied(parse(&response).unwrap());
        self.finished(id, &request, sent_at, end, None)
    }

    fn finished(
        &mut self,
        id: i64,
        request: &str,
        sent_at: Timestamp,
        end: End,
        http: Option<std::sync::Arc<HttpExchange>>,
    ) -> &mut Self {
        let ended_at = self.tick();
        let exchange = Exchange {
            id: Id::Number(id),
            method: "tools/call".into(),
            request: parse(request).unwrap(),
            sent_at,
            end,
            ended_at,
            http,
            rounds: Vec::new(),
            task: None,
        };
        self.event(SessionEvent::CallFinished(Box::new(
            sightline::mcp::verdict::Finished::unjudged(exchange),
        )))
    }
}

/// The screen as text, one quoted line per row (ratatui's `TestBackend` display).
pub fn screen(state: &AppState, theme: &Theme) -> String {
    backend(state, theme).to_string()
}

pub fn backend(state: &AppState, theme: &Theme) -> TestBackend {
    let mut terminal =
        Terminal::new(TestBackend::new(state.screen.width, state.screen.height)).unwrap();
    terminal
        .draw(|frame| sightline::ui::render(frame, state, theme))
        .unwrap();
    terminal.backend().clone()
}

pub const PAST: &str = r#""result":{"content":[{"type":"text","text":"Invalid departure date: must be in the future. Current date is 29/11/2026."}],"isError":true}"#;
pub const PAST_AS_32602: &str = r#""error":{"code":-32602,"message":"Invalid arguments for tool book_flight: Invalid departure date: must be in the future. Current date is 29/11/2026."}"#;
pub const STRUCTURED: &str = r#""result":{"content":[{"type":"text","text":"{\"flightNumber\":\"LH123\",\"status\":\"boarding\",\"gate\":\"B7\",\"delayMinutes\":0}"}],"structuredContent":{"flightNumber":"LH123","status":"boarding","gate":"B7","delayMinutes":0}}"#;
