"""A stdio MCP server on the official Python SDK (mcp 2.x) with the results whose handling
differs most between hosts, for `tests/hosts.rs` (sightline capture against real hosts):

  throws             the tool raises: the SDK turns it into an isError result in its words
  long_text(size)    a text result of `size` bytes (numbered lines), to find hosts' limits
  flight_status      structuredContent with an outputSchema (from the return type), and its
                     JSON as the text block, as the SDK writes it
  flight_unschemed   structuredContent without an outputSchema, beside a text summary
  picture            a text block and a PNG image
  sound              an audio block
  document           an embedded text resource
  crash              the server writes to stderr and exits with status 3 during the call,
                     without answering (a transport failure: the host gets no reply)
"""

import os
import sys

from mcp.server import MCPServer
from mcp.types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel

mcp = MCPServer("sightline-host-cases", version="0.1.0")

# A 1x1 PNG, and a few bytes standing in for audio.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="


class FlightStatus(BaseModel):
    flightNumber: str
    status: str
    gate: str


@mcp.tool()
def throws() -> str:
    """Always raises: the booking backend is down."""
    raise RuntimeError("the booking backend is down")


@mcp.tool(structured_output=False)
def long_text(size: int) -> str:
    """A text of `size` bytes: numbered lines of 32 bytes."""
    lines = "".join(f"line {i:08d} of a long result.\n" for i in range(size // 32 + 1))
    return lines[:size]


@mcp.tool()
def flight_status(flightNumber: str) -> FlightStatus:
    """The status of a flight, as structured content with an output schema."""
    return FlightStatus(flightNumber=flightNumber, status="boarding", gate="B22")


@mcp.tool(structured_output=False)
def flight_unschemed(flightNumber: str) -> CallToolResult:
    """The status of a flight: a text summary and structured content, no output schema."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{flightNumber} is boarding at gate B22.")],
        structuredContent={"flightNumber": flightNumber, "status": "boarding", "gate": "B22"},
    )


@mcp.tool()
def picture() -> list:
    """A caption and a PNG image."""
    return [
        TextContent(type="text", text="The seat map:"),
        ImageContent(type="image", data=PNG, mimeType="image/png"),
    ]


@mcp.tool()
def sound() -> list:
    """A boarding announcement, as audio."""
    return [AudioContent(type="audio", data=WAV, mimeType="audio/wav")]


@mcp.tool()
def document() -> list:
    """The fare rules, as an embedded text resource."""
    return [
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="file:///fare-rules.txt", mimeType="text/plain", text="Fares are non-refundable."
            ),
        )
    ]


@mcp.tool()
def crash() -> str:
    """Kills the server mid-call: no reply ever comes."""
    sys.stderr.write("fatal: the tool crashed\n")
    sys.stderr.flush()
    os._exit(3)


if __name__ == "__main__":
    mcp.run()
