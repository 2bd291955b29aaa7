"""What a host written in Python pays for `sightline proxy`: sequential tools/call round trips
from a small Python client to a minimal Python stdio server, directly, through a plain byte
relay (`cat` on both pipes) and through the proxy, in rounds; the median and p99 of each, and
what each adds to direct.

    python3 benches/proxy_client.py [SIGHTLINE] [--calls N] [--rounds R]

SIGHTLINE defaults to target/release/sightline (build it with `cargo build --release`).
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

SERVER = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message["method"]
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "echo", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    else:
        result = {"content": [{"type": "text", "text": message["params"]["arguments"]["text"]}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()
"""


def ways(sightline):
    server = [sys.executable, "-c", SERVER]
    quoted = " ".join("'" + part.replace("'", "'\\''") + "'" for part in server)
    return [
        ("direct", server),
        ("cat relay", ["sh", "-c", f"cat | {quoted} | cat"]),
        ("sightline proxy", [sightline, "proxy", "--", *server]),
    ]


def round_trips(command, calls):
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, bufsize=0)
    writer, reader = child.stdin, child.stdout

    def request(id_, method, params):
        writer.write((json.dumps({"jsonrpc": "2.0", "id": id_, "method": method,
                                  "params": params}) + "\n").encode())
        return reader.readline()

    request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "proxy-client-bench", "version": "1"}})
    writer.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    request(1, "tools/list", {})
    params = {"name": "echo", "arguments": {"text": "hello"}}
    for n in range(calls // 20):
        request(2 + n, "tools/call", params)
    times = []
    for n in range(calls):
        sent = time.perf_counter()
        reply = request(100_000 + n, "tools/call", params)
        times.append((time.perf_counter() - sent) * 1e6)
    assert b'"hello"' in reply, reply
    writer.close()
    child.wait()
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sightline", nargs="?", default="target/release/sightline")
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    figures = {name: [] for name, _ in ways(args.sightline)}
    print(f"{args.calls} sequential tools/call round trips from Python, {args.rounds} rounds")
    for round_ in range(1, args.rounds + 1):
        for name, command in ways(args.sightline):
            median, p99 = round_trips(command, args.calls)
            figures[name].append((median, p99))
            print(f"  round {round_} {name:<16} median {median:7.1f} µs  p99 {p99:7.1f} µs")
    direct = figures["direct"]
    for name in list(figures)[1:]:
        added = [(m - dm, p - dp) for (m, p), (dm, dp) in zip(figures[name], direct)]
        print(f"  {name} adds, per round: median "
              + ", ".join(f"{m:.1f} µs" for m, _ in added)
              + "; p99 " + ", ".join(f"{p:.1f} µs" for _, p in added))


if __name__ == "__main__":
    main()
