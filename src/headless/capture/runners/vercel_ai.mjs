// sightline capture: run the Vercel AI SDK once against a mock model and an MCP server.
//
// Embedded in sightline and written to a temporary directory for each capture. argv[2] is a
// JSON object: {"server": [command, args...], "env": {...}, "api": "responses" | "chat",
// "modules": "/abs/node_modules"}. The model endpoint comes from OPENAI_BASE_URL (sightline's
// mock); one JSON line on stdout says what happened.
//
// ESM imports ignore NODE_PATH, so every package is imported from the modules directory by its
// absolute path, resolved the way Node would resolve it from there.

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

function report(fields) {
  process.stdout.write(JSON.stringify(fields) + "\n");
}

function errorText(error) {
  if (error instanceof Error) {
    return `${error.name}: ${error.message}`;
  }
  return String(error);
}

const spec = JSON.parse(process.argv[2]);
const require = createRequire(join(spec.modules, "noop.js"));

// The ESM entry of `name` ("pkg" or "pkg/sub") under the modules directory, read from its
// package.json `exports` (the "import" condition), so the SDK runs as it does in an ESM app and
// every package shares one copy of its dependencies.
function esmEntry(name) {
  const parts = name.split("/");
  const pkg = name.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  const sub = "." + name.slice(pkg.length);
  const dir = join(spec.modules, pkg);
  const manifest = require(join(dir, "package.json"));
  let target = manifest.exports?.[sub] ?? (sub === "." ? manifest.module ?? manifest.main : null);
  while (target && typeof target === "object") {
    target = target.import ?? target.default ?? target.node;
  }
  if (typeof target !== "string") {
    throw new Error(`${name}: no ESM entry in ${join(dir, "package.json")}`);
  }
  return join(dir, target);
}

const load = (name) => import(pathToFileURL(esmEntry(name)).href);

async function main() {
  let version;
  let ai;
  let mcp;
  let stdio;
  let openai;
  try {
    version = require(join(spec.modules, "ai", "package.json")).version;
    ai = await load("ai");
    mcp = await load("@ai-sdk/mcp");
    stdio = await load("@ai-sdk/mcp/mcp-stdio");
    openai = await load("@ai-sdk/openai");
  } catch (error) {
    report({ missing: errorText(error) });
    return;
  }
  const [command, ...args] = spec.server;
  const transport = new stdio.Experimental_StdioMCPTransport({
    command,
    args,
    env: spec.env,
    // The server's stderr is not the host's output: keep stdout to the one JSON line.
    stderr: "ignore",
  });
  let client;
  let outcome;
  try {
    client = await mcp.createMCPClient({ transport });
    const tools = await client.tools();
    const provider = openai.createOpenAI({
      baseURL: process.env.OPENAI_BASE_URL,
      apiKey: process.env.OPENAI_API_KEY,
    });
    const model = spec.api === "chat" ? provider.chat("gpt-4o") : provider.responses("gpt-4o");
    const result = await ai.generateText({
      model,
      tools,
      system: "Call the tool you are told to call.",
      prompt: "Call the tool.",
      // The tool turn and the follow-up that carries its result.
      stopWhen: ai.stepCountIs(2),
      // A failed request is the host's failure, not one to retry against the mock.
      maxRetries: 0,
    });
    outcome = { host_version: version, final_output: result.text };
  } catch (error) {
    // The host's own failure is what we capture.
    outcome = { host_version: version, run_error: errorText(error) };
  } finally {
    if (client) {
      await client.close().catch(() => {});
    }
  }
  report(outcome);
}

main().then(
  () => process.exit(0),
  (error) => {
    report({ run_error: errorText(error) });
    process.exit(0);
  },
);
