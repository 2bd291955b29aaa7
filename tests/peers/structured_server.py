"""A stdio MCP server (stdlib only) for the checks of tests/audit_checks.rs: five tools that
declare the same outputSchema and answer it in each way a client may treat differently, and a
stdout that is not only MCP messages when asked.

Usage: structured_server.py [--banner] [--chatter]
  --banner   prints a startup banner on stdout before the first message (as many servers do)
  --chatter  prints a line of text on stdout after answering tools/list (between frames)

The tools (each outputSchema: {status: string, gate: string}, both required):
  ok                success, structuredContent that conforms
  success_missing   success without structuredContent
  success_mismatch  success, structuredContent that breaks the schema (status is a number)
  error_missing     isError: true without structuredContent
  error_mismatch    isError: true, structuredContent that breaks the schema
Any other tool gets -32602 (Unknown tool); any other method -32601.
"""
import json
import sys

VERSIONS = ["2025-06-18", "2025-11-25"]
SCHEMA = {
    "type": "object",
    "properties": {"status": {"type": "string"}, "gate": {"type": "string"}},
    "required": ["status", "gate"],
}
GOOD = {"status": "boarding", "gate": "B22"}
BAD = {"status": 7}


def text(value):
    return [{"type": "text", "text": value if isinstance(value, str) else json.dumps(value)}]


RESULTS = {
    "ok": {"content": text(GOOD), "structuredContent": GOOD},
    "success_missing": {"content": text("boarding at B22")},
    "success_mismatch": {"content": text(BAD), "structuredContent": BAD},
    "error_missing": {"content": text("flight LH123 not found"), "isError": True},
    "error_mismatch": {
        "content": text("flight LH123 not found"),
        "structuredContent": BAD,
        "isError": True,
    },
}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request):
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "result": {
                "protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "structured-server", "version": "1.0.0"},
            }
        }
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        tools = [
            {
                "name": name,
                "inputSchema": {"type": "object"},
                "outputSchema": SCHEMA,
                "annotations": {"readOnlyHint": True},
            }
            for name in RESULTS
        ]
        return {"result": {"tools": tools}}
    if method == "tools/call":
        name = params.get("name")
        if name in RESULTS:
            return {"result": RESULTS[name]}
        return {"error": {"code": -32602, "message": f"Unknown tool: {name}"}}
    return {"error": {"code": -32601, "message": f"Method not found: {method}"}}


def main():
    if "--banner" in sys.argv:
        print("structured-server 1.0.0 listening on stdio")
        sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "id" not in request:
            continue
        reply = answer(request)
        send({"jsonrpc": "2.0", "id": request["id"], **reply})
        if request.get("method") == "tools/list" and "--chatter" in sys.argv:
            print("debug: listed 5 tools")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
