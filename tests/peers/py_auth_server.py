"""Reference MCP server (official Python SDK, mcp 2.x) as an OAuth protected resource, with the
SDK's own auth middleware, used as a peer in sightline's OAuth tests: Streamable HTTP on a free
loopback port, printing its URL first. It issues no tokens: the authorization server is
`sightline demo-server --http --auth`, whose issuer (`http://HOST:PORT/auth`) is argv[1]. The
SDK serves the RFC 9728 metadata naming that issuer and answers 401 with WWW-Authenticate; a
token is checked by asking the issuer's RFC 7662 introspection endpoint, and it must be bound
to this server's URL (`validate_token_resource`) and carry the scope `flights`.

    python py_auth_server.py http://127.0.0.1:PORT/auth
"""

import socket
import sys

import httpx2

from mcp.server import MCPServer
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings

SCOPE = "flights"


class IntrospectingVerifier:
    """A TokenVerifier asking the authorization server (RFC 7662) what a token is good for."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            async with httpx2.AsyncClient(timeout=5.0) as client:
                answer = await client.post(self.endpoint, data={"token": token})
            if answer.status_code != 200:
                return None
            info = answer.json()
        except Exception as error:  # an unreachable issuer refuses the token, said
            print(f"introspection failed: {error}", file=sys.stderr, flush=True)
            return None
        if info.get("active") is not True:
            return None
        return AccessToken(
            token=token,
            client_id=info.get("client_id", "unknown"),
            scopes=info.get("scope", "").split(),
            expires_at=info.get("exp"),
            # The SDK compares this with resource_server_url (validate_token_resource).
            resource=info.get("aud") or info.get("resource"),
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    issuer = sys.argv[1].rstrip("/")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    mcp = MCPServer(
        "sightline-py-auth-peer",
        version="0.1.0",
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=url,
            required_scopes=[SCOPE],
            validate_token_resource=True,
        ),
        # The demo's introspection endpoint, as its metadata names it.
        token_verifier=IntrospectingVerifier(f"{issuer}/introspect"),
    )

    @mcp.tool()
    def echo(text: str) -> str:
        """Echo the given text back"""
        return text

    print(url, flush=True)
    mcp.run(transport="streamable-http", host="127.0.0.1", port=port)
