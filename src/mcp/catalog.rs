//! A server's tool listing as it came: the `tools` array of each page, walked when read, so a
//! listing costs its own text and no entry per tool.

use std::collections::BTreeMap;
use std::fmt;

use compact_str::CompactString;

use super::json::{self, Json};
use super::messages::Tool;

/// The tools of a listing, page by page, in the order the server listed them.
#[derive(Clone, Default)]
pub struct Catalog {
    /// Each page's `tools` array, shared with the frame it came in.
    pages: Vec<Json>,
    /// How many tools the pages hold (counted once, when a page is added).
    len: usize,
    /// The tools a conforming client drops (by their place in the listing), with the reason;
    /// rare, so kept apart.
    rejected: BTreeMap<usize, Box<str>>,
}

impl Catalog {
    /// Adds a page's `tools` array; `None` (and nothing added) when it is not an array.
    pub fn push_page(&mut self, tools: Json) -> Option<()> {
        self.len += tools.elements()?.count();
        self.pages.push(tools);
        Some(())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tools, each read from its page as it is reached.
    pub fn iter(&self) -> impl Iterator<Item = Tool> + '_ {
        self.pages
            .iter()
            .flat_map(|page| {
                page.elements()
                    .into_iter()
                    .flatten()
                    .filter_map(move |raw| page.part(raw))
            })
            .enumerate()
            .map(|(index, raw)| {
                let name = json::member(raw.text(), "name").and_then(json::string);
                Tool {
                    name: name.map(CompactString::from).unwrap_or_default(),
                    rejected: self.rejected.get(&index).cloned(),
                    raw,
                }
            })
    }

    /// The first tool named `name`.
    pub fn find(&self, name: &str) -> Option<Tool> {
        self.iter().find(|tool| tool.name == name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Every tool, each an entry of its own (for a view that keeps them: the TUI's list).
    pub fn to_vec(&self) -> Vec<Tool> {
        let mut tools = Vec::with_capacity(self.len);
        tools.extend(self.iter());
        tools
    }

    /// Marks the tool at `index` as one a conforming client drops, with the reason.
    pub fn reject(&mut self, index: usize, reason: Box<str>) {
        self.rejected.insert(index, reason);
    }
}

/// A catalog of tools we hold already (the demo server's, tests'): one page of their objects.
impl From<Vec<Tool>> for Catalog {
    fn from(tools: Vec<Tool>) -> Catalog {
        let mut text = String::from("[");
        for (index, tool) in tools.iter().enumerate() {
            if index > 0 {
                text.push(',');
            }
            text.push_str(tool.raw.text());
        }
        text.push(']');
        let rejected = tools
            .iter()
            .enumerate()
            .filter_map(|(index, tool)| Some((index, tool.rejected.clone()?)))
            .collect();
        Catalog {
            len: tools.len(),
            pages: vec![Json::from_text(text)],
            rejected,
        }
    }
}

impl FromIterator<Tool> for Catalog {
    fn from_iter<I: IntoIterator<Item = Tool>>(tools: I) -> Catalog {
        Catalog::from(tools.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a Catalog {
    type Item = Tool;
    type IntoIter = Box<dyn Iterator<Item = Tool> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// Equal when they list the same tools, however the pages were cut.
impl PartialEq for Catalog {
    fn eq(&self, other: &Catalog) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn page(value: &serde_json::Value) -> Json {
        Json::from_value(value)
    }

    #[test]
    fn pages_are_walked_in_order_and_counted() {
        let mut catalog = Catalog::default();
        catalog
            .push_page(page(&json!([{"name": "a"}, {"name": "b\u{e9}"}])))
            .unwrap();
        catalog.push_page(page(&json!([{"name": "c"}]))).unwrap();
        assert!(catalog.push_page(page(&json!({"name": "x"}))).is_none());
        assert_eq!(catalog.len(), 3);
        let names: Vec<_> = catalog.iter().map(|tool| tool.name).collect();
        assert_eq!(names, ["a", "b\u{e9}", "c"]);
        assert_eq!(catalog.find("c").unwrap().raw.text(), r#"{"name":"c"}"#);
        assert!(!catalog.contains("d"));
    }

    #[test]
    fn a_rejected_tool_keeps_its_reason_and_its_place() {
        let mut catalog = Catalog::default();
        catalog
            .push_page(page(&json!([{"name": "a"}, {"name": "b"}])))
            .unwrap();
        catalog.reject(1, "bad header".into());
        let tools = catalog.to_vec();
        assert_eq!(tools[0].rejected, None);
        assert_eq!(tools[1].rejected.as_deref(), Some("bad header"));
        let again = Catalog::from(tools);
        assert_eq!(again.len(), 2);
        assert_eq!(
            again.find("b").unwrap().rejected.as_deref(),
            Some("bad header")
        );
        assert_eq!(again, {
            let mut same = Catalog::default();
            same.push_page(page(&json!([{"name": "a"}, {"name": "b"}])))
                .unwrap();
            same.reject(1, "bad header".into());
            same
        });
    }
}
