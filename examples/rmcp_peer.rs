//! `rmcp_peer` — an independent MCP server over stdio, built with the official
//! Rust SDK (`rmcp` 3.11.0), used as the far end of sightline's end-to-end
//! interop tests.
//!
//! Start it with no arguments and no environment variables:
//!
//! ```text
//! cargo build --example rmcp_peer
//! target/debug/examples/rmcp_peer
//! ```
//!
//! With `--http` it serves the same tools over rmcp's Streamable HTTP service on a loopback
//! port, printing the URL first.
//!
//! It speaks newline-delimited JSON-RPC on stdin/stdout and serves **both**
//! protocol eras from the same binary; rmcp picks the lifecycle from the first
//! request it sees:
//!
//! * legacy (≤ 2025-11-25): `initialize` → `notifications/initialized` →
//!   `tools/list` / `tools/call`;
//! * modern stateless (2026-07-28): no `initialize`; optionally a
//!   `server/discover` probe (answered without committing to an era), then
//!   `tools/list` / `tools/call`, each carrying the
//!   `io.modelcontextprotocol/{protocolVersion,clientCapabilities,clientInfo}`
//!   keys in `params._meta`.
//!
//! Nothing but JSON-RPC is ever written to stdout (rmcp logs through `tracing`,
//! and no subscriber is installed). The process exits with status 0 when stdin
//! closes, including after a discover-only session.
//!
//! Tools (rmcp's router lists them sorted by name, so `tools/list` shows
//! `divide` before `echo`):
//!
//! * `echo` — `{ "text": string }` (typed, schema from `schemars`); returns the
//!   text as a single text content block.
//! * `divide` — untyped object with numbers `a` and `b`; `b == 0` yields a tool
//!   error result (`isError: true`, text `division by zero`), a missing or
//!   non-numeric `a`/`b` yields JSON-RPC error -32602 naming the field, and
//!   otherwise the quotient is returned as text.
//! * `confirm` — `{ "date": string }`; asks the client with `elicitation/create` (legacy era; a
//!   2026-07-28 session gets rmcp's own refusal) and says whether the user confirmed.
//! * `summarise` — `{ "text": string }`; asks the client's model with `sampling/createMessage`
//!   and returns its text.

use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{
        CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
    },
    schemars,
    service::ServerInitializeError,
    tool, tool_handler, tool_router,
    transport::stdio,
};
use serde::Deserialize;

/// Arguments of the `confirm` tool.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ConfirmArgs {
    /// The date to confirm, as the user will see it.
    date: String,
}

/// Arguments of the `summarise` tool.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct SummariseArgs {
    /// The text to summarise.
    text: String,
}

/// Arguments of the `echo` tool.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// Text to send back.
    text: String,
}

#[derive(Debug, Clone)]
struct Peer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Peer {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Echo the given text back as a text content block.",
        annotations(read_only_hint = true)
    )]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    #[tool(description = "Ask the user to confirm a date (elicitation/create).")]
    async fn confirm(
        &self,
        Parameters(ConfirmArgs { date }): Parameters<ConfirmArgs>,
        peer: rmcp::Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let params = serde_json::from_value(serde_json::json!({
            "mode": "form",
            "message": format!("Confirm {date}?"),
            "requestedSchema": {
                "type": "object",
                "properties": {"confirm": {"type": "boolean", "default": false}},
                "required": ["confirm"]
            }
        }))
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let answer = peer
            .create_elicitation(params)
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let confirmed = answer
            .content
            .as_ref()
            .and_then(|content| content.get("confirm"))
            .and_then(serde_json::Value::as_bool)
            == Some(true);
        let text = if confirmed {
            format!("Confirmed {date}")
        } else {
            format!("Not confirmed ({:?})", answer.action).to_lowercase()
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    #[tool(description = "Summarise a text with the client's model (sampling/createMessage).")]
    async fn summarise(
        &self,
        Parameters(SummariseArgs { text }): Parameters<SummariseArgs>,
        peer: rmcp::Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let params = serde_json::from_value(serde_json::json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Summarise: {text}")}}],
            "maxTokens": 50
        }))
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        #[allow(deprecated)] // sampling is deprecated by SEP-2577, and still what servers send
        let sampled = peer
            .create_message(params)
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        // Read from the wire shape: the result's fields are deprecated in rmcp's types.
        let reply = serde_json::to_value(&sampled)
            .ok()
            .and_then(|result| {
                let text = result.pointer("/content/text")?;
                text.as_str().map(str::to_owned)
            })
            .unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "Summary: {reply}"
        ))]))
    }

    /// Reads its raw arguments itself (the schema is declared by hand), so a bad argument is
    /// the JSON-RPC -32602 its helper returns, not rmcp's own `isError`.
    #[tool(
        description = "Divide number `a` by number `b`.",
        input_schema = divide_schema(),
        annotations(read_only_hint = true)
    )]
    async fn divide(&self, args: JsonObject) -> Result<CallToolResult, ErrorData> {
        let a = number_arg(&args, "a")?;
        let b = number_arg(&args, "b")?;
        if b == 0.0 {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "division by zero",
            )]));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(
            (a / b).to_string(),
        )]))
    }
}

/// `divide`'s input: two required numbers.
fn divide_schema() -> std::sync::Arc<JsonObject> {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"]
    });
    match schema {
        serde_json::Value::Object(object) => std::sync::Arc::new(object),
        _ => std::sync::Arc::default(),
    }
}

/// Reads a required numeric argument, or fails with JSON-RPC -32602.
fn number_arg(args: &JsonObject, name: &str) -> Result<f64, ErrorData> {
    match args.get(name) {
        None => Err(ErrorData::invalid_params(
            format!("missing required argument `{name}`"),
            None,
        )),
        Some(value) => value.as_f64().ok_or_else(|| {
            ErrorData::invalid_params(format!("argument `{name}` must be a number"), None)
        }),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        // Fixed version (not CARGO_PKG_VERSION) so test assertions stay stable.
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rmcp-peer", "0.1.0"))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|arg| arg == "--http") {
        return serve_http().await;
    }
    let service = match Peer::new().serve(stdio()).await {
        Ok(service) => service,
        // stdin closed before any lifecycle was selected, e.g. a client that
        // only sent `server/discover` (or nothing at all): a clean shutdown.
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(error) => return Err(error.into()),
    };
    service.waiting().await?;
    Ok(())
}

/// With `--http`: the same tools over rmcp's own Streamable HTTP service (both eras, legacy
/// sessions on), on a loopback port whose URL is printed first.
async fn serve_http() -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let service = StreamableHttpService::new(
        || Ok(Peer::new()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    loop {
        let (stream, _) = listener.accept().await?;
        let service = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}
