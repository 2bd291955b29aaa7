//! `sightline replay FILE --json` (each recorded call judged again, streamed from the file,
//! and a recorded agent run's model turns) and `replay FILE --serve` (the recording as a
//! server).

use std::cell::RefCell;
use std::sync::Arc;

use serde::Serialize;

use super::call::CallReport;
use super::exit;
use super::output::print_json;
use crate::config;
use crate::mcp::catalog::Catalog;
use crate::mcp::log::{LogEntry, LogEvent, SessionEvent};
use crate::model_view::clients;
use crate::model_view::hosts::{self, HostProfile};
use crate::sanitize;

/// `sightline replay FILE --json`: every `tools/call` of a transcript, judged again by today's
/// rules, in the shape of `call --json`. A line that cannot be read ends the transcript there:
/// what came before is printed, `stopped` says why, and the exit code is 2.
pub fn replay(file: &str, host: &str, forward_protocol_errors: bool, payload: bool) -> u8 {
    let user = match config::user_host_profiles() {
        Ok(user) => user,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let host = match hosts::resolve(host, &user) {
        Ok(host) => host,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let reader = match crate::recording::open(file) {
        Ok(reader) => reader,
        Err(error) => {
            eprintln!("sightline: {}", sanitize::text(&error.to_string()));
            return exit::USAGE;
        }
    };
    let replayed = Replayed {
        header: reader.header.clone(),
        reader: RefCell::new(Some(reader)),
        // As the TUI's replay: a host watched through `sightline proxy` named itself in its
        // first request; unless a profile was chosen, its calls are judged by its profile.
        host: RefCell::new(host.clone()),
        follow: std::cell::Cell::new(host.name == "spec"),
        user,
        forward_protocol_errors,
        payload,
        stopped: RefCell::new(None),
        model_turns: RefCell::new(Vec::new()),
    };
    print_json(&replayed);
    if replayed.stopped.borrow().is_some() {
        exit::USAGE
    } else {
        exit::SUCCESS
    }
}

/// `replay --json`: the calls are read from the transcript while they are written out, so a
/// long recording is never held whole.
struct Replayed {
    header: crate::transcript::Header,
    reader: RefCell<Option<crate::recording::Reader<crate::recording::Source>>>,
    host: RefCell<HostProfile>,
    /// The recorded host's first request is still to come, and its profile is to be followed.
    follow: std::cell::Cell<bool>,
    user: Vec<HostProfile>,
    forward_protocol_errors: bool,
    payload: bool,
    /// Why reading stopped early; known once `calls` is written.
    stopped: RefCell<Option<String>>,
    /// The model's turns of a recorded `sightline agent` run, read beside the calls.
    model_turns: RefCell<Vec<crate::transcript::ModelTurn>>,
}

impl Serialize for Replayed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("transcript", &self.header)?;
        map.serialize_entry("calls", &ReplayedCalls(self))?;
        map.serialize_entry("model_turns", &*self.model_turns.borrow())?;
        map.serialize_entry("stopped", &*self.stopped.borrow())?;
        map.end()
    }
}

struct ReplayedCalls<'r>(&'r Replayed);

impl Serialize for ReplayedCalls<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let replayed = self.0;
        let mut seq = serializer.serialize_seq(None)?;
        let Some(mut reader) = replayed.reader.borrow_mut().take() else {
            return seq.end();
        };
        let mut transport = replayed.header.transport.clone();
        let mut connection = None;
        let mut catalog: Option<Arc<Catalog>> = None;
        for event in reader.by_ref() {
            match event {
                Ok(SessionEvent::Connecting { transport: named }) => transport = named,
                Ok(SessionEvent::Connected(connected)) => connection = Some(*connected),
                Ok(SessionEvent::ToolsListed(tools)) => catalog = Some(tools),
                Ok(SessionEvent::Logged(LogEntry {
                    event: LogEvent::Sent(frame),
                    ..
                })) if replayed.follow.get() => replayed.follow_host(&frame.message),
                Ok(SessionEvent::CallFinished(finished))
                    if finished.exchange.method == "tools/call" =>
                {
                    let exchange = finished.exchange;
                    let report = CallReport::new(
                        connection.as_ref(),
                        &transport,
                        &exchange,
                        catalog.as_deref(),
                        &replayed.host.borrow(),
                        replayed.forward_protocol_errors,
                        None,
                    );
                    seq.serialize_element(&report.to_json(replayed.payload, false))?;
                }
                Ok(_) => {}
                Err(error) => *replayed.stopped.borrow_mut() = Some(error.to_string()),
            }
        }
        *replayed.model_turns.borrow_mut() = reader.model_turns;
        seq.end()
    }
}

impl Replayed {
    /// The host's first request: judged from now on by the profile its `clientInfo` names.
    fn follow_host(&self, message: &crate::mcp::jsonrpc::Message) {
        if !matches!(message, crate::mcp::jsonrpc::Message::Request { .. }) {
            return;
        }
        self.follow.set(false);
        let named = clients::client_name(message)
            .and_then(clients::for_client)
            .and_then(|profile| hosts::resolve(profile, &self.user).ok());
        if let Some(host) = named {
            *self.host.borrow_mut() = host;
        }
    }
}

/// `sightline replay FILE --serve [--http ADDR]`: the recording as a server.
pub async fn serve(file: &str, http: Option<std::net::SocketAddr>) -> u8 {
    let loaded = match crate::recording::load(file) {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("sightline: {}", sanitize::text(&error.to_string()));
            return exit::USAGE;
        }
    };
    if loaded.header.command == crate::transcript::SAVED_CALL {
        // Its server never answered a handshake in it: there is nothing to start a client with.
        eprintln!(
            "sightline: {} is one call saved as JSON, without the connection's handshake or tool \
             listing a client needs; `sightline replay {0}` shows it (or with --json). To serve a \
             call, save it as a transcript (E in the TUI, or --record)",
            sanitize::text(file)
        );
        return exit::USAGE;
    }
    if let Some(stopped) = &loaded.stopped {
        eprintln!("sightline: {}", sanitize::text(&stopped.to_string()));
    }
    let recorded = crate::replay_server::Recorded::new(&loaded, file);
    let served = match http {
        Some(address) => crate::replay_server::serve_http(recorded, address).await,
        None => crate::replay_server::serve_stdio(recorded),
    };
    match served {
        Ok(()) => exit::SUCCESS,
        Err(error) => {
            eprintln!("sightline replay --serve: {error}");
            exit::TRANSPORT_FAILURE
        }
    }
}
