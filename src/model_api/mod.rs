//! The model APIs sightline speaks, sans I/O: a conversation and the tools a host offers as a
//! request body, a response body as the model's turn, for `agent` and the TUI's Chat pane alike.

pub mod anthropic;
pub mod chat;
pub mod gemini;
pub mod responses;
pub mod stream;
pub mod turns;

use serde_json::Value;

use crate::mcp::catalog::Catalog;
use crate::model_view::hosts::Shape;
pub use turns::{CallRecord, Ending, Message, Offered, ToolCall, Turn, Usage, repeats, tool_for};

/// A model API sightline speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `OpenAI` Chat Completions (`openai:`), any compatible endpoint.
    Chat,
    /// Anthropic Messages (`anthropic:`).
    Anthropic,
    /// `OpenAI` Responses (`openai-responses:`).
    Responses,
    /// Gemini `generateContent` (`gemini:`).
    Gemini,
}

/// The providers `--model PROVIDER:MODEL` knows, for an error that lists them.
pub const PROVIDERS: &str = "`openai` (Chat Completions, any OpenAI-compatible endpoint with \
     --model-url), `openai-responses` (Responses), `anthropic` (Messages) or `gemini` \
     (generateContent)";

impl Api {
    /// The API a `--model` provider names: its default base URL, its key's variable and the
    /// path its requests go to.
    pub fn of(provider: &str) -> Option<(Api, &'static str, &'static str, &'static str)> {
        match provider {
            "openai" => Some((
                Api::Chat,
                "https://api.openai.com/v1",
                "OPENAI_API_KEY",
                "/chat/completions",
            )),
            "anthropic" => Some((
                Api::Anthropic,
                "https://api.anthropic.com",
                "ANTHROPIC_API_KEY",
                "/v1/messages",
            )),
            "gemini" => Some((
                Api::Gemini,
                "https://generativelanguage.googleapis.com",
                "GEMINI_API_KEY",
                "/v1beta/models/{model}:generateContent",
            )),
            "openai-responses" => Some((
                Api::Responses,
                "https://api.openai.com/v1",
                "OPENAI_API_KEY",
                "/responses",
            )),
            _ => None,
        }
    }

    /// The message shape of the hosts that speak it: their own result message goes as it is.
    pub fn shape(self) -> Shape {
        match self {
            Api::Chat => Shape::OpenaiChat,
            Api::Anthropic => Shape::AnthropicMessages,
            Api::Responses => Shape::OpenaiResponses,
            Api::Gemini => Shape::GeminiFunctionResponse,
        }
    }

    /// The request body for the model's next turn.
    pub fn request(self, model: &str, conversation: &[Message], offered: &[Offered]) -> Value {
        match self {
            Api::Chat => chat::request(model, conversation, offered),
            Api::Anthropic => anthropic::request(model, conversation, offered),
            Api::Responses => responses::request(model, conversation, offered),
            Api::Gemini => gemini::request(conversation, offered),
        }
    }

    /// Its name in a transcript's `model` line.
    pub fn name(self) -> &'static str {
        match self {
            Api::Chat => "chat",
            Api::Anthropic => "messages",
            Api::Responses => "responses",
            Api::Gemini => "gemini",
        }
    }

    /// The API a transcript's `model` line names.
    pub fn named(name: &str) -> Option<Api> {
        [Api::Chat, Api::Anthropic, Api::Responses, Api::Gemini]
            .into_iter()
            .find(|api| api.name() == name)
    }

    /// The model's turn a response body holds, or why it holds none.
    pub fn turn(self, body: &Value) -> Result<Turn, String> {
        match self {
            Api::Chat => chat::turn(body),
            Api::Anthropic => anthropic::turn(body),
            Api::Responses => responses::turn(body),
            Api::Gemini => gemini::turn(body),
        }
    }
}

/// How a host names the server's tools to its model (its run table's first `tool_names`
/// template, and the characters and length its model API allows).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolNaming {
    /// E.g. `mcp__{server}__{tool}`; empty: the tool's own name.
    pub template: String,
    /// Characters allowed besides ASCII letters and digits, and the longest name, if limited.
    pub rule: Option<(String, usize)>,
}

/// The server's name in the tool names a host makes (`mcp__srv__book_flight`).
pub const SERVER_NAME: &str = "srv";

impl ToolNaming {
    /// The name the model calls `tool` by.
    pub fn name(&self, tool: &str) -> String {
        if self.template.is_empty() {
            return tool.to_owned();
        }
        let name = crate::model_view::hosts::fill_exact(
            &self.template,
            &[("server", SERVER_NAME), ("tool", tool)],
        );
        match &self.rule {
            Some((allowed, max)) => valid_name(&name, allowed, *max),
            None => name,
        }
    }
}

/// `name` as an API that allows only ASCII letters, digits and `allowed` (others become `_`,
/// one per UTF-16 unit), a leading letter or `_`, and `max` characters (the middle cut to
/// `...`) takes it.
pub fn valid_name(name: &str, allowed: &str, max: usize) -> String {
    let mut valid: String = name
        .chars()
        .flat_map(|c| {
            let kept = c.is_ascii_alphanumeric() || allowed.contains(c);
            let (c, times) = if kept { (c, 1) } else { ('_', c.len_utf16()) };
            std::iter::repeat_n(c, times)
        })
        .collect();
    if !valid.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        valid.insert(0, '_');
    }
    let count = valid.chars().count();
    if count > max {
        let side = max.saturating_sub(3) / 2;
        let head: String = valid.chars().take(side).collect();
        let tail: String = valid.chars().skip(count - side).collect();
        valid = format!("{head}...{tail}");
    }
    valid
}

/// The server's tools as the host offers them: under the host's names for them.
pub fn offer(catalog: &Catalog, naming: &ToolNaming) -> Vec<Offered> {
    catalog
        .iter()
        .map(|tool| {
            let raw: Value = serde_json::from_str(tool.raw.text()).unwrap_or_default();
            let description = raw
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let schema = raw
                .get("inputSchema")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object"}));
            Offered {
                name: naming.name(&tool.name),
                tool: tool.name.to_string(),
                description,
                schema,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_names_a_tool_by_its_template_within_its_rule() {
        let claude = ToolNaming {
            template: "mcp__{server}__{tool}".into(),
            rule: None,
        };
        assert_eq!(claude.name("book_flight"), "mcp__srv__book_flight");
        let gemini = ToolNaming {
            template: "mcp_{server}_{tool}".into(),
            rule: Some(("_-.:".into(), 20)),
        };
        assert_eq!(gemini.name("book flight"), "mcp_srv_book_flight");
        assert_eq!(
            gemini.name("a_very_long_tool_name_indeed"),
            "mcp_srv_...e_indeed"
        );
        assert_eq!(ToolNaming::default().name("book_flight"), "book_flight");
    }
}
