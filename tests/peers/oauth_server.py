"""A scripted OAuth-protected MCP server (legacy era, stdlib only) for sightline's tests: one
protected resource at /mcp and its authorization server, laid out as the first argument says,
so that each discovery path of the spec is walked by a real client against a real server.

  well-known      a 401 with a bare `Bearer` challenge: the protected resource metadata is at
                  the endpoint's well-known path; the authorization server is the origin
  root-metadata   the same, with the metadata only at the root well-known URI
  openid          the issuer has a path (/tenant1) and only OpenID discovery, by path insertion
  legacy          2025-03-26: no metadata at all; /authorize, /token, /register at the origin
  preregistered   no registration endpoint: only the client `pre-client` (secret `pre-secret`,
                  client_secret_basic) is known
  no-s256         the authorization server offers PKCE with `plain` only
  no-challenge    a 401 without WWW-Authenticate (then as well-known)
  wrong-resource  the protected resource metadata names another resource
  origin-resource the protected resource metadata only at the root well-known URI, its
                  resource the origin (RFC 9728 §3.3 allows that there)
  issuer-mismatch the authorization server metadata names another issuer (RFC 8414 §3.3)
  iss-right       the metadata advertises RFC 9207 `iss`, and the redirect carries the issuer
  iss-missing     advertised, and the redirect carries none
  iss-slash       advertised, and the redirect's iss is the issuer with a trailing slash
  iss-unadvertised not advertised, and the redirect's iss is another issuer
  iss-wrong-error not advertised, and the redirect is an error with another issuer's iss
  step-up         tools/call needs the scope `write`: a 403 insufficient_scope until granted
  jwt             a machine client `jwt-client` only, by client credentials with private_key_jwt
                  (ES256): the assertion's type, header and claims are checked (iss, sub, aud
                  the issuer, a short exp, a jti never seen before), not its signature, which
                  would need more than the stdlib
  jwt-rs256       the same, with assertions signed RS256 only; or the secret `jwt-secret` by
                  client_secret_basic

Registration takes only a native application (SEP-837: `application_type: native`). The authorization endpoint grants at once
(redirect with code and state, and the scopes asked); the token endpoint checks PKCE S256,
the redirect URI and the client. Tokens start `scripted-token-`.
It prints its URL on stdout, then serves until killed.
"""
import base64
import hashlib
import json
import secrets
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "well-known"
STATE = {"clients": {"pre-client": "pre-secret", "jwt-client": "jwt-secret"}, "redirects": {},
         "codes": {}, "tokens": {}, "jtis": set()}
ISS = {"iss-right": "issuer", "iss-slash": "issuer/", "iss-unadvertised": "http://evil.example",
       "iss-wrong-error": "http://evil.example"}


def unbase64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def s256(verifier):
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def origin(self):
        return "http://%s" % self.headers.get("Host")

    def issuer(self):
        return self.origin() + ("/tenant1" if MODE == "openid" else "")

    def send(self, status, body=b"", content_type="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def metadata(self):
        issuer = self.issuer()
        endpoints = {
            "issuer": issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": issuer + "/token",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["plain"] if MODE == "no-s256" else ["S256"],
            "token_endpoint_auth_methods_supported":
                ["client_secret_basic"] if MODE == "preregistered" else ["none"],
        }
        if MODE != "preregistered":
            endpoints["registration_endpoint"] = issuer + "/register"
        if MODE == "issuer-mismatch":
            endpoints["issuer"] = "http://attacker.example"
        if MODE in ("iss-right", "iss-missing", "iss-slash"):
            endpoints["authorization_response_iss_parameter_supported"] = True
        if MODE in ("jwt", "jwt-rs256"):
            endpoints["grant_types_supported"] = ["client_credentials"]
            endpoints["token_endpoint_auth_methods_supported"] = (
                ["private_key_jwt"] if MODE == "jwt" else ["private_key_jwt", "client_secret_basic"])
            endpoints["token_endpoint_auth_signing_alg_values_supported"] = (
                ["ES256"] if MODE == "jwt" else ["RS256"])
        return endpoints

    def assertion_problem(self, form):
        """Why the client assertion of a token request is refused; None when it is taken."""
        if form.get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
            return "no jwt-bearer client_assertion_type"
        parts = form.get("client_assertion", "").split(".")
        if len(parts) != 3:
            return "the assertion is not a compact JWS"
        header, claims = (json.loads(unbase64url(part)) for part in parts[:2])
        if header != {"alg": "ES256", "typ": "JWT"} or len(unbase64url(parts[2])) != 64:
            return "not an ES256 JWS: %r" % header
        if claims.get("iss") != "jwt-client" or claims.get("sub") != "jwt-client":
            return "iss and sub must be the client id"
        if claims.get("aud") != self.issuer():
            return "aud must be the issuer"
        now = time.time()
        if not claims.get("iat", now + 1) <= now < claims.get("exp", 0) <= now + 600:
            return "iat and exp must bracket now, and exp be close"
        if not claims.get("jti") or claims["jti"] in STATE["jtis"]:
            return "no jti, or one already used"
        STATE["jtis"].add(claims["jti"])
        return None

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        resource = {
            "resource": "http://elsewhere.example/mcp" if MODE == "wrong-resource" else self.origin() + "/mcp",
            "authorization_servers": [self.issuer()],
        }
        at_root = MODE in ("root-metadata", "origin-resource")
        if MODE == "origin-resource":
            resource["resource"] = self.origin()
        if MODE != "legacy":
            if path == "/.well-known/oauth-protected-resource/mcp" and not at_root:
                return self.send(200, resource)
            if path == "/.well-known/oauth-protected-resource" and at_root:
                return self.send(200, resource)
            if MODE == "openid" and path == "/.well-known/openid-configuration/tenant1":
                return self.send(200, self.metadata())
            if MODE != "openid" and path == "/.well-known/oauth-authorization-server":
                return self.send(200, self.metadata())
        prefix = "/tenant1" if MODE == "openid" else ""
        if path == prefix + "/authorize":
            query = dict(urllib.parse.parse_qsl(url.query))
            client = query.get("client_id")
            redirect = query.get("redirect_uri", "")
            known = client in STATE["clients"] and (
                client == "pre-client" or STATE["redirects"].get(client) == redirect)
            if not known or query.get("code_challenge_method") != "S256":
                return self.send(400, b"bad authorization request", "text/plain")
            if MODE == "origin-resource" and query.get("resource") != self.origin():
                return self.send(400, b"resource is not the one published", "text/plain")
            code = "code-" + secrets.token_urlsafe(8)
            STATE["codes"][code] = (client, redirect, query.get("code_challenge"), query.get("scope", ""))
            answer = {"code": code, "state": query.get("state", "")}
            if MODE == "iss-wrong-error":
                answer = {"error": "access_denied", "error_description": "call +1 555 0100 to unlock",
                          "state": query.get("state", "")}
            if MODE in ISS:
                answer["iss"] = ISS[MODE].replace("issuer", self.issuer())
            target = redirect + "?" + urllib.parse.urlencode(answer)
            return self.send(302, b"", "text/plain", [("Location", target)])
        self.send(404, b"not found", "text/plain")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        path = urllib.parse.urlsplit(self.path).path
        prefix = "/tenant1" if MODE == "openid" else ""
        if path == prefix + "/register" and MODE != "preregistered":
            request = json.loads(body or b"{}")
            if request.get("application_type") != "native":
                return self.send(400, {"error": "invalid_client_metadata",
                                       "error_description": "application_type must be native"})
            client = "dyn-" + secrets.token_urlsafe(6)
            STATE["clients"][client] = None
            STATE["redirects"][client] = (request.get("redirect_uris") or [""])[0]
            return self.send(201, {"client_id": client, "redirect_uris": request.get("redirect_uris")})
        if path == prefix + "/token":
            form = dict(urllib.parse.parse_qsl(body.decode()))
            client = form.get("client_id")
            auth = self.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                client, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
                if STATE["clients"].get(client) != secret:
                    return self.send(401, {"error": "invalid_client"})
            if form.get("grant_type") == "client_credentials" and MODE in ("jwt", "jwt-rs256"):
                problem = None if auth.startswith("Basic ") else self.assertion_problem(form)
                if problem or client != "jwt-client":
                    return self.send(401, {"error": "invalid_client", "error_description": problem})
                token = "scripted-token-" + secrets.token_urlsafe(12)
                STATE["tokens"][token] = set()
                return self.send(200, {"access_token": token, "token_type": "Bearer"})
            grant = STATE["codes"].pop(form.get("code"), None)
            if grant is None or grant[0] != client or grant[1] != form.get("redirect_uri") \
                    or grant[2] != s256(form.get("code_verifier", "")):
                return self.send(400, {"error": "invalid_grant"})
            token = "scripted-token-" + secrets.token_urlsafe(12)
            STATE["tokens"][token] = set(grant[3].split())
            return self.send(200, {"access_token": token, "token_type": "Bearer"})
        if path != "/mcp":
            return self.send(404, b"not found", "text/plain")
        token = self.headers.get("Authorization", "")[len("Bearer "):]
        if token not in STATE["tokens"]:
            headers = [] if MODE == "no-challenge" else [("WWW-Authenticate", "Bearer")]
            return self.send(401, b"", "text/plain", headers)
        message = json.loads(body or b"{}")
        ident = message.get("id")
        if ident is None:
            return self.send(202)
        method = message.get("method")
        if MODE == "step-up" and method == "tools/call" and "write" not in STATE["tokens"][token]:
            challenge = 'Bearer error="insufficient_scope", scope="write"'
            return self.send(403, b"", "text/plain", [("WWW-Authenticate", challenge)])
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "oauth-scripted", "version": MODE}}
        elif method == "tools/list":
            result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "authorized by " + MODE}]}
        else:
            return self.send(200, {"jsonrpc": "2.0", "id": ident,
                                   "error": {"code": -32601, "message": "Method not found"}})
        self.send(200, {"jsonrpc": "2.0", "id": ident, "result": result})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
server.serve_forever()
