// A stdio MCP server for the harness's MCP tests: a tool that returns an environment value (for
// redaction), one that never answers in time, and one that fails.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'testkit', version: '1.0.0' });
server.registerTool('deploy_note', { description: 'The deploy note.', inputSchema: {} }, async () => ({
  content: [{ type: 'text', text: `deploy with token ${process.env.DEPLOY_TOKEN ?? '(none)'}` }],
}));
server.registerTool('slow', { description: 'Takes a minute.', inputSchema: { seconds: z.number().int().min(1) } }, async ({ seconds }) => {
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return { content: [{ type: 'text', text: 'done' }] };
});
server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => ({ isError: true, content: [{ type: 'text', text: 'the backend is down' }] }));
await server.connect(new StdioServerTransport());
