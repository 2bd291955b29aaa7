//! Theme files, bundled and the user's: parsed, merged along `inherits`, resolved once per load.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::{fmt, fs, io};

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use super::{Meaning, Theme};

/// Every `themes/*.toml` by file stem, sorted; `tests/themes.rs` checks that none is missing.
const BUNDLED: [(&str, &str); 4] = [
    ("colorblind", include_str!("../../themes/colorblind.toml")),
    ("default", include_str!("../../themes/default.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    ("light", include_str!("../../themes/light.toml")),
];

/// The names of the themes built into the binary, sorted.
pub fn bundled_names() -> Vec<&'static str> {
    BUNDLED.iter().map(|&(name, _)| name).collect()
}

/// `$XDG_CONFIG_HOME/sightline/themes`, else `~/.config/sightline/themes`.
pub fn user_theme_dir() -> Option<PathBuf> {
    crate::config::config_dir().map(|dir| dir.join("themes"))
}

/// Every theme `load` can find: the bundled ones and the `*.toml` files in `user_dir`, sorted.
pub fn available(user_dir: Option<&Path>) -> Vec<String> {
    let mut names: Vec<String> = bundled_names().into_iter().map(str::to_owned).collect();
    // An unreadable user dir only shortens this list; loading from it reports its own errors.
    if let Some(entries) = user_dir.and_then(|dir| fs::read_dir(dir).ok()) {
        names.extend(entries.filter_map(Result::ok).filter_map(|entry| {
            let path = entry.path();
            let stem = path.file_stem()?.to_str()?;
            (path.extension()? == "toml").then(|| stem.to_owned())
        }));
    }
    names.sort();
    names.dedup();
    names
}

/// A loaded theme and what was wrong with its files without stopping the load.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub theme: Theme,
    /// Unknown keys, fields and modifiers, one sentence each naming file, key and value.
    pub warnings: Vec<String>,
    /// Meanings no file in the chain sets by their own key; they took the dotted fallback.
    pub unset: Vec<Meaning>,
}

/// Where a theme file came from, as messages name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThemeSource {
    /// Embedded from the `themes/` folder at build time.
    Bundled(&'static str),
    /// A file in the user's theme directory.
    File(PathBuf),
}

impl fmt::Display for ThemeSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThemeSource::Bundled(name) => write!(f, "bundled theme file 'themes/{name}.toml'"),
            ThemeSource::File(path) => write!(f, "theme file '{}'", path.display()),
        }
    }
}

/// Why a theme could not be loaded; the message names the file, key and value at fault.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// No user file and no bundled theme has this name.
    #[error("theme '{name}' not found (available: {})", quoted(.available))]
    NotFound {
        name: String,
        available: Vec<String>,
    },
    /// The user file exists but could not be read.
    #[error("{file}: cannot read it: {error}")]
    Read { file: ThemeSource, error: io::Error },
    /// The file is not TOML, or its values have the wrong types.
    #[error("{file}: invalid TOML{}: {message}", position(*.at))]
    Toml {
        file: ThemeSource,
        at: Option<(usize, usize)>,
        message: String,
    },
    /// A colour is neither a colour ratatui knows nor a palette entry.
    #[error(
        "{file}: key '{key}': unknown colour '{value}' \
         (a name like 'yellow', '#rrggbb', an index 0-255, or a palette entry)"
    )]
    Colour {
        file: ThemeSource,
        key: String,
        value: String,
    },
    /// Palette entries name each other round in a circle.
    #[error("{file}: palette entries refer to each other in a cycle: {}", chain(.names))]
    PaletteCycle {
        file: ThemeSource,
        names: Vec<String>,
    },
    /// `inherits` names a theme that does not exist.
    #[error("{file}: inherits '{parent}', which is not a theme (available: {})", quoted(.available))]
    MissingParent {
        file: ThemeSource,
        parent: String,
        available: Vec<String>,
    },
    /// `inherits` leads back to a file already in the chain.
    #[error("{file}: inherits '{parent}', which closes a cycle: {}", chain(.names))]
    InheritanceCycle {
        file: ThemeSource,
        parent: String,
        names: Vec<String>,
    },
}

fn quoted(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("'{name}'")).collect();
    quoted.join(", ")
}

fn chain(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("'{name}'")).collect();
    quoted.join(" -> ")
}

fn position(at: Option<(usize, usize)>) -> String {
    at.map(|(line, column)| format!(" at line {line}, column {column}"))
        .unwrap_or_default()
}

/// Loads theme `name`: `user_dir/NAME.toml` if it exists, else the bundled theme of that name.
///
/// `inherits` is looked up the same way, skipping files already in the chain, so a user's
/// `default.toml` may say `inherits = "default"` to patch the bundled one. Children override
/// their parents key by key, palette entries included, before any colour is resolved. In
/// styles a palette entry wins over a colour name; in the palette a colour name wins.
/// `outcome.protocol_error` falls back to `outcome`, then `text`, then `Style::default()`.
pub fn load(name: &str, user_dir: Option<&Path>) -> Result<Loaded, ThemeError> {
    let mut warnings = Vec::new();
    let mut layers: Vec<Layer> = Vec::new();
    let mut wanted = name.to_owned();
    loop {
        let found = sources(&wanted, user_dir);
        let next = found
            .iter()
            .find(|source| layers.iter().all(|layer| layer.file != **source));
        let Some(source) = next else {
            return Err(match (found.is_empty(), layers.last()) {
                (_, None) => ThemeError::NotFound {
                    name: wanted,
                    available: available(user_dir),
                },
                (true, Some(child)) => ThemeError::MissingParent {
                    file: child.file.clone(),
                    parent: wanted,
                    available: available(user_dir),
                },
                (false, Some(child)) => ThemeError::InheritanceCycle {
                    file: child.file.clone(),
                    names: layers
                        .iter()
                        .map(|layer| layer.name.clone())
                        .chain([wanted.clone()])
                        .collect(),
                    parent: wanted,
                },
            });
        };
        let text = read(source)?;
        let layer = parse(&wanted, &text, source.clone(), &mut warnings)?;
        let parent = layer.inherits.clone();
        layers.push(layer);
        match parent {
            Some(parent) => wanted = parent,
            None => break,
        }
    }
    let (theme, unset) = resolve(name, &layers)?;
    Ok(Loaded {
        theme,
        warnings,
        unset,
    })
}

/// The files that could hold theme `name`, in search order.
fn sources(name: &str, user_dir: Option<&Path>) -> Vec<ThemeSource> {
    let is_plain = !name.is_empty() && !name.starts_with('.') && !name.contains(['/', '\\']);
    let user = user_dir
        .filter(|_| is_plain)
        .map(|dir| dir.join(format!("{name}.toml")))
        .filter(|path| path.is_file())
        .map(ThemeSource::File);
    let bundled = BUNDLED
        .iter()
        .find(|&&(bundled, _)| bundled == name)
        .map(|&(bundled, _)| ThemeSource::Bundled(bundled));
    user.into_iter().chain(bundled).collect()
}

fn read(source: &ThemeSource) -> Result<Cow<'static, str>, ThemeError> {
    match source {
        ThemeSource::Bundled(name) => Ok(BUNDLED
            .iter()
            .find(|(bundled, _)| bundled == name)
            .map_or("", |&(_, text)| text)
            .into()),
        ThemeSource::File(path) => {
            fs::read_to_string(path)
                .map(Cow::Owned)
                .map_err(|error| ThemeError::Read {
                    file: source.clone(),
                    error,
                })
        }
    }
}

#[derive(Debug, Deserialize)]
struct RawTheme {
    inherits: Option<String>,
    #[serde(default)]
    palette: BTreeMap<String, String>,
    #[serde(default)]
    styles: BTreeMap<String, RawStyle>,
    #[serde(flatten)]
    unknown: BTreeMap<String, toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(expecting = "a table like { fg = 'red', bg = '#202020', modifiers = ['bold'] }")]
struct RawStyle {
    fg: Option<String>,
    bg: Option<String>,
    #[serde(default)]
    modifiers: Vec<String>,
    #[serde(flatten)]
    unknown: BTreeMap<String, toml::Value>,
}

/// One parsed file; colours stay names until the whole chain is merged.
#[derive(Debug)]
struct Layer {
    name: String,
    file: ThemeSource,
    inherits: Option<String>,
    palette: BTreeMap<String, String>,
    styles: BTreeMap<String, Entry>,
}

#[derive(Debug)]
struct Entry {
    fg: Option<String>,
    bg: Option<String>,
    modifiers: Modifier,
}

fn parse(
    name: &str,
    text: &str,
    file: ThemeSource,
    warnings: &mut Vec<String>,
) -> Result<Layer, ThemeError> {
    let raw: RawTheme = toml::from_str(text).map_err(|error| ThemeError::Toml {
        file: file.clone(),
        at: error.span().map(|span| line_column(text, span.start)),
        message: error.message().trim().replace('\n', "; "),
    })?;
    for key in raw.unknown.keys() {
        warnings.push(format!(
            "{file}: unknown top-level key '{key}' (expected 'inherits', 'palette' or 'styles'); \
             ignored"
        ));
    }
    let mut styles = BTreeMap::new();
    for (key, style) in raw.styles {
        if !is_known_key(&key) {
            warnings.push(format!(
                "{file}: unknown key '{key}' (not a style sightline uses, such as \
                 'outcome.tool_error'); ignored"
            ));
            continue;
        }
        for field in style.unknown.keys() {
            warnings.push(format!(
                "{file}: key '{key}': unknown field '{field}' (expected 'fg', 'bg' or \
                 'modifiers'); ignored"
            ));
        }
        let mut modifiers = Modifier::empty();
        for modifier in &style.modifiers {
            match Modifier::from_name(&modifier.to_ascii_uppercase()) {
                Some(known) => modifiers |= known,
                None => warnings.push(format!(
                    "{file}: key '{key}': unknown modifier '{modifier}' (one of {}); ignored",
                    modifier_names()
                )),
            }
        }
        let entry = Entry {
            fg: style.fg,
            bg: style.bg,
            modifiers,
        };
        styles.insert(key, entry);
    }
    Ok(Layer {
        name: name.to_owned(),
        file,
        inherits: raw.inherits,
        palette: raw.palette,
        styles,
    })
}

/// One-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count())
        + 1;
    (line, column)
}

/// A meaning's key, or a prefix of one at a dot (`outcome` for `outcome.success`).
fn is_known_key(key: &str) -> bool {
    Meaning::ALL.iter().any(|meaning| {
        meaning
            .key()
            .strip_prefix(key)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    })
}

fn modifier_names() -> String {
    let names: Vec<String> = Modifier::all()
        .iter_names()
        .map(|(name, _)| format!("'{}'", name.to_ascii_lowercase()))
        .collect();
    names.join(", ")
}

/// Merges `layers` (child first) and resolves every meaning once.
fn resolve(name: &str, layers: &[Layer]) -> Result<(Theme, Vec<Meaning>), ThemeError> {
    let mut palette: BTreeMap<&str, (&str, &ThemeSource)> = BTreeMap::new();
    let mut entries: BTreeMap<&str, (&Entry, &ThemeSource)> = BTreeMap::new();
    for layer in layers.iter().rev() {
        for (key, value) in &layer.palette {
            palette.insert(key, (value, &layer.file));
        }
        for (key, entry) in &layer.styles {
            entries.insert(key, (entry, &layer.file));
        }
    }
    let colours = resolve_palette(&palette)?;
    let colour = |value: &str, key: &str, file: &ThemeSource| {
        colours
            .get(value)
            .copied()
            .or_else(|| value.parse::<Color>().ok())
            .ok_or_else(|| ThemeError::Colour {
                file: file.clone(),
                key: key.to_owned(),
                value: value.to_owned(),
            })
    };
    let mut styles: HashMap<&str, Style> = HashMap::new();
    for (&key, &(entry, file)) in &entries {
        let mut style = Style::new().add_modifier(entry.modifiers);
        if let Some(fg) = &entry.fg {
            style = style.fg(colour(fg, key, file)?);
        }
        if let Some(bg) = &entry.bg {
            style = style.bg(colour(bg, key, file)?);
        }
        styles.insert(key, style);
    }
    let unset = Meaning::ALL
        .into_iter()
        .filter(|meaning| !styles.contains_key(meaning.key()))
        .collect();
    let theme = Theme {
        name: name.to_owned(),
        styles: Meaning::ALL
            .into_iter()
            .map(|meaning| (meaning, lookup(&styles, meaning.key())))
            .collect(),
    };
    Ok((theme, unset))
}

/// `a.b.c`, then `a.b`, then `a`, then `text`, then `Style::default()`.
fn lookup(styles: &HashMap<&str, Style>, key: &str) -> Style {
    let mut key = key;
    loop {
        if let Some(style) = styles.get(key) {
            return *style;
        }
        match key.rsplit_once('.') {
            Some((parent, _)) => key = parent,
            None => return styles.get("text").copied().unwrap_or_default(),
        }
    }
}

fn resolve_palette<'a>(
    palette: &BTreeMap<&'a str, (&'a str, &ThemeSource)>,
) -> Result<HashMap<&'a str, Color>, ThemeError> {
    let mut colours = HashMap::new();
    for (&name, &(value, file)) in palette {
        let mut names = vec![name];
        let (mut current, mut value, mut file) = (name, value, file);
        let colour = loop {
            if let Ok(colour) = value.parse::<Color>() {
                break colour;
            }
            let Some(&(next_value, next_file)) = palette.get(value) else {
                return Err(ThemeError::Colour {
                    file: file.clone(),
                    key: format!("palette.{current}"),
                    value: value.to_owned(),
                });
            };
            let closes_cycle = names.contains(&value);
            names.push(value);
            if closes_cycle {
                return Err(ThemeError::PaletteCycle {
                    file: file.clone(),
                    names: names.into_iter().map(str::to_owned).collect(),
                });
            }
            (current, value, file) = (value, next_value, next_file);
        };
        colours.insert(name, colour);
    }
    Ok(colours)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<(Theme, Vec<String>), ThemeError> {
        let mut warnings = Vec::new();
        let layer = parse("t", text, ThemeSource::Bundled("t"), &mut warnings)?;
        let (theme, _) = resolve("t", &[layer])?;
        Ok((theme, warnings))
    }

    #[test]
    fn colours_accept_what_ratatui_parses() {
        let (theme, warnings) = load_text(
            r##"[styles]
                "text" = { fg = "Light-Blue", bg = "#0a0B0c" }
                "border" = { fg = "244", bg = "reset" }"##,
        )
        .unwrap();
        assert!(warnings.is_empty());
        assert_eq!(
            theme.style(Meaning::Text),
            Style::new().fg(Color::LightBlue).bg(Color::Rgb(10, 11, 12))
        );
        assert_eq!(
            theme.style(Meaning::Border),
            Style::new().fg(Color::Indexed(244)).bg(Color::Reset)
        );
    }

    #[test]
    fn palette_entries_chain_and_shadow_colour_names_in_styles() {
        let (theme, _) = load_text(
            r##"[palette]
                red = "red"
                base = "#102030"
                alias = "base"
                [styles]
                "text" = { fg = "alias", bg = "red" }"##,
        )
        .unwrap();
        assert_eq!(
            theme.style(Meaning::Text),
            Style::new().fg(Color::Rgb(16, 32, 48)).bg(Color::Red)
        );
    }

    #[test]
    fn palette_cycle_is_an_error() {
        let error = load_text("[palette]\na = \"b\"\nb = \"a\"\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "bundled theme file 'themes/t.toml': palette entries refer to each other in a cycle: \
             'a' -> 'b' -> 'a'"
        );
    }

    #[test]
    fn bad_palette_colour_names_the_entry() {
        let error = load_text("[palette]\namber = \"ambr\"\n").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("key 'palette.amber': unknown colour 'ambr'"),
            "{error}"
        );
    }

    #[test]
    fn modifiers_are_case_insensitive_and_unknown_ones_warn() {
        let (theme, warnings) =
            load_text(r#"styles.text = { modifiers = ["Bold", "crossed_out", "blink"] }"#).unwrap();
        assert_eq!(
            theme.style(Meaning::Text),
            Style::new().add_modifier(Modifier::BOLD | Modifier::CROSSED_OUT)
        );
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with("bundled theme file 'themes/t.toml': key 'text': unknown modifier 'blink' (one of 'bold', 'dim', 'italic', 'underlined', 'slow_blink', 'rapid_blink', 'reversed', 'hidden', 'crossed_out')"),
            "{}",
            warnings[0]
        );
    }

    #[test]
    fn unknown_fields_and_sections_warn() {
        let (_, warnings) = load_text(
            "colours = 1\n[styles]\n\"text\" = { fg = \"red\", bold = true }\n\"outcome\" = {}\n",
        )
        .unwrap();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("unknown top-level key 'colours'"));
        assert!(warnings[1].contains("key 'text': unknown field 'bold'"));
    }

    #[test]
    fn prefixes_of_meaning_keys_are_known() {
        for key in ["text", "outcome", "outcome.success", "log", "status.bar"] {
            assert!(is_known_key(key), "{key}");
        }
        for key in ["", "out", "outcome.", "outcome.succes", "text.muted.more"] {
            assert!(!is_known_key(key), "{key}");
        }
    }

    #[test]
    fn toml_errors_give_line_and_column() {
        let error = load_text("[styles]\n\"text\" = { fg = }\n").unwrap_err();
        let ThemeError::Toml { at, .. } = &error else {
            panic!("{error:?}");
        };
        assert_eq!(*at, Some((2, 17)), "{error}");
    }

    #[test]
    fn embedded_default_parses_without_warnings_and_is_the_fallback() {
        let loaded = load("default", None).unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert!(loaded.unset.is_empty(), "{:?}", loaded.unset);
        assert_eq!(Theme::fallback(), loaded.theme);
    }
}
