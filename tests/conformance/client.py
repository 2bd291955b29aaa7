#!/usr/bin/env python3
"""The official MCP conformance suite's client under test: sightline, as a user would type it.

The suite (`conformance client --command "python3 client.py"`) starts a scenario server, appends
its URL to the command and names the scenario in MCP_CONFORMANCE_SCENARIO (scenario data, such
as pre-registered credentials or the arguments to send, in MCP_CONFORMANCE_CONTEXT). Each
scenario is mapped to the sightline commands a user would run against such a server: list the
tools, call one, answer an elicitation, authorize with the credentials given. Nothing here
speaks MCP itself: every byte on the wire is sightline's.

The binary is $SIGHTLINE (default: target/debug/sightline beside this folder). Exit 0 when
every command ended as the protocol says it should (a tool error from a tool the scenario makes
fail counts), 1 otherwise, with each command's stderr passed on for the suite's report.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIGHTLINE = os.environ.get("SIGHTLINE") or str(ROOT / "target" / "debug" / "sightline")
# The client metadata document URL the suite's CIMD scenarios accept as a client id.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
# sightline's exit codes that mean "the server answered": success, tool error, protocol error.
ANSWERED = (0, 1, 3)
# The user's browser, in the authorization code flow: the tests' stand-in, which follows the
# authorization server's redirect back to sightline as a browser would after consent.
os.environ.setdefault("BROWSER", f"{sys.executable} {ROOT / 'tests' / 'peers' / 'browser.py'}")


# Where each command's transcript goes (`--record`), when the test asks: it reads them, and
# the log, for any credential that should have stayed out.
RECORD_DIR = os.environ.get("SIGHTLINE_RECORD_DIR")
recorded = 0


def sightline(*args, ok=ANSWERED):
    """Runs one sightline command; its JSON output when it prints some."""
    global recorded
    # --verbose: the whole session log goes to stderr, which the suite keeps with its results.
    command = [SIGHTLINE, *args, "--verbose"]
    if RECORD_DIR:
        recorded += 1
        command += ["--record", str(Path(RECORD_DIR) / f"{recorded}.jsonl")]
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    # stderr passes straight through, so that a run the suite times out still shows its log.
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, timeout=60)
    if done.returncode not in ok:
        sys.stderr.write(done.stdout)
        raise SystemExit(f"sightline exited {done.returncode}")
    try:
        return json.loads(done.stdout)
    except ValueError:
        return done.stdout


def tools(url, *extra):
    listed = sightline("tools", "--url", url, "--json", *extra, ok=(0,))
    return listed["tools"] if isinstance(listed, dict) else listed


def call(url, name, arguments, *extra, ok=ANSWERED):
    return sightline("call", name, json.dumps(arguments), "--url", url, "--json", *extra, ok=ok)


def context():
    return json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")


def first_tool(url, arguments, *extra):
    listed = tools(url, *extra)
    if listed:
        call(url, listed[0]["name"], arguments, *extra)


def placeholder(schema):
    """A value of the schema's type, for a call that only has to reach the server."""
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    return {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}.get(
        kind, "x"
    )


def every_tool(url):
    """Calls each listed tool with its required properties filled in, as a user trying them all
    would; sightline itself decides which it may call."""
    for tool in tools(url):
        schema = tool.get("inputSchema") or {}
        props = schema.get("properties") or {}
        arguments = {name: placeholder(props.get(name) or {}) for name in schema.get("required") or []}
        # A tool sightline refuses to call ends as a usage error (2), before anything is sent.
        call(url, tool["name"], arguments, ok=(*ANSWERED, 2))


def auth(url):
    """The OAuth scenarios: a user who has a client metadata document, calling the tool."""
    call(url, "test-tool", {}, "--client-metadata-url", CIMD_URL)


def auth_expecting_refusal(url):
    """The scenarios whose authorization server misbehaves: the flow must stop, so the call
    ends in a transport failure (4) and the suite checks nothing reached the token endpoint."""
    call(url, "test-tool", {}, "--client-metadata-url", CIMD_URL, ok=(4,))


def pre_registered(url):
    ctx = context()
    call(url, "test-tool", {}, "--client-id", ctx["client_id"], "--client-secret", ctx["client_secret"])


def client_credentials(url):
    """A machine client: with the secret the scenario gives, or with its private key, which a
    user keeps in a file only they can read (private_key_jwt signs with it)."""
    ctx = context()
    credentials = ["--client-id", ctx["client_id"], "--client-credentials"]
    if "private_key_pem" not in ctx:
        tools(url, *credentials, "--client-secret", ctx["client_secret"])
        return
    if ctx.get("signing_algorithm", "ES256") != "ES256":
        raise SystemExit(f"sightline signs ES256 only, not {ctx['signing_algorithm']}")
    with tempfile.TemporaryDirectory() as folder:
        key = secret_file(folder, "client-key.pem", ctx["private_key_pem"])
        tools(url, *credentials, "--client-key", key)


def secret_file(folder, name, text):
    """A credential as a user keeps it: a file only they can read."""
    path = Path(folder) / name
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    return str(path)


def workload_identity(url):
    """A workload whose platform gives it a JWT in an environment variable (as CI systems
    do): that JWT is the grant, no user and no browser."""
    ctx = context()
    os.environ["SIGHTLINE_WORKLOAD_JWT"] = ctx["valid_jwt"]
    call(url, "test-tool", {}, "--client-id", ctx["client_id"], "--workload-jwt", "env:SIGHTLINE_WORKLOAD_JWT")


def enterprise(url):
    """A user signed in at their enterprise IdP, whose ID token sightline exchanges there for
    an ID-JAG (cross-app access), the grant at the MCP server's authorization server."""
    ctx = context()
    with tempfile.TemporaryDirectory() as folder:
        id_token = secret_file(folder, "id-token.jwt", ctx["idp_id_token"])
        call(
            url, "test-tool", {},
            "--client-id", ctx["client_id"], "--client-secret", ctx["client_secret"],
            "--id-token", id_token,
            "--idp-token-endpoint", ctx["idp_token_endpoint"],
            "--idp-client-id", ctx["idp_client_id"],
        )


def elicitation_defaults(url):
    call(url, "test_client_elicitation_defaults", {}, "--elicit", "accept")


def sse_retry(url):
    call(url, "test_reconnection", {})


def mrtr(url):
    for name in ["test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"]:
        call(url, name, {}, "--elicit", 'accept:{"confirmed":true}')


def context_calls(url):
    for tool_call in context().get("toolCalls", []):
        call(url, tool_call["name"], tool_call.get("arguments", {}))


def schema_echo(url):
    listed = tools(url)
    focal = next(tool for tool in listed if tool["name"] == "json_schema_2020_12_tool")
    call(url, "json_schema_echo", {"schema": focal["inputSchema"]})


def skills(url):
    """A user looking at what skills a server offers: the listing only, no file read."""
    sightline("skills", "--url", url, "--json", ok=(0,))


def skills_verified(url):
    """A user checking a server's skills before trusting them: each is loaded and checked, and
    these scenarios serve a SKILL.md that does not match its listing, so sightline must say
    so (exit 7) and read nothing more of that skill."""
    sightline("skills", "--verify", "--url", url, ok=(7,))


SCENARIOS = {
    "initialize": lambda url: tools(url),
    "tools_call": lambda url: first_tool(url, {"a": 2, "b": 3}),
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "sse-retry": sse_retry,
    "request-metadata": lambda url: tools(url),
    "json-schema-ref-no-deref": lambda url: tools(url),
    "json-schema-2020-12-preservation": schema_echo,
    "sep-2322-client-request-state": mrtr,
    "http-standard-headers": lambda url: first_tool(url, {}),
    "http-custom-headers": context_calls,
    "http-invalid-tool-headers": every_tool,
    "sep-2640-client-no-prefetch": skills,
    "sep-2640-client-verify-digest": skills_verified,
    "sep-2640-client-verify-size": skills_verified,
    "sep-2640-client-verify-frontmatter": skills_verified,
    "auth/pre-registration": pre_registered,
    "auth/client-credentials-basic": client_credentials,
    "auth/client-credentials-jwt": client_credentials,
    "auth/resource-mismatch": auth_expecting_refusal,
    "auth/iss-supported-missing": auth_expecting_refusal,
    "auth/iss-wrong-issuer": auth_expecting_refusal,
    "auth/iss-unexpected": auth_expecting_refusal,
    "auth/iss-normalized": auth_expecting_refusal,
    "auth/metadata-issuer-mismatch": auth_expecting_refusal,
    "auth/wif-jwt-bearer": workload_identity,
    "auth/cross-app-access-complete-flow": enterprise,
    "auth/enterprise-managed-authorization": enterprise,
}


def main():
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    url = sys.argv[-1]
    run = SCENARIOS.get(scenario) or (auth if scenario.startswith("auth/") else None)
    if run is None:
        raise SystemExit(f"no mapping for scenario {scenario!r}")
    run(url)


if __name__ == "__main__":
    main()
