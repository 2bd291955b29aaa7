//! Keys by name, both ways: `"ctrl-s"`, `"shift-tab"`, `"G"` or `"pgdn"` in `keys.toml` to the key
//! the terminal reports, and a key back to the words the help shows (`Ctrl-S`, `↓`).

use crossterm::event::{KeyCode, KeyModifiers};

/// The named keys, each with the names `keys.toml` accepts (lower case) and the help's name.
const NAMED: &[(KeyCode, &[&str], &str)] = &[
    (KeyCode::Enter, &["enter", "return"], "Enter"),
    (KeyCode::Esc, &["esc", "escape"], "Esc"),
    (KeyCode::Tab, &["tab"], "Tab"),
    (KeyCode::BackTab, &["backtab"], "Shift-Tab"),
    (KeyCode::Char(' '), &["space"], "Space"),
    (KeyCode::Backspace, &["backspace"], "Backspace"),
    (KeyCode::Delete, &["delete", "del"], "Del"),
    (KeyCode::Insert, &["insert", "ins"], "Ins"),
    (KeyCode::Home, &["home"], "Home"),
    (KeyCode::End, &["end"], "End"),
    (KeyCode::PageUp, &["pageup", "pgup"], "PgUp"),
    (KeyCode::PageDown, &["pagedown", "pgdn"], "PgDn"),
    (KeyCode::Up, &["up"], "↑"),
    (KeyCode::Down, &["down"], "↓"),
    (KeyCode::Left, &["left"], "←"),
    (KeyCode::Right, &["right"], "→"),
];

/// What a key name may be, for messages.
pub const KEY_NAMES: &str = "a character, f1-f12, enter, esc, tab, backtab, space, backspace, \
                             delete, insert, home, end, pgup, pgdn, up, down, left, right; \
                             after ctrl-, alt- or shift-";

/// The key `spec` names, as the terminal reports it.
pub fn parse(spec: &str) -> Result<(KeyCode, KeyModifiers), String> {
    let mut chars = spec.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        // A character on its own is itself, case and all ("G" is Shift-g).
        return Ok((KeyCode::Char(c), KeyModifiers::NONE));
    }
    // "ctrl--" is Ctrl and the minus key.
    let (prefix, name) = match spec.strip_suffix("--") {
        Some(prefix) => (Some(prefix), "-"),
        None => match spec.rsplit_once('-') {
            Some((prefix, name)) => (Some(prefix), name),
            None => (None, spec),
        },
    };
    let mut modifiers = KeyModifiers::NONE;
    for word in prefix.into_iter().flat_map(|prefix| prefix.split('-')) {
        modifiers |= match word.to_ascii_lowercase().as_str() {
            "ctrl" | "control" => KeyModifiers::CONTROL,
            "alt" => KeyModifiers::ALT,
            "shift" => KeyModifiers::SHIFT,
            _ => {
                return Err(format!(
                    "unknown modifier '{word}' in '{spec}' (ctrl, alt, shift)"
                ));
            }
        };
    }
    let code = code(name).ok_or_else(|| format!("unknown key '{spec}' ({KEY_NAMES})"))?;
    Ok(normal(code, modifiers))
}

fn code(name: &str) -> Option<KeyCode> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(KeyCode::Char(c));
    }
    let lower = name.to_ascii_lowercase();
    if let Some(number) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
        return (1..=12).contains(&number).then_some(KeyCode::F(number));
    }
    NAMED
        .iter()
        .find(|(_, names, _)| names.contains(&lower.as_str()))
        .map(|&(code, _, _)| code)
}

/// The key as terminals send it: Shift-Tab is `BackTab` with Shift, Shift-g is `G`, Ctrl-S is
/// Ctrl-s.
fn normal(code: KeyCode, modifiers: KeyModifiers) -> (KeyCode, KeyModifiers) {
    match code {
        KeyCode::Tab | KeyCode::BackTab if modifiers.contains(KeyModifiers::SHIFT) => {
            (KeyCode::BackTab, modifiers)
        }
        KeyCode::BackTab => (KeyCode::BackTab, modifiers | KeyModifiers::SHIFT),
        KeyCode::Char(c) if modifiers.contains(KeyModifiers::SHIFT) && c.is_ascii_lowercase() => (
            KeyCode::Char(c.to_ascii_uppercase()),
            modifiers - KeyModifiers::SHIFT,
        ),
        KeyCode::Char(c) if modifiers.contains(KeyModifiers::CONTROL) && c.is_ascii_uppercase() => {
            (KeyCode::Char(c.to_ascii_lowercase()), modifiers)
        }
        _ => (code, modifiers),
    }
}

/// The key as the help names it, in the built-in table's style (`Ctrl-S`, `Alt-v`, `G`, `↓`).
pub fn name(code: KeyCode, modifiers: KeyModifiers) -> String {
    let key = match code {
        KeyCode::Char(c) if modifiers.contains(KeyModifiers::CONTROL) => {
            c.to_ascii_uppercase().to_string()
        }
        KeyCode::Char(' ') => "Space".to_owned(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::F(number) => format!("F{number}"),
        // `BackTab`'s own name says Shift.
        KeyCode::BackTab => "Shift-Tab".to_owned(),
        other => NAMED
            .iter()
            .find(|(code, _, _)| *code == other)
            .map_or_else(|| format!("{other:?}"), |(_, _, name)| (*name).to_owned()),
    };
    let mut words = Vec::new();
    if modifiers.contains(KeyModifiers::CONTROL) {
        words.push("Ctrl");
    }
    if modifiers.contains(KeyModifiers::ALT) {
        words.push("Alt");
    }
    let shown_by_the_key = matches!(code, KeyCode::Char(_) | KeyCode::BackTab);
    if modifiers.contains(KeyModifiers::SHIFT) && !shown_by_the_key {
        words.push("Shift");
    }
    words.push(&key);
    words.join("-")
}
