//! The catalog's plain data: the shelves of the left column (Tools · Resources · Prompts ·
//! Skills), the listings of resources, templates, prompts and skills, the skill being loaded,
//! what Detail shows of a read, a prompt or a skill, the form a template or prompt puts in the
//! editor, and its completion state. No transitions.

use std::collections::{BTreeMap, BTreeSet};

use crate::mcp::Timestamp;
use crate::mcp::json::Json;
use crate::present::resources::Content;
use crate::sanitize;
use crate::skills::{Load, Skill, Verdict};

/// What the left column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shelf {
    #[default]
    Tools,
    Resources,
    Prompts,
    /// SEP-2640's skills, when the server declares the extension.
    Skills,
}

/// The listings the catalog keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Resources,
    Templates,
    Prompts,
    Skills,
}

impl ListKind {
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Resources => "resources/list",
            ListKind::Templates => "resources/templates/list",
            ListKind::Prompts => "prompts/list",
            ListKind::Skills => "skills/list",
        }
    }

    /// The result's member that holds the page's items.
    pub(super) fn key(self) -> &'static str {
        match self {
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
            ListKind::Prompts => "prompts",
            ListKind::Skills => "skills",
        }
    }
}

/// One listing: what the last complete listing gave, and the one under way.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listing {
    pub items: Vec<Json>,
    /// The listing under way: pages gathered until the last one arrives.
    pub(super) gathering: Vec<Json>,
    pub(super) pages: usize,
    pub(super) cursors: BTreeSet<String>,
    /// Which listing the answers belong to: a `list_changed` starts a new one, and pages of
    /// the old one are dropped.
    pub(super) generation: u64,
    pub loading: bool,
    /// Why the list is missing or incomplete (terminal-safe).
    pub problem: Option<String>,
}

impl Listing {
    /// Whether it was ever asked for on this connection.
    pub fn asked(&self) -> bool {
        self.generation > 0
    }
}

/// The Resources shelf: the resources, then the templates, one selection over both.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResourcesShelf {
    pub resources: Listing,
    pub templates: Listing,
    pub selected: usize,
    pub offset: usize,
    /// URIs subscribed to (`resources/subscribe` answered with a result, or a 2026-07-28
    /// listen stream acknowledged with them).
    pub subscribed: BTreeSet<String>,
    /// 2026-07-28: URIs with a `subscriptions/listen` stream open, acknowledged or not.
    pub listening: BTreeSet<String>,
    /// URIs `notifications/resources/updated` named, with when the latest came.
    pub updated: BTreeMap<String, Timestamp>,
}

/// A row of the Resources shelf.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ResourceRow<'a> {
    Resource(&'a Json),
    Template(&'a Json),
}

impl ResourcesShelf {
    pub fn len(&self) -> usize {
        self.resources.items.len() + self.templates.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn row(&self, index: usize) -> Option<ResourceRow<'_>> {
        let resources = self.resources.items.len();
        match index.checked_sub(resources) {
            None => self.resources.items.get(index).map(ResourceRow::Resource),
            Some(at) => self.templates.items.get(at).map(ResourceRow::Template),
        }
    }

    pub fn selected_row(&self) -> Option<ResourceRow<'_>> {
        self.row(self.selected)
    }
}

/// The Prompts shelf.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptsShelf {
    pub prompts: Listing,
    pub selected: usize,
    pub offset: usize,
}

impl PromptsShelf {
    pub fn selected_prompt(&self) -> Option<&Json> {
        self.prompts.items.get(self.selected)
    }
}

/// The Skills shelf: the listing (no file of a skill is read until it is loaded), each entry
/// as read, and the skill being loaded or last loaded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillsShelf {
    pub skills: Listing,
    /// The listing's entries, read when it is complete: a skill, or why the entry is unusable.
    pub entries: Vec<Result<Skill, String>>,
    pub selected: usize,
    pub offset: usize,
    /// Whether the server declares the `io.modelcontextprotocol/skills` extension.
    pub declared: bool,
    pub load: Option<SkillLoad>,
    /// What each skill loaded on this connection came to, by its SKILL.md URI.
    pub verdicts: BTreeMap<String, Verdict>,
}

impl SkillsShelf {
    pub fn selected_entry(&self) -> Option<&Result<Skill, String>> {
        self.entries.get(self.selected)
    }
}

/// A skill being loaded (Enter on the shelf), one read at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillLoad {
    pub load: Load,
    /// Which load the reads' answers belong to: Enter on another skill starts a new one, and
    /// an answer to the old one is dropped.
    pub generation: u64,
    /// Each file's text as read (lossy UTF-8), SKILL.md first.
    pub texts: Vec<(String, String)>,
    /// A dynamic skill's directory being walked, once its SKILL.md holds.
    pub walk: Option<crate::skills::Walk>,
}

/// What Detail shows of the last read or prompt, ready to draw.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogView {
    /// What it is about (`read demo://timetable`), terminal-safe.
    pub title: String,
    pub lines: Vec<String>,
    pub scroll: usize,
    /// The contents a read returned (or an embedded resource showed), for saving.
    pub contents: Vec<Content>,
}

/// The catalog: the shelves and what Detail shows of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogState {
    pub shelf: Shelf,
    pub resources: ResourcesShelf,
    pub prompts: PromptsShelf,
    pub skills: SkillsShelf,
    pub view: Option<CatalogView>,
    /// The template or prompt whose form the editor holds.
    pub form: Option<Form>,
    pub completion: Completion,
    /// Which of the current call's links `o` opens next.
    pub next_link: usize,
}

impl CatalogState {
    /// The view Detail shows instead of the log's selection: with a shelf other than Tools
    /// shown and no log row selected (a selected row always shows its frames).
    pub fn shown_view(&self, log_selected: Option<usize>) -> Option<&CatalogView> {
        if self.shelf == Shelf::Tools || log_selected.is_some() {
            return None;
        }
        self.view.as_ref()
    }

    /// What the Tools shelf's title adds: the other shelves by the letter of their key, with
    /// their counts once listed (nothing while neither was listed).
    pub fn others_note(&self) -> String {
        if !self.resources.resources.asked()
            && !self.prompts.prompts.asked()
            && !self.skills.skills.asked()
        {
            return String::new();
        }
        let title = self.title(0);
        title
            .split_once(" · ")
            .map(|(_, others)| format!(" · {others}"))
            .unwrap_or_default()
    }

    /// The form the editor holds, when its text is the form's (`editor_tool` is the editor's
    /// key: the tool or form it shows).
    pub fn form_in_editor(&self, editor_tool: Option<&str>) -> Option<&Form> {
        let form = self.form.as_ref()?;
        (editor_tool == Some(form.label.as_str())).then_some(form)
    }

    /// The title of the left column: the shelf shown with its count, then the others by the
    /// letter of their key.
    pub fn title(&self, tools: usize) -> String {
        let resources = self.resources.resources.items.len();
        let templates = self.resources.templates.items.len();
        let prompts = self.prompts.prompts.items.len();
        let resources_count = if !self.resources.resources.asked() {
            "?".to_owned()
        } else if templates > 0 {
            format!("{resources}+{templates}")
        } else {
            resources.to_string()
        };
        let prompts = if self.prompts.prompts.asked() {
            prompts.to_string()
        } else {
            "?".to_owned()
        };
        let skills = if self.skills.skills.asked() {
            self.skills.entries.len().to_string()
        } else {
            "?".to_owned()
        };
        // Skills are an extension: named only for a server that declares it.
        let w = if self.skills.declared {
            format!(" · W {skills}")
        } else {
            String::new()
        };
        match self.shelf {
            Shelf::Tools => format!("Tools ({tools}) · R {resources_count} · P {prompts}{w}"),
            Shelf::Resources => {
                format!("Resources ({resources_count}) · T {tools} · P {prompts}{w}")
            }
            Shelf::Prompts => {
                format!("Prompts ({prompts}) · T {tools} · R {resources_count}{w}")
            }
            Shelf::Skills => {
                format!("Skills ({skills}) · T {tools} · R {resources_count} · P {prompts}")
            }
        }
    }
}

/// What a form is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormTarget {
    /// A resource template: its variables, expanded into the URI to read.
    Template { uri_template: String },
    /// A prompt: its arguments, for `prompts/get`.
    Prompt { name: String },
}

/// The form the editor holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    pub target: FormTarget,
    /// The editor's title and the key of its draft (`template flights://{number}`).
    pub label: String,
    /// The argument or variable names, in the editor's order.
    pub names: Vec<String>,
    /// The prompt arguments the server marks required.
    pub required: Vec<String>,
    /// The hints under the editor, without completion suggestions.
    pub hints: Vec<String>,
}

/// An argument and the value typed for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typed {
    pub argument: String,
    pub value: String,
}

/// The completion state of the form in the editor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    /// What the request in flight asks about.
    pub asked: Option<Typed>,
    /// Typed while one was in flight: asked for when it ends (the latest text wins).
    pub wanted: Option<Typed>,
    /// What the suggestions are for.
    pub answered: Option<Typed>,
    /// The server's values, as sent (made safe when drawn or inserted).
    pub values: Vec<String>,
    /// `total` as the server gave it, and whether it has more.
    pub total: Option<u64>,
    pub has_more: bool,
    /// Why there are none (the server's error, in words).
    pub problem: Option<String>,
}

/// Suggestions shown at most (the line says how many more there are).
const SUGGESTIONS_SHOWN: usize = 8;

impl Completion {
    /// The line the editor shows first: the suggestions for the argument last asked about, or
    /// why there are none (terminal-safe).
    pub fn line(&self) -> Option<String> {
        let answered = self.answered.as_ref()?;
        let argument = sanitize::text(&answered.argument);
        if let Some(problem) = &self.problem {
            return Some(format!("completion for {argument}: {problem}"));
        }
        if self.values.is_empty() {
            return Some(format!("completion for {argument}: no suggestions"));
        }
        let shown: Vec<String> = self
            .values
            .iter()
            .take(SUGGESTIONS_SHOWN)
            .map(|value| sanitize::text(value).into_owned())
            .collect();
        let total = self
            .total
            .and_then(|total| usize::try_from(total).ok())
            .unwrap_or(self.values.len());
        let more = total.saturating_sub(shown.len());
        let more = if more > 0 || self.has_more {
            format!(" (+{more} more)")
        } else {
            String::new()
        };
        Some(format!(
            "{argument}: {}{more} · Alt-c takes '{}'",
            shown.join(", "),
            shown.first().map_or("", String::as_str)
        ))
    }
}
