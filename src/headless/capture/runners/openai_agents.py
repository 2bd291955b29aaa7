"""sightline capture: run the OpenAI Agents SDK once against a mock model and an MCP server.

Embedded in sightline and written to a temporary directory for each capture. argv[1] is a JSON
object: {"server": [command, args...], "env": {...}}. The model endpoint comes from
OPENAI_BASE_URL (sightline's mock); one JSON line on stdout says what happened.
"""

import asyncio
import json
import sys


def report(**fields):
    print(json.dumps(fields), flush=True)


async def run(spec):
    from agents import Agent, Runner, set_tracing_disabled
    from agents.mcp import MCPServerStdio

    # No traces leave the machine (OPENAI_AGENTS_DISABLE_TRACING says the same).
    set_tracing_disabled(True)
    command, *args = spec["server"]
    server = MCPServerStdio(
        params={"command": command, "args": args, "env": spec["env"]},
        name="server",
        cache_tools_list=False,
        client_session_timeout_seconds=30,
    )
    async with server:
        agent = Agent(
            name="sightline-capture",
            instructions="Call the tool you are told to call.",
            mcp_servers=[server],
        )
        try:
            result = await Runner.run(agent, "Call the tool.", max_turns=3)
        except Exception as error:  # the host's own failure is what we capture
            return {"run_error": f"{type(error).__name__}: {error}"}
    return {"final_output": str(result.final_output)}


def main():
    try:
        import importlib.metadata

        import agents  # noqa: F401

        version = importlib.metadata.version("openai-agents")
    except ImportError as error:
        report(missing=str(error))
        return
    spec = json.loads(sys.argv[1])
    outcome = asyncio.run(run(spec))
    report(host_version=version, **outcome)


main()
