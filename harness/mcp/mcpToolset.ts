import { TracegateError } from '../../src/schema/runError.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import type { McpServerSpec } from '../../src/schema/mcpServer.js';
import { capOutput, fault, ok, type Tool, type ToolResult } from '../tools/types.js';
import { descendants, killAll, sessionMembers } from '../sandbox/processTree.js';
import { withoutPatterns } from './withoutPatterns.js';

const CONNECT_TIMEOUT_MS = 20_000;
const MAX_TOOLS_PER_SERVER = 128;
const MAX_DESCRIPTION_CHARS = 2000;
/** A larger input schema is not offered: it would be sent to the model with every request. */
const MAX_SCHEMA_CHARS = 32_000;
/** All MCP tools' schemas and descriptions together (many servers × many tools × 32 kB would not fit any request). */
const MAX_TOTAL_CHARS = 256_000;
const MAX_NAME_CHARS = 64;
const STDERR_TAIL_CHARS = 1000;
/** util-linux setsid: run as a child (not a group leader) it makes a session and execs, same pid. */
const SETSID = ['/usr/bin/setsid', '/bin/setsid'].find((p) => existsSync(p));

/** A tool an MCP server offers, as the harness runs it: `<server>__<tool>`. */
export interface McpTool extends Tool {
  mcpServer: string;
  /** The server's JSON Schema, sent to the model as is. */
  inputSchema: Record<string, unknown>;
}

export interface McpToolset {
  tools: McpTool[];
  /** Tools a server listed that are not offered, each `<server>:<tool>: why` (for the trace). */
  dropped: string[];
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
export async function openMcpToolset(specs: readonly McpServerSpec[], workspace: string, signal?: AbortSignal): Promise<McpToolset> {
  const clients: Client[] = [];
  /** Server pids, kept at start: the SDK forgets a pid once its process has exited. */
  const pids: number[] = [];
  const tools: McpTool[] = [];
  const dropped: string[] = [];
  const budget = { left: MAX_TOTAL_CHARS };
  const close = async () => {
    // Processes a server started must not outlive the task: the SDK only stops the server itself.
    // With setsid the server leads its own session, so even children it left behind when it exited
    // are found; without it, only what is still below the server now.
    // A server pid counts only while it is still our child: once it has exited the pid may be reused.
    const live = () => new Set(descendants(process.pid));
    const everyone = () => {
      const mine = live();
      return [...pids.filter((p) => mine.has(p)).flatMap(descendants), ...(SETSID ? pids.flatMap(sessionMembers) : [])];
    };
    // A task that timed out or was interrupted does not give servers the SDK's graceful seconds.
    if (signal?.aborted) {
      const mine = live();
      killAll([...pids.filter((p) => mine.has(p)), ...everyone()]);
    }
    const below = everyone();
    await Promise.allSettled(clients.map((c) => c.close()));
    killAll([...below, ...everyone()]);
  };
  try {
    for (const spec of specs) {
      const [command, args] = SETSID ? [SETSID, [spec.command, ...spec.args]] : [spec.command, spec.args];
      const transport = new StdioClientTransport({ command, args, env: { PATH: '/usr/local/bin:/usr/bin:/bin', ...spec.env }, cwd: workspace, stderr: 'pipe' });
      // Drained as it comes (a server flooding stderr must not block), only the tail kept for errors.
      const health: ServerHealth = { stderrTail: '', transportErrors: [] };
      transport.stderr?.on('data', (chunk: Buffer) => {
        health.stderrTail = (health.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
      });
      const client = new Client({ name: 'tracegate-harness', version: '1' });
      // Why a connection broke (a reply over the SDK's 10 MB, say): the call itself only learns "Connection closed".
      // The first few: what broke the connection comes first, what it broke into follows.
      client.onerror = (error) => {
        if (health.transportErrors.length < 3) health.transportErrors.push(printable(error.message.slice(0, 200)));
      };
      clients.push(client);
      try {
        // The SDK spawns synchronously inside connect(): take the pid before awaiting the handshake.
        const connected = client.connect(transport, { timeout: CONNECT_TIMEOUT_MS, ...(signal ? { signal } : {}) });
        if (transport.pid) pids.push(transport.pid);
        await connected;
        const listed = await client.listTools(undefined, { timeout: CONNECT_TIMEOUT_MS, ...(signal ? { signal } : {}) });
        if (listed.tools.length > MAX_TOOLS_PER_SERVER) dropped.push(`${spec.name}: ${listed.tools.length - MAX_TOOLS_PER_SERVER} tools over the limit of ${MAX_TOOLS_PER_SERVER}`);
        for (const tool of listed.tools.slice(0, MAX_TOOLS_PER_SERVER)) {
          const why = refusal(tool, tools, spec, budget);
          if (why) dropped.push(`${spec.name}:${quoted(tool.name)}: ${why}`);
          else tools.push(wrap(spec, client, tool, health));
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw new McpConnectError(`MCP server ${spec.name} (${spec.command}): ${printable((error as Error).message)}${stderrEnd(health)}`);
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { tools, dropped, close };
}

/** Why a listed tool is not offered, or null: its name is taken, or its schema is too large to send. */
function refusal(tool: ListedTool, offered: readonly McpTool[], spec: McpServerSpec, budget: { left: number }): string | null {
  const name = harnessName(spec.name, tool.name);
  if (offered.some((t) => t.name === name)) return `another tool of the server is already offered as ${name}`;
  const size = JSON.stringify(tool.inputSchema ?? {}).length;
  if (size > MAX_SCHEMA_CHARS) return `input schema of ${size} characters is over the limit of ${MAX_SCHEMA_CHARS}`;
  const cost = size + Math.min(tool.description?.length ?? 0, MAX_DESCRIPTION_CHARS);
  if (cost > budget.left) return `the MCP tools before it already use the ${MAX_TOTAL_CHARS} characters of schema and description allowed`;
  budget.left -= cost;
  return null;
}

/**
 * `<server>__<tool>` in the characters and length tool names may have. A name that had to be
 * changed gets a short hash of the original, so two tools whose names differ only in what was
 * replaced or cut (`a b` and `a_b`) stay two tools.
 */
export function harnessName(server: string, tool: string): string {
  const plain = `${server}__${tool}`;
  const safe = plain.replace(/[^A-Za-z0-9_-]/g, '_');
  if (safe === plain && plain.length <= MAX_NAME_CHARS) return plain;
  const hash = createHash('sha256').update(tool).digest('hex').slice(0, 8);
  return `${safe.slice(0, MAX_NAME_CHARS - hash.length - 1)}_${hash}`;
}

const quoted = (name: string) => JSON.stringify(name.slice(0, 80));

interface ListedTool {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}

/** What the harness saw of a server besides its replies, for error messages. */
interface ServerHealth {
  stderrTail: string;
  transportErrors: string[];
}

/** Server text for a message a terminal may print: no escape sequences, no control characters. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e\n\t]/g, '?');
}

function stderrEnd(health: ServerHealth): string {
  const said = printable(health.stderrTail).trim();
  return said ? `; its stderr ended: ${said}` : '';
}

function wrap(spec: McpServerSpec, client: Client, listed: ListedTool, health: ServerHealth): McpTool {
  const name = harnessName(spec.name, listed.name);
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(withoutPatterns(listed.inputSchema) as Parameters<typeof z.fromJSONSchema>[0]);
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
        const closed = (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) || (error as Error).message === 'Not connected';
        const why = closed ? `${health.transportErrors.map((e) => `; ${e}`).join('')}${stderrEnd(health)}` : '';
        return fault('COMMAND_FAILED', `${name} failed: ${printable((error as Error).message)}${why}`);
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

/** The text the model sees: text parts and embedded text resources as they are, links by address, other parts named, structured content as JSON. */
function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result['content']) ? (result['content'] as Array<Record<string, unknown>>) : [];
  const parts = content.map(partText);
  if (parts.length === 0 && result['structuredContent'] !== undefined) parts.push(JSON.stringify(result['structuredContent']));
  if (parts.length === 0 && 'toolResult' in result) parts.push(JSON.stringify(result['toolResult']));
  return parts.join('\n');
}

function partText(part: Record<string, unknown>): string {
  const resource = part['resource'] as Record<string, unknown> | undefined;
  if (part['type'] === 'text' && typeof part['text'] === 'string') return part['text'];
  if (part['type'] === 'resource' && typeof resource?.['text'] === 'string') return `[resource ${String(resource['uri'])}]\n${resource['text']}`;
  if (part['type'] === 'resource_link') return `[resource link ${String(part['uri'])}]`;
  return `[${String(part['type']).slice(0, 40)} content]`;
}
