//! The catalog's transitions underneath the shelves: the server's capabilities, the listings of
//! resources, templates, prompts and skills (every page, again after `list_changed`), resource
//! updates heard, moving in a shelf, sending a read, and what Detail shows of a read or a prompt.

use serde_json::{Value, json};

use super::action::Effect;
use super::catalog_state::{
    CatalogView, ListKind, Listing, PromptsShelf, ResourcesShelf, Shelf, SkillsShelf,
};
use super::requests::{Asker, send};
use super::state::{AppState, Focus, Link};
use super::status::inform;
use crate::classify::classify;
use crate::mcp::Timestamp;
use crate::mcp::era::Era;
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{Frame, Message, Reply};
use crate::mcp::session::Exchange;
use crate::present::resources::Content;
use crate::sanitize;
use crate::skills::{self, Skill};

/// Pages of one listing followed at most: a server that never stops paging is stopped.
const MAX_PAGES: usize = 100;

/// The server's capabilities, when connected.
pub(super) fn capabilities(state: &AppState) -> Option<&Json> {
    match &state.link {
        Link::Connected(connection) => connection.capabilities.as_ref(),
        _ => None,
    }
}

/// Whether the server declares `path` (`resources`, `resources/subscribe`, `completions`):
/// present, and not `false`.
pub(super) fn declares(state: &AppState, path: &str) -> bool {
    let Some(capabilities) = capabilities(state) else {
        return false;
    };
    let value = capabilities.value();
    let pointer = format!("/{path}");
    value
        .pointer(&pointer)
        .is_some_and(|declared| !matches!(declared, Value::Bool(false) | Value::Null))
}

/// Whether the server declares `directoryRead` for the skills extension: a dynamic skill's
/// files can then be found with `resources/directory/read`.
pub(super) fn declares_directory_read(state: &AppState) -> bool {
    let pointer = format!(
        "/extensions/{}/directoryRead",
        skills::EXTENSION.replace('/', "~1")
    );
    capabilities(state).is_some_and(|capabilities| {
        capabilities.value().pointer(&pointer) == Some(&Value::Bool(true))
    })
}

/// Whether the server declares SEP-2640's skills extension in `capabilities.extensions`.
fn declares_skills(state: &AppState) -> bool {
    // A JSON pointer's `/` inside a key is `~1`.
    declares(
        state,
        &format!("extensions/{}", skills::EXTENSION.replace('/', "~1")),
    )
}

pub(super) fn era(state: &AppState) -> Option<Era> {
    match &state.link {
        Link::Connected(connection) => Some(connection.era),
        _ => None,
    }
}

/// Connected: the shelves start empty; each is listed when first shown (see [`list_shelf`]).
pub(super) fn connected(state: &mut AppState) -> Vec<Effect> {
    state.catalog.resources = ResourcesShelf::default();
    state.catalog.prompts = PromptsShelf::default();
    state.catalog.skills = SkillsShelf {
        declared: declares_skills(state),
        ..SkillsShelf::default()
    };
    state.catalog.view = None;
    if !declares(state, "resources") {
        let why = "the server declares no resources capability".to_owned();
        state.catalog.resources.resources.problem = Some(why);
    }
    if !declares(state, "prompts") {
        let why = "the server declares no prompts capability".to_owned();
        state.catalog.prompts.prompts.problem = Some(why);
    }
    if !state.catalog.skills.declared {
        let why = format!(
            "the server declares no `{}` extension (SEP-2640), so skills/list was not \
             sent (`:` sends any request)",
            skills::EXTENSION
        );
        state.catalog.skills.skills.problem = Some(why);
    }
    Vec::new()
}

/// The shelf shown: listed (every page) the first time on a connection, when the server
/// declares its capability. Not on connect: the session's first requests stay discovery and
/// tools/list, so a tools/call keeps the id it always had (#3 on the demo).
pub(super) fn list_shelf(state: &mut AppState, shelf: Shelf) -> Vec<Effect> {
    if state.replay.is_some() || !matches!(state.link, Link::Connected(_)) {
        return Vec::new();
    }
    match shelf {
        Shelf::Resources
            if declares(state, "resources") && !state.catalog.resources.resources.asked() =>
        {
            let mut effects = start(state, ListKind::Resources);
            effects.extend(start(state, ListKind::Templates));
            effects
        }
        Shelf::Prompts if declares(state, "prompts") && !state.catalog.prompts.prompts.asked() => {
            start(state, ListKind::Prompts)
        }
        // The listing only: SEP-2640 forbids reading a skill's files before it is loaded.
        Shelf::Skills if state.catalog.skills.declared && !state.catalog.skills.skills.asked() => {
            start(state, ListKind::Skills)
        }
        Shelf::Tools | Shelf::Resources | Shelf::Prompts | Shelf::Skills => Vec::new(),
    }
}

fn listing(state: &mut AppState, kind: ListKind) -> &mut Listing {
    match kind {
        ListKind::Resources => &mut state.catalog.resources.resources,
        ListKind::Templates => &mut state.catalog.resources.templates,
        ListKind::Prompts => &mut state.catalog.prompts.prompts,
        ListKind::Skills => &mut state.catalog.skills.skills,
    }
}

/// Starts listing `kind` from its first page; a listing under way is dropped.
fn start(state: &mut AppState, kind: ListKind) -> Vec<Effect> {
    let list = listing(state, kind);
    list.generation += 1;
    list.gathering.clear();
    list.pages = 0;
    list.cursors.clear();
    list.loading = true;
    let generation = list.generation;
    send(
        state,
        kind.method(),
        None,
        Asker::Listing { kind, generation },
    )
}

/// A page of listing `kind` came back: gathered, the next one asked for, or the listing done.
pub(super) fn page(
    state: &mut AppState,
    kind: ListKind,
    generation: u64,
    exchange: &Exchange,
) -> Vec<Effect> {
    let modern = era(state) == Some(Era::Modern);
    let list = listing(state, kind);
    if list.generation != generation {
        return Vec::new();
    }
    let result = match exchange.reply() {
        Some(Reply::Result(result)) => result,
        Some(Reply::Error(error)) if kind == ListKind::Templates && error.code == -32601 => {
            // A server without templates need not implement the method.
            list.loading = false;
            list.items.clear();
            return Vec::new();
        }
        Some(Reply::Error(error)) if kind == ListKind::Skills && error.code == -32601 => {
            list.loading = false;
            list.problem = Some(
                "the server does not serve skills: skills/list is a method it does not know \
                 (-32601 method not found)"
                    .into(),
            );
            return Vec::new();
        }
        _ => {
            let outcome = classify(exchange);
            list.loading = false;
            list.problem = Some(format!(
                "{} failed: {} ({})",
                kind.method(),
                sanitize::text(&outcome.detail),
                outcome.class.label()
            ));
            return Vec::new();
        }
    };
    let items = result.get(kind.key());
    let Some(elements) = items.as_ref().and_then(Json::elements) else {
        list.loading = false;
        list.problem = Some(format!("{}: no `{}` array", kind.method(), kind.key()));
        return Vec::new();
    };
    let page: Vec<Json> = match &items {
        Some(items) => elements.filter_map(|item| items.part(item)).collect(),
        None => Vec::new(),
    };
    list.gathering.extend(page);
    list.pages += 1;
    let cursor = result
        .get("nextCursor")
        .and_then(|cursor| cursor.as_str().map(std::borrow::Cow::into_owned))
        // 2026-07-28: any cursor given, even empty, means more (a legacy empty one ends).
        .filter(|cursor| modern || !cursor.is_empty());
    let stop = |list: &mut Listing, why: String| {
        list.loading = false;
        list.items = std::mem::take(&mut list.gathering);
        list.problem = Some(why);
    };
    match cursor {
        None => {
            list.loading = false;
            list.items = std::mem::take(&mut list.gathering);
            list.problem = None;
            settled(state, kind);
            Vec::new()
        }
        Some(cursor) if list.cursors.contains(&cursor) => {
            let why = format!(
                "{}: cursor '{}' came back twice; stopped to avoid a loop",
                kind.method(),
                sanitize::text(&cursor)
            );
            stop(list, why);
            settled(state, kind);
            Vec::new()
        }
        Some(_) if list.pages >= MAX_PAGES => {
            let why = format!("{}: stopped after {MAX_PAGES} pages", kind.method());
            stop(list, why);
            settled(state, kind);
            Vec::new()
        }
        Some(cursor) => {
            list.cursors.insert(cursor.clone());
            send(
                state,
                kind.method(),
                Some(json!({"cursor": cursor})),
                Asker::Listing { kind, generation },
            )
        }
    }
}

/// A listing is complete (or stopped): skills' entries are read, the selections kept in range.
fn settled(state: &mut AppState, kind: ListKind) {
    if kind == ListKind::Skills {
        let shelf = &mut state.catalog.skills;
        shelf.entries = shelf
            .skills
            .items
            .iter()
            .map(|item| Skill::from_entry(&item.value()))
            .collect();
    }
    clamp_selections(state);
}

fn clamp_selections(state: &mut AppState) {
    let skills = &mut state.catalog.skills;
    skills.selected = skills.selected.min(skills.entries.len().saturating_sub(1));
    let resources = &mut state.catalog.resources;
    resources.selected = resources.selected.min(resources.len().saturating_sub(1));
    let prompts = &mut state.catalog.prompts;
    prompts.selected = prompts
        .selected
        .min(prompts.prompts.items.len().saturating_sub(1));
}

/// A frame the server sent: list changes start the listing again, a resource update is
/// marked. (The log shows the notification itself, as every frame.)
pub(super) fn heard(state: &mut AppState, at: Timestamp, frame: &Frame) -> Vec<Effect> {
    match frame.message.method() {
        // A list never shown is listed when it is; one shown is listed again now.
        Some("notifications/resources/list_changed")
            if state.catalog.resources.resources.asked() =>
        {
            let mut effects = start(state, ListKind::Resources);
            effects.extend(start(state, ListKind::Templates));
            effects
        }
        Some("notifications/prompts/list_changed") if state.catalog.prompts.prompts.asked() => {
            start(state, ListKind::Prompts)
        }
        Some("notifications/resources/updated") => {
            let uri = match &frame.message {
                Message::Notification {
                    params: Some(params),
                    ..
                } => params
                    .value()
                    .get("uri")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                _ => None,
            };
            // Marked on the shelf, not said in the status line: a server that updates every
            // few seconds would drown the user's own messages.
            if let Some(uri) = uri {
                state.catalog.resources.updated.insert(uri, at);
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// ↑ ↓ and paging in a catalog shelf or its Detail view; `false` when the move is not the
/// catalog's (the Tools shelf, or Detail showing the log's selection).
pub(super) fn move_selection(state: &mut AppState, by: usize, up: bool) -> bool {
    let step = |at: usize, len: usize| {
        if up {
            at.saturating_sub(by)
        } else {
            at.saturating_add(by).min(len.saturating_sub(1))
        }
    };
    match state.focus {
        Focus::Tools | Focus::Editor => match state.catalog.shelf {
            Shelf::Tools => return false,
            Shelf::Resources => {
                let resources = &mut state.catalog.resources;
                resources.selected = step(resources.selected, resources.len());
            }
            Shelf::Prompts => {
                let prompts = &mut state.catalog.prompts;
                prompts.selected = step(prompts.selected, prompts.prompts.items.len());
            }
            Shelf::Skills => {
                let skills = &mut state.catalog.skills;
                skills.selected = step(skills.selected, skills.entries.len());
            }
        },
        Focus::Detail if state.catalog.shown_view(state.log.selected).is_some() => {
            if let Some(view) = state.catalog.view.as_mut() {
                view.scroll = step(view.scroll, view.lines.len());
            }
        }
        Focus::Detail | Focus::Log | Focus::Model => return false,
    }
    true
}

/// Shows `lines` in Detail under `title`.
pub(super) fn show_view(
    state: &mut AppState,
    title: String,
    lines: Vec<String>,
    contents: Vec<Content>,
) {
    state.catalog.view = Some(CatalogView {
        title,
        lines,
        scroll: 0,
        contents,
    });
    // Detail shows the view only with no log row selected.
    super::navigation::select_line(state, None);
}

/// The lines Detail shows for a request that did not end in a result: its class and detail,
/// then the response as received (the server's code, message and data verbatim).
pub(super) fn failure_lines(exchange: &Exchange) -> Vec<String> {
    let outcome = classify(exchange);
    let mut lines = vec![format!(
        "{} · {}",
        outcome.class.label(),
        sanitize::text(&outcome.detail)
    )];
    if let Some(frame) = exchange.response() {
        lines.push(String::new());
        lines.push("← response".into());
        lines.extend(
            crate::present::call::pretty_lines(&frame.raw)
                .iter()
                .map(|line| sanitize::text(line).into_owned()),
        );
    }
    lines
}

/// Sends `resources/read` for `uri`.
pub(super) fn read(state: &mut AppState, uri: &str) -> Vec<Effect> {
    let effects = send(
        state,
        "resources/read",
        Some(json!({"uri": uri})),
        Asker::Read {
            uri: uri.to_owned(),
        },
    );
    if !effects.is_empty() {
        inform(
            state,
            format!("sent resources/read {}", sanitize::text(uri)),
        );
    }
    effects
}
