//! `sightline replay` of a 1 GB transcript in the TUI: seconds until its last call is on
//! screen, and peak memory against the file's size (a bench binary, run once:
//! `cargo bench --bench replay_memory`; needs tmux and GNU time at /usr/bin/time).
//!
//! The transcript is a real recording of one call to `tests/peers/hostile_server.py huge` (a
//! 1 MiB reply), its call repeated under new ids until the file passes 1 GB.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::Command;
use std::time::{Duration, Instant};

const REPLY_BYTES: usize = 1 << 20;
const CALLS: u64 = 500;

#[allow(clippy::cast_precision_loss)] // figures for a person to read
fn main() {
    let dir = std::env::temp_dir().join(format!("sightline-replay-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let base = dir.join("one.jsonl");
    let big = dir.join("big.jsonl");
    record_one(&base);
    let bytes = repeat_call(&base, &big);
    let (seconds, peak_kb) = replay_in_tmux(&big, CALLS + 2);
    println!(
        "replay of {:.2} GB ({CALLS} calls of {} KiB): last call on screen after {seconds:.1} s; peak RSS {:.1} MB ({:.1}% of the file)",
        bytes as f64 / 1e9,
        REPLY_BYTES / 1024,
        peak_kb as f64 / 1e3,
        peak_kb as f64 * 1e3 * 100.0 / bytes as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sightline --record FILE call boom` against the hostile server's `huge` mode.
fn record_one(path: &std::path::Path) {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let status = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args(["--record", path.to_str().expect("a UTF-8 path")])
        .args([
            "call", "boom", "{}", "--era", "legacy", "--", "python3", server, "huge",
        ])
        .env("HUGE_BYTES", REPLY_BYTES.to_string())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("sightline runs");
    assert!(status.success(), "the recording failed: {status}");
}

/// Writes `base` with its one call (the `sent`, `received` and `call` lines of id 3) repeated
/// [`CALLS`] times under ids 3, 4, 5…; the file's size.
fn repeat_call(base: &std::path::Path, big: &std::path::Path) -> u64 {
    let text = std::fs::read_to_string(base).expect("the recording");
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|line| line.contains(r#"\"method\":\"tools/call\""#))
        .expect("the call was sent");
    let last = lines
        .iter()
        .position(|line| line.starts_with(r#"{"type":"call""#))
        .expect("the call finished");
    let mut out = std::io::BufWriter::new(std::fs::File::create(big).expect("the big file"));
    let mut write = |line: &str| writeln!(out, "{line}").expect("written");
    lines[..first].iter().for_each(|line| write(line));
    for n in 0..CALLS {
        let id = 3 + n;
        for line in &lines[first..=last] {
            let mut renamed = String::with_capacity(line.len());
            // Each id is in the first few hundred bytes of its line; the reply's text follows.
            let (head, tail) = line.split_at(line.len().min(600));
            let mut head = head
                .replace(r#"\"id\":3,"#, &format!(r#"\"id\":{id},"#))
                .replace(r#"\"id\": 3,"#, &format!(r#"\"id\": {id},"#))
                .replace(r#""id":3,"#, &format!(r#""id":{id},"#));
            if line.starts_with(r#"{"type":"call""#) {
                // The reply's id, inside the `end` member, is past the first 600 bytes.
                let end = tail.replacen(r#"\"id\": 3,"#, &format!(r#"\"id\": {id},"#), 1);
                let _ = write!(head, "{end}");
                renamed.push_str(&head);
            } else {
                renamed.push_str(&head);
                renamed.push_str(tail);
            }
            write(&renamed);
        }
    }
    lines[last + 1..].iter().for_each(|line| write(line));
    drop(out);
    std::fs::metadata(big).expect("the big file").len()
}

/// Runs `sightline replay` in a 120×40 tmux pane under GNU time; seconds until the call with
/// id `last_id` shows in the log, and the peak RSS in kB.
fn replay_in_tmux(big: &std::path::Path, last_id: u64) -> (f64, u64) {
    let socket = format!("sightline-bench-{}", std::process::id());
    let times = big.with_extension("time");
    let command = format!(
        "/usr/bin/time -f %M -o {} {} replay {}",
        times.display(),
        env!("CARGO_BIN_EXE_sightline"),
        big.display()
    );
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket])
            .args(args)
            .output()
            .expect("tmux runs")
    };
    let start = Instant::now();
    tmux(&["new-session", "-d", "-x", "120", "-y", "40", &command]);
    let wanted = format!("#{last_id} ");
    let seconds = loop {
        let screen = String::from_utf8_lossy(&tmux(&["capture-pane", "-p"]).stdout).into_owned();
        if screen.contains(&wanted) {
            break start.elapsed().as_secs_f64();
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "the last call never showed:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    tmux(&["send-keys", "q"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let peak = loop {
        if let Some(kb) = std::fs::read_to_string(&times)
            .ok()
            .and_then(|text| text.trim().lines().last()?.parse().ok())
        {
            break kb;
        }
        assert!(Instant::now() < deadline, "sightline did not quit");
        std::thread::sleep(Duration::from_millis(50));
    };
    tmux(&["kill-server"]);
    (seconds, peak)
}
