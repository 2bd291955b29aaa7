//! What the calibrated hosts' models read of one error answer, counted from their built-in
//! profiles (each checked against its real host): the facts beside the spec's MAY and SHOULD.

use super::hosts::{self, HostProfile};
use super::model_view;
use crate::classify::{Class, Outcome};
use crate::mcp::session::Exchange;

/// What one calibrated host's model reads of an error answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// The server's own words reach the model; `marked`: as an error (a flag or a key).
    Shown { marked: bool },
    /// Only the host's own sentence: the model learns that the call failed, not why.
    Generic,
    /// The host ends its whole run: the model reads nothing of the call.
    EndsRun,
}

/// One calibrated host and what its model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFate {
    /// The profile's name (the host's name in `capture`).
    pub host: String,
    pub fate: Fate,
}

/// What each calibrated host's model reads of this answer, when it is an error (a protocol
/// error or `isError`); `None` for a success or no reply.
pub fn fates(exchange: &Exchange, outcome: &Outcome, version: &str) -> Option<Vec<HostFate>> {
    fates_under(hosts::captured(), exchange, outcome, version)
}

/// [`fates`] under the given profiles.
pub fn fates_under(
    profiles: &[HostProfile],
    exchange: &Exchange,
    outcome: &Outcome,
    version: &str,
) -> Option<Vec<HostFate>> {
    if !matches!(outcome.class, Class::ProtocolError | Class::ToolError) {
        return None;
    }
    Some(
        profiles
            .iter()
            .map(|profile| {
                let view = model_view(exchange, outcome, version, profile);
                let fate = if view.blocks.is_empty() {
                    Fate::EndsRun
                } else if view.forwarded {
                    Fate::Shown {
                        marked: view.is_error,
                    }
                } else {
                    Fate::Generic
                };
                HostFate {
                    host: profile.name.clone(),
                    fate,
                }
            })
            .collect(),
    )
}

/// The hosts with one fate, by name, joined: "a, b and c".
fn named(fates: &[HostFate], keep: impl Fn(Fate) -> bool) -> (usize, String) {
    let names: Vec<&str> = fates
        .iter()
        .filter(|fate| keep(fate.fate))
        .map(|fate| fate.host.as_str())
        .collect();
    let joined = match names.as_slice() {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    (names.len(), joined)
}

/// How [`summary`]'s sentence opens: a note that is the measured count.
pub const MEASURED: &str = "measured: ";

/// One sentence: what the calibrated hosts' models read of this answer, counted by fate.
pub fn summary(fates: &[HostFate]) -> String {
    let one = |count: usize, single: &'static str, many: &'static str| {
        if count == 1 { single } else { many }
    };
    let mut parts = Vec::new();
    let (marked, names) = named(fates, |fate| fate == Fate::Shown { marked: true });
    if marked > 0 {
        parts.push(format!(
            "{marked} {} the server's words marked as an error ({names})",
            one(marked, "shows its model", "show their model")
        ));
    }
    let (unmarked, names) = named(fates, |fate| fate == Fate::Shown { marked: false });
    if unmarked > 0 {
        parts.push(format!(
            "{unmarked} {} them with no error mark ({names})",
            one(unmarked, "shows", "show")
        ));
    }
    let (generic, names) = named(fates, |fate| fate == Fate::Generic);
    if generic > 0 {
        parts.push(format!(
            "{generic} only a sentence of {} own ({names})",
            one(generic, "its", "their")
        ));
    }
    let (ends, names) = named(fates, |fate| fate == Fate::EndsRun);
    if ends > 0 {
        parts.push(format!(
            "{ends} {} ({names})",
            one(ends, "ends its run", "end their run")
        ));
    }
    format!(
        "{MEASURED}of the {} calibrated hosts, {}",
        fates.len(),
        join_clauses(&parts)
    )
}

/// The consequence of a protocol error sent for a validation failure, for the SEP-1303
/// finding: which calibrated hosts leave their model blind to why `tool` failed.
pub fn blind_consequence(fates: &[HostFate], tool: &str) -> String {
    let (blind, names) = named(fates, |fate| matches!(fate, Fate::Generic | Fate::EndsRun));
    let shown = fates.len() - blind;
    let others = match shown {
        0 => String::new(),
        _ if blind == 0 => format!(
            "each of the {shown} calibrated hosts shows its model the server's message, as a protocol error \"less likely to result in successful recovery\""
        ),
        1 => "the other calibrated host shows the server's message, as a protocol error".to_owned(),
        _ => format!(
            "the {shown} other calibrated hosts show the server's message, as a protocol error"
        ),
    };
    match blind {
        0 => others,
        _ if shown == 0 => {
            format!("none of the {blind} calibrated hosts shows its model why '{tool}' failed")
        }
        _ => format!(
            "of the {} calibrated hosts, {names} never {} {} model why '{tool}' failed; {others}",
            fates.len(),
            if blind == 1 { "shows" } else { "show" },
            if blind == 1 { "its" } else { "their" },
        ),
    }
}

fn join_clauses(parts: &[String]) -> String {
    match parts {
        [] => "none".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{}, {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;
    use crate::classify;
    use crate::classify::fixtures::{call, catalog};

    const PAST: &str = "Invalid departure date: must be in the future.";

    fn fates_of(exchange: &Exchange) -> Vec<HostFate> {
        let tools = catalog(&["book_flight"]);
        let judged = classify::judge(exchange, "2025-11-25", Some(&tools));
        fates(exchange, &judged.outcome, "2025-11-25").unwrap()
    }

    #[test]
    fn every_calibrated_host_has_a_fate_read_from_its_own_view() {
        let exchange = call("book_flight", json!({})).error(-32602, PAST);
        let fates = fates_of(&exchange);
        assert_eq!(fates.len(), hosts::captured().len());
        let tools = catalog(&["book_flight"]);
        let judged = classify::judge(&exchange, "2025-11-25", Some(&tools));
        for (fate, profile) in fates.iter().zip(hosts::captured()) {
            let view = model_view(&exchange, &judged.outcome, "2025-11-25", profile);
            match fate.fate {
                Fate::Shown { marked } => {
                    assert!(view.text().contains(PAST), "{}", fate.host);
                    assert_eq!(marked, view.is_error, "{}", fate.host);
                }
                Fate::Generic => assert!(!view.text().contains(PAST), "{}", fate.host),
                Fate::EndsRun => assert!(view.blocks.is_empty(), "{}", fate.host),
            }
        }
    }

    #[test]
    fn gemini_cli_marks_an_error_by_its_key_though_it_has_no_flag() {
        let exchange = call("book_flight", json!({})).error(-32602, PAST);
        let fates = fates_of(&exchange);
        let gemini = fates.iter().find(|fate| fate.host == "gemini-cli").unwrap();
        assert_eq!(gemini.fate, Fate::Shown { marked: true });
    }

    #[test]
    fn a_success_has_no_fates() {
        let exchange = call("book_flight", json!({})).result(json!({"content": []}));
        let tools = catalog(&["book_flight"]);
        let judged = classify::judge(&exchange, "2025-11-25", Some(&tools));
        assert!(fates(&exchange, &judged.outcome, "2025-11-25").is_none());
    }

    #[test]
    fn the_summary_counts_each_fate_and_names_its_hosts() {
        let fates = [
            ("a", Fate::Shown { marked: true }),
            ("b", Fate::Shown { marked: true }),
            ("c", Fate::Shown { marked: false }),
            ("d", Fate::Generic),
            ("e", Fate::EndsRun),
        ]
        .map(|(host, fate)| HostFate {
            host: host.to_owned(),
            fate,
        });
        assert_eq!(
            summary(&fates),
            "measured: of the 5 calibrated hosts, 2 show their model the server's words marked as an error (a and b), 1 shows them with no error mark (c), 1 only a sentence of its own (d), 1 ends its run (e)"
        );
        assert_eq!(
            blind_consequence(&fates, "book_flight"),
            "of the 5 calibrated hosts, d and e never show their model why 'book_flight' failed; the 3 other calibrated hosts show the server's message, as a protocol error"
        );
        let all_shown = &fates[..2];
        assert_eq!(
            blind_consequence(all_shown, "x"),
            "each of the 2 calibrated hosts shows its model the server's message, as a protocol error \"less likely to result in successful recovery\""
        );
    }
}
