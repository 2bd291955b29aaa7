//! One skill loaded as a host loads it, sans I/O: which file to read next (SKILL.md first, then
//! the other listed files in order), each answer checked as it comes, and nothing read after a
//! file that fails. The headless `skills --verify` and the TUI's Skills shelf both drive it.

use base64::Engine as _;
use serde_json::Value;

use super::{Checked, File, FileState, Skill, check_file, check_frontmatter};

/// A skill being loaded: the reads done so far and what each came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    skill: Skill,
    /// What is read, in order: SKILL.md (as listed, or bare when the listing leaves it out or
    /// is dynamic), then the supporting files.
    plan: Vec<File>,
    /// One state per file read so far, in the plan's order.
    files: Vec<(String, FileState)>,
    /// A dynamic skill's directory was walked (`resources/directory/read`), or cannot be.
    walked: bool,
}

impl Load {
    pub fn new(skill: Skill) -> Self {
        let manifest = skill.manifest().cloned().unwrap_or_else(|| File {
            uri: skill.uri.clone(),
            digest: None,
            size: None,
        });
        let mut plan = vec![manifest];
        plan.extend(skill.supporting().cloned());
        Self {
            skill,
            plan,
            files: Vec::new(),
            walked: false,
        }
    }

    /// The directory to walk next: a dynamic skill's (its SKILL.md URI without `/SKILL.md`),
    /// once its SKILL.md holds and before anything else is read; the server must have
    /// declared `directoryRead`.
    pub fn directory_due(&self) -> Option<&str> {
        let manifest_held = matches!(self.files.as_slice(), [(_, FileState::Verified { .. })]);
        (self.skill.files.is_none() && !self.walked && manifest_held)
            .then(|| self.skill.uri.strip_suffix("/SKILL.md"))
            .flatten()
    }

    /// The files the walk of [`Load::directory_due`] found (no digests: a dynamic listing has
    /// none), to read next, each once; or why the directory could not be walked.
    pub fn walked(&mut self, found: Result<Vec<String>, String>) {
        let directory = self.directory_due().unwrap_or(&self.skill.uri).to_owned();
        self.walked = true;
        match found {
            Ok(uris) => {
                for uri in uris {
                    if !self.plan.iter().any(|file| file.uri == uri) {
                        self.plan.push(File {
                            uri,
                            digest: None,
                            size: None,
                        });
                    }
                }
            }
            Err(why) => self.files.push((directory, FileState::Unread { why })),
        }
    }

    pub fn skill(&self) -> &Skill {
        &self.skill
    }

    /// The URI to read next; `None` once every file is read or one has failed (a host uses
    /// nothing of a skill past a file that does not hold).
    pub fn next(&self) -> Option<&str> {
        if self.stopped() {
            return None;
        }
        self.plan
            .get(self.files.len())
            .map(|file| file.uri.as_str())
    }

    /// Whether a file read failed, so the rest will not be read.
    pub fn stopped(&self) -> bool {
        self.files
            .last()
            .is_some_and(|(_, state)| !matches!(state, FileState::Verified { .. }))
    }

    /// The answer to the read of [`Load::next`]: the bytes, or why there are none. SKILL.md is
    /// checked by size, then digest, then frontmatter; any other file by size, then digest.
    /// Returns the file's state; nothing when no read was due.
    pub fn read(&mut self, answer: Result<&[u8], String>) -> Option<&FileState> {
        let file = self
            .plan
            .get(self.files.len())
            .filter(|_| !self.stopped())?;
        let state = match answer {
            Err(why) => FileState::Unread { why },
            Ok(bytes) => {
                let mismatch = check_file(file, bytes).or_else(|| {
                    (self.files.is_empty())
                        .then(|| check_frontmatter(&self.skill, &String::from_utf8_lossy(bytes)))
                        .flatten()
                });
                match mismatch {
                    Some(mismatch) => FileState::Rejected { mismatch },
                    None => FileState::Verified {
                        bytes: u64::try_from(bytes.len()).unwrap_or(u64::MAX),
                        digested: file.digest.is_some(),
                    },
                }
            }
        };
        self.files.push((file.uri.clone(), state));
        self.files.last().map(|(_, state)| state)
    }

    /// The files read so far, each with its state, SKILL.md first.
    pub fn files(&self) -> &[(String, FileState)] {
        &self.files
    }

    /// The listed files not read yet, in order (after a failure, those never to be read).
    pub fn rest(&self) -> &[File] {
        self.plan.get(self.files.len()..).unwrap_or_default()
    }

    /// The loading as it stands: every file not read is [`FileState::Skipped`] (called once
    /// [`Load::next`] is `None`, those are the files a failure kept from being read).
    pub fn checked(&self) -> Checked {
        let mut files = self.files.clone();
        files.extend(
            self.rest()
                .iter()
                .map(|file| (file.uri.clone(), FileState::Skipped)),
        );
        Checked {
            skill: self.skill.clone(),
            files,
        }
    }
}

/// The bytes of a `resources/read` result's first content: a text's UTF-8, a blob decoded.
pub fn content_bytes(result: &Value) -> Result<Vec<u8>, String> {
    let content = result
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|contents| contents.first())
        .ok_or("resources/read: no content")?;
    if let Some(text) = content.get("text").and_then(Value::as_str) {
        return Ok(text.as_bytes().to_vec());
    }
    let blob = content
        .get("blob")
        .and_then(Value::as_str)
        .ok_or("resources/read: a content with neither text nor blob")?;
    base64::engine::general_purpose::STANDARD
        .decode(blob)
        .map_err(|error| format!("resources/read: a blob that is not base64 ({error})"))
}

/// Why a `method` request of a load (a read, a page of a walk) answered with an error gave
/// nothing (the message as the server sent it).
pub fn refused(method: &str, code: i64, message: &str) -> String {
    format!("{method}: error {code} {message}")
}

impl FileState {
    /// Its mark: `✓` checked and matching its digest, `✗` rejected, `?` not read (the read
    /// failed), `·` not checked (no digest listed, or never read after a failure).
    pub fn mark(&self) -> char {
        match self {
            Self::Verified { digested: true, .. } => '✓',
            Self::Verified {
                digested: false, ..
            }
            | Self::Skipped => '·',
            Self::Rejected { .. } => '✗',
            Self::Unread { .. } => '?',
        }
    }

    /// What became of the file, in words (the server's text in them unsanitized).
    pub fn words(&self) -> String {
        match self {
            Self::Verified {
                bytes,
                digested: true,
            } => format!("{bytes} bytes, size and digest match"),
            Self::Verified {
                bytes,
                digested: false,
            } => format!("{bytes} bytes, no digest listed"),
            Self::Rejected { mismatch } => format!("rejected: {}", mismatch.words()),
            Self::Unread { why } => format!("not read: {why}"),
            Self::Skipped => "not read: the skill was rejected before it".into(),
        }
    }
}
