//! `sightline proxy`'s I/O: the transcript (--record, or one of its own while it runs), the
//! socket `attach` finds it by, the pipes, and the server's exit status as ours.

use std::os::unix::net::UnixListener;
use std::path::PathBuf;

use tokio::sync::mpsc;

use super::exit;
use crate::cli::{ProxyArgs, ProxyCommand, RecordArgs};
use crate::proxy::registry::{self, ProxyInfo};
use crate::proxy::{bridge, install, listen, observe, stdio};
use crate::recording::Recorder;
use crate::stream::EventSink;
use crate::transcript::Redactor;
use crate::transport::HttpTarget;

/// `sightline proxy`: `record` is the `--record FILE` (and `--no-redact`) given.
pub async fn proxy(args: &ProxyArgs, record: &RecordArgs) -> u8 {
    let done = match &args.command {
        Some(ProxyCommand::Install(install_args)) => install::install(install_args),
        Some(ProxyCommand::Uninstall(install_args)) => install::uninstall(install_args),
        Some(ProxyCommand::Print {
            host,
            server,
            url,
            command,
        }) => install::print(*host, server, url.as_deref(), command).map(|entry| {
            println!("{entry}");
        }),
        None => return run(args, record).await,
    };
    match done {
        Ok(()) => exit::SUCCESS,
        Err(message) => {
            eprintln!("sightline proxy: {message}");
            exit::USAGE
        }
    }
}

/// The transcript and socket of a running proxy, removed when it ends (a `--record` file
/// stays).
struct Registered {
    socket: PathBuf,
    own_transcript: Option<PathBuf>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
        if let Some(transcript) = &self.own_transcript {
            let _ = std::fs::remove_file(transcript);
        }
    }
}

async fn run(args: &ProxyArgs, record: &RecordArgs) -> u8 {
    let target = match (&args.url, args.server.is_empty()) {
        (Some(_), false) => {
            eprintln!("sightline proxy: either --url URL or -- CMD, not both");
            return exit::USAGE;
        }
        (None, true) => {
            eprintln!("sightline proxy: no server: `sightline proxy -- CMD [ARGS…]` or --url URL");
            return exit::USAGE;
        }
        (Some(url), true) => match http_target(url, &args.headers) {
            Ok(target) => Some(target),
            Err(message) => {
                eprintln!("sightline proxy: {message}");
                return exit::USAGE;
            }
        },
        (None, false) => None,
    };
    let described = match &target {
        Some(target) => format!("Streamable HTTP: {}", target.display()),
        None => format!("stdio: {}", args.server.join(" ")),
    };
    let (recorder, registered, info) = match prepare(args, record, target.as_ref(), &described) {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("sightline proxy: {message}");
            return exit::USAGE;
        }
    };
    let listener = match UnixListener::bind(&registered.socket)
        .map_err(|error| format!("cannot listen on {}: {error}", registered.socket.display()))
        .and_then(|listener| registry::restrict(&registered.socket).map(|()| listener))
    {
        Ok(listener) => listener,
        Err(message) => {
            eprintln!("sightline proxy: {message}");
            return exit::USAGE;
        }
    };
    let hello = registry::hello_line(&info);
    // Each client is greeted and kept until the proxy ends: the connection's end is the
    // transcript's.
    std::thread::spawn(move || {
        let mut clients = Vec::new();
        for client in listener.incoming().flatten() {
            clients.extend(registry::greet(client, &hello));
        }
    });
    let (seen_tx, seen_rx) = observe::channel();
    let sink = EventSink::taps_only().with_tap(recorder.tap());
    let Some((watch_runtime, watching)) = watch_thread(seen_rx, sink) else {
        eprintln!("sightline proxy: cannot start the watch");
        return exit::TRANSPORT_FAILURE;
    };
    let mut stops = stopped();
    let code = match (&target, args.listen) {
        (Some(target), Some(address)) => {
            let listening = listen::run(address, &target.url, target.headers.clone(), seen_tx);
            tokio::select! {
                served = listening => {
                    if let Err(message) = served {
                        eprintln!("sightline proxy: {message}");
                        return exit::TRANSPORT_FAILURE;
                    }
                    Some(0)
                }
                // Until stopped: then the socket and its own transcript go.
                Some(()) = stops.recv() => Some(0),
            }
        }
        (Some(target), None) => {
            tokio::select! {
                bridged = bridge::run(target, seen_tx) => {
                    if let Err(message) = bridged {
                        eprintln!("sightline proxy: {message}");
                        return exit::TRANSPORT_FAILURE;
                    }
                    Some(0)
                }
                Some(()) = stops.recv() => Some(0),
            }
        }
        (None, _) => match stdio::run(&args.server, seen_tx, &watch_runtime, stops).await {
            Ok(code) => code,
            Err(stdio::NotStarted(message)) => {
                eprintln!("sightline proxy: {message}");
                return exit::TRANSPORT_FAILURE;
            }
        },
    };
    let _ = tokio::task::spawn_blocking(move || watching.join()).await;
    if let Some(failure) = recorder.failure() {
        eprintln!("sightline proxy: {failure}");
    }
    drop(registered);
    code.and_then(|code| u8::try_from(code).ok())
        .unwrap_or(exit::TRANSPORT_FAILURE)
}

/// Each SIGINT or SIGTERM: the host (or the user) stopping the proxy. Listened for from the
/// call on, before the server starts: a signal that comes early is not missed. Closed, never
/// fired, when the signals cannot be listened for.
fn stopped() -> mpsc::Receiver<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (stops, stopped) = mpsc::channel(4);
    let (Ok(mut terminate), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return stopped;
    };
    // Every signal, not the first only: a host that stops its server sends more than one when
    // the first is not enough (Claude Code: SIGINT, then SIGTERM), and the next one kills.
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = terminate.recv() => {}
                _ = interrupt.recv() => {}
            }
            if stops.send(()).await.is_err() {
                return;
            }
        }
    });
    stopped
}

/// The remote server `--url` and `--header` name.
fn http_target(url: &str, headers: &[String]) -> Result<HttpTarget, String> {
    let headers = headers
        .iter()
        .map(|header| {
            header
                .split_once(':')
                .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
                .ok_or_else(|| format!("--header '{header}': not NAME: VALUE"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(HttpTarget {
        url: url.to_owned(),
        headers,
        client: None,
        token_cache: None,
        client_metadata_url: None,
        grant: None,
        dpop: crate::transport::DpopChoice::Auto,
    })
}

fn prepare(
    args: &ProxyArgs,
    record: &RecordArgs,
    target: Option<&HttpTarget>,
    described: &str,
) -> Result<(Recorder, Registered, ProxyInfo), String> {
    let dir = registry::prepare()?;
    let pid = std::process::id();
    let transcript = match &record.record {
        // `{pid}`: a host that starts the server once per session gets a transcript of each.
        Some(path) => PathBuf::from(path.replace("{pid}", &pid.to_string())),
        None => dir.join(format!("proxy-{pid}.jsonl")),
    };
    let own = record.record.is_none().then(|| transcript.clone());
    if let Some(own) = &own {
        // Only the user's, before anything is written to it.
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(own)
            .map_err(|error| format!("cannot create {}: {error}", own.display()))?;
    }
    let transcript_text = transcript.to_string_lossy().into_owned();
    let command = match &args.url {
        Some(url) => format!("sightline proxy --url {url}"),
        None => format!("sightline proxy -- {}", args.server.join(" ")),
    };
    let recorder = Recorder::create(
        &transcript_text,
        &command,
        &format!("proxy {described}"),
        // The --header values given are masked wherever they appear, as --record does.
        Redactor::new(
            !record.no_redact,
            target.map_or(&[][..], |target| target.headers.as_slice()),
            &[],
        ),
    )?;
    let registered = Registered {
        socket: registry::socket_path(&dir, pid),
        own_transcript: own,
    };
    let info = ProxyInfo {
        pid,
        server: args.url.clone().unwrap_or_else(|| args.server.join(" ")),
        transcript: std::fs::canonicalize(&transcript)
            .unwrap_or(transcript)
            .to_string_lossy()
            .into_owned(),
        started_ms: crate::transport::now().0,
    };
    Ok((recorder, registered, info))
}

/// The watch (framing, judging, recording: a file write per frame) on a thread of its own, so
/// the pipes hand it what they read and never wait for it while it keeps up: its runtime (where
/// the framing is spawned) and the thread, which ends once everything seen is watched.
fn watch_thread(
    seen: tokio::sync::mpsc::Receiver<observe::Seen>,
    sink: EventSink,
) -> Option<(tokio::runtime::Handle, std::thread::JoinHandle<()>)> {
    let (runtime_tx, runtime_rx) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        // Behind the pipes for the CPU too (on Linux a thread's niceness is its own): on a
        // busy machine the bytes a host waits for go first, and the watch catches up in
        // between; its budgets bound how far behind it may fall.
        let _ = rustix::process::nice(19);
        // Time: the framing lets chunks gather for a tick.
        if let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
        {
            let _ = runtime_tx.send(runtime.handle().clone());
            runtime.block_on(observe::watch(seen, sink));
        }
    });
    Some((runtime_rx.recv().ok()?, thread))
}
