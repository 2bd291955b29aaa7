//! `sightline agent --trials N` over several servers and hosts: the same prompt N times per
//! server × host, fresh session each time, and a table of what the model did — the measurement
//! SEP-1303 argues for: with the server's reason in its context, does the model recover?

use std::io::Write;

use serde::Serialize;

use super::super::exit;
use super::super::run::StageTracker;
use super::turns::Ending;
use super::{Model, Run, Session};
use crate::classify::Class;
use crate::cli::{AgentArgs, ServerArgs};
use crate::model_view::hosts::HostProfile;
use crate::sanitize;

/// One cell of the table: its runs and what they add up to.
#[derive(Debug, Serialize)]
pub struct Cell {
    pub server: String,
    pub host: String,
    pub trials: usize,
    /// Runs in which the tool succeeded.
    pub completed: usize,
    /// Runs the model ended with a text answer.
    pub answered: usize,
    pub turns_ran_out: usize,
    pub host_ended_run: usize,
    /// Tool calls until the first success, on average over the completed runs.
    pub calls_until_success: Option<f64>,
    /// Calls repeated with identical arguments, on average per run.
    pub repeated: f64,
    /// Tokens (in + out) the API counted, on average per run.
    pub tokens: f64,
    /// Runs that could not be run (the model API or the server failed), with why.
    pub failed: Vec<String>,
    pub runs: Vec<Run>,
}

impl Cell {
    /// Adds up `runs` (and the failures) of one server × host.
    pub fn of(server: &str, host: &str, runs: Vec<Run>, failed: Vec<String>) -> Self {
        let count = runs.len();
        let per_run = |total: usize| mean(total, count).unwrap_or(0.0);
        let until_success: Vec<usize> = runs
            .iter()
            .filter_map(|run| {
                run.calls
                    .iter()
                    .position(|call| call.class == Some(Class::Success))
            })
            .map(|index| index + 1)
            .collect();
        let calls_until_success = mean(until_success.iter().sum(), until_success.len());
        let ended = |ending| runs.iter().filter(|run| run.ended == ending).count();
        let repeated = runs
            .iter()
            .map(|run| run.calls.iter().filter(|call| call.repeated).count())
            .sum();
        let tokens = runs
            .iter()
            .map(|run| run.tokens.input + run.tokens.output)
            .sum::<u64>();
        Cell {
            server: server.to_owned(),
            host: host.to_owned(),
            trials: count + failed.len(),
            completed: until_success.len(),
            answered: ended(Ending::Answered),
            turns_ran_out: ended(Ending::TurnsRanOut),
            host_ended_run: ended(Ending::HostEndedRun),
            calls_until_success,
            repeated: per_run(repeated),
            tokens: per_run(usize::try_from(tokens).unwrap_or(usize::MAX)),
            failed,
            runs,
        }
    }
}

/// `total / count`, none of nothing (counts of runs and calls: far below 2^32).
fn mean(total: usize, count: usize) -> Option<f64> {
    let float = |n: usize| u32::try_from(n).map_or(f64::from(u32::MAX), f64::from);
    (count > 0).then(|| float(total) / float(count))
}

/// The experiment's one JSON object.
#[derive(Serialize)]
struct Experiment<'a> {
    prompt: &'a str,
    model: &'a str,
    trials: u32,
    max_turns: u32,
    cells: &'a [Cell],
}

/// Runs every cell, `args.trials` times each, one after the other; prints the table (Markdown)
/// or the JSON object. Exit 0 when every run ran, 4 when one could not.
pub async fn run(
    args: &AgentArgs,
    model: &Model,
    hosts: &[HostProfile],
    servers: &[(String, ServerArgs)],
) -> u8 {
    let mut cells = Vec::new();
    for (name, server) in servers {
        for host in hosts {
            let (mut runs, mut failed) = (Vec::new(), Vec::new());
            for _ in 0..args.trials {
                let stage = StageTracker::default();
                let session = Session {
                    args,
                    model,
                    host,
                    stage: &stage,
                    recorder: None,
                };
                match session.run(server).await {
                    Ok(run) => runs.push(run),
                    Err(why) => failed.push(why),
                }
            }
            cells.push(Cell::of(name, &host.name, runs, failed));
        }
    }
    if args.json {
        super::super::print_json(&Experiment {
            prompt: &args.prompt,
            model: &args.model,
            trials: args.trials,
            max_turns: args.max_turns,
            cells: &cells,
        });
    } else {
        super::super::emit(|out| markdown(out, &args.prompt, &args.model, &cells));
    }
    if cells.iter().any(|cell| !cell.failed.is_empty()) {
        exit::TRANSPORT_FAILURE
    } else {
        exit::SUCCESS
    }
}

/// The table, as Markdown (a report pastes it as it is).
pub fn markdown(
    out: &mut dyn Write,
    prompt: &str,
    model: &str,
    cells: &[Cell],
) -> std::io::Result<()> {
    let safe = |text: &str| sanitize::text(text).replace('|', "\\|");
    writeln!(out, "Prompt: {} · model: {}", safe(prompt), safe(model))?;
    writeln!(out)?;
    writeln!(
        out,
        "| server | host | completed | calls until success | repeated calls | turns ran out | host ended run | tokens |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    for cell in cells {
        let until = cell
            .calls_until_success
            .map_or_else(|| "—".to_owned(), |calls| format!("{calls:.1}"));
        writeln!(
            out,
            "| {} | {} | {}/{} | {until} | {:.1} | {} | {} | {:.0} |",
            safe(&cell.server),
            safe(&cell.host),
            cell.completed,
            cell.trials,
            cell.repeated,
            cell.turns_ran_out,
            cell.host_ended_run,
            cell.tokens
        )?;
    }
    for cell in cells.iter().filter(|cell| !cell.failed.is_empty()) {
        for why in &cell.failed {
            writeln!(
                out,
                "{} × {}: not run: {}",
                safe(&cell.server),
                safe(&cell.host),
                safe(why)
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::turns::{CallRecord, Usage};
    use super::*;

    fn run(classes: &[Class], ended: Ending) -> Run {
        let calls = classes
            .iter()
            .enumerate()
            .map(|(index, class)| CallRecord {
                turn: u32::try_from(index).unwrap_or_default() + 1,
                name: "book_flight".into(),
                tool: Some("book_flight".into()),
                arguments: json!({"departureDate": "12/12/2024"}),
                server_called: true,
                class: Some(*class),
                model_read: String::new(),
                repeated: index > 0 && *class != Class::Success,
            })
            .collect();
        Run {
            prompt: String::new(),
            model: String::new(),
            host: String::new(),
            turns: 1,
            calls,
            answer: None,
            ended,
            host_ended: None,
            tokens: Usage {
                input: 90,
                output: 10,
            },
            elapsed_ms: 0,
        }
    }

    #[test]
    fn a_cell_counts_completed_runs_calls_until_success_and_repeats() {
        let recovered = run(&[Class::ProtocolError, Class::Success], Ending::Answered);
        let blind = run(&[Class::ProtocolError; 4], Ending::TurnsRanOut);
        let cell = Cell::of("legacy", "x", vec![recovered, blind], vec!["down".into()]);
        assert_eq!(cell.trials, 3);
        assert_eq!(cell.completed, 1);
        assert_eq!(cell.answered, 1);
        assert_eq!(cell.turns_ran_out, 1);
        assert_eq!(cell.calls_until_success, Some(2.0));
        assert!(
            (cell.repeated - 1.5).abs() < f64::EPSILON,
            "3 repeats over 2 runs"
        );
        assert!((cell.tokens - 100.0).abs() < f64::EPSILON);
        let mut table = Vec::new();
        markdown(&mut table, "p", "m", &[cell]).unwrap_or_default();
        let table = String::from_utf8(table).unwrap_or_default();
        assert!(
            table.contains("| legacy | x | 1/3 | 2.0 | 1.5 | 1 | 0 | 100 |"),
            "{table}"
        );
        assert!(table.contains("legacy × x: not run: down"), "{table}");
    }
}
