//! What a host's MCP client makes of a result against the tool's `outputSchema` before the host
//! sees it (`output_check`), pure: the error its SDK throws or raises, in its words, or none.

use serde_json::Value;

use super::hosts::{HostProfile, OutputCheck};
use crate::mcp::catalog::Catalog;
use crate::mcp::jsonrpc::Reply;
use crate::mcp::messages::CallResult;
use crate::mcp::session::Exchange;

/// The client's own error in place of the server's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRefusal {
    /// Whose check: `the MCP TypeScript SDK client`.
    pub client: &'static str,
    /// The `McpError` code (TypeScript SDK); none for the Python SDK's `RuntimeError`.
    pub code: Option<i64>,
    /// The error's words, as the SDK writes them up to the validator's own wording (for the
    /// TypeScript SDK, the message `McpError` is made with: it writes `MCP error CODE: ` before).
    pub message: String,
}

/// The client's refusal of this exchange's result under `host`'s `output_check`, when there is
/// one: only for a `tools/call` result of a listed tool that declares an `outputSchema`.
pub fn client_refusal(
    exchange: &Exchange,
    catalog: Option<&Catalog>,
    host: &HostProfile,
) -> Option<ClientRefusal> {
    if host.output_check == OutputCheck::None || exchange.method != "tools/call" {
        return None;
    }
    let name = exchange.params()?.get("name")?.as_str()?;
    let tool = catalog?.iter().find(|tool| tool.name == name)?;
    let schema = tool.raw.get("outputSchema")?.value();
    let Some(Reply::Result(result)) = exchange.answer() else {
        return None;
    };
    let result = CallResult::read(result);
    let structured = result
        .structured
        .and_then(|text| serde_json::from_str::<Value>(text).ok());
    let broken = structured
        .as_ref()
        .map(|value| crate::schema::output_violations(&schema, value))
        .filter(|found| !found.is_empty());
    match host.output_check {
        OutputCheck::None => None,
        // `if (!result.structuredContent && !result.isError)`, then any structuredContent
        // validated, isError or not (client/index.js, callTool).
        OutputCheck::TypescriptSdk => {
            let client = "the MCP TypeScript SDK client";
            if structured.is_none() && !result.is_error {
                return Some(ClientRefusal {
                    client,
                    code: Some(-32600),
                    message: format!(
                        "Tool {name} has an output schema but did not return structured content"
                    ),
                });
            }
            let broken = broken?;
            Some(ClientRefusal {
                client,
                code: Some(-32602),
                message: format!(
                    "Structured content does not match the tool's output schema: {}",
                    broken.join(", ")
                ),
            })
        }
        // `if not result.isError: await self._validate_tool_result(name, result)`.
        OutputCheck::PythonSdk => {
            let client = "the MCP Python SDK client";
            if result.is_error {
                return None;
            }
            if structured.is_none() {
                return Some(ClientRefusal {
                    client,
                    code: None,
                    message: format!(
                        "Tool {name} has an output schema but did not return structured content"
                    ),
                });
            }
            let broken = broken?;
            Some(ClientRefusal {
                client,
                code: None,
                message: format!(
                    "Invalid structured content returned by tool {name}: {}",
                    broken.first().map_or("", String::as_str)
                ),
            })
        }
    }
}
