//! The built-in bindings: what keys mean in each mode, and that the help lists them all.

use crate::app::action::{Edit, Lens, Move, Output, Servers, ToServer};
use crossterm::event::{KeyCode, KeyModifiers};

use super::{Keymap, Mode, SCOPES, Scope};
use crate::app::action::Command;

const NONE: KeyModifiers = KeyModifiers::NONE;
const CTRL: KeyModifiers = KeyModifiers::CONTROL;
const SHIFT: KeyModifiers = KeyModifiers::SHIFT;
const ALT: KeyModifiers = KeyModifiers::ALT;

fn key(code: KeyCode, modifiers: KeyModifiers) -> (KeyCode, KeyModifiers) {
    (code, modifiers)
}

/// What the built-in bindings make of a key.
fn command_for((code, modifiers): (KeyCode, KeyModifiers), mode: Mode) -> Option<Command> {
    Keymap::default().command(code, modifiers, mode)
}

#[test]
fn letters_are_commands_only_outside_the_editor() {
    let q = key(KeyCode::Char('q'), NONE);
    assert_eq!(command_for(q, Mode::Browsing), Some(Command::Quit));
    assert_eq!(command_for(q, Mode::Editing), None);
    for letter in [
        'v', 'm', 'h', 'y', 'x', 'r', 's', 'w', '?', 'j', 'k', 'g', 'G', 'Y', 'M', 'C',
    ] {
        assert_eq!(
            command_for(key(KeyCode::Char(letter), NONE), Mode::Editing),
            None,
            "'{letter}' is text in the editor"
        );
    }
    for (chord, command) in [
        (key(KeyCode::Char('c'), CTRL), Command::Quit),
        (
            key(KeyCode::Char('s'), CTRL),
            Command::ToServer(ToServer::Request),
        ),
        (key(KeyCode::Esc, NONE), Command::Back),
        (
            key(KeyCode::Tab, NONE),
            Command::Edit(Edit::NextPlaceholder),
        ),
        (
            key(KeyCode::Char('v'), ALT),
            Command::Lens(Lens::Validation),
        ),
    ] {
        assert_eq!(command_for(chord, Mode::Editing), Some(command));
    }
    assert_eq!(
        command_for(key(KeyCode::Tab, NONE), Mode::Browsing),
        Some(Command::Move(Move::FocusNext))
    );
}

#[test]
fn the_help_takes_only_its_own_keys() {
    assert_eq!(
        command_for(key(KeyCode::Char('q'), NONE), Mode::Help),
        Some(Command::Back)
    );
    assert_eq!(
        command_for(key(KeyCode::Down, NONE), Mode::Help),
        Some(Command::Move(Move::SelectNext))
    );
    assert_eq!(command_for(key(KeyCode::Char('v'), NONE), Mode::Help), None);
    assert_eq!(
        command_for(key(KeyCode::Char('c'), CTRL), Mode::Help),
        Some(Command::Quit)
    );
}

#[test]
fn shifted_letters_match_with_or_without_the_shift_flag() {
    assert_eq!(
        command_for(key(KeyCode::Char('Y'), SHIFT), Mode::Browsing),
        Some(Command::Output(Output::CopyResponse))
    );
    assert_eq!(
        command_for(key(KeyCode::Char('Y'), NONE), Mode::Browsing),
        Some(Command::Output(Output::CopyResponse))
    );
    assert_eq!(
        command_for(key(KeyCode::Char('?'), SHIFT), Mode::Browsing),
        Some(Command::Help)
    );
}

#[test]
fn every_command_is_reachable_and_listed() {
    use std::collections::HashSet;
    let keys = Keymap::default();
    let listed: HashSet<Command> = SCOPES
        .iter()
        .flat_map(|scope| keys.help_rows(*scope))
        .map(|b| b.command)
        .collect();
    let bound: HashSet<Command> = keys.bindings().iter().map(|b| b.command).collect();
    let every: HashSet<Command> = Command::all().collect();
    assert_eq!(bound, every, "every command has a built-in key");
    // These are listed on the row of their pair (PgDn / PgUp, ← / →, ] / [, 1 … 9).
    let mut unlisted: Vec<_> = bound.difference(&listed).map(|c| c.name()).collect();
    unlisted.sort_unstable();
    let mut expected = vec!["page_up", "prev_server", "scroll_right"];
    expected.extend((2..=9).map(|n| Command::Servers(Servers::Show(n - 1)).name()));
    expected.sort_unstable();
    assert_eq!(unlisted, expected);
}

#[test]
fn every_command_has_one_name_and_is_found_by_it() {
    let names: Vec<&str> = Command::all().map(Command::name).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    for command in Command::all() {
        assert_eq!(Command::named(command.name()), Some(command));
        assert!(!command.help().is_empty(), "{}", command.name());
    }
    assert_eq!(Command::named("show_server_10"), None);
}

/// The keymap `text` makes, which must have come without a warning.
fn rebound(text: &str) -> Keymap {
    let (keys, warnings) = Keymap::from_toml(text, "keys.toml");
    assert_eq!(warnings, Vec::<String>::new());
    keys
}

/// The help row of `command` in `scope`: its keys and its text.
fn help_row(keys: &Keymap, scope: Scope, command: Command) -> Option<(String, &'static str)> {
    keys.help_rows(scope)
        .find(|b| b.command == command)
        .map(|b| (b.keys.to_string(), b.help))
}

#[test]
fn a_keys_file_rebinds_commands_per_mode_and_leaves_the_rest_built_in() {
    let keys = rebound(
        "[browsing]\nquit = \"Q\"\nselect_next = [\"down\", \"ctrl-n\"]\n\n\
         [editing]\nsend_request = \"f5\"\n\n[help]\nback = [\"esc\", \"shift-tab\"]\n",
    );
    let command = |code, modifiers, mode| keys.command(code, modifiers, mode);
    assert_eq!(
        command(KeyCode::Char('Q'), SHIFT, Mode::Browsing),
        Some(Command::Quit)
    );
    assert_eq!(
        command(KeyCode::Char('q'), NONE, Mode::Browsing),
        None,
        "q quits no more"
    );
    assert_eq!(
        command(KeyCode::Char('n'), CTRL, Mode::Browsing),
        Some(Command::Move(Move::SelectNext))
    );
    assert_eq!(command(KeyCode::Char('j'), NONE, Mode::Browsing), None);
    assert_eq!(
        command(KeyCode::F(5), NONE, Mode::Editing),
        Some(Command::ToServer(ToServer::Request))
    );
    assert_eq!(
        command(KeyCode::BackTab, SHIFT, Mode::Help),
        Some(Command::Back)
    );
    // Everything else is as built in.
    assert_eq!(
        command(KeyCode::Char('s'), CTRL, Mode::Editing),
        Some(Command::ToServer(ToServer::Request))
    );
    assert_eq!(
        command(KeyCode::Char('?'), NONE, Mode::Browsing),
        Some(Command::Help)
    );
    assert_eq!(
        command(KeyCode::Char('q'), NONE, Mode::Help),
        None,
        "[help] back is now Esc and Shift-Tab only"
    );
    // The help says so, in the built-in table's words where it has a row.
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::Quit),
        Some(("Q".to_owned(), "quit"))
    );
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::Move(Move::SelectNext)),
        Some((
            "↓ / Ctrl-N".to_owned(),
            "next row (Tools: its draft shows in Request)"
        ))
    );
    assert_eq!(
        help_row(&keys, Scope::Editing, Command::ToServer(ToServer::Request)),
        Some(("F5".to_owned(), "send the request"))
    );
    assert_eq!(
        help_row(&keys, Scope::Help, Command::Back),
        Some(("Esc / Shift-Tab".to_owned(), "close"))
    );
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::Move(Move::SelectPrev)),
        help_row(
            &Keymap::default(),
            Scope::Browsing,
            Command::Move(Move::SelectPrev)
        ),
        "rows of commands left alone stay as they were"
    );
}

#[test]
fn each_kind_of_mistake_is_one_warning_and_the_built_in_keys_hold() {
    let cases = [
        (
            "[browsing]\nqiut = \"Q\"\n",
            "'qiut' is not a command (did you mean 'quit'?)",
        ),
        (
            "[browsing]\nfrobnicate = \"Q\"\n",
            "'frobnicate' is not a command (`sightline keys` lists them)",
        ),
        (
            "[browsing]\nquit = \"ctrl-qq\"\n",
            "[browsing] quit: unknown key 'ctrl-qq'",
        ),
        (
            "[browsing]\nquit = \"hyper-q\"\n",
            "unknown modifier 'hyper' in 'hyper-q'",
        ),
        ("[browsing]\nquit = \"\"\n", "unknown key ''"),
        (
            "[browsing]\nquit = 5\n",
            "[browsing] quit: expected a key such as \"ctrl-s\", or a list of keys",
        ),
        ("[browsing]\nquit = [\"Q\", 5]\n", "expected a key"),
        (
            "[browse]\nquit = \"Q\"\n",
            "unknown section 'browse' (one of [global], [browsing], [editing], [answering], [help])",
        ),
        (
            "quit = \"Q\"\n",
            "'quit' is outside a section: commands go under one of [global], [browsing]",
        ),
        ("[browsing\nquit = \"Q\"\n", "keys.toml: not valid TOML"),
        ("[browsing]\nquit = \"Q\"\nquit = \"R\"\n", "not valid TOML"),
        (
            "[editing]\nsend_request = \"s\"\n",
            "[editing] send_request: 's' is a character typed as text in the editor",
        ),
        (
            "[answering]\naccept = \"y\"\n",
            "typed as text in a question's answer",
        ),
        (
            "[global]\nquit = \"q\"\n",
            "typed as text in the editor and in answers",
        ),
    ];
    for (text, expected) in cases {
        let (keys, warnings) = Keymap::from_toml(text, "keys.toml");
        assert_eq!(warnings.len(), 1, "{text:?}: {warnings:?}");
        assert!(
            warnings[0].starts_with("keys.toml: ") && warnings[0].contains(expected),
            "{text:?}: {:?} does not say {expected:?}",
            warnings[0]
        );
        assert!(
            warnings[0].ends_with("ignored")
                || warnings[0].ends_with("ignored, its built-in keys stay")
                || warnings[0].ends_with("the built-in keys are used"),
            "{:?} says what happens next",
            warnings[0]
        );
        assert_eq!(keys, Keymap::default(), "{text:?}: the built-in keys hold");
    }
}

#[test]
fn a_bad_entry_is_left_out_and_the_good_ones_beside_it_apply() {
    let (keys, warnings) = Keymap::from_toml(
        "[browsing]\nquit = \"Q\"\nreconnect = \"ctrl-\"\n[nowhere]\nx = 1\n",
        "keys.toml",
    );
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(
        keys.command(KeyCode::Char('Q'), NONE, Mode::Browsing),
        Some(Command::Quit)
    );
    assert_eq!(
        keys.command(KeyCode::Char('r'), NONE, Mode::Browsing),
        Some(Command::ToServer(ToServer::Reconnect)),
        "reconnect keeps r"
    );
}

#[test]
fn a_key_taken_from_another_command_is_that_commands_no_more_and_both_rows_say_so() {
    let keys = rebound("[browsing]\nquit = \"j\"\npage_up = \"u\"\n");
    assert_eq!(
        keys.command(KeyCode::Char('j'), NONE, Mode::Browsing),
        Some(Command::Quit)
    );
    assert_eq!(
        keys.command(KeyCode::Down, NONE, Mode::Browsing),
        Some(Command::Move(Move::SelectNext))
    );
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::Move(Move::SelectNext)).map(|(keys, _)| keys),
        Some("↓".to_owned()),
        "its label no longer names j"
    );
    // PgDn and PgUp shared a row: each now has its own, in the command's own words.
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::Move(Move::PageDown)),
        Some(("PgDn".to_owned(), "page down"))
    );
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::Move(Move::PageUp)),
        Some(("u".to_owned(), "page up"))
    );
    // In the help, j still scrolls: the rebinding was for browsing only.
    assert_eq!(
        keys.command(KeyCode::Char('j'), NONE, Mode::Help),
        Some(Command::Move(Move::SelectNext))
    );
}

#[test]
fn a_rebinding_in_the_editor_rewrites_the_browsing_row_that_named_it() {
    let keys = rebound("[editing]\ntoggle_validation = \"alt-x\"\n");
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::Lens(Lens::Validation)),
        Some(("v".to_owned(), "client-side validation on / off"))
    );
    assert_eq!(
        help_row(&keys, Scope::Editing, Command::Lens(Lens::Validation)),
        Some(("Alt-x".to_owned(), "validation on / off"))
    );
    assert_eq!(
        keys.command(KeyCode::Char('v'), ALT, Mode::Editing),
        None,
        "Alt-v is text again"
    );
}

#[test]
fn a_mode_can_give_a_global_key_its_own_meaning_and_an_empty_list_unbinds() {
    let keys = rebound("[browsing]\nsave_log = \"ctrl-s\"\ncancel_call = []\n");
    assert_eq!(
        keys.command(KeyCode::Char('s'), CTRL, Mode::Browsing),
        Some(Command::Output(Output::SaveLog))
    );
    assert_eq!(
        keys.command(KeyCode::Char('s'), CTRL, Mode::Editing),
        Some(Command::ToServer(ToServer::Request)),
        "elsewhere Ctrl-S still sends"
    );
    assert_eq!(keys.command(KeyCode::Char('x'), NONE, Mode::Browsing), None);
    assert_eq!(
        help_row(&keys, Scope::Browsing, Command::ToServer(ToServer::Cancel)),
        None
    );
    assert_eq!(
        keys.command(KeyCode::Char('k'), CTRL, Mode::Browsing),
        Some(Command::ToServer(ToServer::Cancel)),
        "the global Ctrl-K is untouched"
    );
}

#[test]
fn one_key_for_two_commands_of_a_section_goes_to_one_of_them_with_a_warning() {
    let (keys, warnings) =
        Keymap::from_toml("[browsing]\nquit = \"z\"\nreconnect = \"z\"\n", "keys.toml");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("are given the same key"),
        "{warnings:?}"
    );
    let z = keys.command(KeyCode::Char('z'), NONE, Mode::Browsing);
    assert!(
        warnings[0].contains(&format!(
            "{} has it",
            z.map(Command::name).unwrap_or_default()
        )),
        "the warning names the command that has it: {warnings:?}"
    );
}

#[test]
fn key_names_read_as_terminals_report_them_and_print_as_the_help_names_them() {
    use super::names::{name, parse};
    for (spec, key, shown) in [
        ("ctrl-s", (KeyCode::Char('s'), CTRL), "Ctrl-S"),
        ("Ctrl-S", (KeyCode::Char('s'), CTRL), "Ctrl-S"),
        ("alt-v", (KeyCode::Char('v'), ALT), "Alt-v"),
        ("shift-tab", (KeyCode::BackTab, SHIFT), "Shift-Tab"),
        ("backtab", (KeyCode::BackTab, SHIFT), "Shift-Tab"),
        ("shift-g", (KeyCode::Char('G'), NONE), "G"),
        ("G", (KeyCode::Char('G'), NONE), "G"),
        ("-", (KeyCode::Char('-'), NONE), "-"),
        ("ctrl--", (KeyCode::Char('-'), CTRL), "Ctrl--"),
        ("space", (KeyCode::Char(' '), NONE), "Space"),
        ("F12", (KeyCode::F(12), NONE), "F12"),
        ("pgdn", (KeyCode::PageDown, NONE), "PgDn"),
        ("shift-up", (KeyCode::Up, SHIFT), "Shift-↑"),
        ("Enter", (KeyCode::Enter, NONE), "Enter"),
    ] {
        assert_eq!(parse(spec), Ok(key), "{spec}");
        assert_eq!(name(key.0, key.1), shown, "{spec}");
    }
    for bad in ["f13", "ctrl-", "hyper-x", "enterr", ""] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn every_command_has_a_readable_name_that_reads_back() {
    let keys = Keymap::default();
    for binding in keys.bindings() {
        let name = binding.command.name();
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{name}"
        );
        let (read, warnings) = Keymap::from_toml(&format!("[browsing]\n{name} = \"f9\"\n"), "k");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            read.command(KeyCode::F(9), NONE, Mode::Browsing),
            Some(binding.command)
        );
    }
}

#[test]
fn the_tui_reference_names_every_command_a_keys_file_can_bind() {
    let readme = include_str!("../../../docs/tui.md");
    let section = readme
        .split("**Keys in a file**")
        .nth(1)
        .and_then(|rest| rest.split("**Themes**").next())
        .unwrap_or_default();
    let keys = Keymap::default();
    let mut missing: Vec<String> = keys
        .bindings()
        .iter()
        .map(|b| b.command.name().to_owned())
        .filter(|name| !section.contains(&format!("`{name}`")))
        .collect();
    missing.dedup();
    assert!(missing.is_empty(), "not in docs/tui.md: {missing:?}");
}

#[test]
fn the_tui_references_example_is_a_keys_file_without_a_mistake() {
    let readme = include_str!("../../../docs/tui.md");
    let example = readme
        .split("**Keys in a file**")
        .nth(1)
        .and_then(|rest| rest.split("```toml\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_default();
    let keys = rebound(example);
    assert_eq!(
        keys.command(KeyCode::Char('s'), CTRL, Mode::Browsing),
        Some(Command::Output(Output::SaveLog))
    );
    assert_eq!(
        keys.command(KeyCode::F(5), NONE, Mode::Editing),
        Some(Command::ToServer(ToServer::Request))
    );
}

/// Every binding of a keymap, a line each: section, key, command, the help's label and text.
fn listed(keys: &Keymap) -> String {
    use std::fmt::Write as _;
    let mut listed = String::new();
    for b in keys.bindings() {
        let _ = writeln!(
            listed,
            "{} {} {} | {} | {}",
            b.scope.section(),
            super::names::name(b.code, b.modifiers),
            b.command.name(),
            b.keys,
            b.help
        );
    }
    listed
}

#[test]
fn a_keys_file_written_for_an_earlier_main_binds_what_it_bound_then() {
    // Every command by its name, loaded on the main of 2026-12-03 and listed as it bound them.
    let keys = rebound(include_str!(
        "../../../tests/fixtures/keys/main-2026-12-03.toml"
    ));
    // Commands added since keep their built-in keys beside what the file binds.
    let added_since = [
        " open_chat ",
        " rerun_chat ",
        " save_case ",
        " show_skills ",
    ];
    let listed = listed(&keys);
    let (new, then): (Vec<&str>, Vec<&str>) = listed
        .lines()
        .partition(|line| added_since.iter().any(|name| line.contains(name)));
    // What is bound, not how the help words it (the words may be reworded since).
    let bound = |line: &str| {
        line.rsplit_once(" | ")
            .map_or(line, |(bound, _)| bound)
            .to_owned()
    };
    let then_listed: Vec<String> =
        include_str!("../../../tests/fixtures/keys/main-2026-12-03.bindings")
            .lines()
            .map(bound)
            .collect();
    assert_eq!(
        then.iter().map(|line| bound(line)).collect::<Vec<_>>(),
        then_listed
    );
    assert_eq!(
        new.iter().map(|line| bound(line)).collect::<Vec<_>>(),
        [
            "browsing K save_case | K",
            "browsing W show_skills | W",
            "browsing c open_chat | c",
            "editing Alt-r rerun_chat | Alt-r"
        ]
    );
}

/// Every row of the help fits an 80-column terminal whole (the help cuts a longer one with
/// `…`): the keys' column is 14 wide, the popup's inside 78.
#[test]
fn every_help_row_fits_80_columns() {
    use super::HelpEntry;
    use unicode_width::UnicodeWidthStr;
    let keys = Keymap::default();
    let too_long: Vec<String> = keys
        .help_entries()
        .iter()
        .filter_map(|entry| {
            let row = match entry {
                HelpEntry::Key(binding) => format!("{:>12}  {}", binding.keys, binding.help),
                HelpEntry::Heading(text) | HelpEntry::Note(text) => (*text).to_owned(),
                HelpEntry::Class(class, meaning) => format!("{:>17}  {meaning}", class.label()),
                HelpEntry::Flag(meaning) => format!("{:>17}  {meaning}", "⚑"),
                HelpEntry::Blank => String::new(),
            };
            (row.width() > 78).then_some(row)
        })
        .collect();
    assert!(too_long.is_empty(), "{too_long:#?}");
}
