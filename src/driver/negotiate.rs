//! Era negotiation as `--era` asks: `server/discover` (retried once at the version the server
//! lists), `initialize`, or a probe that falls back to `initialize` and still hears a modern
//! server whose answer came late.

use super::requests::{Core, Spec};
use super::{Done, Event, SessionError, StepOf};
use crate::mcp::era::{self, DiscoverVerdict, Era, EraChoice};
use crate::mcp::json::Json;
use crate::mcp::jsonrpc::{Message, Reply};
use crate::mcp::log::{Connection, Probe, ProbeAnswer};
use crate::mcp::messages::ServerInfo;
use crate::mcp::session::{End, Exchange, Failure};

/// Where the negotiation is.
#[derive(Debug)]
pub(crate) enum Negotiation {
    /// `server/discover` at `version` went out.
    Discover {
        version: String,
        retried: bool,
        /// `auto`: a legacy answer (or none) means falling back to `initialize`.
        probe: bool,
    },
    /// `initialize` went out; after a probe's fallback (`probe`: how the probe ended), a late
    /// modern answer may still decide.
    Initialize { probe: Option<Probe> },
}

impl Negotiation {
    pub fn start(core: &mut Core) -> StepOf<Self> {
        match core.options.era {
            EraChoice::Legacy => Self::initialize(core, None),
            EraChoice::Modern => {
                Self::discover(core, era::MODERN_VERSIONS[0].to_owned(), false, false)
            }
            EraChoice::Auto => {
                Self::discover(core, era::MODERN_VERSIONS[0].to_owned(), false, true)
            }
        }
    }

    fn initialize(core: &mut Core, probe: Option<Probe>) -> StepOf<Self> {
        let spec = core.initialize_spec();
        core.send(spec);
        StepOf::Wait(Self::Initialize { probe })
    }

    fn discover(core: &mut Core, version: String, retried: bool, probe: bool) -> StepOf<Self> {
        core.meta = Some(era::request_meta(
            &version,
            &Core::client_info(),
            &core.capabilities(),
        ));
        let timeout = if probe {
            core.options.probe_timeout
        } else {
            core.options.timeout
        };
        core.send(Spec {
            method: "server/discover".into(),
            params: None,
            timeout,
            // A probe that times out is not cancelled: before `initialize` a legacy server
            // expects nothing but the handshake, and the spec asks for no cancellation there.
            cancel_on_timeout: !probe,
            cancellable: false,
        });
        StepOf::Wait(Self::Discover {
            version,
            retried,
            probe,
        })
    }

    pub fn on(self, core: &mut Core, event: Event) -> StepOf<Self> {
        let Event::Ended(exchange) = event else {
            return StepOf::Wait(self);
        };
        match self {
            Self::Discover {
                version,
                retried,
                probe,
            } => discovered(core, exchange, version, retried, probe),
            Self::Initialize { probe } => match core.read_initialize(exchange) {
                Ok(connection) => connected(
                    core,
                    Connection {
                        probe,
                        ..connection
                    },
                ),
                Err(error) if probe.is_some() => late_modern(core, error),
                Err(error) => failed(error),
            },
        }
    }
}

fn discovered(
    core: &mut Core,
    exchange: Exchange,
    version: String,
    retried: bool,
    probe: bool,
) -> StepOf<Negotiation> {
    let reply = match (&exchange.end, exchange.reply()) {
        (_, Some(reply)) => reply.clone(),
        (End::TimedOut { .. }, None) if probe => {
            return fall_back(
                core,
                "server/discover got no answer within the probe timeout",
                probed(&exchange, ProbeAnswer::Unanswered),
            );
        }
        (End::Failed(Failure::Rejected { .. }), None)
            if probe && refused_without_modern_error(&exchange) =>
        {
            // Over HTTP: 400, 404 or 405 with no JSON-RPC body is no modern server.
            let status = exchange
                .http
                .as_ref()
                .and_then(|http| http.status)
                .unwrap_or_default();
            return fall_back(
                core,
                &format!("server/discover was refused with HTTP {status} and no JSON-RPC error"),
                probed(&exchange, ProbeAnswer::RefusedOverHttp { status }),
            );
        }
        _ => return failed(SessionError::Exchange(Box::new(exchange))),
    };
    let result = match &reply {
        Reply::Result(result) => Some(result.clone()),
        Reply::Error(_) => None,
    };
    match era::judge_discover(&reply, &version) {
        DiscoverVerdict::Modern { version } => {
            let connection = modern_connection(core, version, result.as_ref());
            connected(core, connection)
        }
        DiscoverVerdict::Retry { version: shared } if !retried => {
            core.note(format!(
                "the server refused {version} and lists {shared}; retrying with {shared}"
            ));
            Negotiation::discover(core, shared, true, probe)
        }
        DiscoverVerdict::Retry { version } => failed(SessionError::VersionRefused { version }),
        DiscoverVerdict::NoSharedVersion { supported } => {
            failed(SessionError::NoSharedVersion { supported })
        }
        DiscoverVerdict::ModernError(error) => failed(SessionError::ModernError {
            error,
            exchange: Box::new(exchange),
        }),
        DiscoverVerdict::Legacy { error } if probe => fall_back(
            core,
            &format!(
                "server/discover was answered with {} {}",
                error.code, error.message
            ),
            probed(
                &exchange,
                ProbeAnswer::Refused {
                    code: error.code,
                    addressed: exchange.response().is_some_and(|frame| {
                        matches!(frame.message, Message::Response { id: Some(_), .. })
                    }),
                },
            ),
        ),
        DiscoverVerdict::Legacy { error } => failed(SessionError::NotModern {
            error,
            exchange: Box::new(exchange),
        }),
        DiscoverVerdict::NotDiscoverResult { why } if probe => fall_back(
            core,
            &format!(
                "server/discover was answered with a result that is no DiscoverResult ({why})"
            ),
            probed(&exchange, ProbeAnswer::NotDiscover),
        ),
        DiscoverVerdict::NotDiscoverResult { why } => {
            // `--era modern`: the user says the server is modern; go on at our version.
            core.note(format!(
                "server/discover was answered with a result that is no DiscoverResult \
                 ({why}); going on in the modern era, as --era modern asks"
            ));
            let connection = modern_connection(core, version, result.as_ref());
            connected(core, connection)
        }
    }
}

fn modern_connection(core: &mut Core, version: String, result: Option<&Json>) -> Connection {
    core.meta = Some(era::request_meta(
        &version,
        &Core::client_info(),
        &core.capabilities(),
    ));
    Connection {
        era: Era::Modern,
        protocol_version: version,
        server: result.map(ServerInfo::from_discover).unwrap_or_default(),
        capabilities: result.and_then(|result| result.get("capabilities")),
        http_session: None,
        probe: None,
    }
}

/// The probe found a legacy server: `initialize` next.
fn fall_back(core: &mut Core, why: &str, probe: Probe) -> StepOf<Negotiation> {
    core.meta = None;
    core.note(format!(
        "{why}: the server is legacy; falling back to initialize"
    ));
    Negotiation::initialize(core, Some(probe))
}

fn probed(exchange: &Exchange, answer: ProbeAnswer) -> Probe {
    Probe {
        id: exchange.id.clone(),
        answer,
    }
}

/// The fallback after a probe timeout was refused. A modern server that was merely slow to
/// start answers the probe late and refuses `initialize`; its late answer then decides.
fn late_modern(core: &mut Core, error: SessionError) -> StepOf<Negotiation> {
    let Some(result) = core.late_discover.take() else {
        return failed(error);
    };
    let requested = era::MODERN_VERSIONS[0];
    match era::judge_discover(&Reply::Result(result.clone()), requested) {
        DiscoverVerdict::Modern { version } => {
            core.note(format!(
                "initialize was refused ({error}), but server/discover was answered after the \
                 probe timeout: the server is modern"
            ));
            let connection = modern_connection(core, version, Some(&result));
            connected(core, connection)
        }
        _ => failed(error),
    }
}

fn connected(core: &mut Core, connection: Connection) -> StepOf<Negotiation> {
    core.connection = Some(connection.clone());
    StepOf::Done(Some(Done::Connected(Ok(Box::new(connection)))))
}

fn failed(error: SessionError) -> StepOf<Negotiation> {
    StepOf::Done(Some(Done::Connected(Err(error))))
}

/// An HTTP 400, 404 or 405 without a JSON-RPC answer: the spec's sign to try the older
/// handshake (a modern server says why in a JSON-RPC error).
fn refused_without_modern_error(exchange: &Exchange) -> bool {
    exchange
        .http
        .as_ref()
        .and_then(|http| http.status)
        .is_some_and(|status| matches!(status, 400 | 404 | 405))
}
