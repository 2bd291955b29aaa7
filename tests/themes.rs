//! Theme files: every bundled theme is complete and clean; loading rules and messages hold.
#![allow(clippy::unwrap_used)] // test helpers panic on purpose

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use ratatui::style::{Color, Modifier, Style};
use sightline::theme::{self, Meaning, Theme, ThemeError};

const OUTCOMES: [Meaning; 4] = [
    Meaning::OutcomeSuccess,
    Meaning::OutcomeToolError,
    Meaning::OutcomeProtocolError,
    Meaning::OutcomeTransportFailure,
];

fn themes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("themes")
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(files: &[(&str, &str)]) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sightline-themes-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        TempDir(dir)
    }

    fn file(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Leaving a stray temp dir behind must not fail the test.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn load_error(name: &str, dir: &TempDir) -> String {
    theme::load(name, Some(&dir.0)).unwrap_err().to_string()
}

#[test]
fn every_file_in_themes_is_bundled() {
    let mut on_disk: Vec<String> = std::fs::read_dir(themes_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .map(|path| path.file_stem().unwrap().to_str().unwrap().to_owned())
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, theme::bundled_names());
    assert_eq!(
        theme::bundled_names(),
        ["colorblind", "default", "high-contrast", "light"]
    );
}

#[test]
fn every_bundled_theme_loads_cleanly_and_sets_every_meaning() {
    for name in theme::bundled_names() {
        let embedded = theme::load(name, None).unwrap();
        assert!(
            embedded.warnings.is_empty(),
            "{name}: {:?}",
            embedded.warnings
        );
        assert!(
            embedded.unset.is_empty(),
            "{name} leaves unset: {:?}",
            embedded.unset
        );
        assert_eq!(embedded.theme.name, name);
        // The same files read from disk, through the user-directory path.
        let on_disk = theme::load(name, Some(&themes_dir())).unwrap();
        assert!(
            on_disk.warnings.is_empty(),
            "{name}: {:?}",
            on_disk.warnings
        );
        assert_eq!(on_disk.theme, embedded.theme, "{name}");
    }
}

#[test]
fn outcome_styles_differ_pairwise_in_every_bundled_theme() {
    for name in theme::bundled_names() {
        let theme = theme::load(name, None).unwrap().theme;
        for (i, a) in OUTCOMES.iter().enumerate() {
            for b in &OUTCOMES[i + 1..] {
                assert_ne!(
                    theme.style(*a),
                    theme.style(*b),
                    "{name}: '{}' and '{}' look the same",
                    a.key(),
                    b.key()
                );
            }
        }
    }
}

#[test]
fn colorblind_outcomes_differ_in_colour_and_in_modifiers() {
    let theme = theme::load("colorblind", None).unwrap().theme;
    for (i, a) in OUTCOMES.iter().enumerate() {
        for b in &OUTCOMES[i + 1..] {
            let (a_style, b_style) = (theme.style(*a), theme.style(*b));
            assert_ne!(a_style.fg, b_style.fg, "{} vs {}", a.key(), b.key());
            assert_ne!(
                a_style.add_modifier,
                b_style.add_modifier,
                "{} vs {}",
                a.key(),
                b.key()
            );
        }
    }
}

#[test]
fn default_theme_uses_the_product_colours() {
    let theme = Theme::fallback();
    assert_eq!(theme.name, "default");
    let fg = |meaning| theme.style(meaning).fg;
    assert_eq!(fg(Meaning::OutcomeSuccess), Some(Color::Green));
    assert_eq!(fg(Meaning::OutcomeToolError), Some(Color::Yellow));
    assert_eq!(fg(Meaning::OutcomeProtocolError), Some(Color::Red));
    assert_eq!(fg(Meaning::OutcomeTransportFailure), Some(Color::Magenta));
    assert_eq!(Theme::default(), theme);
}

#[test]
fn inherited_theme_takes_parent_styles_and_child_palette() {
    let dir = TempDir::new(&[(
        "child.toml",
        r##"inherits = "light"
            [palette]
            ok = "#010203"
            [styles]
            "text.title" = { fg = "white", modifiers = ["italic"] }
        "##,
    )]);
    let light = theme::load("light", None).unwrap().theme;
    let loaded = theme::load("child", Some(&dir.0)).unwrap();
    assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    assert!(loaded.unset.is_empty());
    let child = loaded.theme;
    assert_eq!(child.name, "child");
    assert_eq!(
        child.style(Meaning::TextTitle),
        Style::new().fg(Color::White).add_modifier(Modifier::ITALIC)
    );
    assert_eq!(
        child.style(Meaning::OutcomeSuccess).fg,
        Some(Color::Rgb(1, 2, 3)),
        "the child's palette recolours the parent's styles"
    );
    assert_eq!(
        child.style(Meaning::StatusBar),
        light.style(Meaning::StatusBar)
    );
}

#[test]
fn missing_keys_fall_back_along_the_dots_then_to_text_then_default() {
    let dir = TempDir::new(&[
        (
            "sparse.toml",
            r#"[styles]
               "text"            = { fg = "white" }
               "outcome"         = { fg = "red" }
               "outcome.success" = { fg = "green" }
            "#,
        ),
        ("empty.toml", ""),
    ]);
    let loaded = theme::load("sparse", Some(&dir.0)).unwrap();
    let theme = &loaded.theme;
    assert_eq!(
        theme.style(Meaning::OutcomeSuccess),
        Style::new().fg(Color::Green)
    );
    assert_eq!(
        theme.style(Meaning::OutcomeProtocolError),
        Style::new().fg(Color::Red)
    );
    assert_eq!(theme.style(Meaning::LogNote), Style::new().fg(Color::White));
    assert!(loaded.unset.contains(&Meaning::OutcomeProtocolError));
    assert!(!loaded.unset.contains(&Meaning::OutcomeSuccess));

    let empty = theme::load("empty", Some(&dir.0)).unwrap();
    assert_eq!(
        empty.theme.style(Meaning::OutcomeToolError),
        Style::default()
    );
    assert_eq!(empty.unset.len(), Meaning::ALL.len());
}

#[test]
fn user_theme_overrides_the_bundled_one_and_may_inherit_it() {
    let dir = TempDir::new(&[(
        "default.toml",
        "inherits = \"default\"\n[styles]\n\"outcome.success\" = { fg = \"blue\" }\n",
    )]);
    let theme = theme::load("default", Some(&dir.0)).unwrap().theme;
    assert_eq!(
        theme.style(Meaning::OutcomeSuccess),
        Style::new().fg(Color::Blue)
    );
    assert_eq!(
        theme.style(Meaning::OutcomeToolError),
        Theme::fallback().style(Meaning::OutcomeToolError)
    );
}

#[test]
fn inheritance_cycle_is_an_error_naming_the_chain() {
    let dir = TempDir::new(&[
        ("a.toml", "inherits = \"b\"\n"),
        ("b.toml", "inherits = \"a\"\n"),
    ]);
    assert_eq!(
        load_error("a", &dir),
        format!(
            "theme file '{}': inherits 'a', which closes a cycle: 'a' -> 'b' -> 'a'",
            dir.file("b.toml")
        )
    );
}

#[test]
fn missing_parent_is_an_error_listing_themes() {
    let dir = TempDir::new(&[("orphan.toml", "inherits = \"nord\"\n")]);
    assert_eq!(
        load_error("orphan", &dir),
        format!(
            "theme file '{}': inherits 'nord', which is not a theme (available: 'colorblind', \
             'default', 'high-contrast', 'light', 'orphan')",
            dir.file("orphan.toml")
        )
    );
}

#[test]
fn bad_colour_is_an_error_naming_file_key_and_value() {
    let dir = TempDir::new(&[(
        "x.toml",
        "[styles]\n\"outcome.tool_error\" = { fg = \"ambr\" }\n",
    )]);
    assert_eq!(
        load_error("x", &dir),
        format!(
            "theme file '{}': key 'outcome.tool_error': unknown colour 'ambr' (a name like \
             'yellow', '#rrggbb', an index 0-255, or a palette entry)",
            dir.file("x.toml")
        )
    );
}

#[test]
fn bad_modifier_is_a_warning_naming_file_key_and_value() {
    let dir = TempDir::new(&[(
        "x.toml",
        "[styles]\n\"text\" = { fg = \"red\", modifiers = [\"blod\", \"bold\"] }\n",
    )]);
    let loaded = theme::load("x", Some(&dir.0)).unwrap();
    assert_eq!(
        loaded.theme.style(Meaning::Text),
        Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
    );
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    let prefix = format!(
        "theme file '{}': key 'text': unknown modifier 'blod' (one of 'bold', ",
        dir.file("x.toml")
    );
    assert!(
        loaded.warnings[0].starts_with(&prefix),
        "{}",
        loaded.warnings[0]
    );
}

#[test]
fn unknown_key_is_a_warning_naming_file_and_key() {
    let dir = TempDir::new(&[(
        "x.toml",
        "[styles]\n\"outcome.tool_eror\" = { fg = \"red\" }\n",
    )]);
    let loaded = theme::load("x", Some(&dir.0)).unwrap();
    assert_eq!(
        loaded.warnings,
        [format!(
            "theme file '{}': unknown key 'outcome.tool_eror' (not a style sightline uses, such \
             as 'outcome.tool_error'); ignored",
            dir.file("x.toml")
        )]
    );
    assert_eq!(
        loaded.theme.style(Meaning::OutcomeToolError),
        Style::default()
    );
}

#[test]
fn broken_toml_is_an_error_with_file_and_position() {
    let dir = TempDir::new(&[("x.toml", "[styles]\n\"text\" = { fg = \"red\"\n")]);
    let message = load_error("x", &dir);
    let prefix = format!(
        "theme file '{}': invalid TOML at line 2, column ",
        dir.file("x.toml")
    );
    assert!(message.starts_with(&prefix), "{message}");
}

#[test]
fn wrong_value_type_is_an_error() {
    let dir = TempDir::new(&[
        ("number.toml", "[styles]\n\"text\" = { fg = 3 }\n"),
        ("string.toml", "[styles]\n\"text\" = \"red\"\n"),
    ]);
    let message = load_error("number", &dir);
    assert!(
        message.ends_with("at line 2, column 17: invalid type: integer `3`, expected a string"),
        "{message}"
    );
    let message = load_error("string", &dir);
    assert!(
        message.contains("expected a table like { fg = 'red', bg = '#202020'"),
        "{message}"
    );
}

#[test]
fn unknown_theme_name_is_an_error_listing_available_themes() {
    let dir = TempDir::new(&[("mine.toml", ""), ("notes.txt", "")]);
    let error = theme::load("nord", Some(&dir.0)).unwrap_err();
    assert!(matches!(error, ThemeError::NotFound { .. }));
    assert_eq!(
        error.to_string(),
        "theme 'nord' not found (available: 'colorblind', 'default', 'high-contrast', 'light', \
         'mine')"
    );
    assert!(theme::load("../themes/default", Some(&dir.0)).is_err());
}
