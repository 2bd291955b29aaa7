//! The `sightline` binary: parse the command line, run one command, exit with its code.

use std::process::ExitCode;

use clap::Parser;
use sightline::cli::{Cli, Command};
use sightline::headless::{self, exit};

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
            }) => headless::tools(&server, json, output.verbose).await,
            Some(Command::Call {
                call,
                json,
                output,
                server,
            }) => headless::call(&server, &call, json, output.verbose).await,
            Some(Command::DemoServer { style }) => {
                match sightline::demo_server::run_stdio(style).await {
                    Ok(()) => exit::SUCCESS,
                    Err(error) => {
                        eprintln!("sightline demo-server: {error}");
                        exit::TRANSPORT_FAILURE
                    }
                }
            }
            None => {
                eprintln!(
                    "sightline: the terminal UI is not built yet; use `sightline tools` or \
                     `sightline call TOOL ARGS_JSON` (see --help)"
                );
                exit::USAGE
            }
        }
    });
    // Don't wait for stray tasks (e.g. a reader blocked on a grandchild's pipe).
    runtime.shutdown_background();
    ExitCode::from(code)
}
