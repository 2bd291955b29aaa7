//! Peak memory of headless runs against floods of small things (a bench binary, run once:
//! `cargo bench --bench hostile_memory`). Each flood is a mode of
//! `tests/peers/hostile_server.py`; the peak is sightline's own `VmHWM`, written by the process
//! at exit (`SIGHTLINE_PEAK_FILE`), never the server's. Printed: the peak against the bytes the
//! server sent (the contract: at most 2× for a reply), and the peak of a plain call beside it.

use std::process::Command;
use std::time::Instant;

/// (mode, command, bytes the server sends, what it is)
const CASES: &[(&str, &str, u64, &str)] = &[
    (
        "stderr-flood",
        "call",
        100_000_000,
        "100 MB of 2-byte stderr lines",
    ),
    (
        "notify-flood",
        "call",
        104_000_000,
        "1,000,000 log notifications",
    ),
    (
        "garbage-flood",
        "call",
        10_000_000,
        "10 MB of non-JSON lines",
    ),
    (
        "blocks",
        "call",
        26_000_000,
        "1,000,000 empty content blocks",
    ),
    (
        "many-tools",
        "tools",
        15_600_000,
        "200,000 tools, each named",
    ),
    ("huge", "call", 52_428_800, "a 50 MiB text result"),
    (
        "huge-c1",
        "call",
        62_914_560,
        "a 60 MiB text result of C1 controls",
    ),
    (
        "zeros",
        "call",
        20_000_000,
        "10,000,000 zeros in structuredContent",
    ),
];

fn main() {
    let server = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/hostile_server.py");
    let transcript =
        std::env::temp_dir().join(format!("hostile-memory-{}.jsonl", std::process::id()));
    let peak_file =
        std::env::temp_dir().join(format!("hostile-memory-{}.peak", std::process::id()));
    let floor = Command::new(env!("CARGO_BIN_EXE_sightline"))
        .args([
            "call", "boom", "--era", "legacy", "--", "python3", server, "normal",
        ])
        .env("SIGHTLINE_PEAK_FILE", &peak_file)
        .output();
    if floor.is_ok() {
        #[allow(clippy::cast_precision_loss)] // a figure for a person to read
        let megabytes = (written_peak_kb(&peak_file) * 1024) as f64 / 1e6;
        println!(
            "{:<30} a plain call (the floor): peak {megabytes:.1} MB",
            "normal"
        );
    }
    for (mode, command, bytes, what) in CASES {
        // The floods that were over 3x with `--record` are measured with it too.
        // Every reply-sized case is measured in each output mode: --json hid a regression.
        let recorded = matches!(
            *mode,
            "blocks" | "many-tools" | "zeros" | "huge" | "huge-c1"
        );
        let variants: &[(bool, bool)] = if recorded {
            &[(true, false), (false, false), (true, true), (false, true)]
        } else {
            &[(true, false), (false, false)]
        };
        // (json, record, payload): `--payload` repeats every block once more, as a host's API.
        let mut runs: Vec<(bool, bool, bool)> = variants
            .iter()
            .map(|&(json, record)| (json, record, false))
            .collect();
        if *mode == "blocks" {
            runs.push((true, false, true));
        }
        for (json, record, payload) in runs {
            let mut run = Command::new(env!("CARGO_BIN_EXE_sightline"));
            run.arg(command).env("SIGHTLINE_PEAK_FILE", &peak_file);
            if mode.starts_with("huge") {
                run.env("HUGE_BYTES", bytes.to_string());
            }
            if *command == "call" {
                run.arg("boom");
            }
            if json {
                run.arg("--json");
            }
            if record {
                run.arg("--record").arg(&transcript);
            }
            if payload {
                run.arg("--payload");
            }
            run.args([
                "--era",
                "legacy",
                "--timeout",
                "120",
                "--",
                "python3",
                server,
                mode,
            ]);
            let start = Instant::now();
            let output = match run.output() {
                Ok(output) => output,
                Err(error) => {
                    eprintln!("cannot run sightline: {error}");
                    return;
                }
            };
            let peak_kb = written_peak_kb(&peak_file);
            #[allow(clippy::cast_precision_loss)] // figures for a person to read
            let (megabytes, ratio) = (
                (peak_kb * 1024) as f64 / 1e6,
                (peak_kb * 1024) as f64 / *bytes as f64,
            );
            let _ = std::fs::remove_file(&transcript);
            println!(
                "{mode:<14} {:<15} {what}: peak {megabytes:.0} MB ({ratio:.1}x), {:.1} s, exit {}",
                match (json, record, payload) {
                    (_, _, true) => "--json --payload",
                    (true, true, _) => "--json --record",
                    (true, false, _) => "--json",
                    (false, true, _) => "--record",
                    _ => "human",
                },
                start.elapsed().as_secs_f64(),
                output.status.code().unwrap_or(-1)
            );
        }
    }
}

/// The `VmHWM` sightline wrote at exit, in kB (0 if it wrote none).
fn written_peak_kb(path: &std::path::Path) -> u64 {
    let peak = std::fs::read_to_string(path)
        .ok()
        .and_then(|line| {
            line.trim_start_matches("VmHWM:")
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0);
    let _ = std::fs::remove_file(path);
    peak
}
