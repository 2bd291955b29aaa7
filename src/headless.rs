//! The headless commands (`tools`, `call`, `audit`, `lint`, `test`, `capture`, `relay`, `replay`, `diff`,
//! `hosts`, `auth logout`, `resources`/`read`, `prompts`/`prompt`, `ping`/`request`), one
//! module each (a pair shares one): connect or read what the command needs, print text
//! or exactly one JSON object (also when the run fails before the call), and return the exit
//! code of product.md §1. With `-v` the session stream is printed to stderr as it happens.
//! What they share lives in `output` (what is printed, exit codes) and `run` (the guarded run).

mod agent;
mod audit;
mod auth;
mod calibrate;
mod call;
mod capture;
mod complete;
mod diff;
mod hosts;
mod keys;
mod lint;
mod one_shot;
mod output;
mod prompts;
mod proxy;
mod relay;
mod replay;
mod request;
mod resources;
mod run;
mod skills;
mod subscribe;
mod test;
mod test_init;
mod test_load;
mod test_setup;
mod tools;

pub use agent::agent;
pub use audit::audit;
pub use auth::logout;
pub use calibrate::calibrate;
pub use call::{CallReport, call};
pub use capture::{capture, tool_naming};
pub use complete::complete;
pub use diff::diff;
pub use hosts::hosts;
pub use keys::keys;
pub use lint::lint;
pub use prompts::{prompt, prompts};
pub use proxy::proxy;
pub use relay::relay;
pub use replay::{replay, serve};
pub use request::{ping, request};
pub use resources::{read, resources};
pub use run::selection_problem;
pub use skills::skills;
pub use subscribe::subscribe;
pub use test::test;
pub use tools::{tools, write_tools};

// The helpers the command modules share, by the paths they use (`super::…`, `crate::headless::…`).
use output::{emit, pretty, print_json, read_arguments, server_line};
use run::{StageTracker, connect, guarded, prepared, recording_ended};

/// Exit codes of the headless commands.
pub mod exit {
    pub const SUCCESS: u8 = 0;
    pub const TOOL_ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const PROTOCOL_ERROR: u8 = 3;
    pub const TRANSPORT_FAILURE: u8 = 4;
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::classify::fixtures::{call, catalog};
    use crate::mcp::era::Era;
    use crate::mcp::messages::ServerInfo;
    use crate::mcp::session::Exchange;
    use crate::model_view::hosts::{self, HostProfile};
    use crate::present::limits::MODEL_TEXT_BYTES;
    use crate::runner::Connection;

    fn report_text(exchange: &Exchange, host: &HostProfile) -> String {
        let connection = Connection {
            http_session: None,
            probe: None,
            era: Era::Legacy,
            protocol_version: "2025-11-25".into(),
            server: ServerInfo {
                name: "demo".into(),
                version: "1.0".into(),
            },
            capabilities: None,
        };
        let tools = catalog(&["book_flight", "get_flight_status"]);
        let report = CallReport::new(
            Some(&connection),
            "stdio: demo",
            exchange,
            Some(&tools),
            host,
            false,
            None,
        );
        let mut out = Vec::new();
        report.write_text(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn spec() -> HostProfile {
        hosts::resolve("spec", &[]).unwrap()
    }

    const PAST: &str = "Invalid departure date: must be in the future. Current date is 29/11/2026.";

    #[test]
    fn human_call_output_for_each_class() {
        let past = json!({"departureDate": "12/12/2024"});
        let mut may = spec();
        may.forward_protocol_errors = true;
        let structured = json!({"flightNumber": "LH123", "status": "boarding"});
        let cases = [
            ("success_structured", call("get_flight_status", json!({"flightNumber": "LH123"})).result(json!({"content": [{"type": "text", "text": structured.to_string()}], "structuredContent": structured})), spec()),
            ("tool_error", call("book_flight", past.clone()).tool_error(PAST), spec()),
            ("protocol_error", call("book_flight", past.clone()).error(-32602, PAST), spec()),
            ("protocol_error_may_on", call("book_flight", past.clone()).error(-32602, PAST), may),
            ("transport_failure_timeout", call("book_flight", past.clone()).timeout(), spec()),
            ("transport_failure_exited", call("book_flight", past).exited(), spec()),
        ];
        for (name, exchange, host) in cases {
            insta::assert_snapshot!(name, report_text(&exchange, &host));
        }
    }

    #[test]
    fn long_model_text_is_clipped_on_a_character_boundary() {
        let text = "é".repeat(MODEL_TEXT_BYTES);
        let output = report_text(&call("book_flight", json!({})).text(&text), &spec());
        let shown = format!(
            "{}… ({} more bytes)",
            "é".repeat(MODEL_TEXT_BYTES / 2),
            MODEL_TEXT_BYTES
        );
        assert!(output.contains(&shown));
    }

    #[test]
    fn invalid_args_json_points_at_the_break() {
        let error = read_arguments(r#"{"departureDate" "12/12/2024"}"#).unwrap_err();
        assert!(error.contains("line 1 column 18"), "{error}");
        let caret_line = error.lines().last().unwrap();
        assert_eq!(caret_line.find('^'), Some(2 + 17));
    }

    #[test]
    fn args_json_is_kept_exactly_even_when_not_an_object() {
        assert_eq!(read_arguments(r#""oops""#).unwrap(), json!("oops"));
        assert_eq!(read_arguments("[1,2]").unwrap(), json!([1, 2]));
        let ordered = read_arguments(r#"{"b":1,"a":2}"#).unwrap();
        assert_eq!(ordered.to_string(), r#"{"b":1,"a":2}"#);
    }

    /// Every kind of log entry reads the same in the TUI's log row and in `-v`: the headless
    /// line is the time, then the row's own words.
    #[test]
    fn headless_and_the_tui_say_each_log_event_in_the_same_words() {
        use crate::app::{Action, AppState, update};
        use crate::mcp::framing::InvalidLine;
        use crate::mcp::jsonrpc::{self, FrameError, Id};
        use crate::mcp::log::{HttpExchange, LogEntry, LogEvent, Role, SessionEvent};

        let frame = |text: &str| jsonrpc::parse(text).unwrap();
        let events = vec![
            LogEvent::Sent(frame(
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book","arguments":{"a":1}}}"#,
            )),
            LogEvent::Sent(frame(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#,
            )),
            LogEvent::Received {
                frame: frame(
                    r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad date"}}"#,
                ),
                role: Role::Late {
                    method: "tools/call".into(),
                },
            },
            LogEvent::Received {
                frame: frame(
                    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#,
                ),
                role: Role::Notification,
            },
            LogEvent::Received {
                frame: frame(
                    r#"{"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{}}"#,
                ),
                role: Role::ServerRequest,
            },
            LogEvent::Invalid(InvalidLine {
                raw: std::sync::Arc::new("Server listening".into()),
                error: FrameError::NotJson {
                    reason: "expected value".into(),
                    line: 1,
                    column: 1,
                },
            }),
            LogEvent::Stderr("one line".into()),
            LogEvent::TimedOut {
                id: Id::Number(4),
                method: "tools/call".into(),
                after_ms: 30_000,
            },
            LogEvent::WriteFailed("broken pipe".into()),
            LogEvent::Closed {
                status: "exit code 3".into(),
            },
            LogEvent::Note("falling back to initialize".into()),
            LogEvent::Authorization(crate::mcp::oauth::AuthFact::Step(
                crate::mcp::oauth::AuthStep::Registered {
                    client_id: "demo-client-1".into(),
                },
            )),
            LogEvent::Http(std::sync::Arc::new(HttpExchange {
                method: "POST".into(),
                url: "http://localhost:1/mcp".into(),
                status: Some(200),
                ..HttpExchange::default()
            })),
        ];
        for event in events {
            let at = crate::mcp::Timestamp(1_700_000_000_000);
            let headless = run::describe(at, &event);
            let mut state = AppState::new(
                crate::app::state::Settings::default(),
                Vec::new(),
                ratatui::layout::Rect::new(0, 0, 120, 40),
            );
            let entry = SessionEvent::Logged(LogEntry { at, event });
            update(&mut state, Action::Session(entry));
            let line = state.log.lines.last().expect("a row");
            let row = state.log.summary(line);
            let first = headless.lines().next().unwrap();
            assert_eq!(first, format!("{at} {row}"), "{headless}");
        }
    }

    /// A call reads the same in the Detail pane and in `call`'s text: Detail's lines are the
    /// document's exchange sections, which the text prints too, in the same words.
    #[test]
    fn the_detail_pane_and_the_headless_text_say_a_call_in_the_same_words() {
        use crate::app::{Action, AppState, update};
        use crate::mcp::log::SessionEvent;
        use crate::mcp::verdict::Finished;

        let past = json!({"departureDate": "12/12/2024"});
        let mut exchange = call("book_flight", past).error(-32602, PAST);
        exchange.rounds = vec![crate::mcp::input::Round {
            asked_by: None,
            request: crate::mcp::input::InputRequest {
                key: None,
                method: "roots/list".into(),
                params: json!({}),
            },
            answer: crate::mcp::input::Answer::Result(json!({"roots": []})),
        }];
        let text = report_text(&exchange, &spec());
        let mut state = AppState::new(
            crate::app::state::Settings::default(),
            Vec::new(),
            ratatui::layout::Rect::new(0, 0, 120, 40),
        );
        let finished = Finished::unjudged(exchange);
        update(
            &mut state,
            Action::Session(SessionEvent::CallFinished(Box::new(finished))),
        );
        let detail = &state.log.detail;
        assert!(detail.len() > 10, "{detail:?}");
        for section in detail.split(|line| line.starts_with('→') || line.starts_with('←')) {
            let block = section.join("\n");
            assert!(text.contains(&block), "{block}\nnot in\n{text}");
        }
        for title in detail
            .iter()
            .filter(|line| line.starts_with('→') || line.starts_with('←'))
        {
            assert!(text.contains(title.as_str()), "{title} not in\n{text}");
        }
    }
}
