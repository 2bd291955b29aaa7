//! `tools/list`, every page, listed again when the server announces a change meanwhile; and the
//! 2026-07-28 check that the server rejects a header contradicting the body.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::json;

use super::requests::Core;
use super::{Done, Event, SessionError, StepOf};
use crate::classify::classify;
use crate::classify::findings::{Direction, Finding, FrameRef, Severity};
use crate::mcp::catalog::Catalog;
use crate::mcp::era;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::log::SessionEvent;
use crate::mcp::messages::tools_page;
use crate::mcp::session::Exchange;

/// Re-fetches of `tools/list` when the server keeps announcing changes.
const MAX_TOOL_REFETCHES: usize = 3;
/// Pages of one `tools/list` listing, at most: a server whose list never ends is stopped.
const MAX_TOOL_PAGES: usize = 1000;
/// Rejected tools named one by one in the log; past that, counted.
const MAX_REJECTION_NOTES: usize = 20;

/// A listing under way.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    tools: Catalog,
    seen_cursors: HashSet<String>,
    pages: usize,
    refetches: usize,
}

impl Listing {
    pub fn start(core: &mut Core) -> StepOf<Self> {
        let listing = Self::default();
        core.tools_changed = false;
        core.request("tools/list", None);
        StepOf::Wait(listing)
    }

    /// The list (or why there is none) is emitted when it ends.
    pub fn on(self, core: &mut Core, event: Event) -> StepOf<Self> {
        let Event::Ended(exchange) = event else {
            return StepOf::Wait(self);
        };
        match self.page(core, &exchange) {
            Paged::More(listing) => StepOf::Wait(listing),
            Paged::Listed(tools) => {
                let tools = Arc::new(tools);
                core.catalog = Some(Arc::clone(&tools));
                core.emit(SessionEvent::ToolsListed(Arc::clone(&tools)));
                StepOf::Done(Some(Done::Tools(Ok(tools))))
            }
            Paged::Failed(error) => {
                core.emit(SessionEvent::ToolsFailed(error.to_string()));
                StepOf::Done(Some(Done::Tools(Err(error))))
            }
        }
    }

    fn page(mut self, core: &mut Core, exchange: &Exchange) -> Paged {
        let unexpected = |reason: String| {
            Paged::Failed(SessionError::UnexpectedResult {
                method: "tools/list".into(),
                reason,
            })
        };
        // Read from the reply in place: a copy of a large listing costs as much as it.
        let Some(Reply::Result(result)) = exchange.reply() else {
            return Paged::Failed(SessionError::Exchange(Box::new(exchange.clone())));
        };
        let Some(page) = tools_page(result) else {
            return unexpected("no `tools` array".into());
        };
        self.pages += 1;
        // `tools_page` found an array: it is counted and kept.
        let _ = self.tools.push_page(page.tools);
        let cursor = match page.next_cursor {
            // 2026-07-28: an empty string is a valid cursor, not the end of results.
            Some(next) if core.modern() || !next.is_empty() => next,
            _ => return self.complete(core),
        };
        if self.seen_cursors.contains(&cursor) {
            return unexpected(format!(
                "cursor '{cursor}' came back twice; stopped to avoid a loop"
            ));
        }
        if self.pages == MAX_TOOL_PAGES {
            return unexpected(format!(
                "{MAX_TOOL_PAGES} pages ({} tools) and still a next cursor; stopped, the list \
                 does not end",
                self.tools.len()
            ));
        }
        self.seen_cursors.insert(cursor.clone());
        core.request("tools/list", Some(json!({"cursor": cursor})));
        Paged::More(self)
    }

    /// All pages read: listed again if the server said the list changed meanwhile.
    fn complete(mut self, core: &mut Core) -> Paged {
        if !core.tools_changed || self.refetches == MAX_TOOL_REFETCHES {
            reject_bad_header_tools(core, &mut self.tools);
            return Paged::Listed(self.tools);
        }
        core.note("notifications/tools/list_changed arrived: fetching tools/list again".into());
        core.tools_changed = false;
        core.request("tools/list", None);
        Paged::More(Self {
            refetches: self.refetches + 1,
            ..Self::default()
        })
    }
}

/// Where a listing is after a page.
enum Paged {
    More(Listing),
    Listed(Catalog),
    Failed(SessionError),
}

/// 2026-07-28 over HTTP: a tool whose `x-mcp-header` breaks the constraints is one a
/// conforming client MUST drop from the listing, with a warning; sightline keeps it, marked
/// with the reason, so that it can still be inspected and called.
fn reject_bad_header_tools(core: &mut Core, tools: &mut Catalog) {
    if !core.modern() || !core.is_http() {
        return;
    }
    let rejected: Vec<(usize, String, String)> = tools
        .iter()
        .enumerate()
        .filter_map(|(index, tool)| Some((index, tool.name.to_string(), tool.header_problem()?)))
        .collect();
    for (_, name, reason) in rejected.iter().take(MAX_REJECTION_NOTES) {
        core.note(format!(
            "tools/list: '{name}' is rejected, as 2026-07-28 asks of HTTP clients ({reason}); a \
             conforming host drops it, sightline keeps it marked"
        ));
    }
    if rejected.len() > MAX_REJECTION_NOTES {
        core.note(format!(
            "tools/list: {} tools rejected for their x-mcp-header in all",
            rejected.len()
        ));
    }
    for (index, _, reason) in rejected {
        tools.reject(index, reason.into());
    }
}

/// The header check's one request is out.
#[derive(Debug)]
pub(crate) struct HeaderCheck;

impl HeaderCheck {
    /// 2026-07-28 over HTTP: sends one `tools/list` whose `Mcp-Method` header says
    /// `prompts/list`, a mismatch the server MUST reject with 400 and -32020
    /// (`HeaderMismatch`). Anywhere else there is nothing to check.
    pub fn start(core: &mut Core) -> StepOf<Self> {
        if !core.modern() || !core.is_http() {
            core.note(
                "header check skipped: only 2026-07-28 servers over HTTP mirror the body in \
                 headers"
                    .into(),
            );
            return StepOf::Done(Some(Done::HeadersChecked(None)));
        }
        core.note(
            "header check: tools/list sent with Mcp-Method: prompts/list, a mismatch the server \
             MUST reject (400, -32020 HeaderMismatch)"
                .into(),
        );
        core.next_overrides = Some(vec![("Mcp-Method".into(), "prompts/list".into())]);
        core.request("tools/list", None);
        StepOf::Wait(Self)
    }

    /// A finding when the server took the mismatch; `None` when it refused it, or there is
    /// no answer to judge.
    pub fn on(self, core: &mut Core, event: Event) -> StepOf<Self> {
        let Event::Ended(exchange) = event else {
            return StepOf::Wait(self);
        };
        let finding = judge(core, &exchange).map(Box::new);
        StepOf::Done(Some(Done::HeadersChecked(finding)))
    }
}

fn judge(core: &mut Core, exchange: &Exchange) -> Option<Finding> {
    let status = exchange.http.as_ref().and_then(|http| http.status);
    let answered = match exchange.reply() {
        Some(Reply::Error(error)) if error.code == era::HEADER_MISMATCH => {
            core.note("header check: rejected with -32020, as the spec asks".into());
            return None;
        }
        None if status == Some(400) => {
            core.note("header check: rejected with HTTP 400 (no JSON-RPC error)".into());
            return None;
        }
        Some(Reply::Error(error)) => format!("with error {} {}", error.code, error.message),
        Some(Reply::Result(_)) => "with the tools/list result, as if nothing were wrong".into(),
        None => {
            let detail = classify(exchange).detail;
            core.note(format!("header check: no answer to judge ({detail})"));
            return None;
        }
    };
    let http = status
        .map(|status| format!("HTTP {status} "))
        .unwrap_or_default();
    let version = core
        .connection
        .as_ref()
        .map_or("2026-07-28", |c| c.protocol_version.as_str());
    let message = format!(
        "{version}: a tools/list whose Mcp-Method header said prompts/list was answered \
         {http}{answered}; servers MUST reject a header that does not match the body with 400 \
         and -32020 HeaderMismatch (streamable-http.mdx, Server Validation), or a proxy routing \
         on headers can be steered past the server's checks"
    );
    let frames = [Direction::Sent, Direction::Received]
        .map(|direction| FrameRef {
            direction,
            id: exchange.id.clone(),
        })
        .to_vec();
    Some(Finding {
        id: "http.headers-not-checked",
        severity: Severity::Warning,
        message,
        frames,
    })
}
