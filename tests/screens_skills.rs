//! Screen snapshots of the Skills shelf (SEP-2640) at 120×40 and 80×24: the listing (no file
//! read), a skill loaded with every file checked, one whose SKILL.md was tampered with (its
//! other file never read), and a server that does not declare the extension.

#![allow(clippy::unwrap_used)] // a panic is a failed test

#[path = "common/catalog.rs"]
mod catalog;
mod common;

use common::{Session, screen};
use serde_json::{Value, json};
use sightline::app::Command;
use sightline::app::action::{Edit, Shelves};
use sightline::mcp::Timestamp;
use sightline::mcp::era::Era;
use sightline::mcp::jsonrpc::{Id, parse};
use sightline::mcp::log::SessionEvent;
use sightline::mcp::messages::ServerInfo;
use sightline::mcp::session::{End, Exchange};
use sightline::runner::{Connection, LogEvent};
use sightline::skills::sha256;
use sightline::theme::Theme;

const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

const SKILL: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";
const NOTES: &str = "skill://notes/SKILL.md";
/// As `tests/peers/ts_skills_server.mjs` serves them.
const SKILL_TEXT: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n\nRead references/FORMS.md before filling a form.\n";
const FORMS_TEXT: &str = "# Forms\n\nFill each field in order.\n";
const NOTES_TEXT: &str = "---\nname: notes\ndescription: Keep short notes\n---\n\nWrite notes.\n";

fn snapshot(name: &str, build: impl Fn(&mut Session)) {
    for (width, height) in SIZES {
        let mut session = Session::new(width, height);
        build(&mut session);
        insta::assert_snapshot!(
            format!("{name}_{width}x{height}"),
            screen(&session.state, &Theme::fallback())
        );
    }
}

fn listed(uri: &str, text: &str, digest: bool) -> Value {
    let mut file = json!({"uri": uri, "size": text.len()});
    if digest {
        file["digest"] = json!(sha256(text.as_bytes()));
    }
    file
}

/// The peer's skills in its `bare` mode, and one listed as dynamic.
fn skills() -> Value {
    json!({"skills": [
        {"uri": SKILL,
         "frontmatter": {"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents"},
         "resources": [listed(SKILL, SKILL_TEXT, true), listed(FORMS, FORMS_TEXT, true)]},
        {"uri": NOTES,
         "frontmatter": {"name": "notes", "description": "Keep short notes"},
         "resources": [listed(NOTES, NOTES_TEXT, false)]},
        {"uri": "skill://acme/deploy/SKILL.md",
         "frontmatter": {"name": "deploy", "description": "Deploy a service, step by step"},
         "resources": "dynamic"},
    ]})
}

/// Connected to a server built like the TypeScript peer: no tools, resources, and the skills
/// extension when `extension`.
fn connected(s: &mut Session, extension: bool) {
    s.connected(Era::Legacy, "2025-11-25", "sightline-ts-skills-peer");
    let mut capabilities = json!({"resources": {}});
    if extension {
        capabilities["extensions"] = json!({"io.modelcontextprotocol/skills": {}});
    }
    s.event(SessionEvent::Connected(Box::new(Connection {
        era: Era::Legacy,
        protocol_version: "2025-11-25".into(),
        server: ServerInfo {
            name: "sightline-ts-skills-peer".into(),
            version: "0.1.0".into(),
        },
        capabilities: Some(sightline::mcp::json::Json::from_value(&capabilities)),
        http_session: None,
        probe: None,
    })));
    s.tools(&[]);
}

/// `W`, and the listing answered.
fn shelf(s: &mut Session) {
    connected(s, true);
    s.command(Command::Shelves(Shelves::Skills));
    s.answer(3, "skills/list", &json!({}), &json!({"result": skills()}));
}

/// A read answered as the live session reports it: the frame sent, the peer's stderr, the frame
/// received, then the exchange.
fn read(s: &mut Session, id: i64, uri: &str, text: &str) {
    let request =
        json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}})
            .to_string();
    let response = json!({"jsonrpc": "2.0", "id": id, "result": {"contents": [
        {"uri": uri, "mimeType": "text/markdown", "text": text}
    ]}})
    .to_string();
    s.sent(&request);
    s.log(LogEvent::Stderr(format!("read {uri}")));
    s.received(&response, "resources/read");
    s.event(SessionEvent::Requested(Box::new(Exchange {
        id: Id::Number(id),
        method: "resources/read".into(),
        request: parse(&request).unwrap(),
        sent_at: Timestamp(common::T0),
        end: End::Replied(parse(&response).unwrap()),
        ended_at: Timestamp(common::T0),
        http: None,
        rounds: Vec::new(),
        task: None,
    })));
}

#[test]
fn the_skills_shelf() {
    snapshot("skills", shelf);
}

#[test]
fn a_skill_loaded_with_every_file_checked() {
    snapshot("skills_loaded", |s| {
        shelf(s);
        s.command(Command::Edit(Edit::OpenEditor));
        read(s, 4, SKILL, SKILL_TEXT);
        read(s, 5, FORMS, FORMS_TEXT);
    });
}

#[test]
fn a_tampered_skill_is_rejected_and_read_no_further() {
    snapshot("skills_tampered", |s| {
        shelf(s);
        s.command(Command::Edit(Edit::OpenEditor));
        let tampered = SKILL_TEXT.replace("Read references", "Skip references");
        read(s, 4, SKILL, &tampered);
    });
}

#[test]
fn a_server_without_the_extension() {
    snapshot("skills_not_declared", |s| {
        connected(s, false);
        s.command(Command::Shelves(Shelves::Skills));
    });
}
