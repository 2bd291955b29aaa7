//! The arguments of the headless commands that act on one server: `call`, `capture`, `audit`.

use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct CallArgs {
    /// The tool name.
    pub tool: String,
    /// The `arguments` value as JSON, sent exactly as given (`-` reads stdin).
    #[arg(default_value = "{}")]
    pub args: String,
    /// Host profile for "what the model sees": spec, content-only, structured-first, or one
    /// from ~/.config/sightline/hosts.toml.
    #[arg(long, value_name = "PROFILE", default_value = "spec")]
    pub host: String,
    /// Apply the MAY rule: forward protocol errors to the model.
    #[arg(long)]
    pub forward_protocol_errors: bool,
    /// With --json: add `model_view.payload`, the message the host would send its model
    /// (it repeats the result text once more).
    #[arg(long, requires = "json")]
    pub payload: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CaptureArgs {
    /// The host to run: a built-in host file's (claude-code, codex, copilot-cli, gemini-cli,
    /// langchain, openai-agents, opencode, qwen-code, qwen-code-direct, vercel-ai,
    /// vercel-ai-chat) or one of yours (`--host-file`, or the config directory's hosts/).
    pub host: String,
    /// A host file (TOML: a `[run.NAME]` table, and the `[hosts.NAME]` profile that predicts
    /// it) to run the host from, instead of the built-in one or the config directory's
    /// `hosts/NAME.toml`.
    #[arg(long, value_name = "FILE")]
    pub host_file: Option<String>,
    /// The tool the mock model calls (by name, whether or not the host lists it).
    pub tool: String,
    /// The arguments the mock model calls it with, as JSON (`-` reads stdin).
    #[arg(default_value = "{}")]
    pub args: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// The Python with the host installed (default: tests/peers/.venv/bin/python if present,
    /// else python3).
    #[arg(long, value_name = "PY")]
    pub python: Option<String>,
    /// The host's program, for the CLI hosts (default: the test peers' copy if installed,
    /// else the name on PATH).
    #[arg(long, value_name = "PATH")]
    pub host_bin: Option<String>,
    /// The Node.js that runs the Vercel AI SDK (default: node).
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// The `node_modules` folder with the Vercel AI SDK (default: the test peers' if
    /// installed, else `./node_modules`).
    #[arg(long, value_name = "DIR")]
    pub node_path: Option<String>,
    /// Also write every request the host sent the mock model to FILE, one JSON object a line
    /// (`path`, `body`): the whole conversation, system prompt and tool list included.
    #[arg(long, value_name = "FILE")]
    pub model_requests: Option<String>,
    /// Give up on the host after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub deadline: u64,
}

#[derive(Debug, Clone, Args)]
pub struct CalibrateArgs {
    /// The host: a built-in one (`sightline hosts`) or a host file's.
    pub host: String,
    /// Exit 1 when any case differs from the profile (for CI, and for host upgrades).
    #[arg(long)]
    pub check: bool,
    /// Write the profile that predicts the host to FILE: the error texts as it sent them
    /// (templates around the server's words), structured content, blocks, argument checks, a
    /// crashed server's words and the cut of long texts fitted to the captures (where it cuts
    /// measured to the byte with more captures).
    #[arg(long, value_name = "FILE")]
    pub write: Option<String>,
    /// The host file to run the host from (see `capture --host-file`).
    #[arg(long, value_name = "FILE")]
    pub host_file: Option<String>,
    /// The host's program (see `capture --host-bin`).
    #[arg(long, value_name = "PATH")]
    pub host_bin: Option<String>,
    /// The Python a runner host runs with (see `capture --python`).
    #[arg(long, value_name = "PY")]
    pub python: Option<String>,
    /// The Node.js a runner host runs with (see `capture --node`).
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// The `node_modules` folder of a Node runner host (see `capture --node-path`).
    #[arg(long, value_name = "DIR")]
    pub node_path: Option<String>,
    /// Give up on the host after this many seconds, each case.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    pub deadline: u64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct AuditArgs {
    /// Send the planned calls without asking (required when not at a terminal).
    #[arg(long)]
    pub yes: bool,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Audit only this tool (repeatable).
    #[arg(long, value_name = "NAME")]
    pub tool: Vec<String>,
    /// Also audit tools that may be destructive (annotated so, or without annotations).
    #[arg(long)]
    pub include_destructive: bool,
    /// The verdicts that fail the run, comma-separated [default: model-blind,lenient,misfiled,unclear]
    #[arg(long, value_name = "VERDICTS")]
    pub fail_on: Option<String>,
    /// Known cases (an earlier `audit --json`, or one `tool/kind/property` key a line): only
    /// new failures fail the run.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<String>,
    /// Also write a JUnit XML report here.
    #[allow(clippy::doc_markdown)] // the help's words, not Markdown
    #[arg(long, value_name = "FILE")]
    pub junit: Option<String>,
    /// Also write a Markdown report here (for a pull-request comment).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<String>,
    /// Fail the run when the score (the share of cases conformant, in percent) is below this,
    /// whatever the verdicts `--fail-on` names.
    #[arg(long, value_name = "SCORE", value_parser = score_in_range)]
    pub fail_under: Option<f64>,
    /// Also write a SARIF 2.1.0 log here (for code scanning: one result per case that is not
    /// conformant).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<String>,
    /// The file in your repository the SARIF results are attached to (code scanning needs one
    /// for each result). Default: the server command's first argument that is a file here (its
    /// script, `server.py`, `dist/index.js`), else the `--config` file.
    #[arg(long, value_name = "PATH", requires = "sarif")]
    pub sarif_location: Option<String>,
    /// Connections auditing tools at once (a tool's cases always share one).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Judge what the model sees as this host would.
    #[arg(long, value_name = "PROFILE", default_value = "spec")]
    pub host: String,
}

/// `--fail-under`: a percentage.
fn score_in_range(text: &str) -> Result<f64, String> {
    let score: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number (a percentage, 0 to 100)"))?;
    if (0.0..=100.0).contains(&score) {
        Ok(score)
    } else {
        Err(format!("{score} is not a percentage (0 to 100)"))
    }
}

#[derive(Debug, Clone, Args)]
pub struct TestArgs {
    /// Test files (TOML: a [server], then [[case]]s; see docs/testing.md).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<std::path::PathBuf>,
    /// Print one JSON object instead of a line per case.
    #[arg(long)]
    pub json: bool,
    /// Also write the results as `JUnit` XML to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<std::path::PathBuf>,
    /// Also write the cases that did not hold as SARIF 2.1.0 (for code scanning) to this file.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<std::path::PathBuf>,
    /// Also write a Markdown summary (a job summary) to this file.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<std::path::PathBuf>,
    /// A fresh session for every case (else one per file, cases in order).
    #[arg(long)]
    pub isolate: bool,
    /// Run one case (the first, or --case) under load instead: --concurrency sessions calling
    /// it until --calls are made or --duration ends; latency percentiles, a histogram,
    /// throughput and the count per class.
    #[arg(long)]
    pub load: bool,
    /// With --load: the case to run, by name.
    #[arg(long, value_name = "NAME", requires = "load")]
    pub case: Option<String>,
    /// With --load: sessions calling at once.
    #[arg(long, value_name = "N", default_value_t = 4, requires = "load")]
    pub concurrency: usize,
    /// With --load: calls in all (100 unless --duration is given).
    #[arg(long, value_name = "N", requires = "load")]
    pub calls: Option<usize>,
    /// With --load: keep calling for this many seconds.
    #[arg(long, value_name = "SECS", requires = "load")]
    pub duration: Option<u64>,
    /// Write FILE (not run it) from this recording (--record, J, proxy): each tools/call a case
    /// that expects what happened then.
    #[arg(long, value_name = "RECORDING")]
    pub init: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct LintArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the findings as SARIF 2.1.0 (for code scanning) to this file.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<String>,
    /// The file of the repository the SARIF results are attached to (default: the server
    /// command's script, else the --config file).
    #[arg(long, value_name = "PATH", requires = "sarif")]
    pub sarif_location: Option<String>,
}
