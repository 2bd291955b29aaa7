//! `sightline skills` against a server built on the official TypeScript SDK that serves skills
//! (SEP-2640): the listing reads no file; `--verify` loads each skill (SKILL.md first, checked,
//! then its other files) and stops at a file that does not match its listing; the exit codes.
//! The suite's own skills scenarios run in `tests/conformance.rs`.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use std::process::Command;

use common::peers::ts_skills;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_sightline");

struct Run {
    code: i32,
    stdout: String,
    /// The `resources/read` URIs sent, in order, from the session log.
    reads: Vec<String>,
}

fn skills(flags: &[&str], mode: &str) -> Run {
    let output = Command::new(BIN)
        .arg("skills")
        .args(flags)
        .arg("--verbose")
        .arg("--")
        .args(ts_skills(mode))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    let reads = log
        .lines()
        .filter(|line| line.contains(" → #"))
        .filter_map(|line| {
            line.split_once(" resources/read ")
                .map(|(_, uri)| uri.to_owned())
        })
        .collect();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        reads,
    }
}

const SKILL: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";

#[test]
fn listing_skills_reads_none_of_their_files() {
    let run = skills(&["--json"], "honest");
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.reads.is_empty(), "no prefetch: {:?}", run.reads);
    let document: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(document["declared"], true);
    assert_eq!(document["skills"][0]["name"], "pdf-processing");
    assert_eq!(document["skills"][0]["files"][1]["uri"], FORMS);
    assert!(document.get("verified").is_none());
}

#[test]
fn verify_loads_each_skill_manifest_first_and_checks_every_file() {
    let run = skills(&["--verify"], "honest");
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.reads, [SKILL, FORMS]);
    assert!(
        run.stdout
            .contains("✓ skill://pdf-processing/SKILL.md  151 bytes, size and digest match"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("verified: every file read matches its listing"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_tampered_manifest_is_rejected_and_its_other_files_are_never_read() {
    let run = skills(&["--verify", "--json"], "tampered");
    assert_eq!(run.code, 7, "{}", run.stdout);
    assert_eq!(run.reads, [SKILL], "nothing read after the rejection");
    let document: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(document["verdict"], "nonconformant");
    let files = &document["verified"][0]["files"];
    assert_eq!(
        (&files[0]["uri"], &files[0]["state"]),
        (&json!(SKILL), &json!("rejected"))
    );
    assert_eq!(files[0]["mismatch"]["problem"], "digest");
    assert_eq!(
        (&files[1]["uri"], &files[1]["state"]),
        (&json!(FORMS), &json!("skipped"))
    );
}

#[test]
fn require_digests_fails_a_listing_without_them_and_only_then() {
    let run = skills(&["--verify", "--require-digests"], "bare");
    assert_eq!(run.code, 9, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("skill://notes/SKILL.md  64 bytes, no digest listed"),
        "{}",
        run.stdout
    );
    assert_eq!(skills(&["--verify"], "bare").code, 0);
    assert_eq!(skills(&["--verify", "--require-digests"], "honest").code, 0);
}

/// `skills NAME` is a user reading one skill: it is loaded as `--verify` loads it, and its
/// SKILL.md printed only once it holds; a name the server does not list is a usage error.
#[test]
fn one_skill_named_is_loaded_and_its_skill_md_printed_only_once_it_holds() {
    let run = skills(&["pdf-processing"], "honest");
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.reads, [SKILL, FORMS]);
    assert!(
        run.stdout
            .contains("verified: every file read matches its listing")
            && run
                .stdout
                .contains("Read references/FORMS.md before filling a form."),
        "{}",
        run.stdout
    );
    let tampered = skills(&["pdf-processing", "--json"], "tampered");
    assert_eq!(tampered.code, 7, "{}", tampered.stdout);
    assert_eq!(tampered.reads, [SKILL]);
    let document: Value = serde_json::from_str(&tampered.stdout).unwrap();
    assert!(document.get("skill_md").is_none(), "{document}");
    let unknown = skills(&["no-such-skill"], "honest");
    assert_eq!(unknown.code, 2);
    assert!(unknown.reads.is_empty(), "{:?}", unknown.reads);
}

/// A skill listed as `"dynamic"` on a server that declares `directoryRead`: once its SKILL.md
/// holds, its directory is walked with `resources/directory/read` (every page, each
/// subdirectory), and the files found are read; nothing has a digest, so `--require-digests`
/// says so.
#[test]
fn a_dynamic_skill_s_files_are_found_by_walking_its_directory_after_skill_md() {
    let output = Command::new(BIN)
        .args(["skills", "--verify", "--json", "--verbose", "--"])
        .args(ts_skills("dynamic"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let log = String::from_utf8_lossy(&output.stderr);
    let sent: Vec<&str> = log
        .lines()
        .filter(|line| line.contains(" → #") && line.contains(" resources/"))
        .filter_map(|line| line.split_once(" resources/").map(|(_, rest)| rest))
        .collect();
    assert_eq!(
        sent,
        [
            "read skill://pdf-processing/SKILL.md",
            "directory/read skill://pdf-processing",
            "directory/read skill://pdf-processing",
            "directory/read skill://pdf-processing/references",
            "read skill://pdf-processing/references/FORMS.md",
        ],
        "{log}"
    );
    assert!(
        log.contains("directory skill://pdf-processing cursor 1"),
        "the second page: {log}"
    );
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let states: Vec<&Value> = document["verified"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| &file["state"])
        .collect();
    assert_eq!(states, ["verified", "verified"], "{document}");
    assert_eq!(
        skills(&["--verify", "--require-digests"], "dynamic").code,
        9
    );
}
