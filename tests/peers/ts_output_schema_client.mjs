// Calls every tool of a server through the official TypeScript SDK's Client (the version named
// by the first argument: "current" is node_modules/@modelcontextprotocol/sdk, "pre-sep1303" is
// node_modules/sdk-pre-sep1303), after listing the tools as hosts do (listTools caches each
// tool's outputSchema validator), and prints one JSON line per call: what callTool returned or
// threw. For tests/audit_checks.rs, which holds the host profiles' `output_check` to it.
//
// Usage: node ts_output_schema_client.mjs current|pre-sep1303 COMMAND ARGS...
const [which, command, ...args] = process.argv.slice(2);
const root = which === 'pre-sep1303' ? 'sdk-pre-sep1303' : '@modelcontextprotocol/sdk';
const { Client } = await import(`${root}/client/index.js`);
const { StdioClientTransport } = await import(`${root}/client/stdio.js`);
const { readFileSync } = await import('node:fs');
const manifest = new URL(`node_modules/${root}/package.json`, import.meta.url);
const { version } = JSON.parse(readFileSync(manifest, 'utf8'));

const client = new Client({ name: 'sightline-output-check', version: '0.0.0' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
const { tools } = await client.listTools();
for (const tool of tools) {
  const line = { sdk: version, tool: tool.name };
  try {
    const result = await client.callTool({ name: tool.name, arguments: {} });
    Object.assign(line, { returned: true, isError: result.isError === true });
  } catch (error) {
    Object.assign(line, { returned: false, code: error.code ?? null, message: error.message });
  }
  console.log(JSON.stringify(line));
}
await client.close();
