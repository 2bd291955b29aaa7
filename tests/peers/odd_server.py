"""A stdio MCP server (stdlib only) whose tools answer with valid JSON-RPC but questionable MCP:
one tool per finding sightline reports on a result, for the recorded fixtures in tests/fixtures.
It speaks both eras: the legacy `initialize` handshake (2025-11-25) and the 2026-07-28
`server/discover` (every result then carries `resultType`).

Usage: odd_server.py. The tools, and the finding a call of each provokes:
  empty_error         isError: true with no content at all         -> tool-error-without-text
  structured_only     structuredContent and no content blocks      -> structured-without-text
  structured_summary  structuredContent with a text summary that is not its serialized JSON
                                                                    -> structured-text-differs
  missing_structured  declares an outputSchema, answers with text only
                                                                    -> structured-missing
  soft_failure        a success whose only text opens with "Error:" -> success-reads-like-error
  partial_result      resultType "partial", a type no client negotiates
                                                                    -> spec.unknown-result-type
                      (record it in the 2026-07-28 era, where resultType is defined)
  count_seats         declares `seats` (a required integer from 1 to 9) and never checks it:
                      any arguments succeed            -> `audit` calls it lenient
  failed_task         a task (2026-07-28: with the tasks extension declared; 2025-11-25: a
                      task-augmented call, taskSupport 'required') that ends 'failed' with an
                      isError: true tool result      -> tasks.tool-error-as-failed
Any other method gets -32601; any other tool -32602 (Unknown tool).
"""
import json
import sys

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
INFO = {"name": "odd-server", "version": "1.0.0"}
FLIGHT = {"flightNumber": "LH123", "status": "boarding", "gate": "B22"}
FLIGHT_SCHEMA = {
    "type": "object",
    "properties": {
        "flightNumber": {"type": "string"},
        "status": {"type": "string"},
        "gate": {"type": "string"},
    },
    "required": ["flightNumber", "status", "gate"],
}
NO_ARGUMENTS = {"type": "object", "properties": {}}


def tool(name, description, **extra):
    return dict({"name": name, "description": description, "inputSchema": NO_ARGUMENTS}, **extra)


TOOLS = [
    tool("empty_error", "Fails with isError: true and no content"),
    tool("structured_only", "Flight status as structuredContent only, no text block"),
    tool("structured_summary", "Flight status as structuredContent, with a prose summary as text"),
    tool("missing_structured", "Flight status: declares an outputSchema, answers with text only",
         outputSchema=FLIGHT_SCHEMA),
    tool("soft_failure", "Reports a failure as a successful result"),
    tool("partial_result", "Answers with resultType 'partial'"),
    dict(tool("count_seats", "Counts seats; accepts any arguments whatever its schema says"),
         inputSchema={
             "type": "object",
             "properties": {"seats": {"type": "integer", "minimum": 1, "maximum": 9}},
             "required": ["seats"],
         },
         annotations={"readOnlyHint": True}),
    tool("failed_task", "A booking run as a task, which fails with a tool error",
         execution={"taskSupport": "required"}),
]
TOOL_ERROR = {"content": [{"type": "text", "text": "no seats left on LH123"}], "isError": True}
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK = {"taskId": "t-1", "createdAt": "2026-12-01T00:00:00Z",
        "lastUpdatedAt": "2026-12-01T00:00:00Z", "ttl": 60000}

ANSWERS = {
    "empty_error": {"content": [], "isError": True},
    "structured_only": {"content": [], "structuredContent": FLIGHT},
    "structured_summary": {
        "content": [{"type": "text", "text": "LH123 is boarding at gate B22."}],
        "structuredContent": FLIGHT,
    },
    "missing_structured": {"content": [{"type": "text", "text": json.dumps(FLIGHT)}]},
    "soft_failure": {
        "content": [{"type": "text", "text": "Error: the booking service is unavailable, try again later."}],
    },
    "count_seats": {"content": [{"type": "text", "text": "seats counted"}]},
    "partial_result": {
        "resultType": "partial",
        "content": [{"type": "text", "text": "2 of 5 flights searched so far"}],
    },
}

modern = False


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(ident, value):
    if modern:
        value = dict({"resultType": "complete"}, **value)
    send({"jsonrpc": "2.0", "id": ident, "result": value})


def error(ident, code, message):
    send({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})


for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if "id" not in message:
        continue
    ident = message["id"]
    params = message.get("params") or {}
    if method == "initialize":
        capabilities = {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}
        result(ident, {"protocolVersion": LEGACY, "capabilities": capabilities, "serverInfo": INFO})
    elif method == "server/discover":
        modern = True
        result(ident, {
            "supportedVersions": [LEGACY, MODERN],
            "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": INFO},
        })
    elif method == "tools/call" and params.get("name") == "failed_task":
        declared = TASKS_EXTENSION in (params.get("_meta", {})
                                       .get("io.modelcontextprotocol/clientCapabilities", {})
                                       .get("extensions", {}))
        if modern and declared:
            result(ident, dict(TASK, resultType="task", status="working", pollIntervalMs=50))
        elif not modern and "task" in params:
            result(ident, {"task": dict(TASK, status="working", pollInterval=50)})
        else:
            error(ident, -32601, "failed_task runs only as a task")
    elif method == "tasks/get":
        if modern:
            # SEP-2663 says 'completed' with the result; this server says 'failed'.
            result(ident, dict(TASK, status="failed", result=TOOL_ERROR))
        else:
            result(ident, dict(TASK, status="failed", pollInterval=50))
    elif method == "tasks/result" and not modern:
        result(ident, TOOL_ERROR)
    elif method == "tools/list":
        result(ident, {"tools": TOOLS})
    elif method == "tools/call":
        name = params.get("name")
        if name not in ANSWERS:
            error(ident, -32602, "Unknown tool: %s" % name)
        elif name == "partial_result":
            send({"jsonrpc": "2.0", "id": ident, "result": ANSWERS[name]})
        else:
            result(ident, ANSWERS[name])
    else:
        error(ident, -32601, "Method not found")
