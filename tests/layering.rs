//! The layering of `src/`, checked on its imports: every path a file names into the crate is an
//! arrow from its top-level module to another, and each arrow must be in [`ALLOWED`]; no circle
//! joins top-level modules, nor the files of one folder. The pure core, besides, names no I/O,
//! async, clock or impure module at all.

#![allow(clippy::unwrap_used)]

#[path = "layering/imports.rs"]
mod imports;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use imports::{Arrow, Crate, circles, module_of};

/// The arrows allowed between top-level modules: each module, and those it may import. A module
/// missing here fails the test until it is given its row. Read from the ground floor (plain
/// data and pure functions) up to the entry points; an arrow only ever points down the table.
#[rustfmt::skip]
const ALLOWED: &[(&str, &[&str])] = &[
    // The ground floor, pure: importing nothing of the crate.
    ("mcp", &[]),
    ("time", &[]),
    ("sanitize", &[]),
    ("schema", &[]),
    ("lint", &[]),
    // Skills (SEP-2640), pure: entries, files and frontmatter checked.
    ("skills", &[]),
    // Judging and presenting, pure.
    ("classify", &["mcp", "schema"]),
    ("model_view", &["mcp", "classify", "schema"]),
    ("analysis", &["mcp", "classify", "model_view"]),
    ("audit", &["mcp", "classify", "model_view", "analysis", "sanitize"]),
    // Test files and their checks, pure.
    ("suite", &["mcp", "classify", "model_view", "analysis", "audit", "sanitize", "time"]),
    // One presentation: the words and limits the TUI and headless share.
    ("present", &["mcp", "classify", "model_view", "sanitize"]),
    // The sans-I/O session driver: decisions, no I/O.
    ("driver", &["mcp", "classify"]),
    // The model APIs' request bodies and turns, pure.
    ("model_api", &["mcp", "classify", "model_view"]),
    // The transcript format and redaction, pure: events to lines and back, no file.
    ("transcript", &["mcp", "classify", "sanitize", "time"]),
    // The TUI's pure core. It may name `transcript` because that is the pure format: `E` and
    // `L` build a transcript's text as an effect's payload, which the runtime writes. Reading
    // or writing a file (`recording`) stays out, and so does `input` (below).
    ("app", &["mcp", "classify", "schema", "model_view", "analysis", "audit", "present", "sanitize", "time", "transcript", "model_api", "suite", "skills"]),
    ("input", &["app"]),
    // Settings, themes and key bindings, read from the user's files.
    ("config", &["model_view", "app"]),
    ("theme", &["config"]),
    ("ui", &["app", "input", "theme", "mcp", "classify", "model_view", "audit", "present", "sanitize", "model_api", "skills"]),
    // The I/O edge.
    ("stream", &["mcp"]),
    ("transport", &["mcp"]),
    ("server_config", &["transport"]),
    // The async runner of the driver, over a transport.
    ("runner", &["driver", "mcp", "classify", "transport", "stream"]),
    // Transcripts on disk: read back, and written as a session happens.
    ("recording", &["mcp", "model_view", "analysis", "sanitize", "time", "transcript", "transport"]),
    // The servers sightline runs itself, on one HTTP listener.
    ("http_listener", &[]),
    ("demo_server", &["mcp", "time", "http_listener"]),
    // The stand-in marks its own refusals as `classify` recognises them.
    ("replay_server", &["recording", "http_listener", "classify"]),
    // The entry points, and the terminal they restore.
    ("terminal", &[]),
    ("diff", &["mcp", "model_view", "analysis", "sanitize", "transcript", "recording"]),
    ("cli", &["mcp", "driver", "transport", "server_config", "runner", "demo_server", "transcript", "recording"]),
    // Between a real host and its server: the pipes, the pure watch, the socket `attach` finds.
    ("proxy", &["mcp", "classify", "model_view", "sanitize", "stream", "transport", "server_config", "http_listener", "cli", "recording"]),
    // The model API over HTTP.
    ("model_client", &["model_api", "recording"]),
    ("live_session", &["mcp", "driver", "app", "runner", "stream", "transport"]),
    ("headless", &["mcp", "classify", "model_view", "analysis", "audit", "present", "driver", "sanitize", "time", "app", "config", "stream", "transport", "runner", "transcript", "recording", "replay_server", "demo_server", "diff", "cli", "proxy", "model_api", "model_client", "lint", "suite", "skills"]),
    ("runtime", &["mcp", "driver", "app", "input", "ui", "theme", "transport", "stream", "live_session", "terminal", "recording", "transcript", "model_api", "model_client"]),
];

/// Arrows that run against the table today, each to be gone with the change that names it.
const TEMPORARY: &[(&str, &str)] = &[];

/// Folders whose files are knotted in circles that are someone else's to break.
const TEMPORARY_KNOTS: &[&str] = &[];

/// The pure core, as paths under `src/`.
const PURE: &[&str] = &[
    "mcp",
    "driver",
    "classify",
    "model_view",
    "analysis.rs",
    "lint",
    "skills",
    "suite",
    "present",
    "schema",
    "app",
    "audit",
    "transcript",
    "model_api",
    "time.rs",
    "sanitize.rs",
    "proxy/watch.rs",
];

/// What the pure core must not name: async, I/O, processes, the clock, and the impure modules.
const FORBIDDEN: &[&str] = &[
    "tokio",
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "SystemTime",
    "Instant",
    "crate::transport",
    "crate::runner",
    "crate::stream",
    "crate::live_session",
    "crate::runtime",
    "crate::terminal",
    "crate::headless",
    "crate::config",
    "crate::ui",
    "crate::recording",
    "crossterm::event::read",
];

fn rust_files(path: &Path, found: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            rust_files(&entry.unwrap().path(), found);
        }
    } else if path.extension().is_some_and(|ext| ext == "rs") {
        found.push(path.to_owned());
    }
}

/// Every file of `src/`, as (path under `src/`, source).
fn sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .iter()
        .map(|file| {
            let name = file.strip_prefix(&src).unwrap().display().to_string();
            (name, std::fs::read_to_string(file).unwrap())
        })
        .collect()
}

/// The top-level module a file belongs to (`mcp/oauth.rs` → `mcp`); `None` for the crate root
/// and the binary.
fn top(file: &str) -> Option<String> {
    module_of(file).and_then(|module| module.first().cloned())
}

/// What is wrong with the imports of `files`: arrows against `allowed` (`temporary` aside),
/// circles between top-level modules, circles between the files of one folder (those of the
/// folders `temporary_knots` aside).
fn problems(
    files: &[(String, String)],
    allowed: &[(&str, &[&str])],
    temporary: &[(&str, &str)],
    temporary_knots: &[&str],
) -> Vec<String> {
    let arrows: Vec<Arrow> = Crate::new(files)
        .arrows()
        .into_iter()
        // Test code builds fixtures from wherever they are; the layering is of what ships.
        .filter(|arrow| !arrow.test)
        .collect();
    let mut found = Vec::new();
    let mut modules = BTreeSet::new();
    let mut siblings = BTreeSet::new();
    for arrow in &arrows {
        let (Some(from), Some(to)) = (top(&arrow.from), top(&arrow.to)) else {
            continue;
        };
        if from != to {
            let excepted = temporary.contains(&(from.as_str(), to.as_str()));
            // A temporary arrow is known to close a circle; it goes, and the circle with it.
            if !excepted {
                modules.insert((from.clone(), to.clone()));
            }
            let row = allowed.iter().find(|(module, _)| *module == from);
            let granted = row.is_some_and(|(_, may)| may.contains(&to.as_str())) || excepted;
            if row.is_none() {
                found.push(format!(
                    "src/{}: module '{from}' has no row in ALLOWED",
                    arrow.from
                ));
            } else if !granted {
                found.push(format!(
                    "src/{}:{}: {from} → {to} is not allowed ({})",
                    arrow.from, arrow.line, arrow.path
                ));
            }
        }
        // Files of one folder: children of the same module. The folder's own root file
        // (`mod.rs`, or `name.rs` beside `name/`) declares and fronts them, so its arrows to
        // and from them are the module tree, not a circle between rooms.
        let (from_module, to_module) = (module_of(&arrow.from), module_of(&arrow.to));
        if let (Some(a), Some(b)) = (from_module, to_module)
            && !a.is_empty()
            && !b.is_empty()
            && a[..a.len() - 1] == b[..b.len() - 1]
        {
            siblings.insert((arrow.from.clone(), arrow.to.clone()));
        }
    }
    found.dedup();
    for (circle, knot) in circles(&modules) {
        found.push(format!("modules in a circle: {}", said(&circle, &knot)));
    }
    for (circle, knot) in circles(&siblings) {
        let known = temporary_knots.iter().any(|folder| {
            knot.iter()
                .all(|file| module_of(file).is_some_and(|m| m.len() == 2 && m[0] == *folder))
        });
        if !known {
            found.push(format!("files in a circle: {}", said(&circle, &knot)));
        }
    }
    found
}

/// A circle as `a → b → a`, and the other members of its knot, if any.
fn said(circle: &[String], knot: &BTreeSet<String>) -> String {
    let others: Vec<&str> = knot
        .iter()
        .filter(|node| !circle.contains(node))
        .map(String::as_str)
        .collect();
    match others.as_slice() {
        [] => circle.join(" → "),
        others => format!(
            "{} (knotted with {})",
            circle.join(" → "),
            others.join(", ")
        ),
    }
}

#[test]
fn every_import_follows_the_layering_table_and_nothing_is_in_a_circle() {
    let files = sources();
    assert!(files.len() >= 100, "src/ was not found: {}", files.len());
    let found = problems(&files, ALLOWED, TEMPORARY, TEMPORARY_KNOTS);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_table_names_only_modules_that_exist_or_are_announced() {
    let files = sources();
    let existing: BTreeSet<String> = files.iter().filter_map(|(file, _)| top(file)).collect();
    let announced = ["driver"];
    for (module, may) in ALLOWED {
        for name in std::iter::once(module).chain(may.iter()) {
            assert!(
                existing.contains(*name) || announced.contains(name),
                "ALLOWED names '{name}', which is no module of src/"
            );
        }
    }
    for (from, to) in TEMPORARY {
        assert!(
            existing.contains(*from) && existing.contains(*to),
            "a temporary exception for a module that is gone: {from} → {to}"
        );
    }
}

#[test]
fn the_table_is_layered_every_arrow_pointing_to_an_earlier_row() {
    for (row, (module, may)) in ALLOWED.iter().enumerate() {
        for target in *may {
            let at = ALLOWED.iter().position(|(name, _)| name == target);
            assert!(
                at.is_some_and(|at| at < row),
                "{module} → {target}: '{target}' must have a row above '{module}'"
            );
        }
    }
}

/// `files` as sources, each `(path, text)`.
fn synthetic(files: &[(&str, &str)]) -> Vec<(String, String)> {
    files
        .iter()
        .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
        .collect()
}

const SMALL_TABLE: &[(&str, &[&str])] = &[("mcp", &[]), ("classify", &["mcp"])];

#[test]
fn a_forbidden_arrow_is_reported_in_every_way_it_can_be_written() {
    let clean = synthetic(&[
        ("mcp/mod.rs", "pub mod x;\npub mod log;"),
        ("mcp/x.rs", "use super::log::Entry;\n"),
        ("mcp/log.rs", "pub struct Entry;"),
        ("classify/mod.rs", "use crate::mcp::x;\npub struct Class;"),
    ]);
    assert_eq!(
        problems(&clean, SMALL_TABLE, &[], &[]),
        Vec::<String>::new()
    );
    for (written, line) in [
        ("use crate::classify::Class;", 1),
        ("use crate::{mcp::log, classify::Class};", 1),
        (
            "use crate::{\n    mcp::log,\n    classify::{self, Class},\n};",
            3,
        ),
        ("fn f() { let _ = crate::classify::Class; }", 1),
        ("use super::super::classify::Class;", 1),
    ] {
        let mut files = clean.clone();
        files[1].1 = format!("{written}\nuse super::log::Entry;\n");
        let found = problems(&files, SMALL_TABLE, &[], &[]);
        assert!(
            found.contains(&format!(
                "src/mcp/x.rs:{line}: mcp → classify is not allowed (crate::classify::Class)"
            )) || found.contains(&format!(
                "src/mcp/x.rs:{line}: mcp → classify is not allowed (super::super::classify::Class)"
            )),
            "{written}: {found:#?}"
        );
        assert!(
            found.contains(&"modules in a circle: classify → mcp → classify".to_owned()),
            "{written}: {found:#?}"
        );
    }
    // Words in comments and strings are no imports; test code may reach for fixtures.
    let mut files = clean.clone();
    files[1].1 = "// use crate::classify::Class;\n/* crate::classify::Class */\n\
                  const S: &str = \"crate::classify::Class\";\n\
                  #[cfg(test)]\nmod tests { use crate::classify::Class; }\n"
        .to_owned();
    assert_eq!(
        problems(&files, SMALL_TABLE, &[], &[]),
        Vec::<String>::new()
    );
}

#[test]
fn an_arrow_through_a_re_export_lands_on_the_file_that_defines_the_item() {
    let files = synthetic(&[
        ("mcp/mod.rs", "mod inner;\npub use inner::Thing;"),
        ("mcp/inner.rs", "pub struct Thing;"),
        ("classify/mod.rs", "use crate::mcp::Thing;"),
    ]);
    let arrows = Crate::new(&files).arrows();
    assert!(
        arrows
            .iter()
            .any(|arrow| arrow.from == "classify/mod.rs" && arrow.to == "mcp/inner.rs"),
        "{arrows:#?}"
    );
    // A child may name its parent's private imports; the arrow lands where the item is, and
    // a name a `use` bound leads there when written inline.
    let files = synthetic(&[
        ("mcp/mod.rs", "mod a;\nmod b;\nuse b::Thing;"),
        ("mcp/a.rs", "use super::Thing;"),
        ("mcp/b.rs", "use crate::mcp;\nfn f() { mcp::a::g(); }"),
    ]);
    let found = problems(&files, SMALL_TABLE, &[], &[]);
    assert_eq!(
        found,
        ["files in a circle: mcp/a.rs → mcp/b.rs → mcp/a.rs"],
        "{found:#?}"
    );
}

#[test]
fn a_circle_between_the_files_of_a_folder_is_reported() {
    let files = synthetic(&[
        ("mcp/mod.rs", "pub mod log;\npub mod session;\npub mod era;"),
        (
            "mcp/log.rs",
            "use super::session::Exchange;\npub struct Http;",
        ),
        (
            "mcp/session.rs",
            "use super::era::Era;\npub struct Exchange;",
        ),
        ("mcp/era.rs", "pub struct Era(crate::mcp::log::Http);"),
    ]);
    let found = problems(&files, SMALL_TABLE, &[], &[]);
    assert_eq!(
        found,
        ["files in a circle: mcp/era.rs → mcp/log.rs → mcp/session.rs → mcp/era.rs"],
        "{found:#?}"
    );
    assert!(problems(&files, SMALL_TABLE, &[], &["mcp"]).is_empty());
    assert_eq!(problems(&files, SMALL_TABLE, &[], &["classify"]).len(), 1);
    // A parent and its child are the module tree, not a circle.
    let tree = synthetic(&[
        (
            "mcp/mod.rs",
            "pub mod log;\npub struct Timestamp;\nfn f() { log::g(); }",
        ),
        ("mcp/log.rs", "use super::Timestamp;\npub fn g() {}"),
    ]);
    assert!(problems(&tree, SMALL_TABLE, &[], &[]).is_empty());
}

#[test]
fn a_module_without_a_row_is_reported() {
    let files = synthetic(&[("mcp/mod.rs", ""), ("newcomer.rs", "use crate::mcp::X;")]);
    let found = problems(&files, SMALL_TABLE, &[], &[]);
    assert_eq!(
        found,
        ["src/newcomer.rs: module 'newcomer' has no row in ALLOWED"]
    );
}

/// Each line of `source` that names something forbidden, as `line: word: text` (comments
/// are not code).
fn violations(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        for word in FORBIDDEN {
            if code.contains(word) {
                found.push(format!("{}: {word}: {line}", number + 1));
            }
        }
    }
    found
}

#[test]
fn the_pure_core_names_no_io_async_clock_or_impure_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for module in PURE {
        let path = src.join(module);
        // The driver arrives from the client rewrite; every other room must be there.
        if path.exists() || *module != "driver" {
            rust_files(&path, &mut files);
        }
    }
    assert!(files.len() >= 20, "the pure core was not found: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&src).unwrap().display();
        let text = std::fs::read_to_string(file).unwrap();
        found.extend(
            violations(&text)
                .into_iter()
                .map(|v| format!("src/{name}:{v}")),
        );
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_catches_what_main_had_and_ignores_comments() {
    // Two imports the pure core had before this check existed, and a comment that names tokio.
    let source = "use crate::transport::framing::InvalidLine;\n\
                  use crate::ui::layout::{self, areas};\n\
                  // no tokio here, by design\n\
                  let t = std::time::Instant::now();";
    let found = violations(source);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with("1: crate::transport"));
    assert!(found[2].starts_with("4: Instant"));
}

/// The code map of `ARCHITECTURE.md`: each module heading and the modules its "May import:"
/// line names.
fn code_map() -> Vec<(String, BTreeSet<String>)> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md at the root");
    let map = doc.split("## Code map").nth(1).expect("a code map section");
    let mut modules = Vec::new();
    for section in map.split("### `").skip(1) {
        let name = section.split('`').next().unwrap_or_default().to_owned();
        let imports = section
            .lines()
            .find_map(|line| line.strip_prefix("May import:"))
            .unwrap_or_else(|| panic!("ARCHITECTURE.md: `{name}` has no \"May import:\" line"));
        let named = imports
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect();
        modules.push((name, named));
    }
    modules
}

#[test]
fn the_architecture_doc_maps_every_module_with_the_imports_the_table_allows() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';').to_owned())
        .collect();
    let map = code_map();
    let named: BTreeSet<String> = map.iter().map(|(name, _)| name.clone()).collect();
    assert_eq!(
        named, declared,
        "the code map names every top-level module, and only those"
    );
    // `lib.rs`'s own map, too.
    let linked: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .flat_map(|line| line.split("[`").skip(1))
        .filter_map(|link| link.split_once("`]").map(|(name, _)| name.to_owned()))
        .collect();
    assert_eq!(
        linked, declared,
        "src/lib.rs's module map names every top-level module, and only those"
    );
    for (name, imports) in &map {
        let allowed: BTreeSet<String> = ALLOWED
            .iter()
            .find(|(module, _)| module == name)
            .map(|(_, to)| to.iter().map(|&m| m.to_owned()).collect())
            .unwrap_or_default();
        assert_eq!(
            imports, &allowed,
            "ARCHITECTURE.md: what `{name}` may import"
        );
    }
}
