//! The Skills shelf's loading (SEP-2640): Enter loads the selected skill as a host would, one
//! `resources/read` at a time through the session, each answer checked by [`skills::Load`]
//! (nothing read after a file that fails); Detail shows each file's mark and the text read.

use serde_json::json;

use super::action::Effect;
use super::catalog::show_view;
use super::catalog_state::SkillLoad;
use super::requests::{Asker, send};
use super::state::AppState;
use super::status::{complain, inform};
use crate::classify::classify;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::present::resources::text_lines;
use crate::sanitize;
use crate::skills::{self, Checked, FileState, Load, Verdict};

/// Enter on the Skills shelf: the selected skill is loaded, SKILL.md first. Listing read no
/// file of any skill; this is the first read of this one's.
pub(super) fn open(state: &mut AppState) -> Vec<Effect> {
    let shelf = &state.catalog.skills;
    let skill = match shelf.selected_entry() {
        Some(Ok(skill)) => skill.clone(),
        Some(Err(why)) => {
            let why = format!("an entry sightline cannot load: {}", sanitize::text(why));
            complain(state, why);
            return Vec::new();
        }
        None => {
            complain(state, "no skill to load: the list is empty".into());
            return Vec::new();
        }
    };
    let generation = shelf.load.as_ref().map_or(0, |loading| loading.generation) + 1;
    state.catalog.skills.load = Some(SkillLoad {
        load: Load::new(skill),
        generation,
        texts: Vec::new(),
        walk: None,
    });
    let effects = next_read(state);
    if effects.is_empty() {
        // Not sent (a replay, or no connection; the status line says which): nothing loads.
        state.catalog.skills.load = None;
        return effects;
    }
    show(state);
    effects
}

/// Sends the read the load is due, if any: the next file, else the walk of a dynamic skill's
/// directory, once its SKILL.md holds, where the server declares `directoryRead`.
fn next_read(state: &mut AppState) -> Vec<Effect> {
    let walkable = super::catalog::declares_directory_read(state);
    let Some(loading) = &mut state.catalog.skills.load else {
        return Vec::new();
    };
    let Some(uri) = loading.load.next().map(str::to_owned) else {
        if let Some(directory) = loading.load.directory_due().filter(|_| walkable) {
            loading.walk = Some(skills::Walk::new(directory));
            return next_page(state);
        }
        return Vec::new();
    };
    let name = sanitize::text(&loading.load.skill().name).into_owned();
    let generation = loading.generation;
    let effects = send(
        state,
        "resources/read",
        Some(json!({"uri": uri})),
        Asker::SkillFile { generation },
    );
    if !effects.is_empty() {
        let said = format!(
            "loading skill '{name}': resources/read {}",
            sanitize::text(&uri)
        );
        inform(state, said);
    }
    effects
}

/// Sends the walk's next `resources/directory/read`, or, the walk done, hands the load what
/// it found and reads on.
fn next_page(state: &mut AppState) -> Vec<Effect> {
    let Some(loading) = &mut state.catalog.skills.load else {
        return Vec::new();
    };
    let Some(walk) = &loading.walk else {
        return Vec::new();
    };
    let Some(params) = walk.next() else {
        let found = walk.found().to_vec();
        loading.walk = None;
        loading.load.walked(Ok(found));
        return next_read(state);
    };
    let generation = loading.generation;
    let said = format!(
        "loading skill '{}': resources/directory/read {}",
        sanitize::text(&loading.load.skill().name),
        sanitize::text(params["uri"].as_str().unwrap_or_default())
    );
    let effects = send(
        state,
        "resources/directory/read",
        Some(params),
        Asker::SkillDirectory { generation },
    );
    if !effects.is_empty() {
        inform(state, said);
    }
    effects
}

/// A page of the walk of load `generation` came: folded in, then the next page, or the
/// files found read; a failed walk ends the load, incomplete.
pub(super) fn directory_read(
    state: &mut AppState,
    generation: u64,
    exchange: &Exchange,
) -> Vec<Effect> {
    let Some(loading) = current(state, generation) else {
        return Vec::new();
    };
    let Some(walk) = &mut loading.walk else {
        return Vec::new();
    };
    let answer = match exchange.reply() {
        Some(Reply::Result(result)) => walk.answered(Ok(&result.value())),
        Some(Reply::Error(error)) => walk.answered(Err(skills::refused(
            "resources/directory/read",
            error.code,
            &error.message,
        ))),
        None => walk.answered(Err(format!(
            "resources/directory/read: {}",
            classify(exchange).detail
        ))),
    };
    if let Err(why) = answer {
        loading.walk = None;
        loading.load.walked(Err(why));
        finish(state);
        show(state);
        return Vec::new();
    }
    let effects = next_page(state);
    if over(state) {
        finish(state);
    }
    show(state);
    effects
}

/// A read of the load `generation` ended: the file checked, then the next one read, or the
/// load done. An answer to a load Enter has since replaced is dropped.
pub(super) fn file_read(state: &mut AppState, generation: u64, exchange: &Exchange) -> Vec<Effect> {
    let Some(loading) = current(state, generation) else {
        return Vec::new();
    };
    let answer = bytes(exchange);
    if let (Ok(bytes), Some(uri)) = (&answer, loading.load.next()) {
        let text = String::from_utf8(bytes.clone())
            .unwrap_or_else(|_| format!("({} bytes, not UTF-8 text)", bytes.len()));
        loading.texts.push((uri.to_owned(), text));
    }
    loading.load.read(answer.as_deref().map_err(Clone::clone));
    let effects = next_read(state);
    if over(state) {
        finish(state);
    }
    show(state);
    effects
}

/// The load `generation` names, unless Enter has since started another.
fn current(state: &mut AppState, generation: u64) -> Option<&mut SkillLoad> {
    state
        .catalog
        .skills
        .load
        .as_mut()
        .filter(|loading| loading.generation == generation)
}

/// Whether the load has nothing left to read: no file, no page of a walk, no walk due.
fn over(state: &AppState) -> bool {
    let walkable = super::catalog::declares_directory_read(state);
    state.catalog.skills.load.as_ref().is_some_and(|loading| {
        loading.walk.is_none()
            && loading.load.next().is_none()
            && (loading.load.directory_due().is_none() || !walkable)
    })
}

/// The load is over: what it came to, on the status line and on the skill's row.
fn finish(state: &mut AppState) {
    let Some(loading) = &state.catalog.skills.load else {
        return;
    };
    let checked = loading.load.checked();
    // With digests required: a row marked ✓ had every byte checked.
    let verdict = checked.verdict(true);
    let said = format!(
        "skill '{}': {}",
        sanitize::text(&checked.skill.name),
        verdict_words(&checked)
    );
    if matches!(verdict, Verdict::Conformant | Verdict::NoDigests) {
        inform(state, said);
    } else {
        complain(state, said);
    }
    let uri = checked.skill.uri;
    state.catalog.skills.verdicts.insert(uri, verdict);
}

/// The bytes a read answered with, or why there are none (the server's words unsanitized).
fn bytes(exchange: &Exchange) -> Result<Vec<u8>, String> {
    match exchange.reply() {
        Some(Reply::Result(result)) => skills::content_bytes(&result.value()),
        Some(Reply::Error(error)) => Err(skills::refused(
            "resources/read",
            error.code,
            &error.message,
        )),
        None => {
            let outcome = classify(exchange);
            Err(format!(
                "resources/read: {} ({})",
                outcome.detail,
                outcome.class.label()
            ))
        }
    }
}

/// Detail shows the load as it stands.
fn show(state: &mut AppState) {
    let Some(loading) = &state.catalog.skills.load else {
        return;
    };
    let title = format!("skill {}", sanitize::text(&loading.load.skill().name));
    let lines = view_lines(loading);
    show_view(state, title, lines, Vec::new());
}

/// The skill's files with their marks (the one being read, those waiting), what the load came
/// to once done, then each file's text as read.
fn view_lines(loading: &SkillLoad) -> Vec<String> {
    let load = &loading.load;
    let skill = load.skill();
    let path = |uri: &str| sanitize::text(relative(&skill.uri, uri)).into_owned();
    // The marks first: at 80×24 Detail has four rows (the shelf shows the description).
    let mut lines = Vec::new();
    let done = load.next().is_none();
    for (uri, file) in load.files() {
        lines.push(mark_line(&path(uri), file));
    }
    if load.stopped() {
        for file in load.rest() {
            lines.push(mark_line(&path(&file.uri), &FileState::Skipped));
        }
    } else {
        for (index, file) in load.rest().iter().enumerate() {
            let what = if index == 0 { "reading…" } else { "waits" };
            lines.push(format!("… {} · {what}", path(&file.uri)));
        }
    }
    if let Some(walk) = &loading.walk {
        let found = walk.found().len();
        lines.push(format!(
            "… its directory · walking (resources/directory/read), {found} found so far"
        ));
    }
    if done {
        lines.push(String::new());
        lines.push(verdict_words(&load.checked()));
    }
    for (uri, text) in &loading.texts {
        let rejected = load
            .files()
            .iter()
            .any(|(read, file)| read == uri && matches!(file, FileState::Rejected { .. }));
        let note = if rejected {
            " (as served; rejected, a host would not use it)"
        } else {
            ""
        };
        lines.push(String::new());
        lines.push(format!("── {}{note}", path(uri)));
        lines.extend(text_lines(text));
    }
    lines
}

fn mark_line(path: &str, file: &FileState) -> String {
    format!("{} {path} · {}", file.mark(), sanitize::text(&file.words()))
}

/// `uri` under the skill's directory (`references/FORMS.md`), else whole.
fn relative<'a>(skill_uri: &str, uri: &'a str) -> &'a str {
    let directory = skill_uri.strip_suffix("SKILL.md").unwrap_or(skill_uri);
    uri.strip_prefix(directory)
        .filter(|rest| !rest.is_empty())
        .unwrap_or(uri)
}

/// What a finished load comes to, for a host.
fn verdict_words(checked: &Checked) -> String {
    let failed = checked
        .files
        .iter()
        .find(|(_, file)| !matches!(file, FileState::Verified { .. }))
        .map(|(uri, _)| sanitize::text(relative(&checked.skill.uri, uri)).into_owned());
    let failed = failed.unwrap_or_default();
    match checked.verdict(true) {
        Verdict::Conformant => {
            "loaded: every file matches its listing (size and sha256 digest)".into()
        }
        Verdict::NoDigests => {
            "loaded, but not every byte was checked: a file listed without a digest (·), or a \
             dynamic listing"
                .into()
        }
        Verdict::Nonconformant => format!(
            "not loaded: {failed} does not match its listing, so a host reads no further and \
             uses none of the skill"
        ),
        Verdict::Incomplete => {
            format!("not loaded: {failed} could not be read, so a host reads no further")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn a_file_is_named_under_its_skills_directory() {
        let skill = "skill://pdf-processing/SKILL.md";
        assert_eq!(relative(skill, skill), "SKILL.md");
        assert_eq!(
            relative(skill, "skill://pdf-processing/references/FORMS.md"),
            "references/FORMS.md"
        );
        assert_eq!(relative(skill, "skill://other/x.md"), "skill://other/x.md");
    }
}
