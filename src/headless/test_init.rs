//! `sightline test FILE --init RECORDING`: a test file written from a recording, each
//! `tools/call` a case expecting what happened then (under the spec's reading and the default
//! host), so a bug seen once is a regression test.

use std::path::Path;

use crate::analysis::CallContext;
use crate::mcp::catalog::Catalog;
use crate::mcp::log::SessionEvent;
use crate::model_view::hosts::{self, HostProfile};
use crate::suite::{self, ServerSpec, Suite};
use crate::time::Date;

/// Writes `file` from `recording`; what was written, in words.
pub fn init(file: &Path, recording: &Path) -> Result<String, String> {
    if file.exists() {
        return Err(format!("{} exists; not overwritten", file.display()));
    }
    let path = recording.to_string_lossy();
    let mut reader = crate::recording::open(&path).map_err(|error| error.to_string())?;
    let day = Date::from_unix_seconds(i64::try_from(reader.header.started_ms / 1000).unwrap_or(0));
    let transport = reader.header.transport.clone();
    let hosts = judged_by()?;
    let mut version = "unknown".to_owned();
    let mut catalog: Option<std::sync::Arc<Catalog>> = None;
    let mut cases = Vec::new();
    for event in reader.by_ref() {
        match event.map_err(|error| error.to_string())? {
            SessionEvent::Connected(connected) => version.clone_from(&connected.protocol_version),
            SessionEvent::ToolsListed(tools) => catalog = Some(tools),
            SessionEvent::CallFinished(finished) if finished.exchange.method == "tools/call" => {
                let exchange = finished.exchange;
                let params = exchange.params().cloned().unwrap_or_default();
                let Some(tool) = params.get("name").and_then(serde_json::Value::as_str) else {
                    continue;
                };
                let arguments = params.get("arguments").cloned().unwrap_or_default();
                let context = CallContext {
                    version: &version,
                    catalog: catalog.as_deref(),
                    host: &hosts[0],
                    forward_protocol_errors: false,
                };
                let observed = suite::observe(&exchange, &context, &hosts);
                let name = format!("{tool} (call {} of the recording)", cases.len() + 1);
                cases.push(suite::case_from(name, tool, &arguments, &observed, day));
            }
            _ => {}
        }
    }
    if cases.is_empty() {
        return Err(format!("{path}: no tools/call to write a case from"));
    }
    let suite = Suite {
        server: demo_style(&transport).map(|style| ServerSpec {
            demo: Some(style.to_owned()),
            ..ServerSpec::default()
        }),
        cases,
    };
    let mut text = format!(
        "# Written by `sightline test --init {path}`: each call of the recording, expecting what\n\
         # happened then. Recorded against: {}\n",
        crate::sanitize::text(&transport)
    );
    if suite.server.is_none() {
        text.push_str("# Name the server in [server] or on the command line (-- CMD, --url).\n");
    }
    text.push('\n');
    text.push_str(&suite::to_toml(&suite)?);
    std::fs::write(file, text).map_err(|error| format!("{}: {error}", file.display()))?;
    Ok(format!(
        "wrote {} case{} to {}; run: sightline test {}",
        suite.cases.len(),
        if suite.cases.len() == 1 { "" } else { "s" },
        file.display(),
        file.display()
    ))
}

/// The profiles a written case asserts: the spec's reading, and the default host when one is set.
fn judged_by() -> Result<Vec<HostProfile>, String> {
    let user = crate::config::user_host_profiles()?;
    let mut judged = vec![hosts::resolve("spec", &user)?];
    if let Some(default) = crate::config::default_host()
        && default != "spec"
    {
        judged.push(hosts::resolve(&default, &user)?);
    }
    Ok(judged)
}

/// The built-in demo's style, when the recording's server was it.
fn demo_style(transport: &str) -> Option<&str> {
    let (_, style) = transport.split_once("demo-server --style ")?;
    Some(style.split_whitespace().next().unwrap_or(style))
}
