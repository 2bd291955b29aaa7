//! What `sightline proxy` costs a host (a bench binary, run once: `cargo bench --bench proxy`):
//! this binary is the host, and (run as `proxy-bench-server`) a minimal echo server, so the
//! server's own cost is small and stable, and (run as `proxy-bench-relay`) a byte relay in front
//! of it built from the proxy's own pipes, the floor any relay pays. Printed, directly, through
//! the relay and through the proxy (its own transcript, then `--record FILE`): per sequential
//! `tools/call` round trip the median, p99 and calls/s; what each adds to direct at the median
//! and p99; and what the proxy adds against what the relay adds. For one call whose result is a
//! 50 MiB text, the time to its last byte and the proxy's peak RSS (`VmHWM`); then a burst of
//! `PROXY_BURST` (4) such calls sent at once, whose peak stays bounded (the pipe waits for the
//! watch rather than queue the burst). Knobs: `PROXY_CALLS` (100,000), `PROXY_ROUNDS` (3),
//! `PROXY_HUGE_BYTES` (50 MiB). Nothing is left behind: the proxy's runtime directory and
//! `--record` file are in a temporary directory, removed at the end.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The argument that makes this binary the server.
const SERVE: &str = "proxy-bench-server";
/// The argument that makes this binary a byte relay in front of the server.
const RELAY: &str = "proxy-bench-relay";

fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some(SERVE) => return serve(),
        Some(RELAY) => return relay(),
        _ => {}
    }
    let calls = knob("PROXY_CALLS", 100_000);
    let rounds = knob("PROXY_ROUNDS", 3);
    let huge = knob("PROXY_HUGE_BYTES", 50 << 20);
    let burst = knob("PROXY_BURST", 4);
    let dir = std::env::temp_dir().join(format!("sightline-proxy-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let record = dir.join("record.jsonl");
    let ways = [
        Way::Direct,
        Way::Relay,
        Way::Proxy,
        Way::Recorded(record.clone()),
    ];

    round_trip_rounds(&ways, calls, rounds, &dir);

    #[allow(clippy::cast_precision_loss)] // figures for a person to read
    let mib = huge as f64 / f64::from(1 << 20);
    println!("one tools/call whose result is a {mib:.0} MiB text, {rounds} times each way");
    let mut direct_bytes = None;
    let mut last_byte: Vec<Vec<f64>> = ways.iter().map(|_| Vec::new()).collect();
    for round in 1..=rounds {
        for (n, way) in ways.iter().enumerate() {
            let mut peer = Peer::start(way, &dir);
            let (elapsed, bytes) = peer.huge_calls(1, huge);
            last_byte[n].push(elapsed.as_secs_f64() * 1e3);
            assert_eq!(
                *direct_bytes.get_or_insert(bytes),
                bytes,
                "the host gets the same reply through the proxy"
            );
            let (peak, transcript) = peer.finish_watching();
            #[allow(clippy::cast_precision_loss)]
            let throughput = bytes as f64 / f64::from(1 << 20) / elapsed.as_secs_f64();
            println!(
                "  round {round} {:<17} last byte after {:>5.0} ms ({throughput:>5.0} MiB/s){}",
                way.name(),
                elapsed.as_secs_f64() * 1e3,
                proxy_words(peak, transcript)
            );
        }
    }
    let middle = |n: usize| -> f64 {
        let mut all = last_byte[n].clone();
        all.sort_by(f64::total_cmp);
        all[all.len() / 2]
    };
    for (n, way) in ways.iter().enumerate().skip(1) {
        println!(
            "  {}: {:.0} ms, {:.1}× direct's {:.0} ms (middle rounds; target for the proxy 1.5×)",
            way.name(),
            middle(n),
            middle(n) / middle(0).max(0.1),
            middle(0)
        );
    }
    println!("{burst} such calls sent at once, once each way");
    for way in &ways {
        let mut peer = Peer::start(way, &dir);
        let (elapsed, bytes) = peer.huge_calls(burst, huge);
        assert_eq!(
            bytes,
            burst * direct_bytes.unwrap_or(0),
            "every reply arrived"
        );
        let (peak, transcript) = peer.finish_watching();
        println!(
            "  {:<17} last byte after {:>5.0} ms{}",
            way.name(),
            elapsed.as_secs_f64() * 1e3,
            proxy_words(peak, transcript)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sequential round trips each way, `rounds` times: each round's figures, what each way adds
/// to direct, and what the proxy adds against the relay.
fn round_trip_rounds(ways: &[Way], calls: usize, rounds: usize, dir: &Path) {
    println!("{calls} sequential tools/call round trips, {rounds} rounds (each way once a round)");
    let mut rounds_of: Vec<Vec<Figures>> = ways.iter().map(|_| Vec::new()).collect();
    for round in 1..=rounds {
        for (n, way) in ways.iter().enumerate() {
            let mut peer = Peer::start(way, dir);
            let figures = peer.round_trips(calls);
            let peak = peer.peak_kb();
            let transcript = peer.finish();
            let line = format!(
                "  round {round} {:<17} median {:>6.1} µs  p99 {:>6.1} µs  {:>7.0} calls/s{}",
                way.name(),
                figures.median_us,
                figures.p99_us,
                figures.per_second,
                proxy_words(peak, transcript)
            );
            println!("{line}");
            rounds_of[n].push(figures);
        }
    }
    for (n, way) in ways.iter().enumerate().skip(1) {
        let added = |figure: fn(&Figures) -> f64| -> String {
            rounds_of[n]
                .iter()
                .zip(&rounds_of[0])
                .map(|(through, direct)| format!("{:.1} µs", figure(through) - figure(direct)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!(
            "  added ({}, through − direct, per round): median {}; p99 {}",
            way.name(),
            added(|f| f.median_us),
            added(|f| f.p99_us)
        );
    }
    // The proxy against a relay of the same pipes: what watching costs beyond passing bytes on.
    // The middle round of each, since one round's direct figure can be far off the others'
    // (two processes that share a core answer each other without waking one).
    let middle = |n: usize, figure: fn(&Figures) -> f64| -> f64 {
        let mut all: Vec<f64> = rounds_of[n]
            .iter()
            .zip(&rounds_of[0])
            .map(|(through, direct)| figure(through) - figure(direct))
            .collect();
        all.sort_by(f64::total_cmp);
        all[all.len() / 2]
    };
    for (n, way) in ways.iter().enumerate().skip(2) {
        let (median, relay) = (middle(n, |f| f.median_us), middle(1, |f| f.median_us));
        println!(
            "  {} adds {median:.1} µs at the median, {:.1}× the relay's {relay:.1} µs (target 2×); \
             {:.1} µs at the p99 (target 100 µs)",
            way.name(),
            median / relay.max(0.1),
            middle(n, |f| f.p99_us),
        );
    }
}

/// The proxy's peak RSS and its transcript's size, in words.
#[allow(clippy::cast_precision_loss)]
fn proxy_words(peak_kb: Option<u64>, transcript: Option<u64>) -> String {
    let mut words = String::new();
    if let Some(kb) = peak_kb {
        let _ = write!(words, "  proxy peak RSS {:.1} MB", kb as f64 / 1e3);
    }
    if let Some(bytes) = transcript {
        let _ = write!(words, ", transcript {:.1} MB", bytes as f64 / 1e6);
    }
    words
}

/// How the host reaches the server.
enum Way {
    Direct,
    /// This binary as a byte relay: the same pipes as the proxy's, nothing watched.
    Relay,
    /// `sightline proxy -- SERVER`: its own transcript in the runtime directory.
    Proxy,
    /// `sightline proxy --record FILE -- SERVER`.
    Recorded(PathBuf),
}

impl Way {
    fn name(&self) -> &'static str {
        match self {
            Way::Direct => "direct",
            Way::Relay => "byte relay",
            Way::Proxy => "proxy",
            Way::Recorded(_) => "proxy --record",
        }
    }
}

/// Round-trip figures, in microseconds.
struct Figures {
    median_us: f64,
    p99_us: f64,
    per_second: f64,
}

/// The host's end of a connection: the child (server or proxy) and its pipes.
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    proxied: bool,
    runtime_dir: PathBuf,
    record: Option<PathBuf>,
    reply: Vec<u8>,
    next_id: u64,
}

impl Peer {
    /// Starts the server `way`'s way and does the handshake a host does.
    fn start(way: &Way, dir: &Path) -> Self {
        let server = std::env::current_exe().expect("this bench's path");
        let runtime_dir = dir.join("runtime");
        std::fs::create_dir_all(&runtime_dir).expect("a runtime directory");
        let mut command = match way {
            Way::Direct => Command::new(&server),
            Way::Relay => {
                let mut command = Command::new(&server);
                command.arg(RELAY);
                command
            }
            Way::Proxy | Way::Recorded(_) => {
                let mut command = Command::new(env!("CARGO_BIN_EXE_sightline"));
                command.arg("proxy");
                if let Way::Recorded(file) = way {
                    command.arg("--record").arg(file);
                }
                command.arg("--").arg(&server);
                command
            }
        };
        command
            .arg(SERVE)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().expect("the server or proxy starts");
        let stdin = child.stdin.take().expect("a stdin pipe");
        let stdout = BufReader::with_capacity(1 << 16, child.stdout.take().expect("a stdout"));
        let mut peer = Peer {
            child,
            stdin: Some(stdin),
            stdout,
            proxied: matches!(way, Way::Proxy | Way::Recorded(_)),
            runtime_dir,
            record: match way {
                Way::Recorded(file) => Some(file.clone()),
                _ => None,
            },
            reply: Vec::with_capacity(4096),
            next_id: 0,
        };
        peer.request(
            "initialize",
            r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sightline-proxy-bench","version":"1"}}"#,
        );
        peer.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        peer.request("tools/list", "{}");
        peer
    }

    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line).expect("the request is written");
        stdin.write_all(b"\n").expect("the request is written");
        stdin.flush().expect("the request is written");
    }

    /// One request, and its reply read whole into `self.reply`.
    fn request(&mut self, method: &str, params: &str) {
        self.next_id += 1;
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"{method}","params":{params}}}"#,
            self.next_id
        );
        self.send(line.as_bytes());
        self.reply.clear();
        let read = self
            .stdout
            .read_until(b'\n', &mut self.reply)
            .expect("the reply is read");
        assert!(read > 0, "the server answered '{method}'");
    }

    /// `calls` sequential calls of the echo tool, each timed from its write to its reply's end
    /// (after a warm-up of a twentieth as many).
    fn round_trips(&mut self, calls: usize) -> Figures {
        let params = r#"{"name":"echo","arguments":{"text":"hello"}}"#;
        for _ in 0..calls / 20 {
            self.request("tools/call", params);
        }
        let mut times = Vec::with_capacity(calls);
        let start = Instant::now();
        for _ in 0..calls {
            let sent = Instant::now();
            self.request("tools/call", params);
            times.push(sent.elapsed());
        }
        let total = start.elapsed();
        assert!(
            self.reply.starts_with(br#"{"jsonrpc":"2.0","id":"#),
            "an echo reply"
        );
        times.sort_unstable();
        let at = |fraction: f64| {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss
            )]
            let index = ((times.len() as f64 * fraction) as usize).min(times.len() - 1);
            times[index].as_secs_f64() * 1e6
        };
        #[allow(clippy::cast_precision_loss)]
        Figures {
            median_us: at(0.5),
            p99_us: at(0.99),
            per_second: calls as f64 / total.as_secs_f64(),
        }
    }

    /// `n` calls of the huge tool, sent at once: the time to the last byte of the last reply,
    /// and the replies' size (read as they come, never held).
    fn huge_calls(&mut self, n: usize, bytes: usize) -> (Duration, usize) {
        let sent = Instant::now();
        for _ in 0..n {
            self.next_id += 1;
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"huge","arguments":{{"bytes":{bytes}}}}}}}"#,
                self.next_id
            );
            self.send(line.as_bytes());
        }
        let mut total = 0;
        for _ in 0..n {
            loop {
                let buffer = self.stdout.fill_buf().expect("the reply is read");
                assert!(!buffer.is_empty(), "the reply ended early");
                if let Some(at) = memchr(buffer) {
                    total += at + 1;
                    self.stdout.consume(at + 1);
                    break;
                }
                let len = buffer.len();
                total += len;
                self.stdout.consume(len);
            }
        }
        (sent.elapsed(), total)
    }

    /// The proxy's peak RSS so far, in kB.
    fn peak_kb(&self) -> Option<u64> {
        self.proxied.then(|| vm_hwm(self.child.id())).flatten()
    }

    /// Ends the connection as a host does (its stdin closed) and waits; the transcript's size.
    fn finish(mut self) -> Option<u64> {
        let transcript = self.transcript_size();
        drop(self.stdin.take());
        let status = self.child.wait().expect("the child is waited for");
        assert!(status.success(), "the connection ended cleanly: {status}");
        self.cleanup();
        transcript
    }

    /// Ends the connection and follows the proxy's peak RSS until it exits (its watch finishes
    /// what passed before it does); the peak and the transcript's size.
    fn finish_watching(mut self) -> (Option<u64>, Option<u64>) {
        drop(self.stdin.take());
        let mut peak = None;
        let mut transcript = None;
        if self.proxied {
            // A process that has exited (a zombie until waited for) has no VmHWM.
            while let Some(kb) = vm_hwm(self.child.id()) {
                peak = Some(kb);
                transcript = self.transcript_size().or(transcript);
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let mut rest = Vec::new();
        let _ = self.stdout.read_to_end(&mut rest);
        let status = self.child.wait().expect("the child is waited for");
        assert!(status.success(), "the connection ended cleanly: {status}");
        if let Some(record) = &self.record {
            transcript = std::fs::metadata(record).ok().map(|meta| meta.len());
        }
        self.cleanup();
        (peak, transcript)
    }

    /// The size of the transcript the proxy is writing.
    fn transcript_size(&self) -> Option<u64> {
        if !self.proxied {
            return None;
        }
        let path = match &self.record {
            Some(file) => file.clone(),
            None => self
                .runtime_dir
                .join("sightline")
                .join(format!("proxy-{}.jsonl", self.child.id())),
        };
        std::fs::metadata(path).ok().map(|meta| meta.len())
    }

    fn cleanup(&self) {
        if let Some(record) = &self.record {
            let _ = std::fs::remove_file(record);
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&byte| byte == b'\n')
}

/// A process's peak resident memory in kB (`VmHWM`), while it runs.
fn vm_hwm(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches(" kB").parse().ok())
}

/// A byte relay in front of the server (this binary again): the proxy's own pipes (our stdin
/// and stdout through the reactor, the child's through tokio's), each chunk written on as it
/// is read, nothing else.
fn relay() {
    // One thread, as a stdio proxy's pipes run.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut child = tokio::process::Command::new(std::env::current_exe().expect("own path"))
            .arg(SERVE)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let (mut child_in, mut child_out) = (
            child.stdin.take().expect("stdin"),
            child.stdout.take().expect("stdout"),
        );
        // Widened as the proxy widens it, read as much at once: the same floor.
        let _ = rustix::pipe::fcntl_setpipe_size(&child_out, 1 << 20);
        let mut host_in = sightline::proxy::host_pipes::host_in();
        let mut host_out = sightline::proxy::host_pipes::host_out();
        let up = tokio::spawn(async move {
            let mut buffer = vec![0u8; 64 * 1024];
            while let Ok(read @ 1..) = host_in.read(&mut buffer).await {
                if child_in.write_all(&buffer[..read]).await.is_err() {
                    break;
                }
            }
        });
        let mut buffer = vec![0u8; 256 * 1024];
        while let Ok(read @ 1..) = child_out.read(&mut buffer).await {
            if host_out.write_all(&buffer[..read]).await.is_err() {
                break;
            }
        }
        up.abort();
        let _ = child.wait().await;
    });
}

/// The server: a legacy MCP server whose `echo` answers at once and whose `huge` answers with a
/// text of `arguments.bytes` bytes, written in 1 MiB chunks (so it stays small).
fn serve() {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { return };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id") else {
            continue;
        };
        let method = message.get("method").and_then(|m| m.as_str());
        let name = message.pointer("/params/name").and_then(|m| m.as_str());
        let written = match (method, name) {
            (Some("initialize"), _) => writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"proxy-bench","version":"1"}}}}}}"#
            ),
            (Some("tools/list"), _) => writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"echo","inputSchema":{{"type":"object"}}}},{{"name":"huge","inputSchema":{{"type":"object"}}}}]}}}}"#
            ),
            (Some("tools/call"), Some("huge")) => {
                let bytes = message
                    .pointer("/params/arguments/bytes")
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0);
                huge(&mut out, id, bytes)
            }
            (Some("tools/call"), _) => writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"hello"}}]}}}}"#
            ),
            _ => writeln!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"no such method"}}}}"#
            ),
        };
        if written.and_then(|()| out.flush()).is_err() {
            return;
        }
    }
}

fn huge(out: &mut impl Write, id: &serde_json::Value, bytes: u64) -> std::io::Result<()> {
    write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":""#
    )?;
    let chunk = vec![b'x'; 1 << 20];
    let mut left = usize::try_from(bytes).unwrap_or(usize::MAX);
    while left > 0 {
        let n = left.min(chunk.len());
        out.write_all(&chunk[..n])?;
        left -= n;
    }
    writeln!(out, r#""}}]}}}}"#)
}
