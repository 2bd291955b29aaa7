//! Skills over MCP (SEP-2640), pure: a `skills/list` entry read, a file checked against its
//! entry (size, then digest), a SKILL.md's frontmatter compared with the entry's, a skill loaded
//! file by file as a host loads it, and what a verification of a server's skills comes to.

pub mod frontmatter;
mod load;
#[cfg(test)]
mod tests;
pub mod walk;

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

pub use load::{Load, content_bytes, refused};
pub use walk::Walk;

/// The extension's identifier, in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// A skill as `skills/list` describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skill {
    /// The SKILL.md's URI, `skill://<skill-path>/SKILL.md`.
    pub uri: String,
    /// The name: the frontmatter's, else the URI's last segment before SKILL.md.
    pub name: String,
    pub description: Option<String>,
    /// The entry's frontmatter, as given.
    pub frontmatter: Map<String, Value>,
    /// The skill's files as listed; `None` when the entry says `"dynamic"` (the files are
    /// known only once SKILL.md is read).
    pub files: Option<Vec<File>>,
}

/// One listed file of a skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct File {
    pub uri: String,
    /// `algorithm:hex`, e.g. `sha256:…`, as listed.
    pub digest: Option<String>,
    /// Bytes, as listed.
    pub size: Option<u64>,
}

impl Skill {
    /// Reads one entry of `skills/list`; why it cannot be read otherwise.
    pub fn from_entry(entry: &Value) -> Result<Self, String> {
        let uri = entry
            .get("uri")
            .and_then(Value::as_str)
            .ok_or("an entry without a string `uri`")?;
        let frontmatter = match entry.get("frontmatter") {
            Some(Value::Object(frontmatter)) => frontmatter.clone(),
            Some(_) => return Err(format!("{uri}: `frontmatter` is not an object")),
            None => Map::new(),
        };
        let name = frontmatter
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| name_in_uri(uri))
            .ok_or_else(|| format!("{uri}: no name in the frontmatter or the URI"))?;
        let description = frontmatter
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let files = match entry.get("resources") {
            Some(Value::String(word)) if word == "dynamic" => None,
            Some(Value::Array(listed)) => Some(
                listed
                    .iter()
                    .map(|file| File::from_entry(file).map_err(|why| format!("{uri}: {why}")))
                    .collect::<Result<_, _>>()?,
            ),
            Some(_) => {
                return Err(format!(
                    "{uri}: `resources` is neither an array nor \"dynamic\""
                ));
            }
            None => Some(Vec::new()),
        };
        Ok(Self {
            uri: uri.to_owned(),
            name,
            description,
            frontmatter,
            files,
        })
    }

    /// The listed entry for the SKILL.md itself, when there is one.
    pub fn manifest(&self) -> Option<&File> {
        self.files
            .as_ref()?
            .iter()
            .find(|file| file.uri == self.uri)
    }

    /// The listed files other than SKILL.md, in the entry's order.
    pub fn supporting(&self) -> impl Iterator<Item = &File> {
        self.files
            .iter()
            .flatten()
            .filter(move |file| file.uri != self.uri)
    }

    /// Its files in a few words: how many, their bytes and digests, or that the listing is
    /// dynamic.
    pub fn files_words(&self) -> String {
        match &self.files {
            None => "files: dynamic (known once SKILL.md is read; no digests)".to_owned(),
            Some(files) => {
                let digested = files.iter().filter(|file| file.digest.is_some()).count();
                let bytes: u64 = files.iter().filter_map(|file| file.size).sum();
                let plural = if files.len() == 1 { "" } else { "s" };
                format!(
                    "{} file{plural}, {bytes} bytes, {digested} with a digest",
                    files.len()
                )
            }
        }
    }

    /// Whether every listed file carries a digest (a dynamic listing carries none).
    pub fn fully_digested(&self) -> bool {
        self.files
            .as_ref()
            .is_some_and(|files| files.iter().all(|file| file.digest.is_some()))
            && self.manifest().is_some()
    }
}

impl File {
    fn from_entry(entry: &Value) -> Result<Self, String> {
        let uri = entry
            .get("uri")
            .and_then(Value::as_str)
            .ok_or("a file without a string `uri`")?;
        Ok(Self {
            uri: uri.to_owned(),
            digest: entry
                .get("digest")
                .and_then(Value::as_str)
                .map(str::to_owned),
            size: entry.get("size").and_then(Value::as_u64),
        })
    }
}

/// `skill://<authority>/…/<name>/SKILL.md` → `<name>`.
pub fn name_in_uri(uri: &str) -> Option<String> {
    let (_, path) = uri.split_once("://")?;
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        [.., name, "SKILL.md"] => Some((*name).to_owned()),
        _ => None,
    }
}

/// Why a file's content may not be used.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Mismatch {
    /// The bytes read are not as many as listed (a digest mismatch by another name).
    Size { listed: u64, read: u64 },
    /// The bytes read hash to another digest than listed.
    Digest { listed: String, read: String },
    /// The listed digest names an algorithm sightline cannot compute.
    Algorithm { listed: String },
    /// SKILL.md's frontmatter differs from the entry's.
    Frontmatter { differences: Vec<String> },
    /// SKILL.md has no readable frontmatter.
    NoFrontmatter { why: String },
}

impl Mismatch {
    /// One line for a person.
    pub fn words(&self) -> String {
        match self {
            Self::Size { listed, read } => {
                format!("size: listed {listed} bytes, read {read}")
            }
            Self::Digest { listed, read } => format!("digest: listed {listed}, read {read}"),
            Self::Algorithm { listed } => {
                format!("digest {listed}: an algorithm sightline cannot check (sha256 only)")
            }
            Self::Frontmatter { differences } => {
                format!(
                    "frontmatter differs from the entry: {}",
                    differences.join("; ")
                )
            }
            Self::NoFrontmatter { why } => format!("frontmatter: {why}"),
        }
    }
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest.as_ref() {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Checks bytes read against their listing: the size first (cheap, and a mismatch is final),
/// then the digest. No problem when neither is listed.
pub fn check_file(file: &File, bytes: &[u8]) -> Option<Mismatch> {
    let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if let Some(listed) = file.size
        && listed != read
    {
        return Some(Mismatch::Size { listed, read });
    }
    let listed = file.digest.as_deref()?;
    let Some(("sha256", _)) = listed.split_once(':') else {
        return Some(Mismatch::Algorithm {
            listed: listed.to_owned(),
        });
    };
    let read = sha256(bytes);
    (!read.eq_ignore_ascii_case(listed)).then(|| Mismatch::Digest {
        listed: listed.to_owned(),
        read,
    })
}

/// Compares a SKILL.md's frontmatter with the entry's, field by field (a field absent on one
/// side is `null` there, as the suite compares).
pub fn check_frontmatter(skill: &Skill, text: &str) -> Option<Mismatch> {
    let file = match frontmatter::parse(text) {
        Ok(file) => file,
        Err(why) => return Some(Mismatch::NoFrontmatter { why }),
    };
    let mut keys: Vec<&String> = skill.frontmatter.keys().collect();
    keys.extend(
        file.keys()
            .filter(|key| !skill.frontmatter.contains_key(*key)),
    );
    let differences: Vec<String> = keys
        .into_iter()
        .filter_map(|key| {
            let entry = skill.frontmatter.get(key).unwrap_or(&Value::Null);
            let read = file.get(key).unwrap_or(&Value::Null);
            (!frontmatter::same(entry, read))
                .then(|| format!("{key}: the entry says {entry}, the file {read}"))
        })
        .collect();
    (!differences.is_empty()).then_some(Mismatch::Frontmatter { differences })
}

/// What became of one file of a skill being loaded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum FileState {
    /// Read and matching its listing (`digested`: a digest was there to match).
    Verified { bytes: u64, digested: bool },
    /// Read, and not to be used.
    Rejected { mismatch: Mismatch },
    /// `resources/read` failed, or gave no content.
    Unread { why: String },
    /// Not read: the skill was rejected before it (a file of a rejected skill is never fetched).
    Skipped,
}

/// One skill's verification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Checked {
    pub skill: Skill,
    /// SKILL.md first, then the supporting files in the listing's order. In JSON each is one
    /// object, `{"uri", "state", …}`, as jq reads best.
    #[serde(serialize_with = "files_json")]
    pub files: Vec<(String, FileState)>,
}

fn files_json<S: serde::Serializer>(
    files: &[(String, FileState)],
    to: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct One<'a> {
        uri: &'a str,
        #[serde(flatten)]
        state: &'a FileState,
    }
    to.collect_seq(files.iter().map(|(uri, state)| One { uri, state }))
}

/// What a verification comes to, worst first (the exit code's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A file did not match its listing, or a listing could not be read.
    Nonconformant,
    /// A file could not be read.
    Incomplete,
    /// Every file matched, but some were listed without a digest (only with
    /// `--require-digests`).
    NoDigests,
    Conformant,
}

impl Checked {
    pub fn verdict(&self, require_digests: bool) -> Verdict {
        let states = self.files.iter().map(|(_, state)| state);
        if states
            .clone()
            .any(|state| matches!(state, FileState::Rejected { .. }))
        {
            Verdict::Nonconformant
        } else if states
            .clone()
            .any(|state| matches!(state, FileState::Unread { .. }))
        {
            Verdict::Incomplete
        } else if require_digests
            && (!self.skill.fully_digested()
                || states.clone().any(|state| {
                    matches!(
                        state,
                        FileState::Verified {
                            digested: false,
                            ..
                        }
                    )
                }))
        {
            Verdict::NoDigests
        } else {
            Verdict::Conformant
        }
    }
}

/// The verification of a whole listing: the worst of its skills (and of entries that could not
/// be read at all, which are nonconformant).
pub fn overall(checked: &[Checked], unreadable: usize, require_digests: bool) -> Verdict {
    let worst = checked
        .iter()
        .map(|one| one.verdict(require_digests))
        .min()
        .unwrap_or(Verdict::Conformant);
    if unreadable > 0 {
        Verdict::Nonconformant
    } else {
        worst
    }
}
