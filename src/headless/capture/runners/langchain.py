"""sightline capture: run a LangChain agent once against a mock model and an MCP server.

Embedded in sightline and written to a temporary directory for each capture. argv[1] is a JSON
object: {"server": [command, args...], "env": {...}}. The agent is `langchain`'s create_agent
with the server's tools from `langchain-mcp-adapters` (MultiServerMCPClient, stdio) and
`langchain-openai`'s ChatOpenAI on Chat Completions, non-streaming; the model endpoint comes
from OPENAI_BASE_URL (sightline's mock). One JSON line on stdout says what happened.
"""

import asyncio
import json
import os
import sys


def report(**fields):
    print(json.dumps(fields), flush=True)


def describe(error):
    # An ExceptionGroup (anyio's task groups) hides the error that ended the run: name it.
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"


async def run(spec):
    from langchain.agents import create_agent
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_openai import ChatOpenAI

    command, *args = spec["server"]
    client = MultiServerMCPClient(
        {"srv": {"transport": "stdio", "command": command, "args": args, "env": spec["env"]}}
    )
    try:
        tools = await client.get_tools()
    except BaseException as error:  # the host's own failure is what we capture
        return {"run_error": describe(error)}
    model = ChatOpenAI(
        model="gpt-4o",
        base_url=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ["OPENAI_API_KEY"],
        # One request a turn, no retry against the mock.
        streaming=False,
        max_retries=0,
    )
    agent = create_agent(model, tools, system_prompt="Call the tool you are told to call.")
    try:
        result = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "Call the tool."}]},
            # The tool turn and the follow-up, with room to spare; the mock ends the turn.
            {"recursion_limit": 8},
        )
    except BaseException as error:  # the host's own failure is what we capture
        return {"run_error": describe(error)}
    messages = result.get("messages", [])
    final = messages[-1].content if messages else ""
    return {"final_output": final if isinstance(final, str) else json.dumps(final)}


def main():
    try:
        import importlib.metadata

        import langchain  # noqa: F401

        version = importlib.metadata.version("langchain")
    except ImportError as error:
        report(missing=str(error))
        return
    spec = json.loads(sys.argv[1])
    outcome = asyncio.run(run(spec))
    report(host_version=version, **outcome)


main()
