//! What `sightline test` and its `--load` share: the server a suite runs against, the host
//! profiles its cases name, and a session with its tool listing.

use clap::FromArgMatches;

use super::run::{StageTracker, connect};
use crate::cli::{Cli, Command, ServerArgs};
use crate::mcp::catalog::Catalog;
use crate::model_view::hosts::{self, HostProfile};
use crate::runner::SessionRunner;
use crate::sanitize;
use crate::suite::{CaseSpec, Suite};

/// The command line's server when it names one, else the file's (else the default demo).
pub(super) fn server_of(given: &ServerArgs, suite: &Suite) -> Result<ServerArgs, String> {
    let named = !given.demo.is_empty()
        || given.url.is_some()
        || given.config.is_some()
        || !given.command.is_empty();
    let Some(spec) = suite.server.as_ref().filter(|_| !named) else {
        return Ok(given.clone());
    };
    let mut words = vec!["sightline".to_owned(), "tools".to_owned()];
    words.extend(spec.args()?);
    let matches = crate::cli::parser()
        .try_get_matches_from(&words)
        .map_err(|error| format!("[server]: {}", error.kind()))?;
    match Cli::from_arg_matches(&matches).map_err(|error| error.to_string())? {
        Cli {
            command: Some(Command::Tools { server, .. }),
            ..
        } => Ok(server),
        _ => Err("[server]: not a server".into()),
    }
}

/// The host profiles the suite's cases name, each found (a name nothing knows is an error).
pub(super) fn hosts_of(suite: &Suite, user: &[HostProfile]) -> Result<Vec<HostProfile>, String> {
    let mut names: Vec<&str> = suite.cases.iter().flat_map(CaseSpec::hosts).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|name| hosts::resolve(name, user))
        .collect()
}

/// A session with its tool listing (findings are judged against it).
pub(super) async fn open(
    server: &ServerArgs,
    verbose: bool,
) -> Result<(SessionRunner, std::sync::Arc<Catalog>), String> {
    let stage = StageTracker::default();
    let mut client = connect(server, verbose, &stage, None)
        .await
        .map_err(|error| sanitize::text(&error.outcome().detail).into_owned())?;
    match client.list_tools().await {
        Ok(catalog) => Ok((client, catalog)),
        Err(error) => {
            client.shutdown().await;
            Err(sanitize::text(&error.outcome().detail).into_owned())
        }
    }
}
