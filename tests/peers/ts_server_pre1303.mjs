#!/usr/bin/env node
// Reference MCP server on the official TypeScript SDK as it was BEFORE tools/call failures were
// turned into tool results: @modelcontextprotocol/sdk 1.20.2 (npm alias `sdk-pre-sep1303` in
// package.json), the last release before 1.21.0 / commit 7387c44 (PR #1044) wrapped the whole
// handler in try/catch -> `{ isError: true }`, the behaviour SEP-1303 later wrote into the spec.
// Same tools as ts_server.mjs; stdio only (newline-delimited JSON-RPC).
//
// What 1.20.2 answers on tools/call (dist/esm/server/mcp.js, CallToolRequestSchema handler):
//   - arguments failing the tool's zod inputSchema (`{}` or `{"text": 5}` for echo):
//       JSON-RPC error -32602 "MCP error -32602: Invalid arguments for tool echo: [zod issues]"
//   - unknown tool name: JSON-RPC error -32602 "MCP error -32602: Tool no_such_tool not found"
//   - arguments that are not an object (`"oops"`): rejected by the request schema
//     (`arguments: z.record(...)`) before the tool is looked up, as a JSON-RPC error (ZodError
//     has no code, so the SDK reports -32603 Internal error)
//   - an exception thrown by the tool itself (book_flight's date checks): `{ isError: true }`
// 1.32.2 (ts_server.mjs) answers the first two with `{ isError: true }` results instead.
//
// 1.20.2 builds its schemas with zod 3 (its own nested zod ^3.23.8 wraps the raw shape in
// z.object), so the shapes here come from zod 4's bundled v3 API, `zod/v3`, not `zod/v4`.
import { McpServer } from 'sdk-pre-sep1303/server/mcp.js';
import { StdioServerTransport } from 'sdk-pre-sep1303/server/stdio.js';
import { z } from 'zod/v3';

const pad = (n) => String(n).padStart(2, '0');
const fmt = (d) => `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;

const server = new McpServer({ name: 'sightline-ts-peer-pre1303', version: '0.1.0' });

server.registerTool(
  'echo',
  { description: 'Echo the given text back', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

server.registerTool(
  'book_flight',
  {
    description: 'Book a flight on the given departure date',
    inputSchema: { departureDate: z.string().describe('Departure date in dd/mm/yyyy format') },
  },
  async ({ departureDate }) => {
    if (!/^\d{2}\/\d{2}\/\d{4}$/.test(departureDate)) {
      throw new Error(`Invalid departure date: '${departureDate}' is not in dd/mm/yyyy format.`);
    }
    const [dd, mm, yyyy] = departureDate.split('/').map(Number);
    const date = new Date(yyyy, mm - 1, dd);
    if (date.getFullYear() !== yyyy || date.getMonth() !== mm - 1 || date.getDate() !== dd) {
      throw new Error(`Invalid departure date: '${departureDate}' is not a calendar date.`);
    }
    const now = new Date();
    const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    if (date <= today) {
      throw new Error(`Invalid departure date: must be in the future. Current date is ${fmt(now)}.`);
    }
    return { content: [{ type: 'text', text: `Booked flight on ${departureDate}` }] };
  },
);

await server.connect(new StdioServerTransport());
