//! The Chat pane at 120×40 and 80×24: a run in progress (the model read the legacy demo's
//! -32602 through Claude Code's eyes and is asked again), a finished one, and the pane with
//! no model. Fed in the live order: the prompt typed, the model's turn, the call's frames.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use common::{Session, screen};
use crossterm::event::{KeyCode, KeyEvent};
use serde_json::json;
use sightline::app::action::Chat;
use sightline::app::chat::ChatModel;
use sightline::app::state::Settings;
use sightline::app::{Action, AppState, Command, update};
use sightline::mcp::era::Era;
use sightline::model_api::{Api, ToolCall, ToolNaming, Turn, Usage};
use sightline::theme::Theme;

const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

fn with_model(width: u16, height: u16) -> Session {
    let settings = Settings {
        chat: Some(ChatModel {
            api: Api::Chat,
            name: "any".into(),
            label: "openai:any".into(),
            max_turns: 4,
            naming: vec![(
                "claude-code".into(),
                ToolNaming {
                    template: "mcp__{server}__{tool}".into(),
                    rule: None,
                },
            )],
        }),
        ..Settings::default()
    };
    let state = AppState::new(
        settings,
        Vec::new(),
        ratatui::layout::Rect::new(0, 0, width, height),
    );
    let mut session = Session::of(state);
    session.connected(Era::Legacy, "2025-11-25", "sightline-demo");
    session.host("claude-code");
    session
}

fn key(session: &mut Session, code: KeyCode) {
    update(
        &mut session.state,
        Action::EditorInput(KeyEvent::from(code).into()),
    );
}

fn model_calls(session: &mut Session, date: &str, tokens: u64) {
    let turn = Turn {
        text: String::new(),
        calls: vec![ToolCall {
            id: format!("call_{date}"),
            name: "mcp__srv__book_flight".into(),
            arguments: json!({"departureDate": date}),
        }],
        usage: Usage {
            input: tokens,
            output: 20,
        },
    };
    update(
        &mut session.state,
        Action::ModelAnswered {
            run: 1,
            result: Ok(turn),
        },
    );
}

/// The prompt run; the model books a past date; the legacy demo refuses it with -32602.
fn in_progress(session: &mut Session) {
    session.command(Command::Chat(Chat::Open));
    for c in "Book a flight departing 12/12".chars() {
        key(session, KeyCode::Char(c));
    }
    key(session, KeyCode::Enter);
    model_calls(session, "12/12/2024", 1040);
    session.call_the_app_sent(
        3,
        "book_flight",
        &json!({"departureDate": "12/12/2024"}),
        r#""error":{"code":-32602,"message":"Invalid arguments for tool book_flight: Invalid departure date: must be in the future. Current date is 29/11/2026."}"#,
    );
}

fn finished(session: &mut Session) {
    in_progress(session);
    model_calls(session, "12/12/2027", 1090);
    session.call_the_app_sent(
        4,
        "book_flight",
        &json!({"departureDate": "12/12/2027"}),
        r#""result":{"content":[{"type":"text","text":"Booked: one seat departing 12/12/2027. Booking reference SL-7F5520."}]}"#,
    );
    let answer = Turn {
        text: "Booked for 12/12/2027, reference SL-7F5520.".into(),
        calls: Vec::new(),
        usage: Usage {
            input: 1130,
            output: 20,
        },
    };
    update(
        &mut session.state,
        Action::ModelAnswered {
            run: 1,
            result: Ok(answer),
        },
    );
}

fn snapshot(name: &str, build: impl Fn(&mut Session)) {
    for (width, height) in SIZES {
        let mut session = with_model(width, height);
        build(&mut session);
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            screen(&session.state, &Theme::fallback())
        );
    }
}

#[test]
fn a_chat_run_in_progress() {
    snapshot("chat_in_progress", in_progress);
}

#[test]
fn a_chat_run_whose_answer_streams_in() {
    snapshot("chat_streaming", |session| {
        in_progress(session);
        model_calls(session, "12/12/2027", 1090);
        session.call_the_app_sent(
            4,
            "book_flight",
            &json!({"departureDate": "12/12/2027"}),
            r#""result":{"content":[{"type":"text","text":"Booked: one seat departing 12/12/2027. Booking reference SL-7F5520."}]}"#,
        );
        for more in ["Booked ", "for 12/12/2027, ", "refer"] {
            update(
                &mut session.state,
                Action::ModelStreamed {
                    run: 1,
                    more: more.into(),
                },
            );
        }
    });
}

#[test]
fn a_finished_chat_run() {
    snapshot("chat_finished", finished);
}

#[test]
fn the_finished_runs_calls_are_marked_in_the_exchange_log() {
    snapshot("chat_closed_log_marked", |session| {
        finished(session);
        session.command(Command::Back);
    });
}

#[test]
fn the_chat_pane_without_a_model() {
    for (width, height) in SIZES {
        let mut session = Session::new(width, height);
        session.connected(Era::Legacy, "2025-11-25", "sightline-demo");
        session.command(Command::Chat(Chat::Open));
        insta::assert_snapshot!(
            format!("chat_no_model_{width}x{height}"),
            screen(&session.state, &Theme::fallback())
        );
    }
}
