//! `sightline skills` (SEP-2640: every page of `skills/list`, no file read) and `skills
//! --verify` (each skill loaded as a host loads it: SKILL.md read and checked against its listing
//! and its frontmatter against the entry's, then each other file, read and checked; a skill that
//! fails is read no further).

use serde::Serialize;
use serde_json::{Value, json};

use super::exit;
use super::one_shot::{RequestJson, list_all, listed_outcome, with_client};
use super::output::{emit, outcome_json, print_json, report_failure, server_json, server_line};
use crate::cli::{RecordArgs, SkillsArgs};
use crate::mcp::jsonrpc::Reply;
use crate::runner::{Connection, SessionRunner, Stage};
use crate::sanitize;
use crate::skills::{self, Checked, Skill, Verdict};

/// Exit codes of `skills --verify` beyond the common ones.
pub mod verify_exit {
    /// A file did not match its listing, or an entry could not be read.
    pub const NONCONFORMANT: u8 = 7;
    /// A file could not be read.
    pub const INCOMPLETE: u8 = 8;
    /// With --require-digests: a file was listed without a digest.
    pub const NO_DIGESTS: u8 = 9;
}

/// The shape of `skills --json`.
#[derive(Serialize)]
struct SkillsJson<'a> {
    server: Value,
    /// Whether the server declared the extension in its capabilities.
    declared: bool,
    skills: Vec<&'a Skill>,
    /// Entries that could not be read, each with why.
    unreadable: &'a [String],
    pages: usize,
    /// With --verify: each skill's files and what became of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    verified: Option<&'a [Checked]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<Verdict>,
    /// With NAME: the skill's SKILL.md as read, once it holds (none when it was rejected).
    #[serde(skip_serializing_if = "Option::is_none")]
    skill_md: Option<&'a str>,
    outcome: Value,
}

/// `sightline skills`.
pub async fn skills(args: &SkillsArgs, record: &RecordArgs) -> u8 {
    let stopped = |outcome| RequestJson {
        outcome,
        ..RequestJson::default()
    };
    with_client(
        &args.common,
        record,
        "skills",
        stopped,
        async |client, _| list(client, args).await,
    )
    .await
}

async fn list(client: &mut SessionRunner, args: &SkillsArgs) -> u8 {
    let common = &args.common;
    let listed = list_all(client, "skills/list", "skills").await;
    let connection = client.connection().cloned();
    let listed = match listed {
        Ok(listed) => listed,
        Err(error) => {
            return report_failure(&error, common.json, || {
                RequestJson::failed(&error, connection.as_ref(), common.server.show_secrets)
            });
        }
    };
    let (skills, unreadable): (Vec<_>, Vec<_>) = listed
        .items
        .iter()
        .map(|item| Skill::from_entry(&item.value()))
        .partition(Result::is_ok);
    let mut skills: Vec<Skill> = skills.into_iter().filter_map(Result::ok).collect();
    let mut unreadable: Vec<String> = unreadable.into_iter().filter_map(Result::err).collect();
    if let Some(name) = &args.name
        && let Err(code) = select(&mut skills, &mut unreadable, name, listed.items.len())
    {
        return code;
    }
    let mut skill_md = None;
    let directory_read = directory_read(connection.as_ref());
    let verified = if args.verify || args.name.is_some() {
        let mut verified = Vec::new();
        for skill in &skills {
            let (checked, text) = load(client, skill, directory_read).await;
            // The text is what a user naming the skill asked to read.
            skill_md = skill_md.or(text.filter(|_| args.name.is_some()));
            verified.push(checked);
        }
        Some(verified)
    } else {
        None
    };
    let verdict = verified
        .as_ref()
        .map(|verified| skills::overall(verified, unreadable.len(), args.require_digests));
    let code = exit_code(verdict);
    let declared = declared(connection.as_ref());
    let detail = crate::audit::report::plural(skills.len(), "skill");
    if common.json {
        print_json(&SkillsJson {
            server: server_json(connection.as_ref()),
            declared,
            skills: skills.iter().collect(),
            unreadable: &unreadable,
            pages: listed.pages,
            verified: verified.as_deref(),
            verdict,
            skill_md: skill_md.as_deref(),
            outcome: outcome_json(&listed_outcome(detail), Stage::List),
        });
        return code;
    }
    let mut lines = vec![server_line(
        connection.as_ref(),
        &client.transport().description,
    )];
    if !declared {
        lines.push(format!(
            "note     the server declares no `{}` extension; asked anyway",
            skills::EXTENSION
        ));
    }
    lines.push(String::new());
    lines.push(crate::present::resources::counted(
        skills.len(),
        "skill",
        listed.pages,
    ));
    match &verified {
        Some(verified) => lines.extend(verified.iter().flat_map(checked_lines)),
        None => lines.extend(skills.iter().flat_map(skill_lines)),
    }
    for why in &unreadable {
        lines.push(format!(
            "  ✗ an entry sightline cannot read: {}",
            sanitize::text(why)
        ));
    }
    if let Some(verdict) = verdict {
        lines.push(String::new());
        lines.push(verdict_line(verdict, args.require_digests));
        if let Some(text) = &skill_md {
            lines.push(String::new());
            lines.extend(crate::present::resources::text_lines(text));
        }
    } else if !skills.is_empty() {
        lines.push(String::new());
        lines.push("no file was read (a host reads a skill's files only once it loads it); --verify loads each".into());
    }
    emit(|out| writeln!(out, "{}", lines.join("\n")));
    code
}

/// The exit code a verification's verdict comes to (none asked: success).
fn exit_code(verdict: Option<Verdict>) -> u8 {
    match verdict {
        Some(Verdict::Nonconformant) => verify_exit::NONCONFORMANT,
        Some(Verdict::Incomplete) => verify_exit::INCOMPLETE,
        Some(Verdict::NoDigests) => verify_exit::NO_DIGESTS,
        Some(Verdict::Conformant) | None => exit::SUCCESS,
    }
}

/// Only the skill `name` names (by name or SKILL.md URI), or the usage error when the server
/// lists none such among its `listed` entries.
fn select(
    skills: &mut Vec<Skill>,
    unreadable: &mut Vec<String>,
    name: &str,
    listed: usize,
) -> Result<(), u8> {
    skills.retain(|skill| skill.name == name || skill.uri == name);
    // Another entry's problem is not this skill's.
    unreadable.clear();
    if !skills.is_empty() {
        return Ok(());
    }
    eprintln!(
        "sightline: no skill named {:?} among the server's ({} listed; `sightline skills` lists them)",
        sanitize::text(name),
        crate::audit::report::plural(listed, "skill")
    );
    Err(exit::USAGE)
}

/// Whether the server's capabilities name the skills extension.
fn declared(connection: Option<&Connection>) -> bool {
    connection
        .and_then(|c| c.capabilities.as_ref())
        .and_then(|capabilities| capabilities.get("extensions"))
        .is_some_and(|extensions| extensions.get(skills::EXTENSION).is_some())
}

/// Whether the server declared `directoryRead` for the skills extension: a dynamic skill's
/// files can then be found with `resources/directory/read`.
fn directory_read(connection: Option<&Connection>) -> bool {
    connection
        .and_then(|c| c.capabilities.as_ref())
        .and_then(|capabilities| capabilities.get("extensions")?.get(skills::EXTENSION))
        .and_then(|settings| settings.get("directoryRead"))
        .and_then(|flag| flag.as_bool())
        == Some(true)
}

/// Loads one skill as a host does ([`skills::Load`]): SKILL.md, checked; then, only if it
/// holds, the other listed files in order (a dynamic skill's as its directory gives them,
/// where the server can walk it), each checked, stopping at the first that fails. With what
/// it came to, the SKILL.md text when it held.
async fn load(
    client: &mut SessionRunner,
    skill: &Skill,
    directory_read: bool,
) -> (Checked, Option<String>) {
    let mut load = skills::Load::new(skill.clone());
    let mut skill_md = None;
    loop {
        while let Some(uri) = load.next().map(str::to_owned) {
            let answer = read(client, &uri).await;
            let first = load.files().is_empty();
            let held = load.read(answer.as_deref().map_err(Clone::clone));
            if let (true, Some(skills::FileState::Verified { .. }), Ok(bytes)) =
                (first, held, &answer)
            {
                skill_md = Some(String::from_utf8_lossy(bytes).into_owned());
            }
        }
        match load.directory_due().map(str::to_owned) {
            Some(directory) if directory_read => {
                let found = walk(client, &directory).await;
                load.walked(found);
            }
            _ => break,
        }
    }
    (load.checked(), skill_md)
}

/// Every file under a dynamic skill's `directory` ([`skills::Walk`]: each page, each
/// subdirectory); or why the walk failed.
async fn walk(client: &mut SessionRunner, directory: &str) -> Result<Vec<String>, String> {
    let mut walk = skills::Walk::new(directory);
    while let Some(params) = walk.next() {
        let exchange = client
            .request("resources/directory/read", Some(params))
            .await;
        match exchange.reply() {
            Some(Reply::Result(result)) => walk.answered(Ok(&result.value()))?,
            Some(Reply::Error(error)) => walk.answered(Err(skills::refused(
                "resources/directory/read",
                error.code,
                &sanitize::text(&error.message),
            )))?,
            None => walk.answered(Err("resources/directory/read: no answer".into()))?,
        }
    }
    Ok(walk.found().to_vec())
}

/// `resources/read` of one file: its first content's bytes (a text's UTF-8, a blob decoded).
async fn read(client: &mut SessionRunner, uri: &str) -> Result<Vec<u8>, String> {
    let exchange = client
        .request("resources/read", Some(json!({"uri": uri})))
        .await;
    match exchange.reply() {
        Some(Reply::Result(result)) => skills::content_bytes(&result.value()),
        Some(Reply::Error(error)) => Err(skills::refused(
            "resources/read",
            error.code,
            &sanitize::text(&error.message),
        )),
        None => Err("resources/read: no answer".into()),
    }
}

fn skill_lines(skill: &Skill) -> Vec<String> {
    let mut lines = vec![format!(
        "  {}  {}",
        sanitize::text(&skill.name),
        sanitize::text(skill.description.as_deref().unwrap_or("(no description)"))
    )];
    let files = skill.files_words();
    lines.push(format!("    {}  {files}", sanitize::text(&skill.uri)));
    lines
}

fn checked_lines(checked: &Checked) -> Vec<String> {
    let mut lines = skill_lines(&checked.skill);
    for (uri, state) in &checked.files {
        lines.push(format!(
            "      {} {}  {}",
            state.mark(),
            sanitize::text(uri),
            sanitize::text(&state.words())
        ));
    }
    lines
}

fn verdict_line(verdict: Verdict, require_digests: bool) -> String {
    match verdict {
        Verdict::Conformant if require_digests => {
            "verified: every file read matches its listing, each with a digest".into()
        }
        Verdict::Conformant => "verified: every file read matches its listing".into(),
        Verdict::Nonconformant => {
            "not conformant: a file does not match its listing, and its skill was not loaded (exit 7)"
                .into()
        }
        Verdict::Incomplete => "incomplete: a file could not be read (exit 8)".into(),
        Verdict::NoDigests => {
            "no digests: every file matches, but some were listed without a digest (exit 9)".into()
        }
    }
}
