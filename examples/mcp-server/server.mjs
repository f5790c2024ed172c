#!/usr/bin/env node
// A small stdio MCP server (the official TypeScript SDK) for tracegate's MCP suite: an issue
// tracker with three tools. `lookup_ticket` answers isError for an unknown ticket, so a suite can
// check how an agent handles a tool error; `close_ticket` changes state, so a policy should ask.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const TICKETS = {
  'T-1': { title: 'Login button does nothing on Safari', status: 'open', owner: 'dana' },
  'T-2': { title: 'Export to CSV drops the header row', status: 'open', owner: 'lee' },
  'T-3': { title: 'Typo on the pricing page', status: 'closed', owner: 'sam' },
};

const server = new McpServer({ name: 'tickets', version: '1.0.0' });

server.registerTool(
  'lookup_ticket',
  {
    description: 'Look up a ticket of the issue tracker by its id (T-<number>).',
    inputSchema: { id: z.string().regex(/^T-[0-9]+$/).describe('The ticket id, e.g. T-1') },
  },
  async ({ id }) => {
    const ticket = TICKETS[id];
    if (!ticket) return { isError: true, content: [{ type: 'text', text: `no ticket ${id}; known tickets: ${Object.keys(TICKETS).join(', ')}` }] };
    return { content: [{ type: 'text', text: `${id}: ${ticket.title} (status ${ticket.status}, owner ${ticket.owner})` }] };
  },
);

server.registerTool(
  'list_tickets',
  {
    description: 'List the tickets with a given status.',
    inputSchema: { status: z.enum(['open', 'closed']) },
  },
  async ({ status }) => ({
    content: [{ type: 'text', text: Object.entries(TICKETS).filter(([, t]) => t.status === status).map(([id, t]) => `${id}: ${t.title}`).join('\n') || '(none)' }],
  }),
);

server.registerTool(
  'close_ticket',
  {
    description: 'Close a ticket.',
    inputSchema: { id: z.string().regex(/^T-[0-9]+$/) },
  },
  async ({ id }) => {
    if (!TICKETS[id]) return { isError: true, content: [{ type: 'text', text: `no ticket ${id}` }] };
    TICKETS[id].status = 'closed';
    return { content: [{ type: 'text', text: `${id} closed` }] };
  },
);

await server.connect(new StdioServerTransport());
