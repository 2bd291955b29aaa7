"""A deliberately broken legacy MCP server for sightline's robustness tests (stdlib only).

Usage: hostile_server.py MODE, where MODE decides how `tools/call` is answered:
  crash    write to stderr, then exit with status 3 without answering
  escape   answer with text full of terminal escape sequences and bidi overrides
  invisible
           answer with raw CRs between the reply's tokens (a CR returns the cursor and forged
           text overwrites the line) and noncharacters, Hangul fillers and tag characters in
           every string: text, error-free keys, the structured content
  huge     answer with a text block of SIZE bytes (env HUGE_BYTES, default 10 MB)
  huge-logged
           log a notifications/message of SIZE bytes, then answer as huge does
  garbage  write non-JSON lines, invalid UTF-8 and a non-JSON-RPC object, then answer
  silent   never answer (the client must time out)
  flood    after the handshake, write FLOOD_COUNT (default 1,000,000) log notifications of
           about 110 bytes before answering anything else
  pings    answer tools/call with PING_COUNT (default 5000) ping requests and never read again
  pages    answer every tools/list page with a new nextCursor, forever
  unreadable-KIND
           answer tools/call with a line naming its id that cannot be read, KIND one of: esc,
           surrogate, utf8, bigcode, twoobjects, batch, bom, deep, errorarray; nullid writes
           an error whose id is null (about no request), then the call's real answer
  predict  write a reply to the next request id before that request is sent, then answer it
  predict-late
           as predict, but the listing fills exactly one 64 KiB read: the guess is in the pipe
           before sightline can send the call, and comes in a read of its own; with
           PREDICT_DELAY (seconds), the guess is written that long after the listing instead,
           and then the file PREDICT_MARK (if set) is created: the guess is in the pipe
  detached on tools/call start a helper in this server's process group that closes its stdio
           and sleeps HELPER_SECONDS (default 30), its pid written to HELPER_PID_FILE if set;
           then answer and exit at once
  duplicate
           answer tools/call twice in one write
  orphan   on tools/call start a helper that keeps stdout open, then exit with status 3
  setsid   on tools/call start a helper in its own session (setsid) that keeps stdout and
           stderr open, then answer; setsid-exit: exit with status 3 instead of answering
  escapes  put terminal escapes into every error message and cursor (the era probe's answer,
           tools/list's second page)
  multiline
           answer tools/call with -32602 whose message is a validator's report over several
           lines, one of them with a terminal escape
Floods, each written in chunks so this server stays small (a peak-RSS figure is sightline's):
  stderr-flood   STDERR_BYTES (default 100 MB) of 2-byte stderr lines, then the answer
  garbage-flood  GARBAGE_BYTES (default 10 MB) of non-JSON lines on stdout, then the answer
  notify-flood   FLOOD_COUNT (default 1,000,000) log notifications, then the answer
  blocks         an answer of BLOCK_COUNT (default 1,000,000) empty text blocks
  many-tools     tools/list with TOOL_COUNT (default 200,000) tools
  zeros          an answer whose structuredContent holds ZERO_COUNT (default 10,000,000) zeros
  huge-c1        as huge, the text HUGE_BYTES of C1 controls (U+0080..U+009F, two bytes each)
"""
import fcntl
import json
import os
import subprocess
import sys
import time

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
    if os.environ.get("FLOOD_KIND") == "stderr":
        chunked(b"x\n", 2 * count, sys.stderr.buffer)
        return
    line = (b'{"jsonrpc": "2.0", "method": "notifications/message", "params": '
            b'{"level": "info", "data": "tick tock"}}\n')
    batch = line * 10000
    for _ in range(count // 10000):
        out.write(batch)
    raw(line * (count % 10000))


UNREADABLE = {
    "esc": b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"\x1b[2J"}]}}',
    "surrogate": b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"\\ud800"}]}}',
    "utf8": b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"\xff\xfe"}]}}',
    "bigcode": b'{"jsonrpc":"2.0","id":%d,"error":{"code":1e400,"message":"x"}}',
    "twoobjects": b'{"jsonrpc":"2.0","id":%d,"result":{}} {"jsonrpc":"2.0","id":0,"result":{}}',
    "batch": b'[{"jsonrpc":"2.0","id":%d,"result":{}}]',
    "bom": b'\xef\xbb\xbf{"jsonrpc":"2.0","id":%d,"result":{}}',
    "deep": b'{"jsonrpc":"2.0","id":%d,"result":' + b"[" * 130 + b"]" * 130 + b"}",
    "errorarray": b'{"jsonrpc":"2.0","id":%d,"error":[-32602,"Invalid params"]}',
}
ESCAPES = "\u001b]0;pwned\u0007\u001b[2J\u009b31m"


def repeated(prefix, item, count, suffix, stream=None):
    """Writes prefix, `count` comma-separated items and suffix, in chunks."""
    stream = stream or out
    stream.write(prefix)
    batch = 10000
    for start in range(0, count, batch):
        n = min(batch, count - start)
        stream.write((b"," if start else b"") + b",".join([item] * n))
    stream.write(suffix)
    stream.flush()


def chunked(line, total, stream):
    batch = line * (1 << 16)
    for _ in range(total // len(batch)):
        stream.write(batch)
    stream.write(line * ((total % len(batch)) // len(line)))
    stream.flush()


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
    elif method == "tools/list" and MODE == "many-tools":
        count = int(os.environ.get("TOOL_COUNT", "200000"))
        # Each its own name, as a real listing: a name is not shared by 200,000 tools.
        out.write(b'{"jsonrpc":"2.0","id":%d,"result":{"tools":[' % ident)
        for start in range(0, count, 10000):
            out.write((b"," if start else b"") + b",".join(
                b'{"name":"tool_%06d","description":"a tool","inputSchema":{"type":"object"}}' % i
                for i in range(start, min(start + 10000, count))))
        out.write(b"]}}\n")
        out.flush()
    elif method == "tools/list" and MODE == "pages":
        cursor = "page-%d" % ident
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [], "nextCursor": cursor}})
    elif method == "tools/list" and MODE == "escapes" and "cursor" in message.get("params", {}):
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": "bad cursor " + ESCAPES}})
    elif method == "tools/list":
        result = {"tools": [{
            "name": "boom",
            "description": "desc \u001b[2J\u001b[31m red",
            "inputSchema": {"type": "object"}}]}
        if MODE == "escapes":
            result["nextCursor"] = "next " + ESCAPES
        reply = json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode() + b"\n"
        guess = {"jsonrpc": "2.0", "id": ident + 1, "result": {"content": [{"type": "text", "text": "predicted"}]}}
        early = json.dumps(guess).encode() + b"\n"
        if MODE == "predict-late":
            # The listing padded to exactly one read of sightline's (64 KiB), and the guess in
            # the same write: in the pipe (made large enough) before sightline has read the
            # listing, so before it can send the call, and yet a read of its own after it.
            fcntl.fcntl(1, fcntl.F_SETPIPE_SZ, 1 << 20)
            result["tools"][0]["description"] = ""
            bare = len(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()) + 1
            result["tools"][0]["description"] = "p" * (65536 - bare)
            reply = json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode() + b"\n"
            assert len(reply) == 65536
        if MODE in ("predict", "predict-late") and not os.environ.get("PREDICT_DELAY"):
            # The reply to the request that has not been sent yet, in the same write.
            reply += early
        raw(reply)
        if MODE == "predict-late" and os.environ.get("PREDICT_DELAY"):
            time.sleep(float(os.environ["PREDICT_DELAY"]))
            raw(early)
            if os.environ.get("PREDICT_MARK"):
                open(os.environ["PREDICT_MARK"], "w").close()
    elif method == "tools/call":
        if MODE == "crash":
            sys.stderr.write("fatal: the tool crashed\n")
            sys.stderr.flush()
            sys.exit(3)
        elif MODE == "multiline":
            message = 'Invalid arguments: [\n  {\n    "path": ["date"],\n    "message": "bad \u001b[31mdate"\n  }\n]'
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": message}})
        elif MODE == "escape":
            text = "\u001b[2J\u001b[H\u001b]52;c;cHduZWQ=\u0007 hidden \u009b31m \u202eevil"
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}})
        elif MODE == "invisible":
            odd = "\uffff\U0010ffff\ud7ff\u115f\u1160\U000e0041\U000e007f"
            reply = json.dumps({"jsonrpc": "2.0", "id": ident, "result": {
                "content": [{"type": "text", "text": "failed" + odd}],
                "structuredContent": {"status" + odd: odd}}}, ensure_ascii=False)
            # Whitespace CRs: valid JSON, and on a terminal "booked" would overwrite the line.
            reply = reply.replace('"content":', '\r"booked": true, "content":', 1)
            raw(reply.encode() + b"\n")
        elif MODE == "huge-c1":
            size = int(os.environ.get("HUGE_BYTES", str(60 * 1024 * 1024)))
            raw(b'{"jsonrpc": "2.0", "id": %d, "result": {"content": [{"type": "text", "text": "' % ident)
            chunk = "".join(chr(0x80 + n % 32) for n in range(1 << 19)).encode()
            for _ in range(size // len(chunk)):
                out.write(chunk)
            raw(b"\xc2\x85" * ((size % len(chunk)) // 2) + b'"}]}}\n')
        elif MODE in ("huge", "huge-logged"):
            # Streamed in chunks, so this server stays small and a peak-RSS measurement
            # (which also counts reaped children) is sightline's own.
            size = int(os.environ.get("HUGE_BYTES", str(10 * 1024 * 1024)))
            if MODE == "huge-logged":
                data = "call %d: " % ident + "y" * size
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": data}})
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
        elif MODE == "pings":
            count = int(os.environ.get("PING_COUNT", "5000"))
            for n in range(count):
                send({"jsonrpc": "2.0", "id": "ping-%d" % n, "method": "ping"})
            time.sleep(60)
        elif MODE.startswith("unreadable-"):
            kind = MODE[len("unreadable-"):]
            if kind == "nullid":
                raw(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}\n')
                send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "booked"}]}})
            else:
                raw(UNREADABLE[kind].replace(b"%d", str(ident).encode()) + b"\n")
        elif MODE == "detached":
            helper = subprocess.Popen(["sleep", os.environ.get("HELPER_SECONDS", "30")],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            if os.environ.get("HELPER_PID_FILE"):
                with open(os.environ["HELPER_PID_FILE"], "w") as pid_file:
                    pid_file.write(str(helper.pid))
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "done"}]}})
            os._exit(0)
        elif MODE in ("predict", "predict-late"):
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "real"}]}})
        elif MODE == "duplicate":
            reply = json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "once"}]}})
            raw((reply + "\n" + reply + "\n").encode())
        elif MODE == "stderr-flood":
            chunked(b"x\n", int(os.environ.get("STDERR_BYTES", str(100 * 1000 * 1000))), sys.stderr.buffer)
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "done"}]}})
        elif MODE == "garbage-flood":
            chunked(b"this line is not json\n", int(os.environ.get("GARBAGE_BYTES", str(10 * 1000 * 1000))), out)
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "done"}]}})
        elif MODE == "notify-flood":
            flood()
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "done"}]}})
        elif MODE == "blocks":
            count = int(os.environ.get("BLOCK_COUNT", "1000000"))
            repeated(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[' % ident, b'{"type":"text","text":""}', count, b"]}}\n")
        elif MODE == "zeros":
            count = int(os.environ.get("ZERO_COUNT", "10000000"))
            repeated(b'{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"zeros"}],"structuredContent":{"z":[' % ident, b"0", count, b"]}}}\n")
        elif MODE == "orphan":
            subprocess.Popen(["sleep", os.environ.get("ORPHAN_SECONDS", "30")])
            sys.exit(3)
        elif MODE in ("setsid", "setsid-exit"):
            # A helper in a session of its own: out of the process group sightline stops, and
            # holding stdout and stderr open.
            subprocess.Popen(["sleep", os.environ.get("ORPHAN_SECONDS", "30")], start_new_session=True)
            if MODE == "setsid-exit":
                sys.exit(3)
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "done"}]}})
    else:
        message = "Method not found" + (" " + ESCAPES if MODE == "escapes" else "")
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": message}})
