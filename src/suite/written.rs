//! Cases written from what happened (a recording, the TUI's `K`), and a suite as a test file.

use serde_json::Value;

use super::{CaseSpec, Expect, Observed, Suite, class_name};
use crate::time::Date;

/// A case that expects what happened: the class, the code, `isError`, the words (the
/// recording's day in them written as `{today…}`, so the case holds on the day it runs), the
/// findings raised and the SEP-1303 finding when it was not, and what each of `observed`'s
/// hosts made of it; no time, no id.
pub fn case_from(
    name: String,
    tool: &str,
    arguments: &Value,
    observed: &Observed,
    day: Date,
) -> CaseSpec {
    let mut no_findings = Vec::new();
    if !observed.findings.iter().any(|id| id == SEP_1303_FINDING) {
        no_findings.push(SEP_1303_FINDING.to_owned());
    }
    let mut arguments = arguments.clone();
    undated_value(&mut arguments, day);
    CaseSpec {
        name,
        tool: Some(tool.to_owned()),
        arguments: Some(arguments),
        method: None,
        params: None,
        expect: Expect {
            class: Some(class_name(observed.class).to_owned()),
            code: observed.code,
            text: Some(undated(&observed.text, day)),
            is_error: observed.is_error,
            structured: observed.structured.clone(),
            findings: observed.findings.clone(),
            no_findings,
            model_sees: observed
                .hosts
                .iter()
                .map(|seen| (seen.host.clone(), seen.consequence.name().to_owned()))
                .collect(),
            ..Expect::default()
        },
    }
}

/// The start of a test file for a server described as the status line names it: `[server]`
/// for the built-in demo, else a comment saying where to name it.
pub fn file_start(transport: &str) -> String {
    let demo = transport
        .split_once("demo-server --style ")
        .and_then(|(_, style)| style.split_whitespace().next());
    let said = crate::sanitize::text(transport);
    match demo {
        Some(style) => format!("# Recorded against: {said}\n\n[server]\ndemo = \"{style}\"\n\n"),
        None => format!(
            "# Recorded against: {said}\n# Name the server in [server] or on the command line (-- CMD, --url).\n\n"
        ),
    }
}

/// The finding a test written from a recording asserts the absence of, when it was absent.
const SEP_1303_FINDING: &str = "sep1303.validation-as-protocol-error";

/// `text` with `day` (as `dd/mm/yyyy` or `yyyy-mm-dd`) written as the run's date.
pub fn undated(text: &str, day: Date) -> String {
    let european = format!("{:02}/{:02}/{:04}", day.day, day.month, day.year);
    let iso = format!("{:04}-{:02}-{:02}", day.year, day.month, day.day);
    text.replace(&european, "{today:%d/%m/%Y}")
        .replace(&iso, "{today}")
}

fn undated_value(value: &mut Value, day: Date) {
    match value {
        Value::String(text) => *text = undated(text, day),
        Value::Array(items) => items.iter_mut().for_each(|item| undated_value(item, day)),
        Value::Object(members) => members
            .values_mut()
            .for_each(|item| undated_value(item, day)),
        _ => {}
    }
}

/// The suite as a test file. A value TOML cannot hold (`null`) is an error naming the case.
pub fn to_toml(suite: &Suite) -> Result<String, String> {
    for case in &suite.cases {
        toml::to_string(case).map_err(|error| format!("case '{}': {error}", case.name))?;
    }
    toml::to_string(suite).map_err(|error| error.to_string())
}
