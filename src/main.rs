//! The `sightline` binary: parse the command line, run one command, exit with its code.

use std::process::ExitCode;

use clap::Parser;
use sightline::app::state::Settings;
use sightline::cli::{Cli, Command, ServerArgs, TuiArgs};
use sightline::headless::{self, exit};
use sightline::{config, runtime};

/// The TUI; configuration problems are usage errors reported before the screen changes.
async fn tui(server: &ServerArgs, options: &TuiArgs) -> u8 {
    let prepared = config::all_host_profiles().and_then(|hosts| {
        let host = hosts
            .iter()
            .position(|h| h.name == options.host)
            .ok_or_else(|| {
                let names: Vec<&str> = hosts.iter().map(|h| h.name.as_str()).collect();
                format!(
                    "unknown host profile '{}'; available: {}",
                    options.host,
                    names.join(", ")
                )
            })?;
        let (theme, warnings) = sightline::theme::for_terminal(&options.theme)?;
        let settings = Settings {
            hosts,
            host,
            forward_protocol_errors: options.forward_protocol_errors,
            validation: options.validate,
        };
        Ok((settings, theme, warnings))
    });
    let (settings, theme, warnings) = match prepared {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    match runtime::run(server, settings, &theme, warnings).await {
        Ok(()) => exit::SUCCESS,
        Err(error) => {
            eprintln!("sightline: terminal error: {error}");
            exit::TRANSPORT_FAILURE
        }
    }
}

/// Runs a headless command unless SIGINT, SIGTERM or SIGHUP comes first. The server runs in
/// its own process group, out of the terminal's reach; dropping the command stops it.
async fn until_interrupted(command: impl Future<Output = u8>) -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let kinds = [
        (SignalKind::interrupt(), "SIGINT", 130),
        (SignalKind::terminate(), "SIGTERM", 143),
        (SignalKind::hangup(), "SIGHUP", 129),
    ];
    let mut listeners = Vec::new();
    for (kind, name, code) in kinds {
        match signal(kind) {
            Ok(listener) => listeners.push((listener, name, code)),
            Err(error) => eprintln!("sightline: cannot watch {name}: {error}"),
        }
    }
    if listeners.is_empty() {
        return command.await;
    }
    let interrupted =
        futures_util::future::select_all(listeners.iter_mut().map(|(listener, name, code)| {
            Box::pin(async move { (listener.recv().await, *name, *code) })
        }));
    tokio::select! {
        code = command => code,
        ((_, name, code), ..) = interrupted => {
            eprintln!("sightline: interrupted by {name}; the server was stopped");
            code
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("sightline: cannot start the async runtime: {error}");
            return ExitCode::from(exit::TRANSPORT_FAILURE);
        }
    };
    let code = runtime.block_on(async {
        match cli.command {
            Some(Command::Tools {
                json,
                output,
                server,
            }) => until_interrupted(headless::tools(&server, json, output.verbose)).await,
            Some(Command::Call {
                call,
                json,
                output,
                server,
            }) => until_interrupted(headless::call(&server, &call, json, output.verbose)).await,
            Some(Command::DemoServer { style }) => {
                match sightline::demo_server::run_stdio(style).await {
                    Ok(()) => exit::SUCCESS,
                    Err(error) => {
                        eprintln!("sightline demo-server: {error}");
                        exit::TRANSPORT_FAILURE
                    }
                }
            }
            None => tui(&cli.server, &cli.tui).await,
        }
    });
    // Don't wait for stray tasks (e.g. a reader blocked on a grandchild's pipe).
    runtime.shutdown_background();
    ExitCode::from(code)
}
