//! The `sightline` binary: parse the command line, run one command, exit with its code.

use std::process::ExitCode;

use clap::Parser;
use sightline::app::state::Settings;
use sightline::cli::{Cli, Command, HostsCommand, ServerArgs, TuiArgs};
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
            show_secrets: server.show_secrets,
            tasks: server.tasks,
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
                check_headers,
                output,
                server,
            }) => headless::tools(&server, json, check_headers, &output).await,
            Some(Command::Call {
                call,
                json,
                output,
                server,
            }) => headless::call(&server, &call, json, &output).await,
            Some(Command::Hosts { show, json }) => {
                let name = show.map(|HostsCommand::Show { name }| name);
                headless::hosts(name.as_deref(), json)
            }
            Some(Command::DemoServer { style, http }) => {
                let served = match http {
                    Some(address) => sightline::demo_server::http::run_http(style, address).await,
                    None => sightline::demo_server::run_stdio(style).await,
                };
                match served {
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
