import { TracegateError } from '../../src/schema/runError.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpServerSpec } from '../../src/schema/mcpServer.js';
import { capOutput, fault, ok, type Tool, type ToolResult } from '../tools/types.js';

const CONNECT_TIMEOUT_MS = 20_000;
const MAX_TOOLS_PER_SERVER = 128;
const MAX_DESCRIPTION_CHARS = 2000;

/** A tool an MCP server offers, as the harness runs it: `<server>__<tool>`. */
export interface McpTool extends Tool {
  mcpServer: string;
  /** The server's JSON Schema, sent to the model as is. */
  inputSchema: Record<string, unknown>;
}

export interface McpToolset {
  tools: McpTool[];
  close(): Promise<void>;
}

export class McpConnectError extends TracegateError {
  constructor(message: string) {
    super('MCP_CONNECT', message);
  }
}

/**
 * Starts each MCP server (stdio, the official SDK) in the task's workspace, lists its tools and
 * wraps each as a harness Tool: arguments validated against the tool's input schema (converted to
 * zod), results capped, `isError` a TOOL_ERROR the model sees, a timeout a COMMAND_TIMEOUT.
 * The servers are the user's own programs: they run outside the sandbox; the policy governs calls.
 */
export async function openMcpToolset(specs: readonly McpServerSpec[], workspace: string): Promise<McpToolset> {
  const clients: Client[] = [];
  const tools: McpTool[] = [];
  const close = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
  };
  try {
    for (const spec of specs) {
      const transport = new StdioClientTransport({ command: spec.command, args: spec.args, env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...spec.env }, cwd: workspace, stderr: 'ignore' });
      const client = new Client({ name: 'tracegate-harness', version: '1' });
      clients.push(client);
      try {
        await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
        const listed = await client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS });
        for (const tool of listed.tools.slice(0, MAX_TOOLS_PER_SERVER)) tools.push(wrap(spec, client, tool));
      } catch (error) {
        throw new McpConnectError(`MCP server ${spec.name} (${spec.command}): ${(error as Error).message}`);
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { tools, close };
}

interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}

function wrap(spec: McpServerSpec, client: Client, listed: ListedTool): McpTool {
  const name = `${spec.name}__${listed.name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(listed.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    schema = z.record(z.string(), z.unknown());
  }
  return {
    name,
    description: (listed.description ?? `${listed.name} from the MCP server ${spec.name}`).slice(0, MAX_DESCRIPTION_CHARS),
    schema,
    inputSchema: listed.inputSchema,
    mcpServer: spec.name,
    async execute(args, ctx): Promise<ToolResult> {
      let result;
      try {
        result = await client.callTool({ name: listed.name, arguments: args as Record<string, unknown> }, undefined, { timeout: spec.timeout_ms, signal: ctx.signal });
      } catch (error) {
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          return fault('COMMAND_TIMEOUT', `${name} did not answer within ${spec.timeout_ms} ms`, { suggestion: 'try a smaller request, or continue without it' });
        }
        return fault('COMMAND_FAILED', `${name} failed: ${(error as Error).message}`);
      }
      const text = resultText(result);
      const capped = capOutput(text, ctx.outputCap);
      if (result.isError === true) {
        return fault('TOOL_ERROR', `${name} reported an error: ${capped.text.slice(0, 500)}`, { result: capped.text, suggestion: 'read the error and correct the arguments, or continue without this tool' });
      }
      return ok(capped.text, { truncated: capped.truncated, output_chars: capped.chars, ...(capped.truncated ? { error_type: 'OUTPUT_TRUNCATED' as const } : {}) });
    },
  };
}

/** The text the model sees: text parts as they are, other parts named, structured content as JSON. */
function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result['content']) ? (result['content'] as Array<Record<string, unknown>>) : [];
  const parts = content.map((part) => (part['type'] === 'text' && typeof part['text'] === 'string' ? part['text'] : `[${String(part['type'])} content]`));
  if (parts.length === 0 && result['structuredContent'] !== undefined) parts.push(JSON.stringify(result['structuredContent']));
  if (parts.length === 0 && 'toolResult' in result) parts.push(JSON.stringify(result['toolResult']));
  return parts.join('\n');
}
