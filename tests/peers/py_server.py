"""Reference MCP server (official Python SDK, mcp 2.x) used as a peer in
sightline's end-to-end tests. Speaks newline-delimited JSON-RPC on stdio, or with `--http`
Streamable HTTP on a free loopback port, printing its URL first (`--sse`: the deprecated HTTP+SSE
transport of 2024-11-05 instead)."""

import re
import socket
import sys
from datetime import date
from typing import Annotated

from pydantic import BaseModel, Field

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

mcp = MCPServer("sightline-py-peer", version="0.1.0")


@mcp.tool()
def echo(text: str) -> str:
    """Echo the given text back"""
    return text


@mcp.tool()
def book_flight(
    departureDate: Annotated[str, Field(description="Departure date in dd/mm/yyyy format")],
) -> str:
    """Book a flight on the given departure date"""
    if not re.fullmatch(r"\d{2}/\d{2}/\d{4}", departureDate):
        raise ToolError(f"Invalid departure date: '{departureDate}' is not in dd/mm/yyyy format.")
    dd, mm, yyyy = map(int, departureDate.split("/"))
    try:
        when = date(yyyy, mm, dd)
    except ValueError:
        raise ToolError(f"Invalid departure date: '{departureDate}' is not a calendar date.") from None
    today = date.today()
    if when <= today:
        raise ToolError(
            f"Invalid departure date: must be in the future. Current date is {today:%d/%m/%Y}."
        )
    return f"Booked flight on {departureDate}"


class Confirmation(BaseModel):
    confirm: bool = Field(default=False, description="Book it")


@mcp.tool()
async def confirm_booking(
    departureDate: Annotated[str, Field(description="Departure date in dd/mm/yyyy format")],
    ctx: Context,
) -> str:
    """Book a flight after asking the user to confirm (ctx.elicit)"""
    answer = await ctx.elicit(f"Book the flight on {departureDate}?", schema=Confirmation)
    if answer.action == "accept" and answer.data.confirm:
        return f"Booked flight on {departureDate}"
    return f"Not booked ({answer.action})"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    if "--http" in sys.argv:
        # Streamable HTTP on a free loopback port; the URL first, on stdout.
        port = free_port()
        print(f"http://127.0.0.1:{port}/mcp", flush=True)
        mcp.run(transport="streamable-http", host="127.0.0.1", port=port)
    elif "--sse" in sys.argv:
        # The deprecated HTTP+SSE transport (2024-11-05): GET /sse, POST to the endpoint it names.
        port = free_port()
        print(f"http://127.0.0.1:{port}/sse", flush=True)
        mcp.run(transport="sse", host="127.0.0.1", port=port)
    else:
        mcp.run()
