"""A Streamable HTTP server (legacy era, stdlib only) that answers initialize and tools/list
properly, then answers tools/call with one fault, chosen by its first argument:

  unauthorized   401 with WWW-Authenticate, no body (every request)
  bad-gateway    502 with an HTML page
  not-acceptable 406 with a plain-text body
  not-json       200, Content-Type application/json, a body that is not JSON
  sse-cut        200 event stream: a priming event, then the stream closes before the answer
  silent         never answers (holds the request)
  error-400      400 with a JSON-RPC error body for the request (a protocol error)
  expire         a session id on initialize; the first tools/call gets 404 (the session has
                 expired); after a new initialize, calls succeed
  mismatch       the 2026-07-28 era: the first tools/call gets 400 with -32020 (HeaderMismatch),
                 the next one succeeds
  sse-resume     tools/call: an event stream with `retry: 300`, a priming event (id 7) and a
                 progress notification (id 8), closed before the answer; a GET with
                 `Last-Event-ID: 8` gets the answer, which says how long the client waited
  sse-lost       the 2026-07-28 era: the first tools/call's stream closes after a progress
                 notification; the call re-issued under a new id is answered
  param-headers  the 2026-07-28 era: `execute_sql` mirrors `region` into Mcp-Param-Region (checked:
                 a missing or different header is 400 -32020); `bad_tool` puts x-mcp-header on
                 a number, which clients must reject
  unchecked      the 2026-07-28 era, answering whatever its headers say (it never checks them)
  session-required  any request but initialize without the session id: 400 with a JSON-RPC
                 error (no id), as the official TypeScript SDK answers
  stale-session  a session id on initialize; tools/call with it gets 400 "Session not found"
                 (the spec asks for 404)
  answer-first   the deprecated HTTP+SSE transport (2024-11-05): initialize posted to /mcp is
                 refused (405), the GET stream names /messages; each request posted there is
                 answered on the stream 300 ms before its POST gets 202
  late-stream    the GET stream's headers come 300 ms after the GET (a loaded server); a
                 request that arrives before they are sent finds no stream to send a request of
                 its own on, as the TypeScript SDK's server drops it: tools/call says whether
                 the stream was open when the session's first request arrived
  held-stream    the same, but the GET stream's headers never come

It prints its URL on stdout, then serves until killed.
"""
import base64
import json
import queue
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "bad-gateway"
SESSIONS = {"next": 0, "calls": 0, "cut_at": 0.0, "cut_id": None, "open": False,
            "first_request_saw": None}
STREAM = queue.Queue()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if MODE == "answer-first":
            return self.deprecated_stream()
        if MODE == "late-stream":
            return self.late_stream()
        if MODE == "held-stream":
            time.sleep(60)
            return
        last = self.headers.get("Last-Event-ID")
        if MODE == "sse-resume" and last is not None and SESSIONS["cut_id"] is not None:
            waited = int((time.monotonic() - SESSIONS["cut_at"]) * 1000)
            text = "resumed after event %s, %d ms after the cut" % (last, waited)
            answer = {"jsonrpc": "2.0", "id": SESSIONS["cut_id"],
                      "result": {"content": [{"type": "text", "text": text}]}}
            return self.events([("9", answer)])
        self.send(405, b"", "text/plain")

    def events(self, events, retry=None):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        if retry is not None:
            self.wfile.write(b"retry: %d\n\n" % retry)
        for ident, message in events:
            data = b"" if message is None else json.dumps(message).encode()
            self.wfile.write(b"id: " + ident.encode() + b"\ndata: " + data + b"\n\n")
        self.wfile.flush()
        self.close_connection = True

    def deprecated_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"event: endpoint\ndata: /messages?session_id=1\n\n")
        self.wfile.flush()
        while True:
            message, written = STREAM.get()
            self.wfile.write(b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n")
            self.wfile.flush()
            written.put(None)

    def late_stream(self):
        time.sleep(0.3)
        # Open before the headers go: a client that waits for them cannot ask sooner, and
        # marked after them, a loaded machine could run the client's request first.
        SESSIONS["open"] = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.flush()
        try:
            while True:
                time.sleep(0.2)
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
        except OSError:
            SESSIONS["open"] = False

    def answer_on_stream(self, message):
        ident = message.get("id")
        method = message.get("method")
        if ident is not None:
            if method == "initialize":
                result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "http-faults", "version": MODE}}
            elif method == "tools/list":
                result = {"tools": [{"name": "boom", "inputSchema": {"type": "object"}}]}
            else:
                result = {"content": [{"type": "text", "text": "answered on the stream first"}]}
            written = queue.Queue()
            STREAM.put(({"jsonrpc": "2.0", "id": ident, "result": result}, written))
            written.get()
            time.sleep(0.3)
        self.send(202, b"Accepted", "text/plain")

    def do_DELETE(self):
        self.send(405, b"", "text/plain")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length) or b"{}")
        method = message.get("method")
        ident = message.get("id")
        if MODE == "answer-first":
            if self.path.startswith("/messages"):
                return self.answer_on_stream(message)
            return self.send(405, b"", "text/plain")
        if MODE == "unauthorized":
            return self.send(401, b"", headers=[("WWW-Authenticate", 'Bearer realm="mcp"')])
        if ident is None:
            return self.send(202)
        session = self.headers.get("Mcp-Session-Id")
        if method not in ("initialize", "server/discover") and SESSIONS["first_request_saw"] is None:
            SESSIONS["first_request_saw"] = "open" if SESSIONS["open"] else "not open yet"
        if MODE in ("late-stream", "held-stream") and method == "tools/call":
            text = "the stream was %s at the first request" % SESSIONS["first_request_saw"]
            return self.reply(ident, {"content": [{"type": "text", "text": text}]})
        if MODE == "session-required" and method != "initialize" and session is None:
            error = {"jsonrpc": "2.0", "id": None,
                     "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}}
            return self.send(400, json.dumps(error).encode())
        if method == "server/discover":
            if MODE not in ("mismatch", "sse-lost", "param-headers", "unchecked"):
                return self.send(200, json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}}).encode())
            info = {"io.modelcontextprotocol/serverInfo": {"name": "http-faults", "version": MODE}}
            return self.reply(ident, {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "_meta": info})
        if MODE == "mismatch" and method == "tools/call":
            SESSIONS["calls"] += 1
            if SESSIONS["calls"] == 1:
                error = {"jsonrpc": "2.0", "id": ident, "error": {"code": -32020, "message": "Header mismatch: Mcp-Name"}}
                return self.send(400, json.dumps(error).encode())
            return self.reply(ident, {"content": [{"type": "text", "text": "done on try %d" % SESSIONS["calls"]}], "resultType": "complete"})
        if MODE == "param-headers" and method == "tools/list":
            sql = {"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"}}, "required": ["region", "query"]}}
            bad = {"name": "bad_tool", "inputSchema": {"type": "object", "properties": {
                "count": {"type": "number", "x-mcp-header": "Count"}}}}
            return self.reply(ident, {"tools": [sql, bad], "resultType": "complete"})
        if MODE == "param-headers" and method == "tools/call":
            params = message.get("params", {})
            if params.get("name") == "execute_sql":
                header = self.headers.get("Mcp-Param-Region")
                if header is not None and header.startswith("=?base64?") and header.endswith("?="):
                    header = base64.b64decode(header[9:-2]).decode("utf-8")
                region = params.get("arguments", {}).get("region")
                if header != region:
                    error = {"jsonrpc": "2.0", "id": ident, "error": {"code": -32020,
                             "message": "Header mismatch: Mcp-Param-Region %r, body %r" % (header, region)}}
                    return self.send(400, json.dumps(error).encode())
                text = "Region header: %s (sent as %s)" % (header, self.headers.get("Mcp-Param-Region"))
                return self.reply(ident, {"content": [{"type": "text", "text": text}], "resultType": "complete"})
            return self.reply(ident, {"content": [{"type": "text", "text": "ran"}], "resultType": "complete"})
        if MODE == "sse-lost" and method == "tools/call":
            SESSIONS["calls"] += 1
            if SESSIONS["calls"] == 1:
                progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": 1, "progress": 1}}
                return self.events([("1", progress)])
            text = "answered on try %d, id %s" % (SESSIONS["calls"], ident)
            return self.reply(ident, {"content": [{"type": "text", "text": text}], "resultType": "complete"})
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "http-faults", "version": MODE}}
            SESSIONS["next"] += 1
            return self.reply(ident, result, [("Mcp-Session-Id", "session-%d" % SESSIONS["next"])])
        if MODE == "stale-session" and method == "tools/call":
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Session not found"}}
            return self.send(400, json.dumps(error).encode())
        if MODE == "expire" and method == "tools/call":
            if session == "session-1":
                return self.send(404, b"", "text/plain")
            return self.reply(ident, {"content": [{"type": "text", "text": "called in " + str(session)}]})
        if method == "tools/list":
            tool = {"name": "boom", "inputSchema": {"type": "object"}}
            return self.reply(ident, {"tools": [tool]})
        if method != "tools/call":
            return self.send(200, json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}}).encode())
        if MODE == "bad-gateway":
            return self.send(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")
        if MODE == "not-acceptable":
            return self.send(406, b"Not Acceptable: Accept must list application/json", "text/plain")
        if MODE == "not-json":
            return self.send(200, b"Internal error, please retry")
        if MODE == "error-400":
            error = {"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": "Invalid params: date"}}
            return self.send(400, json.dumps(error).encode())
        if MODE == "sse-cut":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"id: 1\ndata:\n\n")
            self.wfile.flush()
            self.close_connection = True
            return
        if MODE == "sse-resume":
            progress = {"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": 1, "progress": 1}}
            SESSIONS["cut_id"] = ident
            self.events([("7", None), ("8", progress)], retry=300)
            SESSIONS["cut_at"] = time.monotonic()
            return
        if MODE == "silent":
            time.sleep(60)
            return
        return self.reply(ident, {"content": [{"type": "text", "text": "called in " + str(session)}]})

    def reply(self, ident, result, headers=()):
        body = json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()
        self.send(200, body, headers=headers)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
server.serve_forever()
