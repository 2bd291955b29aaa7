"""A stdio MCP server (stdlib only, raw JSON-RPC) that answers every `sightline audit` case one
way, chosen by its one argument, so that each audit verdict has a server written for it
(tests/audit/verdicts.rs). It speaks the legacy `initialize` handshake (2025-11-25) and answers
`server/discover` with -32601, so sightline falls back to it.

Usage: verdict_server.py MODE. One read-only tool, `book` (destination: a 3-letter code, seats:
an integer from 1 to 9, both required; class: economy or business; no other property), and
what each MODE answers to an argument case / to an unknown tool and a string `arguments`:
  conformant     isError naming the argument and what to send  / -32602         -> conformant
  model-blind    -32602 naming the argument and what to send    / -32602         -> model-blind
  lenient        runs anyway: a success                         / a success      -> lenient
  lenient-error  isError about something else (a service down)  / -32602         -> lenient
  misfiled       isError naming the argument                    / isError, -32603 -> misfiled
  unclear        isError: a rate limit                          / -32602         -> unclear
  unclear-auth   -32001: unauthorized                           / -32602         -> unclear
  unclear-base   isError: refuses every destination, naming it  / -32602
                 (the other arguments' cases are unclear, naming 'destination')
"""
import json
import sys

MODES = ["conformant", "model-blind", "lenient", "lenient-error", "misfiled", "unclear",
         "unclear-auth", "unclear-base"]
MODE = sys.argv[1] if len(sys.argv) > 1 else ""
if MODE not in MODES:
    sys.exit("usage: verdict_server.py " + "|".join(MODES))

VERSION = "2025-11-25"
INFO = {"name": "verdict-server", "version": MODE}
HINTS = {
    "destination": "must be a 3-letter airport code, e.g. LIS",
    "seats": "must be an integer between 1 and 9",
    "class": "must be one of economy, business",
}
BOOK = {
    "name": "book",
    "description": "Books seats on a flight to a destination",
    "inputSchema": {
        "type": "object",
        "properties": {
            "destination": {"type": "string", "minLength": 3, "maxLength": 3},
            "seats": {"type": "integer", "minimum": 1, "maximum": 9},
            "class": {"type": "string", "enum": ["economy", "business"]},
        },
        "required": ["destination", "seats"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}


def problem(arguments):
    """The first way `arguments` break the schema, in words naming the argument; None if valid."""
    for name in arguments:
        if name not in HINTS:
            return "unexpected property '%s': the allowed properties are destination, seats and class" % name
    for name in ["destination", "seats"]:
        if name not in arguments:
            return "'%s' is required: it %s" % (name, HINTS[name])
    destination = arguments["destination"]
    if not isinstance(destination, str) or len(destination) != 3:
        return "'destination' %s (got %s)" % (HINTS["destination"], json.dumps(destination))
    seats = arguments["seats"]
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 9:
        return "'seats' %s (got %s)" % (HINTS["seats"], json.dumps(seats))
    if "class" in arguments and arguments["class"] not in ("economy", "business"):
        return "'class' %s (got %s)" % (HINTS["class"], json.dumps(arguments["class"]))
    return None


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(ident, text, is_error=False):
    value = {"content": [{"type": "text", "text": text}]}
    if is_error:
        value["isError"] = True
    send({"jsonrpc": "2.0", "id": ident, "result": value})


def error(ident, code, message):
    send({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}})


def call(ident, params):
    name = params.get("name")
    arguments = params.get("arguments")
    if MODE == "lenient":
        return result(ident, "booked")
    if name != "book":
        if MODE == "misfiled":
            return result(ident, "Unknown tool: %s" % name, is_error=True)
        return error(ident, -32602, "Unknown tool: %s" % name)
    if not isinstance(arguments, dict):
        if MODE == "misfiled":
            return error(ident, -32603, "Internal error: 'str' object has no attribute 'get'")
        return error(ident, -32602, "Invalid params: arguments must be an object")
    if MODE == "unclear-base":
        return result(ident, "Unknown destination %s: we do not fly there"
                      % json.dumps(arguments.get("destination")), is_error=True)
    wrong = problem(arguments)
    if wrong is None:
        return result(ident, "booked %s seats to %s" % (arguments["seats"], arguments["destination"]))
    if MODE in ("conformant", "misfiled"):
        return result(ident, "Invalid arguments: " + wrong, is_error=True)
    if MODE == "model-blind":
        return error(ident, -32602, "Invalid arguments for tool book: " + wrong)
    if MODE == "lenient-error":
        return result(ident, "The booking service is down for maintenance; try again later.",
                      is_error=True)
    if MODE == "unclear":
        return result(ident, "Rate limit exceeded: 10 calls a minute; try again in 60 seconds.",
                      is_error=True)
    return error(ident, -32001, "Unauthorized: sign in first")


for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    ident = message["id"]
    method = message["method"]
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": VERSION, "capabilities": {"tools": {}}, "serverInfo": INFO}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [BOOK]}})
    elif method == "tools/call":
        call(ident, message.get("params") or {})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
    else:
        error(ident, -32601, "Method not found: %s" % method)
