"""Calls every tool of a server through the official Python SDK's ClientSession (whichever `mcp`
the interpreter has: the peers' .venv holds 2.3.0, as openai-agents runs it, .venv-langchain
1.30.0, as langchain-mcp-adapters runs it), after listing the tools, and prints one JSON line
per call: what call_tool returned or raised. For tests/audit_checks.rs, which holds the host
profiles' `output_check` to it.

Usage: python py_output_schema_client.py COMMAND ARGS...
"""
import asyncio
import json
import sys
from importlib.metadata import version

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main():
    server = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            for tool in listed.tools:
                line = {"sdk": version("mcp"), "tool": tool.name}
                try:
                    result = await session.call_tool(tool.name, {})
                    is_error = getattr(result, "is_error", None)
                    if is_error is None:  # mcp 1.x names it in camelCase
                        is_error = result.isError
                    line.update(returned=True, isError=bool(is_error))
                except Exception as error:  # what the host's code gets
                    line.update(
                        returned=False,
                        exception=type(error).__name__,
                        message=str(error).split("\n")[0],
                    )
                print(json.dumps(line), flush=True)


asyncio.run(main())
