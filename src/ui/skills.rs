//! The Skills shelf (SEP-2640): the listed skills, each marked with what its last load came to,
//! and below the list the selected one's description, URI and listed files, none of them read
//! until Enter loads it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::catalog::{Row, ShelfPane, empty_reason};
use crate::app::catalog_state::{CatalogState, SkillsShelf};
use crate::app::state::Link;
use crate::sanitize;
use crate::skills::{Skill, Verdict};
use crate::theme::{Meaning, Theme};

/// The Skills shelf over the catalog.
pub(super) struct SkillsPane<'a> {
    pub catalog: &'a CatalogState,
    pub tools: usize,
    pub link: &'a Link,
    pub focused: bool,
    pub theme: &'a Theme,
}

impl Widget for SkillsPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let skills = &self.catalog.skills;
        let rows = skills
            .entries
            .iter()
            .map(|entry| match entry {
                Ok(skill) => {
                    let files = match &skill.files {
                        None => "dynamic".to_owned(),
                        Some(files) if files.len() == 1 => "1 file".to_owned(),
                        Some(files) => format!("{} files", files.len()),
                    };
                    let mut label = format!(
                        "{}{} · {files}",
                        mark(skills, skill),
                        sanitize::text(&skill.name)
                    );
                    if let Some(description) = &skill.description {
                        label.push_str(" · ");
                        label.push_str(&sanitize::text(description));
                    }
                    Row {
                        label,
                        muted: false,
                    }
                }
                Err(_) => Row {
                    label: "✗ (an entry sightline cannot read)".into(),
                    muted: true,
                },
            })
            .collect();
        ShelfPane {
            title: self.catalog.title(self.tools),
            rows,
            selected: skills.selected,
            offset: skills.offset,
            empty: empty_reason(&skills.skills, self.link, "skills"),
            about: about(skills, self.theme),
            focused: self.focused,
            theme: self.theme,
        }
        .render(area, buf);
    }
}

/// A row's mark: the skill being loaded, or what its last load came to (nothing before).
fn mark(shelf: &SkillsShelf, skill: &Skill) -> &'static str {
    let loading = shelf.load.as_ref().is_some_and(|loading| {
        loading.load.skill().uri == skill.uri
            && (loading.load.next().is_some() || loading.walk.is_some())
    });
    if loading {
        return "… ";
    }
    match shelf.verdicts.get(&skill.uri) {
        None => "",
        Some(Verdict::Conformant) => "✓ ",
        Some(Verdict::NoDigests) => "· ",
        Some(Verdict::Nonconformant) => "✗ ",
        Some(Verdict::Incomplete) => "? ",
    }
}

/// The selected skill, described, with what Enter does.
fn about<'a>(shelf: &SkillsShelf, theme: &Theme) -> Vec<Line<'a>> {
    let muted = theme.style(Meaning::TextMuted);
    match shelf.selected_entry() {
        Some(Ok(skill)) => {
            // What became of it before the description: a cut pane keeps it.
            let said = match shelf.verdicts.get(&skill.uri) {
                None => "listed only: none of its files read yet",
                Some(Verdict::Conformant) => "✓ loaded: every file matches its listing",
                Some(Verdict::NoDigests) => "· loaded: some files had no digest to check",
                Some(Verdict::Nonconformant) => "✗ not loaded: a file does not match its listing",
                Some(Verdict::Incomplete) => "? not loaded: a file could not be read",
            };
            let mut lines = vec![Line::raw(said)];
            if let Some(description) = &skill.description {
                lines.push(Line::raw(sanitize::text(description).into_owned()));
            }
            lines.push(Line::styled(sanitize::text(&skill.uri).into_owned(), muted));
            lines.push(Line::styled(
                sanitize::text(&skill.files_words()).into_owned(),
                muted,
            ));
            lines.push(Line::styled(
                "Enter: load it as a host would (SKILL.md, then each file, checked)",
                muted,
            ));
            lines
        }
        Some(Err(why)) => vec![Line::raw(format!(
            "an entry sightline cannot read: {}",
            sanitize::text(why)
        ))],
        None => Vec::new(),
    }
}
