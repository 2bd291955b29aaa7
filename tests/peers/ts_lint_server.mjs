#!/usr/bin/env node
// A server built on the official TypeScript SDK (v1.x) with zod 4 schemas written the way
// servers write them, for `sightline lint`: the SDK and zod, not sightline, spell the JSON
// Schemas on the wire (`.nullable()` as a `type` array since zod 4.5, `z.unknown()` as `{}`).
// Stdio only; its tools echo.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod/v4';

const server = new McpServer({ name: 'sightline-ts-lint-peer', version: '0.1.0' });
const echo = async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] });

server.registerTool(
  'reschedule',
  {
    description: 'Move a booking to a new date, which must be in the future',
    inputSchema: {
      bookingRef: z.string(),
      note: z.string().nullable().describe('A note for the crew, or null'),
      extra: z.unknown().describe('Anything the airline should keep'),
    },
  },
  echo,
);

server.registerTool(
  'lookup',
  { description: 'Look a booking up', inputSchema: { bookingRef: z.string() } },
  echo,
);

await server.connect(new StdioServerTransport());
