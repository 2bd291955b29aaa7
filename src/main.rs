//! The `sightline` binary: parse the command line, run one command, exit with its code.

use std::process::ExitCode;

use clap::FromArgMatches;
use sightline::app::state::Settings;
use sightline::cli::{Cli, Command, HostsCommand, RecordArgs, ServerArgs, TuiArgs};
use sightline::headless::{self, exit};
use sightline::recording::Recorder;
use sightline::{config, runtime};

/// The TUI's settings and theme from its options; a problem is a message for a usage error.
fn prepare(
    options: &TuiArgs,
    server: Option<&ServerArgs>,
) -> Result<(Settings, sightline::theme::Theme, Vec<String>), String> {
    let hosts = config::all_host_profiles()?;
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
    let (theme, mut warnings) = sightline::theme::for_terminal(&options.theme)?;
    let (keys, key_warnings) = config::keys(options.keys.as_deref());
    warnings.extend(key_warnings);
    let settings = Settings {
        hosts,
        host,
        forward_protocol_errors: options.forward_protocol_errors,
        validation: options.validate,
        show_secrets: server.is_some_and(|server| server.show_secrets),
        tasks: server.is_some_and(|server| server.tasks),
        allow_invalid_tool_headers: server.is_some_and(|server| server.allow_invalid_tool_headers),
        keys,
        // Absolute: the capture runs in a folder of its own.
        host_bin: options.host_bin.as_ref().map(|bin| {
            std::path::absolute(bin).map_or_else(|_| bin.clone(), |bin| bin.display().to_string())
        }),
        chat: None,
        test_file: options.test_file.clone(),
    };
    Ok((settings, theme, warnings))
}

/// Why the TUI cannot start here: stdout is not a terminal (a pipe, a file), or there is no
/// terminal to read keys from (stdin is not one, and there is no controlling terminal, which is
/// where keys are read then). Said before the terminal is touched, with what works without one.
fn no_terminal() -> Option<String> {
    use std::io::IsTerminal;
    let keys = std::io::stdin().is_terminal() || std::fs::File::open("/dev/tty").is_ok();
    if keys && std::io::stdout().is_terminal() {
        return None;
    }
    Some(
        "the TUI needs a terminal to draw on and read keys from, and there is none here; \
         without one, use a headless command: tools, call, audit, resources, prompts, request, replay FILE --json \
         (sightline --help lists them all)"
            .into(),
    )
}

/// The TUI's start, refused: a usage error (exit 2) said on stderr before the screen changes.
fn refuse(problem: &str) -> u8 {
    eprintln!("sightline: {}", sightline::sanitize::text(problem));
    exit::USAGE
}

/// `sightline attach`: the running proxies, or the TUI on one of them, following its
/// transcript as the proxy writes it.
async fn attach(args: &sightline::cli::AttachArgs) -> u8 {
    let running = sightline::proxy::registry::running();
    if args.list {
        if running.is_empty() {
            println!("no proxy is running (sightline proxy -- SERVER starts one)");
        }
        for found in &running {
            println!(
                "{:>8}  {}  transcript {}",
                found.info.pid,
                sightline::sanitize::text(&found.info.server),
                found.info.transcript
            );
        }
        return exit::SUCCESS;
    }
    let chosen = match &args.proxy {
        Some(which) => running.into_iter().rfind(|found| {
            found.info.pid.to_string() == *which || found.info.server.contains(which.as_str())
        }),
        None => running.into_iter().last(),
    };
    let Some(found) = chosen else {
        eprintln!("sightline attach: no such proxy running (sightline attach --list)");
        return exit::USAGE;
    };
    if let Some(problem) = no_terminal() {
        return refuse(&problem);
    }
    let (settings, theme, warnings) = match prepare(&args.tui, None) {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let path = found.info.transcript.clone();
    let reader = std::fs::File::open(&path)
        .and_then(|file| sightline::proxy::registry::Following::new(file, found.connection))
        .map_err(|error| error.to_string())
        .and_then(|following| {
            sightline::recording::Reader::new(std::io::BufReader::new(following), &path)
                .map_err(|error| error.to_string())
        });
    let reader = match reader {
        Ok(reader) => reader,
        Err(error) => {
            eprintln!("sightline attach: {error}");
            return exit::USAGE;
        }
    };
    match runtime::replay(&path, reader, settings, &theme, &warnings, true).await {
        Ok(ended) => ended.exit_code(),
        Err(error) => {
            eprintln!("sightline: terminal error: {error}");
            exit::TRANSPORT_FAILURE
        }
    }
}

async fn replay(file: &str, json: bool, payload: bool, options: &TuiArgs) -> u8 {
    if json {
        return headless::replay(
            file,
            &options.host,
            options.forward_protocol_errors,
            payload,
        );
    }
    let (settings, theme, warnings) = match prepare(options, None) {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let reader = match sightline::recording::open(file) {
        Ok(reader) => reader,
        Err(error) => {
            eprintln!("sightline: {error}");
            return exit::USAGE;
        }
    };
    if let Some(problem) = no_terminal() {
        return refuse(&problem);
    }
    match runtime::replay(file, reader, settings, &theme, &warnings, false).await {
        Ok(ended) => ended.exit_code(),
        Err(error) => {
            eprintln!("sightline: terminal error: {error}");
            exit::TRANSPORT_FAILURE
        }
    }
}

/// The Chat pane's model (`--model`): resolved for the runtime, described for the app with how
/// each host names the server's tools.
fn chat_model(
    options: &TuiArgs,
    settings: &mut Settings,
) -> Result<Option<sightline::model_client::Model>, String> {
    let Some(label) = &options.model else {
        return Ok(None);
    };
    let model = sightline::model_client::Model::resolve(
        label,
        options.model_url.as_deref(),
        options.model_key_env.as_deref(),
    )?;
    let naming = settings
        .hosts
        .iter()
        .map(|host| (host.name.clone(), headless::tool_naming(&host.name)))
        .collect();
    settings.chat = Some(sightline::app::chat::ChatModel {
        api: model.api,
        name: model.name.clone(),
        label: label.clone(),
        max_turns: options.max_turns,
        naming,
    });
    Ok(Some(model))
}

/// The TUI; configuration problems are usage errors reported before the screen changes.
async fn tui(server: &ServerArgs, record: &RecordArgs, options: &TuiArgs) -> u8 {
    let opened = server.opened();
    if opened.len() > 1 && record.record.is_some() {
        // A transcript is one session, which replay opens as one server; as `call` does.
        let count = opened.len();
        eprintln!(
            "sightline: --record writes one session, and {count} servers make {count} \
             sessions; record each with its own sightline (one --demo or --server)"
        );
        return exit::USAGE;
    }
    // A server selection that names no server (`--server nope`, a file that is not JSON or
    // cannot be read, an unset `${VAR}`) is the usage error headless commands give. The entries
    // of a file that lists several are each opened on screen instead, a broken one shown failed
    // with why beside the others.
    if server.config_choices().is_none() {
        for (_, one) in &opened {
            if let Some(problem) = headless::selection_problem(one) {
                return refuse(&problem);
            }
        }
    }
    let prepared = prepare(options, Some(server)).and_then(|(settings, theme, warnings)| {
        Ok((settings, theme, warnings, server.recorder(record, "tui")?))
    });
    let prepared = prepared.and_then(|(mut settings, theme, warnings, recorder)| {
        let model = chat_model(options, &mut settings)?;
        Ok((settings, theme, warnings, recorder, model))
    });
    let (settings, theme, warnings, recorder, model) = match prepared {
        Ok(prepared) => prepared,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    if let Some(problem) = no_terminal() {
        return refuse(&problem);
    }
    let servers = opened
        .into_iter()
        .map(|(name, one)| runtime::Server {
            name,
            target: one.target().map_err(|error| error.to_string()),
            options: one.client_options(),
            args: one.to_args(),
        })
        .collect();
    let result = runtime::run(servers, settings, &theme, warnings, recorder.clone(), model).await;
    if let Some(failure) = recorder.as_ref().and_then(Recorder::failure) {
        eprintln!("sightline: {failure}");
    }
    match result {
        Ok(ended) => ended.exit_code(),
        Err(error) => {
            eprintln!("sightline: terminal error: {error}");
            exit::TRANSPORT_FAILURE
        }
    }
}

/// `sightline completions SHELL`: the script, from the parser's own definition.
fn completions(shell: clap_complete::Shell) -> u8 {
    let mut command = sightline::cli::parser();
    clap_complete::generate(shell, &mut command, "sightline", &mut std::io::stdout());
    exit::SUCCESS
}

/// `sightline man`: the man page, in roff; with `--dir`, every page written there (the ones the
/// main page's SEE ALSO names), each file's path said.
fn man(dir: Option<&std::path::Path>) -> u8 {
    // `help` is a command for the terminal; a page of its own would only repeat the others.
    let mut command = sightline::cli::parser().disable_help_subcommand(true);
    // Built: each command knows its full name (`sightline-audit`), as its page is named.
    command.build();
    let Some(dir) = dir else {
        return match clap_mangen::Man::new(command).render(&mut std::io::stdout()) {
            Ok(()) => exit::SUCCESS,
            Err(error) => {
                eprintln!("sightline man: {error}");
                exit::TRANSPORT_FAILURE
            }
        };
    };
    let written = std::fs::create_dir_all(dir).and_then(|()| man_pages(&command, dir));
    match written {
        Ok(pages) => {
            for page in pages {
                println!("{}", page.display());
            }
            exit::SUCCESS
        }
        Err(error) => {
            eprintln!("sightline man --dir {}: {error}", dir.display());
            exit::USAGE
        }
    }
}

/// `command`'s page and its visible subcommands', each in the file its name gives
/// (`sightline-audit.1`): the names the pages refer to one another by.
fn man_pages(
    command: &clap::Command,
    dir: &std::path::Path,
) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut pages = vec![clap_mangen::Man::new(command.clone()).generate_to(dir)?];
    for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        pages.extend(man_pages(sub, dir)?);
    }
    Ok(pages)
}

/// A command line clap refused, said as clap says it; a word where none was expected that reads
/// like a program (`sightline node server.js`) gets the hint a newcomer needs: `--` before it.
fn usage_error(error: &clap::Error) -> u8 {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let _ = error.print();
    if !error.use_stderr() {
        // --help and --version are not errors.
        return exit::SUCCESS;
    }
    if error.kind() == ErrorKind::UnknownArgument
        && let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidArg)
        && !word.starts_with('-')
    {
        let parser = sightline::cli::parser();
        let commands = parser
            .get_subcommands()
            .filter(|sub| !sub.is_hide_set())
            .map(clap::Command::get_name);
        // A misspelt command reads as a server's program to clap (`-- CMD` takes words too).
        if let Some(command) = sightline::present::nearest::nearest(word, commands) {
            eprintln!("\ntip: a similar subcommand exists: '{command}'");
            return exit::USAGE;
        }
        eprintln!(
            "\ntip: a stdio server's command goes after `--`, so that its own arguments are not \
             taken for sightline's: `sightline [COMMAND …] -- {word} …`"
        );
    }
    exit::USAGE
}

/// Stops what is left of the servers' process groups when `main` ends, by return or by panic.
struct ServersStoppedAtExit;

impl Drop for ServersStoppedAtExit {
    fn drop(&mut self) {
        sightline::transport::stdio::stop_every_server();
    }
}

/// With `SIGHTLINE_PEAK_FILE` set, sightline's own peak resident size (`VmHWM`) is written there
/// at exit: `/usr/bin/time` reports the largest of the process and the children it reaped, so a
/// server can hide sightline's figure. Used by the memory benchmark.
struct PeakWrittenAtExit;

impl Drop for PeakWrittenAtExit {
    fn drop(&mut self) {
        let Some(path) = std::env::var_os("SIGHTLINE_PEAK_FILE") else {
            return;
        };
        let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
            return;
        };
        if let Some(line) = status.lines().find(|line| line.starts_with("VmHWM:")) {
            let _ = std::fs::write(path, format!("{line}\n"));
        }
    }
}

fn main() -> ExitCode {
    // Declared first, dropped last: the peak includes stopping the servers.
    let _peak = PeakWrittenAtExit;
    let _servers = ServersStoppedAtExit;
    let matches = match sightline::cli::parser().try_get_matches_from(
        sightline::cli::record_args_after_command(std::env::args_os()),
    ) {
        Ok(matches) => matches,
        Err(error) => return ExitCode::from(usage_error(&error)),
    };
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(usage_error(&error)),
    };
    let configured = config::default_host();
    sightline::cli::with_default_host(&mut cli, &matches, configured.as_deref());
    // A stdio proxy's pipes pass each chunk on in the task that read it, and the watch runs
    // between reads: on one thread, no chunk waits for another thread to wake.
    let one_thread = matches!(&cli.command, Some(Command::Proxy(args)) if args.url.is_none());
    let mut builder = if one_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("sightline: cannot start the async runtime: {error}");
            return ExitCode::from(exit::TRANSPORT_FAILURE);
        }
    };
    let code = runtime.block_on(dispatch(cli));
    // Don't wait for stray tasks (e.g. a reader blocked on a grandchild's pipe); the servers'
    // groups they would have stopped are stopped as `main` ends.
    runtime.shutdown_background();
    ExitCode::from(code)
}

/// Runs the command the line names; its exit code.
async fn dispatch(cli: Cli) -> u8 {
    match cli.command {
        Some(Command::Tools {
            json,
            check_headers,
            output,
            server,
        }) => headless::tools(&server, &cli.record, json, check_headers, &output).await,
        Some(Command::Test {
            test,
            output,
            server,
        }) => headless::test(&server, &test, &output).await,
        Some(Command::Lint {
            lint,
            output,
            server,
        }) => headless::lint(&server, &cli.record, &lint, &output).await,
        Some(Command::Call {
            call,
            json,
            output,
            server,
        }) => headless::call(&server, &cli.record, &call, json, &output).await,
        Some(Command::Resources(args)) => headless::resources(&args, &cli.record).await,
        Some(Command::Read(args)) => headless::read(&args, &cli.record).await,
        Some(Command::Skills(args)) => headless::skills(&args, &cli.record).await,
        Some(Command::Prompts(args)) => headless::prompts(&args, &cli.record).await,
        Some(Command::Prompt(args)) => headless::prompt(&args, &cli.record).await,
        Some(Command::Subscribe(args)) => headless::subscribe(&args, &cli.record).await,
        Some(Command::Complete(args)) => headless::complete(&args, &cli.record).await,
        Some(Command::Ping(args)) => headless::ping(&args, &cli.record).await,
        Some(Command::Request(args)) => headless::request(&args, &cli.record).await,
        Some(Command::Audit {
            audit,
            output,
            server,
        }) => headless::audit(&server, &cli.record, &audit, &output).await,
        Some(Command::Replay {
            file,
            serve: true,
            http,
            ..
        }) => headless::serve(&file, http).await,
        Some(Command::Replay {
            file,
            json,
            payload,
            tui,
            ..
        }) => replay(&file, json, payload, &tui).await,
        Some(Command::Diff {
            before,
            after,
            json,
            host,
        }) => headless::diff(&before, &after, &host, json),
        Some(Command::Auth {
            command: sightline::cli::AuthCommand::Logout { token_cache, url },
        }) => headless::logout(&token_cache, url.as_deref()),
        Some(Command::Keys { keys, json }) => headless::keys(keys.as_deref(), json),
        Some(Command::Hosts {
            show,
            json,
            host_file,
        }) => {
            let name = show.map(|HostsCommand::Show { name }| name);
            headless::hosts(name.as_deref(), json, host_file.as_deref())
        }
        Some(Command::Agent(args)) => headless::agent(&args, &cli.record).await,
        Some(Command::Capture { capture, server }) => headless::capture(&server, &capture).await,
        Some(Command::Calibrate(args)) => {
            tokio::task::block_in_place(|| headless::calibrate(&args))
        }
        Some(Command::Completions { shell }) => completions(shell),
        Some(Command::Man { dir }) => man(dir.as_deref()),
        Some(Command::Proxy(args)) => headless::proxy(&args, &cli.record).await,
        Some(Command::Attach(args)) => attach(&args).await,
        Some(Command::Relay { log, cwd, command }) => {
            headless::relay(&log, cwd.as_deref(), &command).await
        }
        Some(Command::DemoServer {
            style,
            http,
            auth,
            token_uses,
            host_cases,
        }) => demo_server(style, host_cases, http, auth, token_uses).await,
        None => tui(&cli.server, &cli.record, &cli.tui).await,
    }
}

/// `sightline demo-server`: the demo on stdio, or over Streamable HTTP at `http`.
async fn demo_server(
    style: sightline::demo_server::Style,
    host_cases: bool,
    http: Option<std::net::SocketAddr>,
    auth: bool,
    token_uses: Option<u32>,
) -> u8 {
    let mut demo = sightline::demo_server::DemoServer::new(style);
    if host_cases {
        demo = demo.with_host_cases();
    }
    let served = match http {
        Some(address) => {
            sightline::demo_server::http::run_http(demo, address, auth, token_uses).await
        }
        None => sightline::demo_server::run_stdio(demo).await,
    };
    match served {
        Ok(()) => exit::SUCCESS,
        Err(error) => {
            eprintln!("sightline demo-server: {error}");
            exit::TRANSPORT_FAILURE
        }
    }
}
