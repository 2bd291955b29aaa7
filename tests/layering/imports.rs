//! The import graph of a crate's sources, read from its text: every path a file names into the
//! crate (`use crate::…`, grouped `use crate::{a, b::c}`, `super::`/`self::` and child-module
//! paths, and `crate::x::y` written inline in code), never what comments or strings say. A path
//! through a re-export (`pub use format::Header`) is followed to the file that defines the item.

use std::collections::{BTreeMap, BTreeSet};

/// One arrow: a file naming a path that leads into another file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Arrow {
    /// The importing file, relative to `src/` (`mcp/oauth.rs`).
    pub from: String,
    /// The file the path leads into.
    pub to: String,
    pub line: usize,
    /// The path as written, `::`-joined (`crate::classify::findings::Finding`).
    pub path: String,
    /// Written in test code: a `#[cfg(test)]` module, item or file.
    pub test: bool,
}

/// A token of Rust source, comments and literals already gone.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    /// `::`
    Path,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other(char),
}

/// The tokens of `source` with their line numbers; comments, strings and char literals are
/// skipped, lifetimes kept as their name.
fn tokens(source: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = source.chars().collect();
    let mut found = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&chars, i) {
            line += chars[i..end].iter().filter(|&&c| c == '\n').count();
            i = end;
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            i += if c == 'b' { 2 } else { 1 };
            while i < chars.len() && chars[i] != '"' {
                line += usize::from(chars[i] == '\n');
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1b}'), else a lifetime or label ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            found.push((Token::Ident(word), line));
        } else {
            let token = match c {
                ':' if at(i + 1) == ':' => {
                    i += 1;
                    Token::Path
                }
                '{' => Token::Open,
                '}' => Token::Close,
                ',' => Token::Comma,
                ';' => Token::Semi,
                '*' => Token::Star,
                other => Token::Other(other),
            };
            found.push((token, line));
            i += 1;
        }
    }
    found
}

/// Where a raw string literal starting at `i` (`r"…"`, `r#"…"#`, `br#"…"#`) ends.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    // Part of an identifier (`for`, `bar"`) is not a raw string.
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// What one file says: the paths it names, where, and from which (inline) module.
#[derive(Debug, Default)]
struct Said {
    /// (module the path is written in, segments, line, in test code).
    paths: Vec<(Vec<String>, Vec<String>, usize, bool)>,
    /// Child modules declared `#[cfg(test)] mod name;`, as module paths.
    test_children: Vec<Vec<String>>,
    /// Names `use` binds: (module, name, target segments as written); a glob's name is `*`.
    /// Private ones count too: a child module may name its parent's imports.
    bindings: Vec<(Vec<String>, String, Vec<String>)>,
}

/// The module path of a file under `src/` (`mcp/oauth.rs` → `mcp::oauth`, `mcp/mod.rs` →
/// `mcp`, `lib.rs` → the root); `None` for a file that is no module of the library.
pub fn module_of(file: &str) -> Option<Vec<String>> {
    let stem = file.strip_suffix(".rs")?;
    if stem == "main" || stem.starts_with("bin/") {
        return None;
    }
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        parts.pop();
    }
    Some(parts)
}

/// Reads a use tree after `prefix`, from `tokens[*i]`, to its end; each path with the name it
/// is known by (its alias, its last segment, or `*` for a glob) and the line it ends on.
fn use_tree(
    tokens: &[(Token, usize)],
    i: &mut usize,
    mut prefix: Vec<String>,
) -> Vec<(Vec<String>, String, usize)> {
    let mut found = Vec::new();
    loop {
        let line = tokens.get(*i).map_or(0, |(_, line)| *line);
        match tokens.get(*i).map(|(token, _)| token) {
            Some(Token::Ident(word)) if word == "self" && !prefix.is_empty() => {
                *i += 1;
                let name = prefix.last().cloned().unwrap_or_default();
                found.push((prefix.clone(), alias(tokens, i).unwrap_or(name), line));
                return found;
            }
            Some(Token::Ident(word)) => {
                prefix.push(word.clone());
                *i += 1;
                if tokens.get(*i).map(|(token, _)| token) == Some(&Token::Path) {
                    *i += 1;
                    continue;
                }
                let name = word.clone();
                found.push((prefix, alias(tokens, i).unwrap_or(name), line));
                return found;
            }
            Some(Token::Star) => {
                *i += 1;
                found.push((prefix, "*".to_owned(), line));
                return found;
            }
            Some(Token::Open) => {
                *i += 1;
                loop {
                    match tokens.get(*i).map(|(token, _)| token) {
                        Some(Token::Close) => {
                            *i += 1;
                            return found;
                        }
                        Some(Token::Comma) => *i += 1,
                        None => return found,
                        Some(_) => found.extend(use_tree(tokens, i, prefix.clone())),
                    }
                }
            }
            Some(Token::Path) => *i += 1,
            _ => return found,
        }
    }
}

/// `as NAME` at `tokens[*i]`, consumed.
fn alias(tokens: &[(Token, usize)], i: &mut usize) -> Option<String> {
    if tokens.get(*i).map(|(token, _)| token) != Some(&Token::Ident("as".into())) {
        return None;
    }
    let name = match tokens.get(*i + 1) {
        Some((Token::Ident(name), _)) => name.clone(),
        _ => return None,
    };
    *i += 2;
    Some(name)
}

/// Everything `source` (the file of module `module`) names into the crate.
fn read(module: &[String], source: &str) -> Said {
    let tokens = tokens(source);
    let mut said = Said::default();
    // Each open brace: the inline module it opens, if any, and whether it is test code.
    let mut scopes: Vec<(Option<String>, bool)> = Vec::new();
    let here = |scopes: &[(Option<String>, bool)]| -> Vec<String> {
        let mut path = module.to_vec();
        path.extend(scopes.iter().filter_map(|(name, _)| name.clone()));
        path
    };
    let kind = |j: Option<usize>| j.and_then(|j| tokens.get(j)).map(|(token, _)| token);
    // A `#[cfg(test)]` seen, for the item that follows.
    let mut pending_test = false;
    let mut i = 0;
    while i < tokens.len() {
        let (token, line) = (&tokens[i].0, tokens[i].1);
        let in_test = pending_test || scopes.last().is_some_and(|(_, test)| *test);
        match token {
            Token::Other('#') if cfg_test(&tokens, i) => {
                pending_test = true;
                i += 7;
            }
            Token::Open => {
                let opened = match (kind(i.checked_sub(2)), kind(i.checked_sub(1))) {
                    (Some(Token::Ident(word)), Some(Token::Ident(name))) if word == "mod" => {
                        Some(name.clone())
                    }
                    _ => None,
                };
                scopes.push((opened, in_test));
                pending_test = false;
                i += 1;
            }
            Token::Close => {
                scopes.pop();
                i += 1;
            }
            Token::Semi => {
                if let (Some(Token::Ident(word)), Some(Token::Ident(name))) =
                    (kind(i.checked_sub(2)), kind(i.checked_sub(1)))
                    && word == "mod"
                    && in_test
                {
                    let mut child = here(&scopes);
                    child.push(name.clone());
                    said.test_children.push(child);
                }
                pending_test = false;
                i += 1;
            }
            Token::Ident(word) if word == "use" => {
                i += 1;
                let at = here(&scopes);
                for (path, name, line) in use_tree(&tokens, &mut i, Vec::new()) {
                    said.bindings.push((at.clone(), name, path.clone()));
                    said.paths.push((at.clone(), path, line, in_test));
                }
            }
            Token::Ident(word) if !after_path(&tokens, i) => {
                let mut path = vec![word.clone()];
                let mut j = i + 1;
                while let (Some(Token::Path), Some(Token::Ident(next))) =
                    (kind(Some(j)), kind(Some(j + 1)))
                {
                    path.push(next.clone());
                    j += 2;
                }
                if path.len() > 1 {
                    said.paths.push((here(&scopes), path, line, in_test));
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    said
}

/// Whether `tokens[i..]` is `#[cfg(test)]`.
fn cfg_test(tokens: &[(Token, usize)], i: usize) -> bool {
    let want = [
        Token::Other('#'),
        Token::Other('['),
        Token::Ident("cfg".into()),
        Token::Other('('),
        Token::Ident("test".into()),
        Token::Other(')'),
        Token::Other(']'),
    ];
    tokens.len() >= i + want.len()
        && tokens[i..i + want.len()]
            .iter()
            .zip(&want)
            .all(|((token, _), want)| token == want)
}

/// Whether the token at `i` follows `::` or `.` (a later segment, a method, a field).
fn after_path(tokens: &[(Token, usize)], i: usize) -> bool {
    i.checked_sub(1)
        .is_some_and(|j| matches!(tokens[j].0, Token::Path | Token::Other('.' | '$')))
}

/// The crate's modules and what each file names, ready to resolve paths.
pub struct Crate {
    /// Module path → its file.
    files: BTreeMap<Vec<String>, String>,
    said: BTreeMap<String, Said>,
    /// Module (file or inline) → the names its `use`s bind, and what they stand for.
    bindings: BTreeMap<Vec<String>, Vec<(String, Vec<String>)>>,
    /// Every module a path may name: files and their inline modules.
    modules: BTreeSet<Vec<String>>,
    /// Modules declared `#[cfg(test)] mod name;`: their files are test code.
    test_modules: BTreeSet<Vec<String>>,
}

impl Crate {
    /// Reads `files`, each `(path under src/, source)`.
    pub fn new(files: &[(String, String)]) -> Crate {
        let mut known = Crate {
            files: BTreeMap::new(),
            said: BTreeMap::new(),
            bindings: BTreeMap::new(),
            modules: BTreeSet::new(),
            test_modules: BTreeSet::new(),
        };
        for (file, source) in files {
            let Some(module) = module_of(file) else {
                continue;
            };
            let said = read(&module, source);
            for (at, name, target) in &said.bindings {
                known
                    .bindings
                    .entry(at.clone())
                    .or_default()
                    .push((name.clone(), target.clone()));
            }
            for (at, _, _, _) in &said.paths {
                known.modules.insert(at.clone());
            }
            known
                .test_modules
                .extend(said.test_children.iter().cloned());
            known.modules.insert(module.clone());
            known.files.insert(module, file.clone());
            known.said.insert(file.clone(), said);
        }
        known
    }

    /// The file that holds module `module` (an inline module is in its file's).
    fn file_of(&self, module: &[String]) -> Option<&String> {
        (0..=module.len())
            .rev()
            .find_map(|n| self.files.get(&module[..n]))
    }

    /// The absolute module path where `path`, written in module `at`, starts; `None` for a
    /// path outside the crate (another crate, a type's associated item, a local variable).
    fn start(&self, at: &[String], path: &[String]) -> Option<(Vec<String>, usize)> {
        let first = path.first()?;
        match first.as_str() {
            "crate" => Some((Vec::new(), 1)),
            "self" => Some((at.to_vec(), 1)),
            "super" => {
                let supers = path.iter().take_while(|s| *s == "super").count();
                let base = at.len().checked_sub(supers)?;
                Some((at[..base].to_vec(), supers))
            }
            _ => {
                let mut child = at.to_vec();
                child.push(first.clone());
                (self.modules.contains(&child)).then(|| (at.to_vec(), 0))
            }
        }
    }

    /// The file a path leads into, following `use`s (a re-export leads to the file that
    /// defines the item); `None` outside the crate.
    fn resolve(&self, at: &[String], path: &[String], depth: usize) -> Option<String> {
        let Some((mut module, skip)) = self.start(at, path) else {
            // A name a `use` of this module bound (`use crate::mcp::oauth;` … `oauth::x`).
            let target = self.bound(at, path.first()?).filter(|_| depth < 8)?;
            let mut rest = target;
            rest.extend(path[1..].iter().cloned());
            return self.resolve(at, &rest, depth + 1);
        };
        for (n, segment) in path.iter().enumerate().skip(skip) {
            let mut child = module.clone();
            child.push(segment.clone());
            if self.modules.contains(&child) {
                module = child;
                continue;
            }
            if depth < 8
                && let Some(target) = self.bound(&module, segment)
            {
                let mut rest = target;
                rest.extend(path[n + 1..].iter().cloned());
                return self.resolve(&module, &rest, depth + 1);
            }
            break;
        }
        self.file_of(&module).cloned()
    }

    /// What `name` stands for in module `module` by its `use`s: by that name, else through
    /// a glob of a module (`use super::*`).
    fn bound(&self, module: &[String], name: &str) -> Option<Vec<String>> {
        let entries = self.bindings.get(module)?;
        if let Some((_, target)) = entries.iter().find(|(bound, _)| bound == name) {
            return Some(target.clone());
        }
        entries
            .iter()
            .filter(|(bound, _)| bound == "*")
            .find(|(_, target)| self.names_module(module, target))
            .map(|(_, target)| {
                let mut item = target.clone();
                item.push(name.to_owned());
                item
            })
    }

    /// Whether `path`, written in `at`, names a module of the crate (not an enum's variants).
    fn names_module(&self, at: &[String], path: &[String]) -> bool {
        let Some((mut module, skip)) = self.start(at, path) else {
            return false;
        };
        for segment in &path[skip..] {
            module.push(segment.clone());
            if !self.modules.contains(&module) {
                return false;
            }
        }
        true
    }

    /// Every arrow between two different files.
    pub fn arrows(&self) -> Vec<Arrow> {
        let mut arrows = BTreeSet::new();
        for (file, said) in &self.said {
            let test_file = module_of(file).is_some_and(|module| {
                (1..=module.len()).any(|n| self.test_modules.contains(&module[..n]))
            });
            for (at, path, line, test) in &said.paths {
                if let Some(to) = self.resolve(at, path, 0)
                    && &to != file
                {
                    arrows.insert(Arrow {
                        from: file.clone(),
                        to,
                        line: *line,
                        path: path.join("::"),
                        test: *test || test_file,
                    });
                }
            }
        }
        arrows.into_iter().collect()
    }
}

/// The strongly connected parts of a graph with more than one node: each as one cycle through
/// its smallest node (`a → b → a`), and all its nodes (a knot may hold more than that cycle).
pub fn circles(edges: &BTreeSet<(String, String)>) -> Vec<(Vec<String>, BTreeSet<String>)> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(node) = todo.pop() {
            for (a, b) in edges {
                if *a == node && seen.insert(b.clone()) {
                    todo.push(b.clone());
                }
            }
        }
        seen
    };
    let reachable: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|node| (*node, reach(node))).collect();
    let mut done = BTreeSet::new();
    let mut found = Vec::new();
    for node in &nodes {
        if done.contains(*node) || !reachable[node].contains(*node) {
            continue;
        }
        let part: BTreeSet<String> = reachable[node]
            .iter()
            .filter(|other| reachable[other].contains(*node))
            .cloned()
            .collect();
        done.extend(part.iter().cloned());
        found.push((cycle_through(node, &part, edges), part));
    }
    found
}

/// A shortest cycle from `start` back to it inside `part`: `[start, …, start]`.
fn cycle_through(
    start: &String,
    part: &BTreeSet<String>,
    edges: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let mut previous: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for (a, b) in edges {
            if *a != node || !part.contains(b) {
                continue;
            }
            if b == start {
                let mut back = vec![start.clone(), node.clone()];
                let mut at = node.clone();
                while let Some(before) = previous.get(&at) {
                    back.push(before.clone());
                    at = before.clone();
                }
                back.reverse();
                return back;
            }
            if b != start && !previous.contains_key(b) {
                previous.insert(b.clone(), node.clone());
                queue.push_back(b.clone());
            }
        }
    }
    vec![start.clone()]
}
