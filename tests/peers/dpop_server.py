"""An MCP server (legacy era) whose tokens are DPoP-bound (RFC 9449), with its authorization
server beside it, for sightline's tests: it checks every proof as RFC 9449 §4.3 says (the JWT
signature by the key its header carries, typ, alg, htm, htu, iat, a jti never seen, and at the
MCP endpoint the token's hash `ath` and its binding `cnf.jkt`), with PyJWT and cryptography
(tests/peers/.venv).

  python dpop_server.py LOG [USES]

Every access token is good for USES requests (default 2): then a 401 `DPoP
error="invalid_token"` makes the client refresh, and the refresh token is bound to the key it
was issued for (a public client's, §5), so a refresh proven with another key is refused.
Registration is dynamic; the authorization endpoint grants at once. The token endpoint also
takes RFC 7523's jwt-bearer grant, whose `assertion` it logs the shape of (a workload's JWT, or
an ID-JAG); an assertion whose first part is `refused` gets `invalid_grant`. Beside it,
/idp/token is an enterprise IdP's RFC 8693 token exchange: it logs what it was asked and how
the client authenticated, and gives the ID-JAG `jag.<subject token's first part>.sig`.
Each token request and each MCP request is a JSON line of LOG: what it was, the thumbprint of
the proof's key, and whether it was taken (`why` when not). It prints its URL on stdout, then
serves until killed.
"""
import base64
import hashlib
import json
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt

LOG = sys.argv[1]
USES = int(sys.argv[2]) if len(sys.argv) > 2 else 2
STATE = {"codes": {}, "tokens": {}, "refresh": {}, "jtis": set(), "n": 0}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def thumbprint(jwk):
    """RFC 7638: the required members, sorted, no whitespace."""
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


def log(**event):
    with open(LOG, "a") as file:
        file.write(json.dumps(event) + "\n")


def check_proof(proof, method, url, token=None):
    """The proof's key thumbprint, or raises ValueError saying what is wrong."""
    if not proof:
        raise ValueError("no DPoP proof")
    header = jwt.get_unverified_header(proof)
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or "jwk" not in header:
        raise ValueError(f"header {header}")
    if "d" in header["jwk"]:
        raise ValueError("a private key in the jwk")
    key = jwt.PyJWK(header["jwk"], algorithm="ES256").key
    claims = jwt.decode(proof, key=key, algorithms=["ES256"])
    if claims.get("htm") != method:
        raise ValueError(f"htm {claims.get('htm')}")
    if claims.get("htu") != url:
        raise ValueError(f"htu {claims.get('htu')} is not {url}")
    if abs(time.time() - claims.get("iat", 0)) > 300:
        raise ValueError("iat")
    if claims.get("jti") in STATE["jtis"]:
        raise ValueError("a jti seen before")
    STATE["jtis"].add(claims.get("jti"))
    if token is not None:
        ath = b64url(hashlib.sha256(token.encode()).digest())
        if claims.get("ath") != ath:
            raise ValueError("ath")
    return thumbprint(header["jwk"])


def issue(jkt, scope=None):
    STATE["n"] += 1
    token, refresh = f"dpop-token-{STATE['n']}", f"dpop-refresh-{STATE['n']}"
    STATE["tokens"][token] = {"jkt": jkt, "uses": USES}
    STATE["refresh"][refresh] = jkt
    return {"access_token": token, "token_type": "DPoP", "expires_in": 3600, "refresh_token": refresh}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def origin(self):
        return f"http://{self.headers['Host']}"

    def reply(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        origin = self.origin()
        path = urllib.parse.urlparse(self.path)
        if path.path == "/.well-known/oauth-protected-resource/mcp":
            return self.reply(200, {"resource": f"{origin}/mcp", "authorization_servers": [origin]})
        if path.path == "/.well-known/oauth-authorization-server":
            return self.reply(200, {
                "issuer": origin,
                "authorization_endpoint": f"{origin}/authorize",
                "token_endpoint": f"{origin}/token",
                "registration_endpoint": f"{origin}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token",
                                          "urn:ietf:params:oauth:grant-type:jwt-bearer"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "dpop_signing_alg_values_supported": ["ES256"],
            })
        if path.path == "/authorize":
            query = dict(urllib.parse.parse_qsl(path.query))
            code = f"code-{len(STATE['codes']) + 1}"
            STATE["codes"][code] = query.get("code_challenge")
            target = f"{query['redirect_uri']}?" + urllib.parse.urlencode({"code": code, "state": query.get("state", "")})
            return self.reply(302, None, [("Location", target)])
        return self.reply(405 if path.path == "/mcp" else 404, {"error": "not here"})

    def do_POST(self):
        origin = self.origin()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode()
        if self.path == "/register":
            return self.reply(201, {"client_id": "dpop-client", "redirect_uris": json.loads(body).get("redirect_uris", [])})
        if self.path == "/idp/token":
            return self.exchange(dict(urllib.parse.parse_qsl(body)))
        if self.path == "/token":
            return self.token(dict(urllib.parse.parse_qsl(body)), f"{origin}/token")
        if self.path == "/mcp":
            return self.mcp(json.loads(body), f"{origin}/mcp")
        return self.reply(404, {"error": "not here"})

    def exchange(self, form):
        """The IdP's token exchange: no proof (the IdP is not the resource's), an ID-JAG back."""
        basic = None
        scheme, _, credentials = (self.headers.get("Authorization") or "").partition(" ")
        if scheme == "Basic":
            basic = base64.b64decode(credentials).decode().split(":", 1)
        subject = form.get("subject_token", "")
        log(event="exchange", basic=basic, form_client_id=form.get("client_id"),
            grant=form.get("grant_type"), audience=form.get("audience"), resource=form.get("resource"),
            subject_token_type=form.get("subject_token_type"),
            requested_token_type=form.get("requested_token_type"), subject=subject.split(".")[0])
        return self.reply(200, {"access_token": f"jag.{subject.split('.')[0]}.sig",
                                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                                "token_type": "N_A"})

    def token(self, form, url):
        grant = form.get("grant_type")
        try:
            jkt = check_proof(self.headers.get("DPoP"), "POST", url)
        except (ValueError, jwt.PyJWTError) as error:
            log(event="token", grant=grant, ok=False, why=str(error))
            return self.reply(400, {"error": "invalid_dpop_proof", "error_description": str(error)})
        if grant == "authorization_code":
            verifier = form.get("code_verifier", "")
            challenge = b64url(hashlib.sha256(verifier.encode()).digest())
            if STATE["codes"].pop(form.get("code"), None) != challenge:
                log(event="token", grant=grant, jkt=jkt, ok=False, why="PKCE")
                return self.reply(400, {"error": "invalid_grant"})
        elif grant == "refresh_token":
            bound = STATE["refresh"].get(form.get("refresh_token"))
            if bound != jkt:
                log(event="token", grant=grant, jkt=jkt, ok=False, why=f"the refresh token is bound to {bound}")
                return self.reply(400, {"error": "invalid_grant", "error_description": "refresh token bound to another key"})
        elif grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            assertion = form.get("assertion", "")
            first = assertion.split(".")[0]
            if first == "refused":
                log(event="token", grant=grant, jkt=jkt, ok=False, why="refused assertion")
                return self.reply(400, {"error": "invalid_grant", "error_description": "assertion refused"})
            log(event="token", grant=grant, jkt=jkt, ok=True, assertion=first, client_id=form.get("client_id"))
            return self.reply(200, issue(jkt))
        else:
            return self.reply(400, {"error": "unsupported_grant_type"})
        log(event="token", grant=grant, jkt=jkt, ok=True)
        return self.reply(200, issue(jkt))

    def mcp(self, message, url):
        challenge = f'DPoP resource_metadata="{url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")}", algs="ES256"'
        scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
        method = message.get("method")
        held = STATE["tokens"].get(token)
        if scheme != "DPoP" or held is None:
            log(event="mcp", method=method, ok=False, why=f"no DPoP token ({scheme or 'none'})")
            return self.reply(401, {"error": "unauthorized"}, [("WWW-Authenticate", challenge)])
        try:
            jkt = check_proof(self.headers.get("DPoP"), "POST", url, token)
        except (ValueError, jwt.PyJWTError) as error:
            log(event="mcp", method=method, ok=False, why=str(error))
            return self.reply(401, {"error": "invalid_dpop_proof"}, [("WWW-Authenticate", f'{challenge}, error="invalid_dpop_proof"')])
        if jkt != held["jkt"] or held["uses"] <= 0:
            why = "used up" if jkt == held["jkt"] else "another key"
            log(event="mcp", method=method, jkt=jkt, ok=False, why=why)
            return self.reply(401, {"error": "invalid_token"}, [("WWW-Authenticate", f'{challenge}, error="invalid_token"')])
        held["uses"] -= 1
        log(event="mcp", method=method, jkt=jkt, ok=True)
        if "id" not in message:
            return self.reply(202)
        results = {
            "initialize": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                           "serverInfo": {"name": "dpop-server", "version": "1.0.0"}},
            "tools/list": {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]},
            "tools/call": {"content": [{"type": "text", "text": "echoed"}]},
        }
        if method not in results:
            return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
        return self.reply(200, {"jsonrpc": "2.0", "id": message["id"], "result": results[method]})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}/mcp", flush=True)
server.serve_forever()
