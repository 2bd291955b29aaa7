#!/usr/bin/env node
// Reference MCP server (official TypeScript SDK, v1.x) used as a peer in
// sightline's end-to-end tests. Speaks newline-delimited JSON-RPC on stdio, or with `--http`
// Streamable HTTP (the SDK's StreamableHTTPServerTransport, with sessions) on a loopback port,
// printing its URL first.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';

const pad = (n) => String(n).padStart(2, '0');
const fmt = (d) => `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;

function makeServer() {
const server = new McpServer({ name: 'sightline-ts-peer', version: '0.1.0' });

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
return server;
}

if (process.argv.includes('--http')) {
  // One transport (and one McpServer) per session, as the SDK's own examples do it.
  const sessions = new Map();
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', async () => {
      let parsed;
      try { parsed = body ? JSON.parse(body) : undefined; } catch { parsed = undefined; }
      const id = req.headers['mcp-session-id'];
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res, parsed);
    });
  });
  http.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${http.address().port}/mcp`);
  });
} else {
  await makeServer().connect(new StdioServerTransport());
}
