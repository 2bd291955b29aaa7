//! A dynamic skill's directory walked as SEP-2640 lets a host find its files, sans I/O: which
//! `resources/directory/read` is due next (every page of a directory, then each subdirectory
//! found, each once), each answer folded in as it comes, bounded in pages.

use std::collections::{HashSet, VecDeque};

use serde_json::{Value, json};

/// A directory found inside a skill (RFC 6838's `inode/directory`, as SEP-2640 marks one in a
/// `resources/directory/read` result).
pub const DIRECTORY: &str = "inode/directory";

/// The most pages one walk asks for: a server whose cursors never end, or whose directories
/// name each other, is not followed for ever.
pub const MAX_PAGES: usize = 100;

/// A walk under way: the directories to read, the page due, the files found.
#[derive(Debug, Clone, PartialEq)]
pub struct Walk {
    /// The directory being read and the cursor of its next page (`None`: its first).
    current: Option<(String, Option<String>)>,
    queue: VecDeque<String>,
    seen: HashSet<String>,
    pages: usize,
    found: Vec<String>,
}

impl Walk {
    pub fn new(directory: &str) -> Self {
        let mut walk = Self {
            current: None,
            queue: VecDeque::from([directory.to_owned()]),
            seen: HashSet::new(),
            pages: 0,
            found: Vec::new(),
        };
        walk.advance();
        walk
    }

    /// The params of the `resources/directory/read` due; `None` once the walk is done.
    pub fn next(&self) -> Option<Value> {
        let (uri, cursor) = self.current.as_ref()?;
        Some(match cursor {
            Some(cursor) => json!({"uri": uri, "cursor": cursor}),
            None => json!({"uri": uri}),
        })
    }

    /// The answer to [`Walk::next`]'s request: a result, or why there is none (an error
    /// answer, no answer). An error ends the walk with it.
    pub fn answered(&mut self, answer: Result<&Value, String>) -> Result<(), String> {
        let Some((directory, _)) = self.current.take() else {
            return Ok(());
        };
        let page = answer.and_then(page)?;
        self.found.extend(page.files);
        self.queue.extend(page.directories);
        self.pages += 1;
        match page.cursor {
            Some(_) if self.pages >= MAX_PAGES => Err(format!(
                "resources/directory/read: more than {MAX_PAGES} pages; the walk stopped there"
            )),
            Some(cursor) => {
                self.current = Some((directory, Some(cursor)));
                Ok(())
            }
            None => {
                self.advance();
                Ok(())
            }
        }
    }

    /// The next directory not read yet becomes the current one.
    fn advance(&mut self) {
        while let Some(directory) = self.queue.pop_front() {
            if self.seen.insert(directory.clone()) {
                self.current = Some((directory, None));
                return;
            }
        }
    }

    /// The files found, in the order the pages gave them.
    pub fn found(&self) -> &[String] {
        &self.found
    }
}

/// What one page of a directory holds.
#[derive(Debug, Default, PartialEq)]
pub struct DirectoryPage {
    pub files: Vec<String>,
    pub directories: Vec<String>,
    pub cursor: Option<String>,
}

/// One page of a `resources/directory/read` result: the files, the subdirectories to walk,
/// the cursor of the next page; or why the result is not one.
pub fn page(result: &Value) -> Result<DirectoryPage, String> {
    let entries = result
        .get("resources")
        .and_then(Value::as_array)
        .ok_or("resources/directory/read: a result without `resources`")?;
    let mut page = DirectoryPage::default();
    for entry in entries {
        let Some(uri) = entry.get("uri").and_then(Value::as_str) else {
            return Err("resources/directory/read: an entry without a `uri`".into());
        };
        if entry.get("mimeType").and_then(Value::as_str) == Some(DIRECTORY) {
            page.directories.push(uri.to_owned());
        } else {
            page.files.push(uri.to_owned());
        }
    }
    page.cursor = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .filter(|cursor| !cursor.is_empty())
        .map(str::to_owned);
    Ok(page)
}
