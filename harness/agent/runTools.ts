import type { ToolLimits } from '../../src/schema/limits.js';
import type { SpanAttributes } from '../../src/schema/traceVocabulary.js';
import type { McpTool } from '../mcp/mcpToolset.js';
import type { Tool, ToolContext } from '../tools/types.js';
import type { HarnessDeps, HarnessSettings } from './config.js';

/** The tools a task gets besides the built-in ones (its MCP servers' tools), open for the task. */
export interface OpenedTools {
  list: McpTool[];
  byName: ReadonlyMap<string, Tool>;
  /** Tools the servers listed that are not offered, and why (a duplicate name, an oversized schema). */
  dropped: string[];
  close(): Promise<void>;
}

export async function openTools(settings: HarnessSettings, workspace: string, signal?: AbortSignal): Promise<OpenedTools | { error: { code: string; message: string } }> {
  if (settings.mcpServers.length === 0) return { list: [], byName: new Map(), dropped: [], close: async () => {} };
  // The MCP SDK (and its JSON Schema stack) loads only for a task that has MCP servers: most runs never pay for it.
  const { McpConnectError, openMcpToolset } = await import('../mcp/mcpToolset.js');
  try {
    const toolset = await openMcpToolset(settings.mcpServers, workspace, signal);
    return { list: toolset.tools, byName: new Map(toolset.tools.map((t) => [t.name, t])), dropped: toolset.dropped, close: toolset.close };
  } catch (error) {
    if (error instanceof McpConnectError) return { error: { code: error.code, message: error.message } };
    throw error;
  }
}

export interface ResolvedToolLimits {
  shellTimeoutMs: number;
  outputCap: number;
}

/** The one owner of a task's tool limits: the task's own, else the policy's, else the harness defaults. */
export function toolLimits(deps: HarnessDeps, task: ToolLimits = {}): ResolvedToolLimits {
  return {
    shellTimeoutMs: task.shellTimeoutMs ?? deps.policy.shell_timeout_ms ?? deps.settings.shellTimeoutMs,
    outputCap: task.outputCap ?? deps.policy.output_cap ?? deps.settings.outputCap,
  };
}

export function toolContext(deps: HarnessDeps, workspace: string, signal: AbortSignal, limits: ResolvedToolLimits): ToolContext {
  return {
    workspace,
    ...limits,
    sandboxMode: deps.settings.sandboxMode,
    secretPaths: deps.policy.secret_paths,
    limits: deps.policy.limits,
    signal,
  };
}

/** What every trace says about how the harness ran: the sandbox and why, the tool-calling options, the task's tool limits. */
export function runSettingsAttributes(settings: HarnessSettings, limits: ResolvedToolLimits): SpanAttributes {
  const choice = settings.toolChoice;
  return {
    'sandbox.mode': settings.sandboxMode,
    'sandbox.reason': settings.sandboxReason,
    'tracegate.request.tool_choice': typeof choice === 'string' ? choice : choice.name,
    'tracegate.request.parallel_tool_calls': settings.parallelToolCalls,
    'mcp.servers': settings.mcpServers.map((s) => s.name),
    'llm.record_content': settings.recordContent,
    'tool.shell_timeout_ms': limits.shellTimeoutMs,
    'tool.output_cap': limits.outputCap,
  };
}
