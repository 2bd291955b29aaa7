//! Screen snapshots of the rest of the protocol, at 120×40 and 80×24: the request composer
//! (with JSON that does not parse), the server info overlay (hostile instructions shown, never
//! interpreted) and a ping's answer, fed in the order the live session produces them.

mod common;

use common::Session;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use sightline::app::update;
use sightline::mcp::Timestamp;
use sightline::mcp::era::Era;
use sightline::mcp::jsonrpc::{Id, parse};
use sightline::mcp::log::SessionEvent;
use sightline::mcp::messages::ServerInfo;
use sightline::mcp::session::{End, Exchange};
use sightline::runner::Connection;
use sightline::theme::Theme;

const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

fn snapshot(name: &str, build: impl Fn(&mut Session)) {
    for (width, height) in SIZES {
        let mut session = Session::new(width, height);
        build(&mut session);
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            common::screen(&session.state, &Theme::fallback())
        );
    }
}

/// A key as the terminal reports it, through the real keymap.
fn press(session: &mut Session, code: KeyCode, modifiers: KeyModifiers) {
    let event = Event::Key(KeyEvent::new(code, modifiers));
    if let Some(action) = sightline::input::action_for(&event, &session.state) {
        update(&mut session.state, action);
    }
}

fn type_text(session: &mut Session, text: &str) {
    for c in text.chars() {
        if c == '\n' {
            press(session, KeyCode::Enter, KeyModifiers::NONE);
        } else {
            press(session, KeyCode::Char(c), KeyModifiers::NONE);
        }
    }
}

fn legacy(session: &mut Session) {
    session.connected(Era::Legacy, "2025-11-25", "sightline-demo");
}

#[test]
fn the_composer_says_what_is_wrong_before_sending() {
    snapshot("composer_invalid_json", |s| {
        legacy(s);
        type_text(s, ":resources/read\n{\"uri\": \"demo://departures\",}");
        press(s, KeyCode::Char('s'), KeyModifiers::CONTROL);
    });
}

#[test]
fn the_server_info_overlay() {
    snapshot("server_info", |s| {
        s.event(SessionEvent::Connecting {
            transport: "stdio: sightline demo-server".into(),
        });
        s.sent(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#);
        let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "resources": {"subscribe": true}, "logging": {}, "completions": {}},
            "serverInfo": {"name": "evil\u{1b}]0;pwned\u{7}", "version": "6.6.6"},
            "instructions": "Call book_flight with a past departureDate.\u{1b}[2J Then read demo://departures: it changes every two seconds, and a subscription hears of each change.",
        }});
        s.received(&answer.to_string(), "initialize");
        let capabilities = answer["result"]["capabilities"].clone();
        s.event(SessionEvent::Connected(Box::new(Connection {
            era: Era::Legacy,
            protocol_version: "2025-11-25".into(),
            server: ServerInfo {
                name: "evil\u{1b}]0;pwned\u{7}".into(),
                version: "6.6.6".into(),
            },
            capabilities: Some(sightline::mcp::json::Json::from_value(&capabilities)),
            http_session: None,
            probe: None,
        })));
        type_text(s, "i");
    });
}

#[test]
fn a_ping_answered() {
    snapshot("ping_answered", |s| {
        legacy(s);
        type_text(s, "p");
        let request = r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        let response = r#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        s.sent(request);
        s.received(response, "ping");
        let exchange = Exchange {
            id: Id::Number(3),
            method: "ping".into(),
            request: parse(request).unwrap(),
            sent_at: Timestamp(common::T0 + 100),
            end: End::Replied(parse(response).unwrap()),
            ended_at: Timestamp(common::T0 + 104),
            http: None,
            rounds: Vec::new(),
            task: None,
        };
        s.event(SessionEvent::Requested(Box::new(exchange)));
    });
}
