"""A deliberately broken legacy MCP server for sightline's robustness tests (stdlib only).

Usage: hostile_server.py MODE, where MODE decides how `tools/call` is answered:
  crash    write to stderr, then exit with status 3 without answering
  escape   answer with text full of terminal escape sequences and bidi overrides
  huge     answer with a text block of SIZE bytes (env HUGE_BYTES, default 10 MB)
  garbage  write non-JSON lines, invalid UTF-8 and a non-JSON-RPC object, then answer
  silent   never answer (the client must time out)
  flood    after the handshake, write FLOOD_COUNT (default 1,000,000) log notifications of
           about 110 bytes before answering anything else
"""
import json
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "crash"
out = sys.stdout.buffer


def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def raw(data):
    out.write(data)
    out.flush()


def flood():
    count = int(os.environ.get("FLOOD_COUNT", "1000000"))
    line = (b'{"jsonrpc": "2.0", "method": "notifications/message", "params": '
            b'{"level": "info", "data": "tick tock"}}\n')
    batch = line * 10000
    for _ in range(count // 10000):
        out.write(batch)
    raw(line * (count % 10000))


for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if method == "notifications/initialized" and MODE == "flood":
        flood()
    if "id" not in message:
        continue
    ident = message["id"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile\u001b]0;pwned\u0007", "version": "6.6.6"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [{
            "name": "boom",
            "description": "desc \u001b[2J\u001b[31m red",
            "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        if MODE == "crash":
            sys.stderr.write("fatal: the tool crashed\n")
            sys.stderr.flush()
            sys.exit(3)
        elif MODE == "escape":
            text = "\u001b[2J\u001b[H\u001b]52;c;cHduZWQ=\u0007 hidden \u009b31m \u202eevil"
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}})
        elif MODE == "huge":
            # Streamed in chunks, so this server stays small and a peak-RSS measurement
            # (which also counts reaped children) is sightline's own.
            size = int(os.environ.get("HUGE_BYTES", str(10 * 1024 * 1024)))
            raw(b'{"jsonrpc": "2.0", "id": %d, "result": {"content": [{"type": "text", "text": "' % ident)
            chunk = b"x" * (1 << 20)
            for _ in range(size // len(chunk)):
                out.write(chunk)
            raw(b"x" * (size % len(chunk)) + b'"}]}}\n')
        elif MODE == "garbage":
            raw(b"Listening on stdio...\n")
            raw(b"\xff\xfe not utf-8\n")
            raw(b'{"hello": "world"}\n')
            raw(b"[1, 2, 3]\n")
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "ok"}]}})
        elif MODE == "silent":
            pass
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
