//! End to end through the Skills shelf (SEP-2640): the real binary in tmux against a server
//! built on the official TypeScript SDK that serves skills, driven by keystrokes as a user
//! would. The peer writes `read URI` to its stderr for every file it serves, and the log shows
//! that line between the request and its answer, so the screen says which files were read.

#![allow(clippy::unwrap_used)] // test helpers panic on purpose: a panic is a failed test

mod common;

use std::thread::sleep;
use std::time::Duration;

use common::peers::ts_skills;
use common::tmux::*;

const SKILL: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";

/// sightline against the peer in `mode`, connected.
fn peer(mode: &str, width: u16, height: u16) -> Tmux {
    let mut args = vec!["--".to_owned()];
    args.extend(ts_skills(mode));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let tmux = Tmux::start_sized(&args, width, height);
    tmux.wait_until("the skills peer in the status bar", |screen| {
        status_bar(screen).contains("sightline-ts-skills-peer")
    });
    tmux
}

/// The files the peer said it served, in the order its stderr lines are in the log.
fn served(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter_map(|line| line.split_once("stderr │ read ").map(|(_, rest)| rest))
        .map(|rest| rest.split([' ', '│']).next().unwrap_or_default().to_owned())
        .collect()
}

/// The row of the log holding `text`; panics when there is none.
fn row(screen: &str, text: &str) -> usize {
    screen
        .lines()
        .position(|line| line.contains(text))
        .unwrap_or_else(|| panic!("no row with {text:?}:\n{screen}"))
}

/// `W`: the skills listed, and no file of theirs read.
fn show_shelf(tmux: &Tmux) -> String {
    tmux.press("W");
    let screen = tmux.wait_for_all(&[
        "Skills (1)",
        "▸ pdf-processing · 2 files",
        "skills/list result",
        "listed only: none of its files read yet",
    ]);
    assert!(served(&screen).is_empty(), "no prefetch:\n{screen}");
    assert!(!screen.contains("resources/read"), "no prefetch:\n{screen}");
    screen
}

/// 200 columns: a log row holds a whole `skill://` URI.
#[test]
fn enter_reads_skill_md_then_forms_md_each_checked() {
    let tmux = peer("honest", 200, 50);
    show_shelf(&tmux);
    tmux.press("Enter");
    let screen = tmux.wait_for_all(&[
        "✓ SKILL.md · 151 bytes, size and digest match",
        "✓ references/FORMS.md · 35 bytes, size and digest match",
        "loaded: every file matches its listing",
        "▸ ✓ pdf-processing",
        "── SKILL.md",
        "# PDF processing",
    ]);
    assert_eq!(served(&screen), [SKILL, FORMS], "{screen}");
    // In wire order: each read sent, served, answered, before the next is sent.
    let order = [
        row(&screen, &format!("resources/read {SKILL}")),
        row(&screen, &format!("read {SKILL}")),
        row(&screen, &format!("resources/read {FORMS}")),
        row(&screen, &format!("read {FORMS}")),
    ];
    assert!(order.is_sorted(), "{order:?}:\n{screen}");
}

#[test]
fn a_tampered_skill_md_is_rejected_and_forms_md_is_never_read() {
    let tmux = peer("tampered", 200, 50);
    show_shelf(&tmux);
    tmux.press("Enter");
    tmux.wait_for_all(&[
        "✗ SKILL.md · rejected: digest: listed",
        "· references/FORMS.md · not read: the skill was rejected before it",
        "not loaded: SKILL.md does not match its listing",
        "▸ ✗ pdf-processing",
    ]);
    // Time for a read that should not happen to show.
    sleep(Duration::from_millis(500));
    let screen = tmux.screen();
    assert_eq!(served(&screen), [SKILL], "{screen}");
    assert!(
        !screen.contains(&format!("resources/read {FORMS}")),
        "{screen}"
    );
}

/// At 80×24 the marks and the verdict stay in view, and the help lists `W`.
#[test]
fn the_shelf_at_80x24_and_its_key_in_the_help() {
    let tmux = peer("bare", 80, 24);
    tmux.press("W");
    tmux.wait_for_all(&[
        "Skills (2)",
        "▸ pdf-processing · 2 files",
        "  notes · 1 file",
    ]);
    tmux.press("Enter");
    tmux.wait_for_all(&[
        "▸ ✓ pdf-processing",
        "✓ SKILL.md · 151 bytes",
        "loaded: every file",
    ]);
    tmux.press("Down");
    tmux.press("Enter");
    tmux.wait_for_all(&[
        "▸ · notes",
        "· SKILL.md · 64 bytes, no digest listed",
        "not every byte was checked",
    ]);
    tmux.press("?");
    for _ in 0..10 {
        if tmux
            .screen()
            .contains("W  left column: the skills (Enter loads one, each file checked)")
        {
            return;
        }
        tmux.press("PageDown");
    }
    panic!("the help does not list W:\n{}", tmux.screen());
}

/// A skill listed as `"dynamic"` from a server declaring `directoryRead`, at 120×40: Enter
/// reads its SKILL.md, then walks its directory (two pages, then `references/`), then reads
/// the file found; each file is marked `·` (no digest to check).
#[test]
fn a_dynamic_skill_s_directory_is_walked_after_skill_md_at_120x40() {
    let tmux = peer("dynamic", 120, 40);
    tmux.press("W");
    tmux.wait_for_all(&["Skills (1)", "▸ pdf-processing · dynamic"]);
    assert!(!tmux.screen().contains("resources/"), "no prefetch");
    tmux.press("Enter");
    let screen = tmux.wait_for_all(&[
        "· SKILL.md · 151 bytes, no digest listed",
        "· references/FORMS.md · 35 bytes, no digest",
        "loaded, but not every byte was checked",
        "▸ · pdf-processing",
    ]);
    let walked = screen
        .lines()
        .filter(|line| line.contains("→ #") && line.contains("resources/directory/read"))
        .count();
    assert_eq!(walked, 3, "{screen}");
    // SKILL.md is read before the first page is asked for, FORMS.md after the last.
    let order = [
        row(&screen, "→ #5 resources/read"),
        row(&screen, "→ #6 resources/directory/read"),
        row(&screen, "→ #8 resources/directory/read"),
        row(&screen, "→ #9 resources/read"),
    ];
    assert!(order.is_sorted(), "{order:?}:\n{screen}");
}
