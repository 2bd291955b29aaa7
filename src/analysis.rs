//! One call analysis, pure: a finished `tools/call` and what the session knows of it become its
//! class, its findings and what the model sees. The TUI and the headless commands both use it.

use std::borrow::Cow;

use crate::classify::findings::Finding;
use crate::classify::{self, Judgement, Outcome};
use crate::mcp::catalog::Catalog;
use crate::mcp::session::Exchange;
use crate::model_view::hosts::HostProfile;
use crate::model_view::{ModelView, measured, model_view};

/// What the analysis of one call depends on besides the exchange.
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    /// The negotiated protocol version (`"unknown"` when negotiation did not finish).
    pub version: &'a str,
    /// The tools the server listed, when it listed them.
    pub catalog: Option<&'a Catalog>,
    pub host: &'a HostProfile,
    /// The MAY rule: forward protocol errors to the model, on top of the profile's setting.
    pub forward_protocol_errors: bool,
}

/// Everything sightline makes of one call. The view borrows the reply's text.
#[derive(Debug, Clone, PartialEq)]
pub struct CallAnalysis<'a> {
    pub outcome: Outcome,
    pub findings: Vec<Finding>,
    pub view: ModelView<'a>,
}

/// Classifies the exchange, looks for findings and builds what the model sees.
pub fn analyze<'a>(exchange: &'a Exchange, context: &CallContext<'_>) -> CallAnalysis<'a> {
    let judgement = classify::judge(exchange, context.version, context.catalog);
    analyze_judged(exchange, judgement, context)
}

/// The class and the findings, without the view (which depends on the host, and is built for
/// the call on screen only).
pub fn judge(exchange: &Exchange, context: &CallContext<'_>) -> (Outcome, Vec<Finding>) {
    let Judgement {
        outcome,
        mut findings,
    } = classify::judge(exchange, context.version, context.catalog);
    with_measured_consequence(&mut findings, exchange, &outcome, context.version);
    (outcome, findings)
}

/// [`analyze`] of an exchange already judged (by the session that ran it, or by `judge`):
/// only the view is built.
pub fn analyze_judged<'a>(
    exchange: &'a Exchange,
    judgement: Judgement,
    context: &CallContext<'_>,
) -> CallAnalysis<'a> {
    let Judgement {
        outcome,
        mut findings,
    } = judgement;
    with_measured_consequence(&mut findings, exchange, &outcome, context.version);
    let view = view(exchange, &outcome, context);
    findings.extend(view.findings.iter().cloned());
    CallAnalysis {
        outcome,
        findings,
        view,
    }
}

/// What the model sees of an exchange already classified (when only the host or the MAY rule
/// changed, or another call is shown).
pub fn view<'a>(
    exchange: &'a Exchange,
    outcome: &Outcome,
    context: &CallContext<'_>,
) -> ModelView<'a> {
    let host = if context.forward_protocol_errors && !context.host.forward_protocol_errors {
        let mut host = context.host.clone();
        host.forward_protocol_errors = true;
        Cow::Owned(host)
    } else {
        Cow::Borrowed(context.host)
    };
    if let Some(stopped) = stopped_by_host(exchange, context.catalog, &host) {
        return stopped;
    }
    if let Some(refusal) =
        crate::model_view::output_check::client_refusal(exchange, context.catalog, &host)
    {
        return crate::model_view::refused_by_client(exchange, &refusal, context.version, &host);
    }
    let mut view = model_view(exchange, outcome, context.version, &host);
    if let Some((tool, reason)) = rejected_tool(exchange, context.catalog) {
        view.dropped(&tool, &reason);
    }
    // A profile that is no real host's (the spec's reading, a generic API) says what the
    // calibrated hosts do with this very answer: the rule is not the fact.
    if !is_calibrated(context.host)
        && let Some(fates) = measured::fates(exchange, outcome, context.version)
    {
        view.notes.insert(0, measured::summary(&fates));
    }
    view
}

fn is_calibrated(host: &HostProfile) -> bool {
    host.source.as_ref().is_some_and(|source| source.captured)
}

/// The SEP-1303 finding's consequence, counted from the calibrated hosts' profiles: which of
/// them keep their model blind to why the call failed. Idempotent (a finding the session
/// already completed is left as it is).
pub fn with_measured_consequence(
    findings: &mut [Finding],
    exchange: &Exchange,
    outcome: &Outcome,
    version: &str,
) {
    let Some(finding) = findings
        .iter_mut()
        .find(|finding| finding.id == SEP_1303_FINDING && !finding.message.contains(MEASURED))
    else {
        return;
    };
    let Some(fates) = measured::fates(exchange, outcome, version) else {
        return;
    };
    let tool = exchange
        .params()
        .and_then(|params| params.get("name"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    finding.message = format!(
        "{}; {MEASURED} {}",
        finding.message,
        measured::blind_consequence(&fates, tool)
    );
}

const SEP_1303_FINDING: &str = "sep1303.validation-as-protocol-error";
/// Where the measured part of the finding starts.
const MEASURED: &str = "measured:";

/// What the model reads when the host would stop this call before the server.
fn stopped_by_host(
    exchange: &Exchange,
    catalog: Option<&Catalog>,
    host: &HostProfile,
) -> Option<ModelView<'static>> {
    if exchange.method != "tools/call" {
        return None;
    }
    let params = exchange.params()?;
    let tool = params.get("name")?.as_str()?;
    let empty = serde_json::Value::Object(serde_json::Map::new());
    let arguments = params.get("arguments").unwrap_or(&empty);
    crate::model_view::stopped_by_host(tool, arguments, catalog, host)
}

/// The called tool and why the host dropped it, when it did.
fn rejected_tool(exchange: &Exchange, catalog: Option<&Catalog>) -> Option<(String, Box<str>)> {
    if exchange.method != "tools/call" {
        return None;
    }
    let name = exchange.params()?.get("name")?.as_str()?.to_owned();
    let reason = catalog?.find(&name)?.rejected?;
    Some((name, reason))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::classify::Class;
    use crate::classify::fixtures::{call, catalog};
    use crate::model_view::Rule;
    use crate::model_view::hosts::resolve;

    const PAST: &str = "Invalid departure date: must be in the future.";

    fn context<'a>(host: &'a HostProfile, catalog: &'a Catalog, may: bool) -> CallContext<'a> {
        CallContext {
            version: "2025-11-25",
            catalog: Some(catalog),
            host,
            forward_protocol_errors: may,
        }
    }

    #[test]
    fn a_validation_failure_as_32602_is_flagged_and_hidden_from_the_model() {
        let host = resolve("spec", &[]).unwrap();
        let tools = catalog(&["book_flight"]);
        let exchange =
            call("book_flight", json!({"departureDate": "12/12/2024"})).error(-32602, PAST);
        let analysis = analyze(&exchange, &context(&host, &tools, false));
        assert_eq!(analysis.outcome.class, Class::ProtocolError);
        assert_eq!(analysis.findings.len(), 1);
        assert_eq!(
            analysis.findings[0].id,
            "sep1303.validation-as-protocol-error"
        );
        assert!(!analysis.view.forwarded);
        assert!(!analysis.view.text().contains(PAST));
    }

    #[test]
    fn the_sep1303_finding_names_as_blind_exactly_the_calibrated_hosts_whose_model_misses_the_message()
     {
        let spec = resolve("spec", &[]).unwrap();
        let tools = catalog(&["book_flight"]);
        let exchange =
            call("book_flight", json!({"departureDate": "12/12/2024"})).error(-32602, PAST);
        let analysis = analyze(&exchange, &context(&spec, &tools, false));
        let finding = &analysis.findings[0].message;
        let (_, measured) = finding.split_once("measured:").unwrap();
        let (blind, _) = measured.split_once("never").unwrap();
        for host in crate::model_view::hosts::captured() {
            let view = analyze(&exchange, &context(host, &tools, false)).view;
            let reads_why = view.text().contains(PAST);
            assert_eq!(
                blind.contains(host.name.as_str()),
                !reads_why,
                "{}: the finding says {measured:?}, its model reads {:?}",
                host.name,
                view.text()
            );
        }
        assert!(!finding.contains("a host that does not forward"));
        // The spec's own view says what the calibrated hosts do with this answer.
        assert!(analysis.view.notes[0].starts_with("measured: of the "));
    }

    #[test]
    fn the_may_rule_forwards_the_error_text_whatever_the_profile_says() {
        let host = resolve("spec", &[]).unwrap();
        assert!(!host.forward_protocol_errors);
        let tools = catalog(&["book_flight"]);
        let exchange = call("book_flight", json!({})).error(-32602, PAST);
        let analysis = analyze(&exchange, &context(&host, &tools, true));
        assert!(analysis.view.forwarded);
        assert_eq!(analysis.view.rule, Rule::May);
        assert!(analysis.view.text().contains(PAST));
    }

    #[test]
    fn a_tool_error_reaches_the_model_without_a_copy_of_its_text() {
        let host = resolve("spec", &[]).unwrap();
        let tools = catalog(&["book_flight"]);
        let exchange = call("book_flight", json!({})).tool_error(PAST);
        let analysis = analyze(&exchange, &context(&host, &tools, false));
        assert_eq!(analysis.outcome.class, Class::ToolError);
        assert!(analysis.findings.is_empty());
        let crate::model_view::Block::Text { text } = &analysis.view.blocks.to_vec()[0] else {
            panic!("{:?}", analysis.view.blocks);
        };
        assert!(
            matches!(text, Cow::Borrowed(_)),
            "the text must be borrowed"
        );
        assert_eq!(text.as_ref(), PAST);
    }
}
