//! The Vercel AI SDK (`ai` with `@ai-sdk/mcp` and `@ai-sdk/openai`): an embedded Node runner,
//! the `OpenAI` provider pointed at the mock, on the Responses API (the provider's default) or
//! on Chat Completions.

use std::process::Output;

use super::{Host, Launch, Setup};
use crate::cli::CaptureArgs;
use crate::headless::capture::model::Api;

const RUNNER: &str = include_str!("../runners/vercel_ai.mjs");
/// What to install when the SDK is missing (the releases the profiles are calibrated against).
const INSTALL: &str = "npm install ai@6.0.326 @ai-sdk/mcp@1.0.102 @ai-sdk/openai@3.0.141";

/// The SDK on one of the `OpenAI` provider's two APIs.
pub struct VercelAi {
    api: Api,
}

impl VercelAi {
    pub const RESPONSES: VercelAi = VercelAi {
        api: Api::Responses,
    };
    pub const CHAT: VercelAi = VercelAi { api: Api::Chat };
}

impl Host for VercelAi {
    fn name(&self) -> &'static str {
        match self.api {
            Api::Chat => "vercel-ai-chat",
            _ => "vercel-ai",
        }
    }

    fn title(&self) -> &'static str {
        match self.api {
            Api::Chat => "the Vercel AI SDK (Chat Completions)",
            _ => "the Vercel AI SDK (Responses)",
        }
    }

    fn api(&self) -> Api {
        self.api
    }

    fn names(&self, tool: &str) -> Vec<String> {
        vec![tool.to_owned()]
    }

    fn probe(&self, args: &CaptureArgs) -> Result<String, String> {
        let modules = super::node_modules(args);
        // The runner needs all three packages: each is looked for, and `ai`'s version (the
        // one the profile names) is printed; a missing one is named on one line.
        let script = "const m = process.argv[1]; \
                      try { \
                        for (const p of ['@ai-sdk/mcp', '@ai-sdk/openai']) require(m + '/' + p + '/package.json'); \
                        console.log(require(m + '/ai/package.json').version); \
                      } catch (e) { console.error(e.message.split('\\n')[0]); process.exit(1); }";
        super::run_quietly(&node(args), &["-e", script, &modules], None).map_err(|error| {
            format!(
                "the Vercel AI SDK is not in {modules} ({error}); install it with `{INSTALL}` \
                 (or name the modules with --node-path)"
            )
        })
    }

    fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let runner = setup.dir.join("vercel_ai_runner.mjs");
        let api = if self.api == Api::Chat {
            "chat"
        } else {
            "responses"
        };
        let spec = serde_json::json!({
            "server": setup.server, "env": setup.server_env, "api": api,
            "modules": super::node_modules(setup.args),
        });
        Ok(Launch {
            program: node(setup.args),
            args: vec![runner.to_string_lossy().into_owned(), spec.to_string()],
            env: vec![
                ("OPENAI_BASE_URL".into(), format!("{}/v1", setup.model_url)),
                ("OPENAI_API_KEY".into(), "dummy".into()),
            ],
            files: vec![(runner, RUNNER.to_owned())],
        })
    }

    fn run_error(&self, output: &Output) -> Option<String> {
        super::runner_error(output)
    }

    fn flag_note(&self) -> &'static str {
        match self.api {
            Api::Chat => "none (a Chat Completions tool message has no error flag)",
            _ => "none (a function_call_output has no error flag)",
        }
    }
}

fn node(args: &CaptureArgs) -> String {
    args.node.clone().unwrap_or_else(|| "node".to_owned())
}
