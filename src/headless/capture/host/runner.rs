//! Library hosts: a runner script (one of sightline's, or the user's) run by Python or Node
//! against the mock model and the server, the library's version read from its package.

use std::path::Path;
use std::process::Output;

use super::file::Runner;
use super::{Launch, Setup};
use crate::cli::CaptureArgs;

/// The runners sightline embeds, by the name a host file gives them.
const EMBEDDED: &[(&str, &str)] = &[
    (
        "openai_agents.py",
        include_str!("../runners/openai_agents.py"),
    ),
    ("langchain.py", include_str!("../runners/langchain.py")),
    ("vercel_ai.mjs", include_str!("../runners/vercel_ai.mjs")),
];

/// The language a runner script is run by.
#[derive(PartialEq)]
enum Language {
    Python,
    Node,
}

impl Runner {
    fn language(&self) -> Language {
        let extension = Path::new(&self.script).extension();
        if extension.is_some_and(|extension| extension.eq_ignore_ascii_case("py")) {
            Language::Python
        } else {
            Language::Node
        }
    }

    /// The script's text: an embedded runner, or the user's file.
    fn text(&self) -> Result<String, String> {
        if let Some((_, text)) = EMBEDDED.iter().find(|(name, _)| *name == self.script) {
            return Ok((*text).to_owned());
        }
        std::fs::read_to_string(&self.script)
            .map_err(|error| format!("runner {}: {error}", self.script))
    }

    /// The interpreter: `--python`, else the runner's own test venv, else the peers' venv or
    /// `python3`; `--node`, else `node`.
    fn interpreter(&self, args: &CaptureArgs) -> String {
        match self.language() {
            Language::Node => args.node.clone().unwrap_or_else(|| "node".to_owned()),
            Language::Python => {
                // The runner's own venv, here or in the checkout sightline was built from.
                let own = self.python.as_deref().and_then(|own| {
                    [Path::new(own).to_path_buf(), super::in_checkout(own)]
                        .into_iter()
                        .find(|path| path.exists())
                });
                match own {
                    Some(own) if args.python.is_none() => {
                        let mut chosen = args.clone();
                        chosen.python = Some(own.to_string_lossy().into_owned());
                        super::python(&chosen)
                    }
                    _ => super::python(args),
                }
            }
        }
    }

    /// The library's version, or why it cannot be run (with the command that installs it).
    pub(super) fn probe(&self, args: &CaptureArgs, install: &str) -> Result<String, String> {
        let interpreter = self.interpreter(args);
        if self.language() == Language::Python {
            return super::python_version(&interpreter, &self.package, install);
        }
        let modules = super::node_modules(args);
        // Each required package is looked for, and the package's version is printed; a
        // missing one is named on one line.
        let script = "const [m, p, ...r] = process.argv.slice(1); \
                      try { \
                        for (const q of r) require(m + '/' + q + '/package.json'); \
                        console.log(require(m + '/' + p + '/package.json').version); \
                      } catch (e) { console.error(e.message.split('\\n')[0]); process.exit(1); }";
        let mut probe = vec!["-e", script, &modules, &self.package];
        probe.extend(self.requires.iter().map(String::as_str));
        super::run_quietly(&interpreter, &probe, &[]).map_err(|error| {
            format!(
                "{} is not in {modules} ({error}); install it with `{install}` (or name the \
                 modules with --node-path)",
                self.package
            )
        })
    }

    /// The interpreter with the script, written into the capture's directory, and its spec.
    pub(super) fn launch(&self, setup: &Setup) -> Result<Launch, String> {
        let file = Path::new(&self.script)
            .file_name()
            .map_or_else(|| "runner".into(), |name| name.to_string_lossy());
        let script = setup.dir.join(format!("runner_{file}"));
        let mut spec = serde_json::json!({"server": setup.server, "env": setup.server_env});
        let mut env = Vec::new();
        if self.language() == Language::Node {
            spec["modules"] = super::node_modules(setup.args).into();
        } else {
            env.extend(
                [("PYTHONNOUSERSITE", "1"), ("PYTHONDONTWRITEBYTECODE", "1")]
                    .map(|(key, value)| (key.to_owned(), value.to_owned())),
            );
        }
        for (key, value) in &self.options {
            spec[key] = value.clone();
        }
        Ok(Launch {
            program: self.interpreter(setup.args),
            args: vec![script.to_string_lossy().into_owned(), spec.to_string()],
            env,
            files: vec![(script, self.text()?)],
        })
    }
}

/// The last JSON line a runner printed, with `run_error` in it.
pub(super) fn error(output: &Output) -> Option<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())?
        .get("run_error")?
        .as_str()
        .map(str::to_owned)
}
