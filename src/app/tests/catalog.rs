//! The Resources and Prompts shelves: listings on connect (every page, again on `list_changed`),
//! reads, template and prompt forms, subscriptions, completion and a result's links, fed in the
//! order the live session delivers them.

#![allow(clippy::needless_pass_by_value)] // the helpers read best taking `json!(…)` directly

use crate::app::action::{Edit, Move, Output, Shelves, ToServer};
use serde_json::{Value, json};

use super::*;
use crate::app::catalog_state::Shelf;
use crate::classify::fixtures::request;
use crate::mcp::session::{End, Exchange, Failure};

/// Connected in `era` to a server declaring `capabilities`.
fn connected(era: Era, capabilities: Value) -> (AppState, Vec<Effect>) {
    let mut state = AppState::new(Settings::default(), Vec::new(), Rect::new(0, 0, 120, 40));
    let connection = Connection {
        era,
        protocol_version: "2025-11-25".into(),
        server: ServerInfo {
            name: "s".into(),
            version: "1".into(),
        },
        capabilities: Some(crate::mcp::json::Json::from_value(&capabilities)),
        http_session: None,
        probe: None,
    };
    let effects = session(&mut state, SessionEvent::Connected(Box::new(connection)));
    (state, effects)
}

fn requests(effects: &[Effect]) -> Vec<(String, Option<Value>)> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Session(SessionCommand::Request { method, params }) => {
                Some((method.clone(), params.clone()))
            }
            _ => None,
        })
        .collect()
}

fn methods(effects: &[Effect]) -> Vec<String> {
    requests(effects).into_iter().map(|(m, _)| m).collect()
}

fn answer(state: &mut AppState, exchange: Exchange) -> Vec<Effect> {
    session(state, SessionEvent::Requested(Box::new(exchange)))
}

fn answer_with(state: &mut AppState, method: &str, result: Value) -> Vec<Effect> {
    answer(state, request(method).result(result))
}

/// Connected (legacy) with resources, templates and prompts listed in one page each.
fn listed() -> AppState {
    let (mut state, _) = connected(
        Era::Legacy,
        json!({"resources": {"subscribe": true}, "prompts": {}, "completions": {}}),
    );
    command(&mut state, Command::Shelves(Shelves::Resources));
    answer_with(
        &mut state,
        "resources/list",
        json!({"resources": [
            {"uri": "demo://timetable", "name": "timetable", "mimeType": "text/plain"},
            {"uri": "demo://logo.png", "name": "logo", "mimeType": "image/png"},
        ]}),
    );
    answer_with(
        &mut state,
        "resources/templates/list",
        json!({"resourceTemplates": [{"uriTemplate": "flights://{number}", "name": "flight"}]}),
    );
    command(&mut state, Command::Shelves(Shelves::Prompts));
    answer_with(
        &mut state,
        "prompts/list",
        json!({"prompts": [{"name": "plan_trip", "arguments": [
            {"name": "date"}, {"name": "destination", "required": true}
        ]}]}),
    );
    command(&mut state, Command::Shelves(Shelves::Tools));
    state
}

fn view_text(state: &AppState) -> String {
    state
        .catalog
        .shown_view(state.log.selected)
        .map(|view| view.lines.join("\n"))
        .unwrap_or_default()
}

#[test]
fn a_shelf_is_listed_when_first_shown_if_its_capability_is_declared() {
    let (mut state, effects) = connected(Era::Legacy, json!({"resources": {}, "prompts": {}}));
    // Not on connect: a tools/call keeps the id it always had.
    assert!(effects.is_empty());
    assert_eq!(
        methods(&command(&mut state, Command::Shelves(Shelves::Resources))),
        ["resources/list", "resources/templates/list"]
    );
    assert_eq!(
        methods(&command(&mut state, Command::Shelves(Shelves::Prompts))),
        ["prompts/list"]
    );
    assert!(
        command(&mut state, Command::Shelves(Shelves::Resources)).is_empty(),
        "once"
    );
    let (mut state, _) = connected(Era::Legacy, json!({"tools": {}}));
    assert!(command(&mut state, Command::Shelves(Shelves::Prompts)).is_empty());
    assert!(
        state
            .catalog
            .prompts
            .prompts
            .problem
            .as_deref()
            .is_some_and(|why| why.contains("no prompts capability"))
    );
}

#[test]
fn every_page_is_followed_and_a_repeated_cursor_stops_the_listing() {
    let (mut state, _) = connected(Era::Legacy, json!({"resources": {}}));
    command(&mut state, Command::Shelves(Shelves::Resources));
    let next = answer_with(
        &mut state,
        "resources/list",
        json!({"resources": [{"uri": "a://1"}], "nextCursor": "c1"}),
    );
    assert_eq!(
        requests(&next),
        [("resources/list".to_owned(), Some(json!({"cursor": "c1"})))]
    );
    assert!(
        state.catalog.resources.resources.items.is_empty(),
        "not until the last page"
    );
    let again = answer_with(
        &mut state,
        "resources/list",
        json!({"resources": [{"uri": "a://2"}], "nextCursor": "c1"}),
    );
    assert!(again.is_empty());
    assert_eq!(state.catalog.resources.resources.items.len(), 2);
    assert!(
        state
            .catalog
            .resources
            .resources
            .problem
            .as_deref()
            .unwrap_or_default()
            .contains("twice")
    );
}

#[test]
fn a_list_changed_notification_lists_again_and_drops_the_old_listing() {
    let (mut state, _) = connected(Era::Legacy, json!({"prompts": {"listChanged": true}}));
    let changed = |state: &mut AppState| {
        let frame =
            parse(r#"{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}"#).unwrap();
        session(
            state,
            SessionEvent::Logged(LogEntry {
                at: Timestamp(5),
                event: LogEvent::Received {
                    frame,
                    role: Role::Notification,
                },
            }),
        )
    };
    // Never shown: listed when it is, not now.
    assert!(changed(&mut state).is_empty());
    command(&mut state, Command::Shelves(Shelves::Prompts));
    assert_eq!(methods(&changed(&mut state)), ["prompts/list"]);
    // The first listing's answer is of the old generation: dropped, not shown.
    answer_with(
        &mut state,
        "prompts/list",
        json!({"prompts": [{"name": "old"}]}),
    );
    assert!(state.catalog.prompts.prompts.items.is_empty());
    answer_with(
        &mut state,
        "prompts/list",
        json!({"prompts": [{"name": "new"}]}),
    );
    assert_eq!(state.catalog.prompts.prompts.items.len(), 1);
}

#[test]
fn enter_on_a_resource_reads_it_and_detail_shows_text_or_a_blob_to_save() {
    let mut state = listed();
    command(&mut state, Command::Shelves(Shelves::Resources));
    assert_eq!(state.catalog.shelf, Shelf::Resources);
    let effects = command(&mut state, Command::Edit(Edit::OpenEditor));
    assert_eq!(
        requests(&effects),
        [(
            "resources/read".to_owned(),
            Some(json!({"uri": "demo://timetable"}))
        )]
    );
    answer_with(
        &mut state,
        "resources/read",
        json!({"contents": [{"uri": "demo://timetable", "mimeType": "text/plain", "text": "LH123 boarding\u{1b}[2J"}]}),
    );
    let text = view_text(&state);
    assert!(
        text.contains("LH123 boarding\\u{1b}[2J"),
        "sanitised: {text}"
    );

    command(&mut state, Command::Move(Move::SelectNext));
    command(&mut state, Command::Edit(Edit::OpenEditor));
    answer_with(
        &mut state,
        "resources/read",
        json!({"contents": [{"uri": "demo://logo.png", "mimeType": "image/png", "blob": "AAEC"}]}),
    );
    assert!(
        view_text(&state).contains("blob, 3 bytes decoded"),
        "{}",
        view_text(&state)
    );
    assert_eq!(
        command(&mut state, Command::Output(Output::SaveContents)),
        [Effect::SaveBytes {
            path: "sightline-logo.png".into(),
            bytes: vec![0, 1, 2]
        }]
    );
}

#[test]
fn a_refused_read_shows_the_servers_error_verbatim() {
    let mut state = listed();
    command(&mut state, Command::Shelves(Shelves::Resources));
    command(&mut state, Command::Edit(Edit::OpenEditor));
    answer(
        &mut state,
        request("resources/read").error_with_data(
            -32002,
            "Resource not found",
            json!({"uri": "x"}),
        ),
    );
    let text = view_text(&state);
    assert!(text.contains("protocol error"), "{text}");
    assert!(
        text.contains("\"code\": -32002") && text.contains("\"data\""),
        "{text}"
    );
}

#[test]
fn a_template_form_expands_its_variables_and_reads_the_uri() {
    let mut state = listed();
    command(&mut state, Command::Shelves(Shelves::Resources));
    command(&mut state, Command::Move(Move::SelectLast));
    command(&mut state, Command::Edit(Edit::OpenEditor));
    assert_eq!(state.editor.text(), "{\n  \"number\": \"\"\n}");
    assert!(state.editing);
    type_text(&mut state, "LH 1");
    let effects = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert_eq!(
        requests(&effects),
        [(
            "resources/read".to_owned(),
            Some(json!({"uri": "flights://LH%201"}))
        )]
    );
}

#[test]
fn a_prompt_form_puts_required_arguments_first_and_gets_the_prompt() {
    let mut state = listed();
    command(&mut state, Command::Shelves(Shelves::Prompts));
    command(&mut state, Command::Edit(Edit::OpenEditor));
    assert_eq!(
        state.editor.text(),
        "{\n  \"destination\": \"\",\n  \"date\": \"\"\n}"
    );
    assert!(
        state
            .editor
            .hints
            .iter()
            .any(|hint| hint.starts_with("destination · required"))
    );
    type_text(&mut state, "Lisbon");
    let effects = command(&mut state, Command::ToServer(ToServer::Request));
    // An empty optional argument is left out; the required one is sent as typed.
    assert_eq!(
        requests(&effects),
        [(
            "prompts/get".to_owned(),
            Some(json!({"name": "plan_trip", "arguments": {"destination": "Lisbon"}}))
        )]
    );
    answer_with(
        &mut state,
        "prompts/get",
        json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Plan it"}},
            {"role": "assistant", "content": {"type": "resource_link", "uri": "demo://x", "name": "x"}},
        ]}),
    );
    let text = view_text(&state);
    assert!(
        text.contains("── user · text") && text.contains("── assistant · resource_link · demo://x"),
        "{text}"
    );
    // Back to the tools: the tool's own draft, the form's kept for later.
    command(&mut state, Command::Back);
    command(&mut state, Command::Shelves(Shelves::Tools));
    assert_eq!(
        state.editor.tool, None,
        "no tool is listed: nothing to send as one"
    );
    assert!(state.catalog.form.is_none());
}

#[test]
fn a_subscription_is_marked_and_an_update_notes_its_time() {
    let mut state = listed();
    command(&mut state, Command::Shelves(Shelves::Resources));
    let effects = command(&mut state, Command::Shelves(Shelves::Subscription));
    assert_eq!(
        requests(&effects),
        [(
            "resources/subscribe".to_owned(),
            Some(json!({"uri": "demo://timetable"}))
        )]
    );
    answer_with(&mut state, "resources/subscribe", json!({}));
    assert!(
        state
            .catalog
            .resources
            .subscribed
            .contains("demo://timetable")
    );
    heard(
        &mut state,
        r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://timetable"}}"#,
    );
    assert_eq!(
        state.catalog.resources.updated.get("demo://timetable"),
        Some(&Timestamp(1))
    );
    let effects = command(&mut state, Command::Shelves(Shelves::Subscription));
    assert_eq!(methods(&effects), ["resources/unsubscribe"]);
}

/// The server says `line` (a notification), as the live session logs it.
fn heard(state: &mut AppState, line: &str) {
    let frame = parse(line).unwrap();
    log(
        state,
        LogEvent::Received {
            frame,
            role: Role::Notification,
        },
    );
}

/// Connected in 2026-07-28 with one resource listed, on the Resources shelf.
fn modern_listed() -> AppState {
    let (mut state, _) = connected(Era::Modern, json!({"resources": {"subscribe": true}}));
    command(&mut state, Command::Shelves(Shelves::Resources));
    answer_with(
        &mut state,
        "resources/list",
        json!({"resources": [{"uri": "demo://timetable"}]}),
    );
    state
}

/// `S` in 2026-07-28, then what the live session logs next: the listen request going out (as
/// request 2, the id the acknowledgements below name).
fn subscribe(state: &mut AppState) -> Vec<Effect> {
    let effects = command(state, Command::Shelves(Shelves::Subscription));
    let sent = r#"{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["demo://timetable"]}}}"#;
    log(state, LogEvent::Sent(parse(sent).unwrap()));
    effects
}

fn listens(effects: &[Effect]) -> Vec<&SessionCommand> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Session(
                command @ (SessionCommand::Listen { .. } | SessionCommand::StopListening { .. }),
            ) => Some(command),
            _ => None,
        })
        .collect()
}

const ACK: &str = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":["demo://timetable"]},"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#;

#[test]
fn the_modern_era_subscribes_with_a_listen_stream_and_unsubscribes_by_closing_it() {
    let mut state = modern_listed();
    let effects = subscribe(&mut state);
    assert!(methods(&effects).is_empty(), "no resources/subscribe");
    assert_eq!(
        listens(&effects),
        [&SessionCommand::Listen {
            key: "demo://timetable".into(),
            method: "subscriptions/listen".into(),
            params: Some(json!({"notifications": {"resourceSubscriptions": ["demo://timetable"]}})),
        }]
    );
    let shelf = &state.catalog.resources;
    assert!(shelf.listening.contains("demo://timetable") && shelf.subscribed.is_empty());
    heard(&mut state, ACK);
    assert!(
        state
            .catalog
            .resources
            .subscribed
            .contains("demo://timetable")
    );
    assert!(
        status(&state).contains("subscribed to demo://timetable"),
        "{}",
        status(&state)
    );
    heard(
        &mut state,
        r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://timetable","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#,
    );
    assert!(
        state
            .catalog
            .resources
            .updated
            .contains_key("demo://timetable")
    );
    let effects = command(&mut state, Command::Shelves(Shelves::Subscription));
    assert_eq!(
        listens(&effects),
        [&SessionCommand::StopListening {
            key: "demo://timetable".into()
        }]
    );
    let cancelled = request("subscriptions/listen").end_with(End::Failed(Failure::CancelledByUser));
    session(
        &mut state,
        SessionEvent::Listened {
            key: "demo://timetable".into(),
            exchange: Box::new(cancelled),
        },
    );
    let shelf = &state.catalog.resources;
    assert!(shelf.listening.is_empty() && shelf.subscribed.is_empty() && shelf.updated.is_empty());
    assert!(
        status(&state).contains("unsubscribed from demo://timetable"),
        "{}",
        status(&state)
    );
}

#[test]
fn a_subscription_ends_with_its_connection() {
    let mut state = modern_listed();
    subscribe(&mut state);
    heard(&mut state, ACK);
    session(&mut state, SessionEvent::Disconnected);
    let shelf = &state.catalog.resources;
    assert!(shelf.subscribed.is_empty() && shelf.listening.is_empty());
}

#[test]
fn a_listen_the_server_refuses_or_acknowledges_without_the_uri_is_said() {
    let mut state = modern_listed();
    subscribe(&mut state);
    heard(
        &mut state,
        r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{}}}"#,
    );
    assert!(state.catalog.resources.subscribed.is_empty());
    assert!(
        status(&state).contains("without demo://timetable"),
        "{}",
        status(&state)
    );
    let refused = request("subscriptions/listen").error(-32602, "Invalid params: unknown");
    session(
        &mut state,
        SessionEvent::Listened {
            key: "demo://timetable".into(),
            exchange: Box::new(refused),
        },
    );
    assert!(state.catalog.resources.listening.is_empty());
    assert!(
        status(&state).contains("protocol error"),
        "{}",
        status(&state)
    );
    // Subscribing again opens a new stream.
    let effects = command(&mut state, Command::Shelves(Shelves::Subscription));
    assert_eq!(listens(&effects).len(), 1);
}

#[test]
fn completion_asks_once_at_a_time_and_the_latest_text_wins() {
    let mut state = listed();
    command(&mut state, Command::Shelves(Shelves::Prompts));
    command(&mut state, Command::Edit(Edit::OpenEditor));
    let first = press(&mut state, KeyCode::Char('L'), KeyModifiers::NONE);
    assert_eq!(
        requests(&first),
        [(
            "completion/complete".to_owned(),
            Some(json!({"ref": {"type": "ref/prompt", "name": "plan_trip"},
                        "argument": {"name": "destination", "value": "L"},
                        "context": {"arguments": {"date": ""}}}))
        )]
    );
    // Typed while the first is in flight: nothing more is sent yet.
    assert!(press(&mut state, KeyCode::Char('i'), KeyModifiers::NONE).is_empty());
    let next = answer_with(
        &mut state,
        "completion/complete",
        json!({"completion": {"values": ["Lima", "Lisbon"], "total": 2}}),
    );
    let asked: Vec<_> = requests(&next);
    assert_eq!(asked[0].1.as_ref().unwrap()["argument"]["value"], "Li");
    answer_with(
        &mut state,
        "completion/complete",
        json!({"completion": {"values": ["Lisbon"]}}),
    );
    let line = state.catalog.completion.line().unwrap_or_default();
    assert_eq!(line, "destination: Lisbon · Alt-c takes 'Lisbon'");
    press(&mut state, KeyCode::Char('c'), KeyModifiers::ALT);
    assert!(
        state.editor.text().contains("\"destination\": \"Lisbon\""),
        "{}",
        state.editor.text()
    );
}

#[test]
fn tool_arguments_ask_for_no_completion() {
    let mut state = listed();
    let tools = crate::demo_server::tools::definitions()
        .into_iter()
        .map(|raw| Tool::from_value(&raw))
        .collect::<Vec<_>>();
    session(
        &mut state,
        SessionEvent::ToolsListed(std::sync::Arc::new(tools.into())),
    );
    command(&mut state, Command::Edit(Edit::OpenEditor));
    assert!(press(&mut state, KeyCode::Char('1'), KeyModifiers::NONE).is_empty());
}

#[test]
fn o_reads_a_link_of_the_result_and_shows_an_embedded_resource_at_once() {
    let mut state = listed();
    let exchange = call("get-resource-links", json!({})).result(json!({"content": [
        {"type": "text", "text": "links"},
        {"type": "resource_link", "uri": "demo://a", "name": "a"},
        {"type": "resource", "resource": {"uri": "demo://b", "mimeType": "text/plain", "text": "inside"}},
    ]}));
    finish(&mut state, exchange);
    state.focus = Focus::Detail;
    let effects = command(&mut state, Command::Shelves(Shelves::OpenLink));
    assert_eq!(
        requests(&effects),
        [(
            "resources/read".to_owned(),
            Some(json!({"uri": "demo://a"}))
        )]
    );
    assert!(command(&mut state, Command::Shelves(Shelves::OpenLink)).is_empty());
    assert!(
        view_text(&state).contains("inside"),
        "{}",
        view_text(&state)
    );
}

#[test]
fn ctrl_s_leaves_the_editor_open_on_a_prompt_form_as_on_a_tool() {
    for prompts in [false, true] {
        let mut state = if prompts { listed() } else { state() };
        if prompts {
            command(&mut state, Command::Shelves(Shelves::Prompts));
        }
        press(&mut state, KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(state.key_mode(), crate::app::Mode::Editing);
        let sent = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert_eq!(
            sent.len(),
            1,
            "prompts {prompts}: one request sent: {sent:?}"
        );
        assert_eq!(
            state.key_mode(),
            crate::app::Mode::Editing,
            "prompts {prompts}: still editing after Ctrl-S"
        );
        // A letter typed next is text, never a command (`q` would quit).
        let typed = press(&mut state, KeyCode::Char('q'), KeyModifiers::NONE);
        assert!(
            !typed.contains(&Effect::Quit),
            "prompts {prompts}: {typed:?}"
        );
        assert!(state.editor.text().contains('q'), "prompts {prompts}");
    }
}

#[test]
fn with_a_shelf_shown_ctrl_s_sends_no_tool_draft_the_request_pane_does_not_show() {
    let mut state = state();
    command(&mut state, Command::Shelves(Shelves::Resources));
    let sent = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert!(sent.is_empty(), "{sent:?}");
    assert!(
        status(&state).contains("Enter on a row"),
        "{}",
        status(&state)
    );
    command(&mut state, Command::Shelves(Shelves::Tools));
    let sent = press(&mut state, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert_eq!(
        sent_call(&sent).0,
        "book_flight",
        "the tool's draft, with the tools shown"
    );
}
