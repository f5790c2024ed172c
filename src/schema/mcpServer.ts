import { z } from 'zod';

/**
 * An MCP server the reference harness starts (stdio) for each task, named in a variant or a suite
 * header. Its tools reach the model as `<name>__<tool>` and go through the same policy, approval,
 * trace and redaction as the built-in tools. Relative paths in `command`/`args` are resolved by the
 * file that names the server.
 */
export const McpServerSchema = z.strictObject({
  name: z.string().min(1).max(40).regex(/^[a-z][a-z0-9_]*$/, 'lowercase letters, digits and _ (it prefixes tool names)'),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Extra environment for the server (its environment is otherwise a minimal, secret-free one). */
  env: z.record(z.string(), z.string()).default({}),
  /** Milliseconds a tool call may take before it is a COMMAND_TIMEOUT. */
  timeout_ms: z.number().int().positive().max(600_000).default(30_000),
});
export type McpServerSpec = z.infer<typeof McpServerSchema>;
