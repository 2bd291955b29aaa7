//! What a newcomer tripped on in the TUI, by the real binary in tmux: exit codes on signals.

#![allow(clippy::unwrap_used)] // a panic is a failed test

mod common;

use common::tmux::*;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

#[test]
fn sigterm_and_sigint_end_the_tui_with_128_plus_the_signal_and_the_terminal_restored() {
    for (signal, code) in [(Signal::SIGTERM, 143), (Signal::SIGINT, 130)] {
        let tmux = Tmux::start_sized(&[], 80, 24);
        tmux.wait_for_demo_server();
        let sightline = tmux.sightline_pid();
        kill(Pid::from_raw(i32::try_from(sightline).unwrap()), signal).unwrap();
        assert_eq!(tmux.wait_for_exit(), code, "{signal}");
    }
}
