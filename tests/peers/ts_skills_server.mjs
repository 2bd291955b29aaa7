#!/usr/bin/env node
// A server built on the official TypeScript SDK (v1.x) that serves skills (SEP-2640): it declares
// the `io.modelcontextprotocol/skills` extension, answers `skills/list` through the SDK's own
// request handling, and serves the files with `resources/read`. Every read is logged to stderr
// ("read URI") so a test can tell which files a client fetched. Modes (argv[2]):
//   honest   - every listing matches its file (the default)
//   tampered - pdf-processing's SKILL.md is served changed (same size), so its digest is wrong
//   bare     - a second skill, listed without digests
//   dynamic  - pdf-processing's files listed as "dynamic"; the server declares `directoryRead`
//              and answers `resources/directory/read` (its root in two pages, then
//              references/, an `inode/directory`), each logged ("directory URI")
// Stdio only.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';
import * as z from 'zod/v4';

const mode = process.argv[2] ?? 'honest';
const digest = (text) => 'sha256:' + createHash('sha256').update(text, 'utf8').digest('hex');

const SKILL = 'skill://pdf-processing/SKILL.md';
const FORMS = 'skill://pdf-processing/references/FORMS.md';
const SKILL_TEXT =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n\nRead references/FORMS.md before filling a form.\n';
const FORMS_TEXT = '# Forms\n\nFill each field in order.\n';
const NOTES = 'skill://notes/SKILL.md';
const NOTES_TEXT = '---\nname: notes\ndescription: Keep short notes\n---\n\nWrite notes.\n';

const files = { [SKILL]: SKILL_TEXT, [FORMS]: FORMS_TEXT, [NOTES]: NOTES_TEXT };
const served = (uri) =>
  mode === 'tampered' && uri === SKILL ? SKILL_TEXT.replace('Read references', 'Skip references') : files[uri];
const listed = (uri, withDigest = true) => ({
  uri,
  ...(withDigest ? { digest: digest(files[uri]) } : {}),
  size: Buffer.byteLength(files[uri]),
});

const skills = [
  {
    uri: SKILL,
    frontmatter: { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents' },
    resources: mode === 'dynamic' ? 'dynamic' : [listed(SKILL), listed(FORMS)],
  },
];
// The pages of each directory, for `resources/directory/read`.
const directories = {
  'skill://pdf-processing': [
    [{ uri: SKILL, name: 'SKILL.md', mimeType: 'text/markdown' }],
    [{ uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' }],
  ],
  'skill://pdf-processing/references': [[{ uri: FORMS, name: 'FORMS.md', mimeType: 'text/markdown' }]],
};
if (mode === 'bare') {
  skills.push({
    uri: NOTES,
    frontmatter: { name: 'notes', description: 'Keep short notes' },
    resources: [listed(NOTES, false)],
  });
}

const server = new Server(
  { name: 'sightline-ts-skills-peer', version: '0.1.0' },
  {
    capabilities: {
      resources: {},
      extensions: { 'io.modelcontextprotocol/skills': mode === 'dynamic' ? { directoryRead: true } : {} },
    },
  },
);
const SkillsList = z.object({ method: z.literal('skills/list'), params: z.optional(z.object({}).loose()) });
server.setRequestHandler(SkillsList, async () => ({ skills }));
server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  const uri = request.params.uri;
  process.stderr.write(`read ${uri}\n`);
  const text = served(uri);
  if (text === undefined) throw new Error(`no such file: ${uri}`);
  return { contents: [{ uri, mimeType: 'text/markdown', text }] };
});
const DirectoryRead = z.object({
  method: z.literal('resources/directory/read'),
  params: z.object({ uri: z.string(), cursor: z.optional(z.string()) }).loose(),
});
server.setRequestHandler(DirectoryRead, async (request) => {
  const { uri, cursor } = request.params;
  process.stderr.write(`directory ${uri}${cursor ? ` cursor ${cursor}` : ''}\n`);
  const pages = mode === 'dynamic' ? directories[uri] : undefined;
  if (!pages) throw new McpError(ErrorCode.InvalidParams, `not a directory: ${uri}`);
  const page = cursor ? Number(cursor) : 0;
  const next = page + 1 < pages.length ? { nextCursor: String(page + 1) } : {};
  return { resources: pages[page] ?? [], ...next };
});
await server.connect(new StdioServerTransport());
