//! Resources: reading one (Enter on the shelf, a template's form, a link in a tool result),
//! Detail's view of the contents, and saving them (`D`).

use serde_json::Value;

use super::action::Effect;
use super::catalog::{failure_lines, read, show_view};
use super::catalog_state::{ResourceRow, Shelf};
use super::state::AppState;
use super::status::{complain, inform};
use crate::mcp::input::{ResultType, result_type};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::session::Exchange;
use crate::present::resources::{self as words, Body, Content, text_lines};
use crate::sanitize;

/// Enter on the Resources shelf: a resource is read, a template opens its form.
pub(super) fn open(state: &mut AppState) -> Vec<Effect> {
    let row = state.catalog.resources.selected_row().map(|row| match row {
        ResourceRow::Resource(item) => ResourceRow::Resource(item),
        ResourceRow::Template(item) => ResourceRow::Template(item),
    });
    match row {
        Some(ResourceRow::Resource(item)) => {
            if let Some(uri) = uri_of(item) {
                read(state, &uri)
            } else {
                complain(state, "the resource has no uri".into());
                Vec::new()
            }
        }
        Some(ResourceRow::Template(item)) => {
            let item = item.clone();
            super::forms::open_template(state, &item);
            Vec::new()
        }
        None => {
            complain(state, "no resource to read: the list is empty".into());
            Vec::new()
        }
    }
}

pub(super) fn uri_of(item: &Json) -> Option<String> {
    item.get("uri")
        .and_then(|uri| uri.as_str().map(std::borrow::Cow::into_owned))
}

/// A read ended: Detail shows the contents, or the answer that is not them.
pub(super) fn read_finished(state: &mut AppState, uri: &str, exchange: &Exchange) {
    let title = format!("read {}", sanitize::text(uri));
    let result = match exchange.reply() {
        Some(Reply::Result(result)) => Some(result),
        _ => None,
    };
    let Some(result) = result else {
        show_view(state, title, failure_lines(exchange), Vec::new());
        return;
    };
    if let Some(why) = incomplete(result) {
        let mut lines = vec![why];
        lines.extend(failure_lines(exchange).into_iter().skip(1));
        show_view(state, title, lines, Vec::new());
        return;
    }
    let Some(contents) = words::contents(result) else {
        let mut lines =
            vec!["a result sightline cannot read: no `contents` array (the frame is below)".into()];
        lines.extend(failure_lines(exchange).into_iter().skip(1));
        show_view(state, title, lines, Vec::new());
        return;
    };
    let plural = if contents.len() == 1 { "" } else { "s" };
    // Detail's title names the read: the contents come first, for 24 rows to show them.
    let mut lines = Vec::new();
    for (index, content) in contents.iter().enumerate() {
        if index > 0 {
            lines.push(String::new());
        }
        lines.extend(content_lines(content));
    }
    if let Some(hint) = words::cache_hint(result) {
        lines.push(String::new());
        lines.push(hint);
    }
    inform(
        state,
        format!(
            "read {}: {} content{plural}",
            sanitize::text(uri),
            contents.len()
        ),
    );
    show_view(state, title, lines, contents);
}

/// A content as Detail shows it: its heading, then its text, or what a blob is.
pub(super) fn content_lines(content: &Content) -> Vec<String> {
    let mut lines = vec![format!("── {}", content.heading())];
    match &content.body {
        Body::Text(text) => lines.extend(text_lines(text)),
        Body::Blob(Ok(_)) => lines.push("binary: D saves the decoded bytes to a file".into()),
        Body::Blob(Err(_)) | Body::Neither => {}
    }
    lines
}

/// Why a 2026-07-28 result is not the contents.
fn incomplete(result: &Json) -> Option<String> {
    match result_type(result) {
        ResultType::Complete => None,
        ResultType::InputRequired => Some(
            "input_required: the server needs input first (2026-07-28 multi round-trip); \
             sightline does not answer it for a read"
                .into(),
        ),
        ResultType::Task => Some("a task handle (resultType 'task'), not the contents".into()),
        ResultType::Unknown(kind) => Some(format!(
            "resultType '{}' is not one 2026-07-28 defines",
            sanitize::text(&kind)
        )),
    }
}

/// `D`: the first content of the view to a file named after its URI (bytes for a blob).
pub(super) fn save_contents(state: &mut AppState) -> Vec<Effect> {
    let Some(view) = state.catalog.shown_view(state.log.selected) else {
        complain(state, "nothing to save: read a resource first".into());
        return Vec::new();
    };
    let Some(first) = view.contents.first() else {
        complain(state, "nothing to save: this view has no contents".into());
        return Vec::new();
    };
    let Some(bytes) = first.bytes() else {
        let why = format!("nothing to save: {}", first.heading());
        complain(state, why);
        return Vec::new();
    };
    let path = file_name(first.uri.as_deref().unwrap_or_default());
    vec![Effect::SaveBytes {
        path,
        bytes: bytes.to_vec(),
    }]
}

/// A file name in the current directory from the last segment of `uri`: only letters, digits,
/// `.`, `-` and `_` (a server's URI never names a path outside it).
fn file_name(uri: &str) -> String {
    let last = uri
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or_default();
    let safe: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() {
        "sightline-resource.bin".to_owned()
    } else {
        format!("sightline-{safe}")
    }
}

/// The runtime wrote (or could not write) the saved contents.
pub(super) fn saved(state: &mut AppState, path: &str, result: Result<usize, String>) {
    let path = sanitize::text(path).into_owned();
    match result {
        Ok(bytes) => inform(state, format!("saved {bytes} bytes to {path}")),
        Err(error) => complain(
            state,
            format!("could not save {path}: {}", sanitize::text(&error)),
        ),
    }
}

/// The `resource_link`s and embedded `resource`s in a result's `content`, in order.
fn links(result: &Value) -> Vec<Value> {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|content| {
            content
                .iter()
                .filter(|item| {
                    matches!(
                        item.get("type").and_then(Value::as_str),
                        Some("resource_link" | "resource")
                    )
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// `o` in Detail or the model pane: the next resource the current call's result links to or
/// embeds. A link is read; an embedded resource shows its contents at once.
pub(super) fn open_link(state: &mut AppState) -> Vec<Effect> {
    let result = state
        .current_call_index()
        .and_then(|index| state.whole_call(index))
        .and_then(|call| match call.exchange.reply() {
            Some(Reply::Result(result)) => Some(result.value()),
            _ => None,
        });
    let found = result.as_ref().map(links).unwrap_or_default();
    if found.is_empty() {
        complain(
            state,
            "the call's result links to no resource and embeds none".into(),
        );
        return Vec::new();
    }
    let at = state.catalog.next_link % found.len();
    state.catalog.next_link = at + 1;
    let Some(item) = found.get(at) else {
        return Vec::new();
    };
    let count = format!("{} of {}", at + 1, found.len());
    state.catalog.shelf = Shelf::Resources;
    if item.get("type").and_then(Value::as_str) == Some("resource_link") {
        let Some(uri) = item.get("uri").and_then(Value::as_str) else {
            complain(state, format!("link {count} has no uri"));
            return Vec::new();
        };
        let uri = uri.to_owned();
        return read(state, &uri);
    }
    let Some(resource) = item.get("resource") else {
        complain(state, format!("embedded resource {count} has no resource"));
        return Vec::new();
    };
    let content = Content::of(&Json::from_value(resource));
    let uri = content.uri.as_deref().unwrap_or("(no uri)");
    let title = format!("embedded {}", sanitize::text(uri));
    let mut lines = vec![format!("embedded resource {count} of the call's result")];
    lines.push(String::new());
    lines.extend(content_lines(&content));
    inform(
        state,
        format!("embedded resource {count}: o opens the next"),
    );
    show_view(state, title, lines, vec![content]);
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn a_saved_file_is_named_after_the_uri_and_stays_in_the_directory() {
        assert_eq!(file_name("demo://logo.png"), "sightline-logo.png");
        assert_eq!(file_name("file:///etc/../passwd"), "sightline-passwd");
        assert_eq!(file_name("demo://x/.."), "sightline-resource.bin");
        assert_eq!(file_name("weird://a b"), "sightline-a_b");
    }
}
