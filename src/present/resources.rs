//! How resources and their contents read, pure: the listing as a table (uri, name, mimeType,
//! size), templates likewise, a `resources/read` result content by content (text shown
//! terminal-safe, a blob as its type and decoded size), and the cache hints of 2026-07-28.

use std::fmt::Write as _;

use base64::Engine;
use serde_json::Value;

use super::limits::RAW_PREVIEW;
use crate::mcp::json::Json;
use crate::model_view;
use crate::sanitize;

/// Widest a table cell is drawn; longer values end in `…`.
const CELL_CHARS: usize = 64;

/// Rows as aligned columns under `header`, each cell terminal-safe and clipped.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> Vec<String> {
    let cells: Vec<Vec<String>> = std::iter::once(header.iter().map(|h| (*h).to_owned()).collect())
        .chain(
            rows.iter()
                .map(|row| row.iter().map(|cell| cell_text(cell)).collect()),
        )
        .collect();
    let mut widths = vec![0; header.len()];
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    cells
        .iter()
        .map(|row| {
            let last = row.len().saturating_sub(1);
            let line: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (cell, width))| {
                    if i == last {
                        cell.clone()
                    } else {
                        format!("{cell:<width$}")
                    }
                })
                .collect();
            line.join("  ").trim_end().to_owned()
        })
        .collect()
}

fn cell_text(cell: &str) -> String {
    let safe = sanitize::text(cell);
    if safe.chars().count() <= CELL_CHARS {
        return safe.into_owned();
    }
    let kept: String = safe.chars().take(CELL_CHARS - 1).collect();
    format!("{kept}…")
}

fn string(item: &Value, key: &str) -> String {
    item.get(key)
        .and_then(Value::as_str)
        .unwrap_or("—")
        .to_owned()
}

/// The resources as a table: uri, name, mimeType, size.
pub fn resource_table(resources: &[Json]) -> Vec<String> {
    let rows: Vec<Vec<String>> = resources
        .iter()
        .map(|resource| {
            let item = resource.value();
            let size = item
                .get("size")
                .map_or_else(|| "—".to_owned(), Value::to_string);
            vec![
                string(&item, "uri"),
                string(&item, "name"),
                string(&item, "mimeType"),
                size,
            ]
        })
        .collect();
    table(&["URI", "NAME", "MIME TYPE", "SIZE"], &rows)
}

/// The resource templates as a table: uriTemplate, name, mimeType.
pub fn template_table(templates: &[Json]) -> Vec<String> {
    let rows: Vec<Vec<String>> = templates
        .iter()
        .map(|template| {
            let item = template.value();
            vec![
                string(&item, "uriTemplate"),
                string(&item, "name"),
                string(&item, "mimeType"),
            ]
        })
        .collect();
    table(&["URI TEMPLATE", "NAME", "MIME TYPE"], &rows)
}

/// `N things (P pages)`.
pub fn counted(count: usize, what: &str, pages: usize) -> String {
    let plural = if count == 1 { "" } else { "s" };
    let page_plural = if pages == 1 { "" } else { "s" };
    format!("{count} {what}{plural} ({pages} page{page_plural})")
}

/// 2026-07-28's cache hints of a result (`ttlMs`, `cacheScope`), in words; `None` without them.
pub fn cache_hint(result: &Json) -> Option<String> {
    let ttl = result.get("ttlMs").and_then(|ttl| ttl.as_i64());
    let scope = result.get("cacheScope");
    let scope = scope.as_ref().and_then(Json::as_str);
    match (ttl, scope) {
        (None, None) => None,
        (ttl, scope) => Some(format!(
            "cacheable: ttlMs {} · cacheScope {}",
            ttl.map_or_else(|| "missing".to_owned(), |ttl| ttl.to_string()),
            scope.map_or_else(
                || "missing".into(),
                |scope| sanitize::text(&scope).into_owned()
            )
        )),
    }
}

/// One content of a `resources/read` result (or an embedded resource).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    pub uri: Option<String>,
    pub mime_type: Option<String>,
    pub body: Body,
}

/// What a content holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// `text`, as sent.
    Text(String),
    /// `blob`: the decoded bytes, or why its base64 does not decode.
    Blob(Result<Vec<u8>, String>),
    /// Neither `text` nor `blob`: the spec says a content is one of them.
    Neither,
}

impl Content {
    /// Reads a content object (`uri`, `mimeType`, `text` or `blob`).
    pub fn of(item: &Json) -> Content {
        let text = |key: &str| {
            item.get(key)
                .and_then(|v| v.as_str().map(std::borrow::Cow::into_owned))
        };
        let body = match (text("text"), text("blob")) {
            (Some(text), _) => Body::Text(text),
            (None, Some(blob)) => Body::Blob(decode(&blob)),
            (None, None) => Body::Neither,
        };
        Content {
            uri: text("uri"),
            mime_type: text("mimeType"),
            body,
        }
    }

    /// The bytes `--save` writes: a blob decoded, a text as UTF-8.
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Text(text) => Some(text.as_bytes()),
            Body::Blob(Ok(bytes)) => Some(bytes),
            Body::Blob(Err(_)) | Body::Neither => None,
        }
    }

    /// `uri · mimeType · text, N bytes` (or `blob, N bytes decoded`).
    pub fn heading(&self) -> String {
        let uri = self
            .uri
            .as_deref()
            .map_or("(no uri)".into(), sanitize::text);
        let mime = self
            .mime_type
            .as_deref()
            .map_or("(no mimeType)".into(), sanitize::text);
        let kind = match &self.body {
            Body::Text(text) => format!("text, {} bytes", text.len()),
            Body::Blob(Ok(bytes)) => format!("blob, {} bytes decoded", bytes.len()),
            Body::Blob(Err(why)) => format!("blob that does not decode: {why}"),
            Body::Neither => "neither text nor blob".to_owned(),
        };
        format!("{uri} · {mime} · {kind}")
    }

    /// The heading, then the text itself (terminal-safe, clipped) or what a blob is.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!("── {}", self.heading())];
        match &self.body {
            Body::Text(text) => lines.extend(text_lines(text)),
            Body::Blob(Ok(_)) => {
                lines.push("(binary: --save FILE writes the decoded bytes)".into());
            }
            Body::Blob(Err(_)) | Body::Neither => {}
        }
        lines
    }
}

/// A text for the terminal: newlines kept, everything else made safe, clipped to
/// [`RAW_PREVIEW`] bytes with the rest counted.
pub fn text_lines(text: &str) -> Vec<String> {
    let shown = model_view::clip(text, RAW_PREVIEW);
    let mut safe = sanitize::text_keeping_newlines(shown.strip_suffix('\n').unwrap_or(shown));
    if shown.len() < text.len() {
        let _ = write!(
            safe,
            "… ({} more bytes; --json or --save has them all)",
            text.len() - shown.len()
        );
    }
    safe.lines().map(str::to_owned).collect()
}

/// Base64 as the spec means it (standard alphabet; padding optional, as some servers omit it).
pub fn decode(blob: &str) -> Result<Vec<u8>, String> {
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine
        .decode(blob.trim())
        .map_err(|error| format!("not base64 ({error})"))
}

/// The contents of a `resources/read` result, in order; `None` without a `contents` array.
pub fn contents(result: &Json) -> Option<Vec<Content>> {
    let contents = result.get("contents")?;
    let items = contents.elements()?;
    Some(
        items
            .filter_map(|item| contents.part(item))
            .map(|item| Content::of(&item))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn json(value: &Value) -> Json {
        Json::from_value(value)
    }

    #[test]
    fn a_table_aligns_its_columns_and_makes_cells_safe() {
        let lines = table(
            &["URI", "NAME"],
            &[
                vec!["demo://a".into(), "a\u{1b}[2J".into()],
                vec!["demo://longer".into(), "b".into()],
            ],
        );
        assert_eq!(lines[0], "URI            NAME");
        assert_eq!(lines[1], "demo://a       a\\u{1b}[2J");
        assert_eq!(lines[2], "demo://longer  b");
    }

    #[test]
    fn a_read_result_reads_content_by_content() {
        let result = json(&json!({"contents": [
            {"uri": "demo://t", "mimeType": "text/plain", "text": "one\ntwo\n"},
            {"uri": "demo://b", "mimeType": "image/png", "blob": "AAEC"},
            {"uri": "demo://x", "blob": "%%"},
        ]}));
        let contents = contents(&result).unwrap();
        assert_eq!(
            contents[0].lines(),
            ["── demo://t · text/plain · text, 8 bytes", "one", "two"]
        );
        assert_eq!(contents[1].bytes(), Some(&[0u8, 1, 2][..]));
        assert_eq!(
            contents[1].heading(),
            "demo://b · image/png · blob, 3 bytes decoded"
        );
        assert!(
            contents[2].heading().contains("does not decode"),
            "{}",
            contents[2].heading()
        );
    }

    #[test]
    fn a_long_text_is_clipped_and_counted() {
        let text = "x".repeat(RAW_PREVIEW + 10);
        let lines = text_lines(&text);
        assert!(lines[0].ends_with("… (10 more bytes; --json or --save has them all)"));
    }

    #[test]
    fn cache_hints_are_said_when_present() {
        assert_eq!(cache_hint(&json(&json!({"resources": []}))), None);
        assert_eq!(
            cache_hint(&json(&json!({"ttlMs": 5, "cacheScope": "public"}))).unwrap(),
            "cacheable: ttlMs 5 · cacheScope public"
        );
    }
}
