//! The Skills shelf (SEP-2640): listed when shown (every page, no file read), a skill loaded on
//! Enter one read at a time (SKILL.md first, each answer checked, nothing read after a file
//! that fails), fed in the order the live session delivers a request's events: the frame
//! sent, the server's stderr, the frame received, then `Requested`.

#![allow(clippy::needless_pass_by_value)] // the helpers read best taking `json!(…)` directly

use serde_json::{Value, json};

use super::*;
use crate::app::action::{Move, Shelves};
use crate::app::catalog_state::Shelf;
use crate::mcp::jsonrpc::Id;
use crate::mcp::session::{End, Exchange};
use crate::skills::{Verdict, sha256};

const SKILL: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";
const NOTES: &str = "skill://notes/SKILL.md";
/// The texts the TypeScript peer serves (`tests/peers/ts_skills_server.mjs`).
const SKILL_TEXT: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n\nRead references/FORMS.md before filling a form.\n";
const FORMS_TEXT: &str = "# Forms\n\nFill each field in order.\n";
const NOTES_TEXT: &str = "---\nname: notes\ndescription: Keep short notes\n---\n\nWrite notes.\n";

fn listed(uri: &str, text: &str, digest: bool) -> Value {
    let mut file = json!({"uri": uri, "size": text.len()});
    if digest {
        file["digest"] = json!(sha256(text.as_bytes()));
    }
    file
}

fn pdf_entry() -> Value {
    json!({
        "uri": SKILL,
        "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
        "resources": [listed(SKILL, SKILL_TEXT, true), listed(FORMS, FORMS_TEXT, true)],
    })
}

fn notes_entry() -> Value {
    json!({
        "uri": NOTES,
        "frontmatter": {"name": "notes", "description": "Keep short notes"},
        "resources": [listed(NOTES, NOTES_TEXT, false)],
    })
}

/// Connected (legacy) to a server declaring `capabilities`.
fn connected(capabilities: Value) -> AppState {
    let mut state = AppState::new(Settings::default(), Vec::new(), Rect::new(0, 0, 120, 40));
    let connection = Connection {
        era: Era::Legacy,
        protocol_version: "2025-11-25".into(),
        server: ServerInfo {
            name: "sightline-ts-skills-peer".into(),
            version: "0.1.0".into(),
        },
        capabilities: Some(crate::mcp::json::Json::from_value(&capabilities)),
        http_session: None,
        probe: None,
    };
    session(&mut state, SessionEvent::Connected(Box::new(connection)));
    state
}

fn declaring() -> AppState {
    connected(json!({"resources": {}, "extensions": {"io.modelcontextprotocol/skills": {}}}))
}

/// The requests among `effects`, as (method, params).
fn sent(effects: &[Effect]) -> Vec<(String, Option<Value>)> {
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

fn read_of(uri: &str) -> (String, Option<Value>) {
    ("resources/read".to_owned(), Some(json!({"uri": uri})))
}

/// Request `id` answered as the live session reports it: the frame sent, the server's stderr
/// (`read URI`, as the peer logs each read), the frame received, then the exchange.
fn answer(
    state: &mut AppState,
    id: i64,
    method: &str,
    params: Value,
    reply: Value,
    stderr: Option<&str>,
) -> Vec<Effect> {
    let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut response = json!({"jsonrpc": "2.0", "id": id});
    if let (Some(object), Some(members)) = (response.as_object_mut(), reply.as_object()) {
        object.extend(members.clone());
    }
    let request = parse(&request.to_string()).unwrap();
    let response = parse(&response.to_string()).unwrap();
    log(state, LogEvent::Sent(request.clone()));
    if let Some(line) = stderr {
        log(state, LogEvent::Stderr(line.to_owned()));
    }
    log(
        state,
        LogEvent::Received {
            frame: response.clone(),
            role: Role::Reply {
                method: method.into(),
            },
        },
    );
    let exchange = Exchange {
        id: Id::Number(id),
        method: method.into(),
        request,
        sent_at: Timestamp(1),
        end: End::Replied(response),
        ended_at: Timestamp(2),
        http: None,
        rounds: Vec::new(),
        task: None,
    };
    session(state, SessionEvent::Requested(Box::new(exchange)))
}

fn read_answer(state: &mut AppState, id: i64, uri: &str, text: &str) -> Vec<Effect> {
    answer(
        state,
        id,
        "resources/read",
        json!({"uri": uri}),
        json!({"result": {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}}),
        Some(&format!("read {uri}")),
    )
}

/// `W` pressed and `skills/list` answered with `entries` in one page.
fn shelf_with(entries: Vec<Value>) -> AppState {
    let mut state = declaring();
    let effects = press(&mut state, KeyCode::Char('W'), KeyModifiers::SHIFT);
    assert_eq!(sent(&effects), [("skills/list".to_owned(), None)]);
    let effects = answer(
        &mut state,
        2,
        "skills/list",
        json!({}),
        json!({"result": {"skills": entries}}),
        None,
    );
    assert!(effects.is_empty(), "{effects:?}");
    state
}

fn view(state: &AppState) -> String {
    state
        .catalog
        .shown_view(state.log.selected)
        .map(|view| format!("{}\n{}", view.title, view.lines.join("\n")))
        .unwrap_or_default()
}

fn enter(state: &mut AppState) -> Vec<Effect> {
    press(state, KeyCode::Enter, KeyModifiers::NONE)
}

#[test]
fn showing_the_shelf_lists_every_page_and_reads_no_file() {
    let mut state = declaring();
    let effects = press(&mut state, KeyCode::Char('W'), KeyModifiers::SHIFT);
    assert_eq!(state.catalog.shelf, Shelf::Skills);
    assert_eq!(sent(&effects), [("skills/list".to_owned(), None)]);
    let next = answer(
        &mut state,
        2,
        "skills/list",
        json!({}),
        json!({"result": {"skills": [pdf_entry()], "nextCursor": "p2"}}),
        None,
    );
    assert_eq!(
        sent(&next),
        [("skills/list".to_owned(), Some(json!({"cursor": "p2"})))]
    );
    assert!(
        state.catalog.skills.entries.is_empty(),
        "not before the last page"
    );
    let done = answer(
        &mut state,
        3,
        "skills/list",
        json!({"cursor": "p2"}),
        json!({"result": {"skills": [notes_entry()]}}),
        None,
    );
    assert!(
        done.is_empty(),
        "no prefetch: nothing after the listing: {done:?}"
    );
    let names: Vec<&str> = state
        .catalog
        .skills
        .entries
        .iter()
        .map(|entry| entry.as_ref().map_or("?", |skill| skill.name.as_str()))
        .collect();
    assert_eq!(names, ["pdf-processing", "notes"]);
    assert_eq!(
        state.catalog.title(0),
        "Skills (2) · T 0 · R ? · P ?",
        "counted in the title"
    );
    // Shown again: listed once per connection.
    press(&mut state, KeyCode::Char('T'), KeyModifiers::SHIFT);
    assert!(state.catalog.title(0).ends_with(" · W 2"));
    assert!(press(&mut state, KeyCode::Char('W'), KeyModifiers::SHIFT).is_empty());
}

#[test]
fn enter_loads_skill_md_then_each_file_and_marks_them() {
    let mut state = shelf_with(vec![pdf_entry()]);
    assert_eq!(sent(&enter(&mut state)), [read_of(SKILL)]);
    assert!(
        view(&state).contains("… SKILL.md · reading…"),
        "{}",
        view(&state)
    );
    let next = read_answer(&mut state, 3, SKILL, SKILL_TEXT);
    assert_eq!(sent(&next), [read_of(FORMS)], "only once SKILL.md holds");
    let shown = view(&state);
    assert!(
        shown.contains("✓ SKILL.md · 151 bytes, size and digest match"),
        "{shown}"
    );
    assert!(
        shown.contains("… references/FORMS.md · reading…"),
        "{shown}"
    );
    let last = read_answer(&mut state, 4, FORMS, FORMS_TEXT);
    assert!(last.is_empty(), "{last:?}");
    let shown = view(&state);
    for expected in [
        "skill pdf-processing",
        "✓ SKILL.md · 151 bytes, size and digest match",
        "✓ references/FORMS.md · 35 bytes, size and digest match",
        "loaded: every file matches its listing",
        "── SKILL.md",
        "# PDF processing",
        "── references/FORMS.md",
        "Fill each field in order.",
    ] {
        assert!(shown.contains(expected), "{expected:?} in:\n{shown}");
    }
    assert_eq!(
        state.catalog.skills.verdicts.get(SKILL),
        Some(&Verdict::Conformant)
    );
    assert!(
        status(&state).contains("skill 'pdf-processing': loaded"),
        "{}",
        status(&state)
    );
    // The log holds every request and the server's stderr, in wire order.
    let rows: Vec<String> = state
        .log
        .lines
        .iter()
        .map(|line| state.log.summary(line).into_owned())
        .filter(|row| row.contains("resources/read") || row.contains("read skill://"))
        .collect();
    assert_eq!(rows.len(), 6, "{rows:#?}");
    assert!(
        rows[1].contains("read skill://pdf-processing/SKILL.md"),
        "{rows:#?}"
    );
    assert!(
        rows[4].contains("read skill://pdf-processing/references/FORMS.md"),
        "{rows:#?}"
    );
}

#[test]
fn a_tampered_skill_md_is_rejected_and_its_files_are_never_read() {
    let mut state = shelf_with(vec![pdf_entry()]);
    enter(&mut state);
    let tampered = SKILL_TEXT.replace("Read references", "Skip references");
    let next = read_answer(&mut state, 3, SKILL, &tampered);
    assert!(next.is_empty(), "FORMS.md must not be read: {next:?}");
    let shown = view(&state);
    for expected in [
        "✗ SKILL.md · rejected: digest: listed sha256:",
        "· references/FORMS.md · not read: the skill was rejected before it",
        "not loaded: SKILL.md does not match its listing",
        "── SKILL.md (as served; rejected, a host would not use it)",
        "Skip references",
    ] {
        assert!(shown.contains(expected), "{expected:?} in:\n{shown}");
    }
    assert_eq!(
        state.catalog.skills.verdicts.get(SKILL),
        Some(&Verdict::Nonconformant)
    );
}

#[test]
fn a_file_without_a_digest_is_marked_not_checked_and_a_refused_read_stops_the_load() {
    let mut state = shelf_with(vec![pdf_entry(), notes_entry()]);
    press(&mut state, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(sent(&enter(&mut state)), [read_of(NOTES)]);
    read_answer(&mut state, 3, NOTES, NOTES_TEXT);
    let shown = view(&state);
    assert!(
        shown.contains("· SKILL.md · 64 bytes, no digest listed"),
        "{shown}"
    );
    assert!(
        shown.contains("loaded, but not every byte was checked"),
        "{shown}"
    );
    assert_eq!(
        state.catalog.skills.verdicts.get(NOTES),
        Some(&Verdict::NoDigests)
    );

    press(&mut state, KeyCode::Up, KeyModifiers::NONE);
    enter(&mut state);
    let next = answer(
        &mut state,
        4,
        "resources/read",
        json!({"uri": SKILL}),
        json!({"error": {"code": -32002, "message": "Resource not found"}}),
        None,
    );
    assert!(next.is_empty(), "{next:?}");
    let shown = view(&state);
    assert!(
        shown.contains("? SKILL.md · not read: resources/read: error -32002 Resource not found"),
        "{shown}"
    );
    assert!(
        shown.contains("· references/FORMS.md · not read"),
        "{shown}"
    );
    assert_eq!(
        state.catalog.skills.verdicts.get(SKILL),
        Some(&Verdict::Incomplete)
    );
}

#[test]
fn an_answer_to_a_load_replaced_by_another_is_dropped() {
    let mut state = shelf_with(vec![pdf_entry(), notes_entry()]);
    enter(&mut state);
    press(&mut state, KeyCode::Down, KeyModifiers::NONE);
    assert_eq!(sent(&enter(&mut state)), [read_of(NOTES)]);
    // The first load's read is answered first, as sent: it belongs to a load no longer shown.
    let dropped = read_answer(&mut state, 3, SKILL, SKILL_TEXT);
    assert!(
        dropped.is_empty(),
        "FORMS.md is not read for it: {dropped:?}"
    );
    let shown = view(&state);
    assert!(
        shown.starts_with("skill notes") && shown.contains("… SKILL.md · reading…"),
        "still waiting for its own read:\n{shown}"
    );
    assert!(state.catalog.skills.verdicts.is_empty());
    read_answer(&mut state, 4, NOTES, NOTES_TEXT);
    assert_eq!(
        state.catalog.skills.verdicts.get(NOTES),
        Some(&Verdict::NoDigests)
    );
    assert!(!state.catalog.skills.verdicts.contains_key(SKILL));
}

#[test]
fn a_server_that_does_not_serve_skills_says_why() {
    let mut state = connected(json!({"resources": {}}));
    assert!(command(&mut state, Command::Shelves(Shelves::Skills)).is_empty());
    let why = state
        .catalog
        .skills
        .skills
        .problem
        .clone()
        .unwrap_or_default();
    assert!(
        why.contains("declares no `io.modelcontextprotocol/skills` extension"),
        "{why}"
    );
    assert_eq!(
        state.catalog.title(0),
        "Skills (?) · T 0 · R ? · P ?",
        "the others' titles name W only for a server declaring it"
    );
    command(&mut state, Command::Shelves(Shelves::Tools));
    assert!(!state.catalog.title(0).contains(" W "));

    let mut state = declaring();
    command(&mut state, Command::Shelves(Shelves::Skills));
    answer(
        &mut state,
        2,
        "skills/list",
        json!({}),
        json!({"error": {"code": -32601, "message": "Method not found"}}),
        None,
    );
    let why = state
        .catalog
        .skills
        .skills
        .problem
        .clone()
        .unwrap_or_default();
    assert!(why.contains("does not serve skills"), "{why}");
    assert!(sent(&enter(&mut state)).is_empty());
    assert!(
        status(&state).contains("no skill to load"),
        "{}",
        status(&state)
    );
}

#[test]
fn moving_in_the_shelf_selects_the_skill_enter_loads() {
    let mut state = shelf_with(vec![pdf_entry(), notes_entry()]);
    command(&mut state, Command::Move(Move::SelectLast));
    assert_eq!(state.catalog.skills.selected, 1);
    command(&mut state, Command::Move(Move::SelectNext));
    assert_eq!(state.catalog.skills.selected, 1, "kept in the list");
    assert_eq!(sent(&enter(&mut state)), [read_of(NOTES)]);
}

fn directory_answer(
    state: &mut AppState,
    id: i64,
    params: Value,
    entries: Value,
    cursor: Option<&str>,
) -> Vec<Effect> {
    let mut result = json!({"resources": entries});
    if let Some(cursor) = cursor {
        result["nextCursor"] = json!(cursor);
    }
    let stderr = format!("directory {}", params["uri"].as_str().unwrap_or_default());
    answer(
        state,
        id,
        "resources/directory/read",
        params,
        json!({ "result": result }),
        Some(&stderr),
    )
}

/// `W` pressed on a server whose one skill is listed as `"dynamic"`, declaring
/// `directoryRead` or not, and Enter: SKILL.md is asked for.
fn dynamic_loading(directory_read: bool) -> AppState {
    let dynamic = json!({
        "uri": SKILL,
        "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
        "resources": "dynamic",
    });
    let settings = if directory_read {
        json!({"directoryRead": true})
    } else {
        json!({})
    };
    let mut state = connected(json!({"resources": {},
        "extensions": {"io.modelcontextprotocol/skills": settings}}));
    press(&mut state, KeyCode::Char('W'), KeyModifiers::SHIFT);
    let list = json!({"result": {"skills": [dynamic]}});
    answer(&mut state, 2, "skills/list", json!({}), list, None);
    assert_eq!(sent(&enter(&mut state)), [read_of(SKILL)]);
    state
}

const ROOT: &str = "skill://pdf-processing";

/// Once a dynamic skill's SKILL.md holds, its directory is walked page by page, then its
/// subdirectory, and the files found are read (SKILL.md not twice).
#[test]
fn a_dynamic_skill_s_directory_is_walked_after_skill_md_and_its_files_read() {
    let mut state = dynamic_loading(true);
    let root = json!({"uri": ROOT});
    let next = read_answer(&mut state, 3, SKILL, SKILL_TEXT);
    assert_eq!(
        sent(&next),
        [("resources/directory/read".to_owned(), Some(root.clone()))]
    );
    assert!(
        view(&state).contains("walking (resources/directory/read)"),
        "{}",
        view(&state)
    );
    let page = json!([{"uri": SKILL, "mimeType": "text/markdown"}]);
    let next = directory_answer(&mut state, 4, root, page, Some("1"));
    let second = json!({"uri": ROOT, "cursor": "1"});
    assert_eq!(
        sent(&next),
        [("resources/directory/read".to_owned(), Some(second.clone()))]
    );
    let references = json!({"uri": "skill://pdf-processing/references"});
    let page = json!([{"uri": "skill://pdf-processing/references", "mimeType": "inode/directory"}]);
    let next = directory_answer(&mut state, 5, second, page, None);
    assert_eq!(
        sent(&next),
        [(
            "resources/directory/read".to_owned(),
            Some(references.clone())
        )]
    );
    let page = json!([{"uri": FORMS, "mimeType": "text/markdown"}]);
    let next = directory_answer(&mut state, 6, references, page, None);
    assert_eq!(sent(&next), [read_of(FORMS)], "SKILL.md is not read twice");
    let next = read_answer(&mut state, 7, FORMS, FORMS_TEXT);
    assert!(next.is_empty(), "{next:?}");
    let shown = view(&state);
    assert!(
        shown.contains("· references/FORMS.md · 35 bytes, no digest listed"),
        "{shown}"
    );
    assert_eq!(
        state.catalog.skills.verdicts.get(SKILL),
        Some(&Verdict::NoDigests)
    );
}

/// A walk refused ends the load, incomplete, saying why; without `directoryRead` a dynamic
/// skill's SKILL.md is all there is to read.
#[test]
fn a_refused_walk_ends_the_load_and_without_directory_read_there_is_none() {
    let mut state = dynamic_loading(true);
    read_answer(&mut state, 3, SKILL, SKILL_TEXT);
    let refused = json!({"error": {"code": -32601, "message": "Method not found"}});
    let next = answer(
        &mut state,
        4,
        "resources/directory/read",
        json!({"uri": ROOT}),
        refused,
        None,
    );
    assert!(next.is_empty(), "{next:?}");
    assert!(
        view(&state).contains("error -32601 Method not found"),
        "{}",
        view(&state)
    );
    assert_eq!(
        state.catalog.skills.verdicts.get(SKILL),
        Some(&Verdict::Incomplete)
    );

    let mut state = dynamic_loading(false);
    let next = read_answer(&mut state, 3, SKILL, SKILL_TEXT);
    assert!(next.is_empty(), "{next:?}");
    assert_eq!(
        state.catalog.skills.verdicts.get(SKILL),
        Some(&Verdict::NoDigests)
    );
}
