//! One audit case judged, pure: the answer's channel against the one the spec version in force
//! asks for, the rule quoted with its version, and what the model would have seen.

use serde::{Deserialize, Serialize};

use super::answer::{self, About};
use super::plan::{Case, CaseKind};
pub use super::quote::SpecQuote;
use super::unknown_tool;
use crate::analysis::{self, CallContext};
use crate::classify::{Class, Outcome};
use crate::mcp::jsonrpc::error_code_name;
use crate::mcp::session::{Exchange, TaskForm};

/// How a case came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Answered on the channel the spec asks for.
    Conformant,
    /// An input validation error answered as a protocol error: the model never learns why.
    ModelBlind,
    /// Invalid input accepted: the tool ran.
    Lenient,
    /// An `isError` result for an unknown tool or a malformed request, -32603 for a
    /// malformed request, or (from 2026-07-28) a code other than -32602 for an unknown tool.
    Misfiled,
    /// No verdict: a timeout, a transport failure, or a tool that asked for input.
    Unclear,
}

impl Verdict {
    pub const ALL: [Verdict; 5] = [
        Verdict::Conformant,
        Verdict::ModelBlind,
        Verdict::Lenient,
        Verdict::Misfiled,
        Verdict::Unclear,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Conformant => "conformant",
            Verdict::ModelBlind => "model-blind",
            Verdict::Lenient => "lenient",
            Verdict::Misfiled => "misfiled",
            Verdict::Unclear => "unclear",
        }
    }

    /// A verdict from its name (`--fail-on`).
    pub fn parse(name: &str) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|verdict| verdict.name() == name)
    }
}

const INPUT_VALIDATION: SpecQuote = SpecQuote {
    version: "2025-11-25",
    source: "server/tools.mdx, Error Handling (SEP-1303)",
    text: "Tool Execution Errors: Reported in tool results with `isError: true`: … Input validation errors (e.g., date in wrong format, value out of range)",
};
const INVALID_ARGUMENTS: SpecQuote = SpecQuote {
    version: "2025-06-18",
    source: "server/tools.mdx, Error Handling",
    text: "Protocol Errors: Standard JSON-RPC errors for issues like: … Invalid arguments",
};
const MALFORMED: SpecQuote = SpecQuote {
    version: "2025-11-25",
    source: "server/tools.mdx, Error Handling",
    text: "Protocol Errors: … Malformed requests (requests that fail to satisfy CallToolRequest schema)",
};
const INVALID_PARAMS: SpecQuote = SpecQuote {
    version: "JSON-RPC 2.0",
    source: "§5.1 Error object",
    text: "-32602 Invalid params: Invalid method parameter(s). -32603 Internal error: Internal JSON-RPC error.",
};

/// A case's verdict, with what it rests on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judged {
    pub verdict: Verdict,
    /// The channel the spec asks for, in words.
    pub expected: &'static str,
    /// What came back, in words: `tool error`, `protocol error -32602 (invalid params)`.
    pub got: String,
    /// Why this verdict, in a sentence.
    pub why: String,
    pub rule: SpecQuote,
    /// A model-blind answer the negotiated version still allowed (SEP-1303 changed it since).
    pub allowed_then: bool,
    /// What the model would have seen, under the host judged for.
    pub model_sees: String,
    /// Whether the host passes anything of it to the model.
    pub forwarded: bool,
    /// What the model of each host calibrated against the real thing reads of this answer.
    pub hosts: Vec<HostConsequence>,
    /// The words of the answer that decided the verdict (`names "departureDate"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// The server's answer, its words in full (a result's text, an error's message and data).
    pub answer: String,
    /// For a failed argument case: whether the message says what to send instead (a format,
    /// the allowed values, a bound), as SEP-1303 advises.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actionable: Option<bool>,
    /// How the case ran as a task, when it did (a tool that requires one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<CaseTask>,
    /// What else the version says of the case, and a proposal that would change it (the
    /// unknown tool's code, SEP-2145).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A case run as a task: its form, and the status it ended with (`None` when the server answered
/// the task-augmented call without creating a task).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseTask {
    pub form: TaskForm,
    pub status: Option<String>,
}

impl CaseTask {
    fn of(exchange: &Exchange) -> Option<Self> {
        if let Some(task) = &exchange.task {
            return Some(CaseTask {
                form: task.form,
                status: Some(task.status.clone()),
            });
        }
        let augmented = exchange
            .params()
            .is_some_and(|params| params.get("task").is_some());
        augmented.then_some(CaseTask {
            form: TaskForm::Augmented,
            status: None,
        })
    }

    /// `ran as a task-augmented request (2025-11-25): ended completed`.
    pub fn words(&self) -> String {
        match &self.status {
            Some(status) => format!("ran as {}: ended {status}", self.form.label()),
            None => format!("sent as {}: the server created no task", self.form.label()),
        }
    }
}

/// What one real host's model makes of a case's answer (its captured profile's prediction).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostConsequence {
    pub host: String,
    pub consequence: Consequence,
    /// False when the host stops the call before the server.
    pub server_called: bool,
    pub model_sees: String,
}

/// The consequence of an answer for one host's model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Consequence {
    /// The server's words reach the model.
    Readable,
    /// Only the host's generic failure text does: the model never learns why.
    ModelBlind,
    /// The host stops the call itself and tells the model why, in its own words.
    HostExplains,
    /// The host stops the call itself with a generic text.
    HostRefusesBlind,
    /// The host fails the run: the model reads nothing.
    RunFails,
}

impl Consequence {
    pub fn name(self) -> &'static str {
        match self {
            Consequence::Readable => "readable",
            Consequence::ModelBlind => "model-blind",
            Consequence::HostExplains => "host-explains",
            Consequence::HostRefusesBlind => "host-refuses-blind",
            Consequence::RunFails => "run-fails",
        }
    }
}

/// Judges the answer to `case`, made under the negotiated `context.version`.
pub fn judge(case: &Case, exchange: &Exchange, context: &CallContext<'_>) -> Judged {
    let (outcome, _) = analysis::judge(exchange, context);
    let view = analysis::view(exchange, &outcome, context);
    let got = match (outcome.class, outcome.code) {
        (Class::ProtocolError, Some(code)) => {
            format!("protocol error {code} ({})", error_code_name(code))
        }
        (Class::TransportFailure, _) => format!(
            "transport failure: {}",
            crate::sanitize::text(&outcome.detail)
        ),
        (class, _) => class.label().to_owned(),
    };
    let old = context.version < INPUT_VALIDATION.version;
    let argument = case.kind.is_argument_error();
    let (verdict, rule, why) = verdict(
        case.kind,
        &outcome,
        !exchange.rounds.is_empty(),
        context.version,
    );
    let words = answer::text(exchange);
    let (verdict, why, evidence) = if argument {
        read_answer(case, &outcome, (verdict, why), &words)
    } else {
        (verdict, why, None)
    };
    let failed = matches!(outcome.class, Class::ToolError | Class::ProtocolError);
    // Whether a message says what to send instead means something only when it is about the
    // case: an answer about something else (a blocker, another argument) is not judged on it.
    let about_the_case = verdict != Verdict::Unclear;
    let actionable =
        (argument && failed && about_the_case).then(|| answer::actionable(&words).is_some());
    let note = (case.kind == CaseKind::UnknownTool)
        .then(|| unknown_tool::note(context.version, outcome.code));
    Judged {
        note,
        evidence,
        answer: crate::sanitize::text_keeping_newlines(&words),
        actionable,
        task: CaseTask::of(exchange),
        allowed_then: verdict == Verdict::ModelBlind && old,
        verdict,
        expected: if argument {
            "tool error (isError: true)"
        } else {
            "protocol error"
        },
        got,
        why,
        rule,
        model_sees: model_sees(&view),
        forwarded: view.forwarded,
        hosts: per_host(exchange, &outcome, context),
    }
}

/// A failed argument case judged on what its answer says, not only on its channel: a tool error
/// is conformant only when it is about the case; one about something else means the tool ran
/// with the invalid input (lenient); an answer about another argument or a blocker is unclear.
fn read_answer(
    case: &Case,
    outcome: &Outcome,
    (verdict, why): (Verdict, String),
    words: &str,
) -> (Verdict, String, Option<String>) {
    if !matches!(outcome.class, Class::ToolError | Class::ProtocolError) {
        return (verdict, why, None);
    }
    let property = case.property.as_deref().unwrap_or("the argument");
    match answer::about(case, words) {
        About::Case(evidence) => (verdict, why, Some(evidence)),
        About::Blocked { what, evidence } => (
            Verdict::Unclear,
            format!(
                "the answer is about {what}, not the case: nothing in it shows the argument was judged"
            ),
            Some(evidence),
        ),
        About::OtherArgument { name, evidence } => (
            Verdict::Unclear,
            format!(
                "the answer is about '{name}', not '{property}': the server refused the value \
                 the audit sent for '{name}', so '{property}' was not judged"
            ),
            Some(evidence),
        ),
        About::Nothing if words.trim().is_empty() => (
            Verdict::Unclear,
            "the answer has no words to judge".to_owned(),
            None,
        ),
        About::Nothing if outcome.class == Class::ProtocolError => match outcome.code {
            // -32602 says "invalid params" by its code: about the arguments.
            Some(-32602) => (verdict, why, Some("code -32602 (invalid params)".into())),
            _ => (
                Verdict::Unclear,
                "a protocol error whose words are not about the case".to_owned(),
                None,
            ),
        },
        About::Nothing => (
            Verdict::Lenient,
            format!(
                "a tool error, but not about '{property}': the tool ran with the invalid input \
                 and failed for another reason"
            ),
            None,
        ),
    }
}

/// The answer under each captured host profile.
fn per_host(
    exchange: &Exchange,
    outcome: &Outcome,
    context: &CallContext<'_>,
) -> Vec<HostConsequence> {
    crate::model_view::hosts::captured()
        .iter()
        .map(|host| host_consequence(exchange, outcome, context, host))
        .collect()
}

/// What `host`'s model makes of the answer (the MAY rule as the profile has it).
pub fn host_consequence(
    exchange: &Exchange,
    outcome: &Outcome,
    context: &CallContext<'_>,
    host: &crate::model_view::hosts::HostProfile,
) -> HostConsequence {
    let view = analysis::view(
        exchange,
        outcome,
        &CallContext {
            host,
            forward_protocol_errors: false,
            ..*context
        },
    );
    HostConsequence {
        host: host.name.clone(),
        consequence: consequence(&view),
        server_called: view.server_called,
        model_sees: model_sees(&view),
    }
}

fn consequence(view: &crate::model_view::ModelView<'_>) -> Consequence {
    // No block at all: the host ended its run, whether or not it called the server.
    if view.blocks.is_empty() {
        return Consequence::RunFails;
    }
    match (view.server_called, view.forwarded) {
        (true, true) => Consequence::Readable,
        (true, false) => Consequence::ModelBlind,
        (false, _) if view.explains => Consequence::HostExplains,
        (false, _) => Consequence::HostRefusesBlind,
    }
}

/// What the model would have seen, whole (the reports clip it to a line), or that it saw
/// nothing of the answer.
fn model_sees(view: &crate::model_view::ModelView<'_>) -> String {
    if !view.forwarded && view.server_called {
        return format!("nothing of the answer: {}", view.verdict());
    }
    crate::sanitize::text(&view.text()).into_owned()
}

/// The verdict on an answer of class `outcome` to a case of `kind` (`asked`: the tool asked
/// for input on the way), the rule it rests on, and why, under the negotiated `version`.
fn verdict(
    kind: CaseKind,
    outcome: &Outcome,
    asked: bool,
    version: &str,
) -> (Verdict, SpecQuote, String) {
    let old = version < INPUT_VALIDATION.version;
    let argument = kind.is_argument_error();
    let protocol_rule = match kind {
        CaseKind::UnknownTool => unknown_tool::rule(version),
        // Before SEP-1303 a malformed request fell under "Invalid arguments".
        _ if old => INVALID_ARGUMENTS,
        _ => MALFORMED,
    };
    let rule = if argument {
        INPUT_VALIDATION
    } else {
        protocol_rule
    };
    match (outcome.class, argument) {
        (Class::TransportFailure, _) => (Verdict::Unclear, rule, "no answer to judge".to_owned()),
        (_, _) if asked => (
            Verdict::Unclear,
            rule,
            "the tool asked for input the audit does not give (declined)".to_owned(),
        ),
        (Class::ToolError, true) => (
            Verdict::Conformant,
            INPUT_VALIDATION,
            "the model reads why and can correct the call".to_owned(),
        ),
        (Class::ProtocolError, true) if old => (
            Verdict::ModelBlind,
            INVALID_ARGUMENTS,
            format!(
                "allowed by {version} (\"Invalid arguments\" were protocol errors); SEP-1303 made them tool errors in 2025-11-25: clients SHOULD show those to the model, and only MAY show it a protocol error"
            ),
        ),
        (Class::ProtocolError, true) => (
            Verdict::ModelBlind,
            INPUT_VALIDATION,
            "a protocol error: clients only MAY show it to the model (each host's consequence says which do)".to_owned(),
        ),
        (Class::Success, _) => (
            Verdict::Lenient,
            rule,
            if argument {
                "the server accepted input its own schema forbids and ran the tool"
            } else {
                "the server accepted a request the spec calls a protocol error and ran it"
            }
            .to_owned(),
        ),
        (Class::ToolError, false) => (
            Verdict::Misfiled,
            protocol_rule,
            "an isError result where the spec asks for a protocol error".to_owned(),
        ),
        (Class::ProtocolError, false)
            if kind == CaseKind::ArgumentsNotObject && outcome.code == Some(-32603) =>
        {
            (
                Verdict::Misfiled,
                INVALID_PARAMS,
                "-32603 (internal error) for a malformed request: invalid params are -32602"
                    .to_owned(),
            )
        }
        (Class::ProtocolError, false) if kind == CaseKind::UnknownTool => {
            match unknown_tool::wrong_code(version, outcome.code) {
                Some(why) => (Verdict::Misfiled, protocol_rule, why),
                None => (
                    Verdict::Conformant,
                    protocol_rule,
                    "a protocol error, as the spec asks".to_owned(),
                ),
            }
        }
        (Class::ProtocolError, false) => (
            Verdict::Conformant,
            protocol_rule,
            "a protocol error, as the spec asks".to_owned(),
        ),
    }
}
