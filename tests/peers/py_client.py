"""An MCP client on the official Python SDK's stdio client (mcp 2.x), for tests/proxy.rs: it
starts CMD…, lists the tools, makes the calls given as JSON (`[[name, arguments], …]`) and
prints what it got as one JSON object: the tool names, and per call its result (isError and
texts) or the protocol error (code and message) the SDK raised.

Usage: py_client.py CALLS_JSON CMD [ARGS…]
       py_client.py CALLS_JSON --url URL     (its Streamable HTTP client)
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


async def main():
    calls = json.loads(sys.argv[1])
    if sys.argv[2] == "--url":
        connection = streamable_http_client(sys.argv[3])
    else:
        connection = stdio_client(StdioServerParameters(command=sys.argv[2], args=sys.argv[3:]))
    out = {"tools": [], "calls": []}
    async with connection as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            out["tools"] = [tool.name for tool in listed.tools]
            for name, arguments in calls:
                try:
                    result = await session.call_tool(name, arguments)
                    texts = [block.text for block in result.content if block.type == "text"]
                    out["calls"].append({"isError": bool(result.is_error), "texts": texts})
                except MCPError as error:
                    out["calls"].append({"code": error.error.code, "message": error.error.message})
    print(json.dumps(out))


asyncio.run(main())
