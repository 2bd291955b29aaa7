//! A real terminal for end-to-end tests: the real binary in a private tmux server, driven by
//! keystrokes and read back from the screen, with checks that the terminal is restored on exit.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_sightline");
/// The tmux session (and so the target of every command) on each test's private server.
pub const SESSION: &str = "e2e";
pub const POLL: Duration = Duration::from_millis(50);
/// The pause between two looks at a screen that must be the same twice.
const SETTLE: Duration = Duration::from_millis(20);
/// How long a screen that keeps changing is looked at before it is taken as it is.
const SETTLE_FOR: Duration = Duration::from_secs(2);
/// How long a key that changes nothing on the screen (`Home` on the first row) is given to
/// change it before it is taken as read.
const QUIET: Duration = Duration::from_millis(500);
/// Generous: CI is a loaded two-core machine.
pub const TIMEOUT: Duration = Duration::from_secs(15);
/// The pane's terminal modes once a full-screen program has left: main screen, no mouse
/// reporting, cursor shown.
pub const MODES: &str = "#{alternate_on} #{mouse_any_flag} #{mouse_sgr_flag} #{cursor_flag}";
pub const MODES_RESTORED: &str = "0 0 0 1";

/// A private tmux server (its own socket) running one 120×40 session; the server is killed and
/// its socket removed on drop, so a failed assertion still cleans up.
pub struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    /// Starts `sightline <args>` in a fresh terminal. The shell around it prints `EXITED <code>`
    /// and whether `stty` settings are back as they were (`TTY restored`), then lingers so the
    /// screen can be read.
    pub fn start(args: &[&str]) -> Tmux {
        Tmux::start_sized(args, 120, 40)
    }

    /// The same in a terminal of `width`×`height`.
    pub fn start_sized(args: &[&str], width: u16, height: u16) -> Tmux {
        Tmux::start_configured(args, width, height, None)
    }

    /// The same with `config` as `$XDG_CONFIG_HOME` (else a directory that does not exist).
    pub fn start_configured(
        args: &[&str],
        width: u16,
        height: u16,
        config: Option<&std::path::Path>,
    ) -> Tmux {
        Tmux::start_with_env(args, width, height, config, &[])
    }

    /// The same with `env` set for sightline (names and values are quoted).
    pub fn start_with_env(
        args: &[&str],
        width: u16,
        height: u16,
        config: Option<&std::path::Path>,
        env: &[(&str, &str)],
    ) -> Tmux {
        Tmux::launch(args, (width, height), config, env, None)
    }

    /// 120×40, started in `dir` (a user's own folder, outside the checkout).
    #[allow(dead_code)] // not every test binary starts one elsewhere
    pub fn start_in(args: &[&str], dir: &std::path::Path, env: &[(&str, &str)]) -> Tmux {
        Tmux::launch(args, (120, 40), None, env, Some(dir))
    }

    fn launch(
        args: &[&str],
        (width, height): (u16, u16),
        config: Option<&std::path::Path>,
        env: &[(&str, &str)],
        dir: Option<&std::path::Path>,
    ) -> Tmux {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "sightline-e2e-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let socket = std::env::temp_dir().join(format!("{name}.sock"));
        // Never created: keeps the user's hosts.toml, themes and keys out of the test.
        let no_config = config.map_or_else(
            || std::env::temp_dir().join(format!("{name}-no-config")),
            std::path::Path::to_owned,
        );
        let command = std::iter::once(BIN)
            .chain(args.iter().copied())
            .map(quote)
            .collect::<Vec<_>>()
            .join(" ");
        let env = env.iter().fold(String::new(), |mut line, (name, value)| {
            let _ = write!(line, "{name}={} ", quote(value));
            line
        });
        let script = format!(
            "before=$(stty -g); {env}XDG_CONFIG_HOME={config} {command}; code=$?; \
             if [ \"$(stty -g)\" = \"$before\" ]; then tty=restored; else tty=changed; fi; \
             echo \"EXITED $code\"; echo \"TTY $tty\"; sleep 60",
            config = quote(&no_config.to_string_lossy()),
        );
        let tmux = Tmux { socket };
        let dir = dir.map_or_else(
            || env!("CARGO_MANIFEST_DIR").to_owned(),
            |dir| dir.to_string_lossy().into_owned(),
        );
        tmux.run(&[
            "new-session",
            "-d",
            "-c",
            &dir,
            "-s",
            SESSION,
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "--",
            "sh",
            "-c",
            &script,
        ]);
        tmux
    }

    pub fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        // No user configuration, and no confusion with a tmux this test may run inside.
        command
            .args(["-f", "/dev/null", "-S"])
            .arg(&self.socket)
            .env_remove("TMUX");
        command
    }

    /// Runs a tmux command and returns its standard output.
    pub fn run(&self, args: &[&str]) -> String {
        let output: Output = self.command().args(args).output().unwrap_or_else(|error| {
            panic!("cannot run tmux (is it installed? apt-get install tmux): {error}")
        });
        assert!(
            output.status.success(),
            "tmux {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// The visible screen, as text.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", SESSION])
    }

    /// From now on, every byte the program writes to the terminal is appended to `file` too.
    pub fn pipe_output(&self, file: &str) {
        self.run(&[
            "pipe-pane",
            "-o",
            "-t",
            SESSION,
            &format!("cat >> {}", quote(file)),
        ]);
    }

    /// A left click at `column`, `row` (from 0), as the terminal reports it with mouse capture
    /// on: an SGR press and release typed into the pane.
    pub fn click(&self, column: u16, row: u16) {
        let (x, y) = (column + 1, row + 1);
        self.type_text(&format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"));
    }

    /// Named keys as tmux spells them: `Enter`, `Down`, `C-s`, `q`, ….
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", SESSION];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Text typed literally, character by character.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", SESSION, "-l", text]);
    }

    /// One key, given once the program has drawn what the key did: the screen differs from the
    /// one before the key, and a second look finds it unchanged. A screen that stays as it was
    /// for [`QUIET`] is taken as the key's answer too, so a key that changes nothing does not
    /// hang the test. Returns the screen.
    pub fn press(&self, key: &str) -> String {
        let before = self.screen();
        self.keys(&[key]);
        let start = Instant::now();
        let mut changed_since = None;
        loop {
            let screen = self.screen();
            if screen != before {
                let since = *changed_since.get_or_insert_with(Instant::now);
                if let Some(screen) = self.settled(screen, since) {
                    return screen;
                }
                continue;
            }
            if start.elapsed() >= QUIET {
                return screen;
            }
            sleep(SETTLE);
        }
    }

    /// A tmux format expanded for the pane, e.g. `#{alternate_on}`.
    pub fn display(&self, format: &str) -> String {
        self.run(&["display-message", "-p", "-t", SESSION, format])
            .trim()
            .to_owned()
    }

    /// Polls the screen until `done` holds; on timeout, panics with `what` and the last screen.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut held_since = None;
        loop {
            let screen = self.screen();
            if done(&screen) {
                let since = *held_since.get_or_insert_with(Instant::now);
                if let Some(screen) = self.settled(screen, since) {
                    return screen;
                }
                continue;
            }
            held_since = None;
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out after {TIMEOUT:?} waiting for {what}; the screen was:\n{screen}"
            );
            sleep(POLL);
        }
    }

    pub fn wait_for(&self, text: &str) -> String {
        self.wait_for_all(&[text])
    }

    /// Waits until every text is on the screen; a timeout names the ones still missing.
    pub fn wait_for_all(&self, texts: &[&str]) -> String {
        let start = Instant::now();
        let mut held_since = None;
        loop {
            let screen = self.screen();
            let missing: Vec<&str> = texts
                .iter()
                .copied()
                .filter(|text| !screen.contains(text))
                .collect();
            if missing.is_empty() {
                let since = *held_since.get_or_insert_with(Instant::now);
                if let Some(screen) = self.settled(screen, since) {
                    return screen;
                }
                continue;
            }
            held_since = None;
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out after {TIMEOUT:?} waiting for {missing:?}; the screen was:\n{screen}"
            );
            sleep(POLL);
        }
    }

    /// `screen`, once a second look finds it unchanged: tmux shows a frame as its bytes arrive,
    /// so a text can be on the screen while the rest of its frame is still the one before.
    /// A screen that keeps changing (a counter ticking) is taken as it is after `SETTLE_FOR`.
    fn settled(&self, screen: String, waited_since: Instant) -> Option<String> {
        if waited_since.elapsed() >= SETTLE_FOR {
            return Some(screen);
        }
        sleep(SETTLE);
        (self.screen() == screen).then_some(screen)
    }

    /// Waits until the tools are listed and the status bar names the connected demo server;
    /// checks that the TUI has taken over the terminal, so the restoration checks mean something.
    pub fn wait_for_demo_server(&self) {
        self.wait_until(
            "'Tools (10)' and 'sightline-demo' in the status bar",
            |screen| screen.contains("Tools (10)") && status_bar(screen).contains("sightline-demo"),
        );
        let modes = self.display("#{alternate_on} #{mouse_any_flag}");
        assert_eq!(
            modes, "1 1",
            "alternate screen and mouse capture while running"
        );
    }

    /// The pid of the `sightline` process (the shell's child in the pane).
    pub fn sightline_pid(&self) -> u32 {
        let shell: u32 = self.display("#{pane_pid}").parse().unwrap();
        child_named(shell, "sightline")
            .unwrap_or_else(|| panic!("no sightline process under the pane's shell {shell}"))
    }

    /// The pid of the demo server that `sightline` spawned.
    pub fn demo_server_pid(&self) -> u32 {
        let sightline = self.sightline_pid();
        child_named(sightline, "sightline")
            .unwrap_or_else(|| panic!("no demo server under sightline {sightline}"))
    }

    /// Waits for the program to exit and returns its exit code, after checking that the terminal
    /// is back to normal: main screen, no mouse reporting, cursor shown, tty modes as before, and
    /// none of the TUI left on the screen.
    pub fn wait_for_exit(&self) -> i32 {
        let screen = self.wait_until("'EXITED <code>' and 'TTY <state>'", |screen| {
            screen.contains("EXITED ") && screen.contains("TTY ")
        });
        let code = screen
            .lines()
            .find_map(|line| line.strip_prefix("EXITED "))
            .and_then(|code| code.trim().parse().ok())
            .unwrap_or_else(|| panic!("no exit code on the screen:\n{screen}"));
        assert_eq!(
            self.display(MODES),
            MODES_RESTORED,
            "terminal modes ({MODES}) after exit; the screen was:\n{screen}"
        );
        assert!(
            screen.contains("TTY restored"),
            "the tty settings (raw mode) were not restored:\n{screen}"
        );
        assert!(
            !screen.contains("Tools (10)") && !screen.contains('│') && !screen.contains('┃'),
            "the TUI is still on the screen after exit:\n{screen}"
        );
        code
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        // Best effort, and never a panic while unwinding.
        let _ = self.command().arg("kill-server").output();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Single-quotes a word for `sh`.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// The "What the model sees" pane of a screen `width` columns wide, as text.
pub fn model_pane(screen: &str, width: u16) -> String {
    let height = u16::try_from(screen.lines().count()).unwrap();
    let area = sightline::app::layout::areas(ratatui::layout::Rect::new(0, 0, width, height)).model;
    screen
        .lines()
        .skip(usize::from(area.y))
        .take(usize::from(area.height))
        .map(|line| {
            line.chars()
                .skip(usize::from(area.x))
                .take(usize::from(area.width))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last non-empty line of the screen.
pub fn status_bar(screen: &str) -> &str {
    screen
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or_default()
}

/// The `(state, parent pid, name)` of a process, from `/proc/<pid>/stat`.
pub fn process(pid: u32) -> Option<(char, u32, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (name) state ppid …`; the name may itself contain spaces and parentheses.
    let (head, tail) = stat.rsplit_once(") ")?;
    let name = head.split_once(" (")?.1.to_owned();
    let mut fields = tail.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let parent = fields.next()?.parse().ok()?;
    Some((state, parent, name))
}

/// A live child of `parent` with this process name, waiting for it to appear.
pub fn child_named(parent: u32, name: &str) -> Option<u32> {
    let start = Instant::now();
    while start.elapsed() < TIMEOUT {
        let found = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .find(|&pid| {
                process(pid).is_some_and(|(state, ppid, comm)| {
                    ppid == parent && comm == name && state != 'Z'
                })
            });
        if found.is_some() {
            return found;
        }
        sleep(POLL);
    }
    None
}

/// Whether the process has ended (gone, or a zombie nobody reaped yet).
pub fn has_ended(pid: u32) -> bool {
    process(pid).is_none_or(|(state, _, _)| state == 'Z' || state == 'X')
}

pub fn assert_ends(pid: u32, what: &str) {
    let start = Instant::now();
    while !has_ended(pid) {
        assert!(
            start.elapsed() < TIMEOUT,
            "{what} (pid {pid}) is still running after sightline exited"
        );
        sleep(POLL);
    }
}
