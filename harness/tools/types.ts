import { cutAtToken } from '../../src/schema/redact.js';
import type { CommandLimits } from '../../src/schema/policy.js';
import type { z } from 'zod';
import type { ErrorType } from '../../src/schema/trace.js';
import type { SandboxMode } from '../sandbox/runCommand.js';

/** What every tool returns; a tool fault is data the model sees, never an exception. */
export interface ToolResult {
  ok: boolean;
  result: string;
  error_type: ErrorType | null;
  message: string | null;
  recoverable: boolean;
  suggestion: string | null;
  /** Set when output was cut at the cap (a flag, not a failure). */
  truncated?: boolean;
  output_chars?: number;
  exit_code?: number | null;
}

export interface ToolContext {
  /** Real path of the task's workspace. */
  workspace: string;
  outputCap: number;
  shellTimeoutMs: number;
  sandboxMode: SandboxMode;
  /** The policy's secret paths: masked in the workspace under bubblewrap. */
  secretPaths?: readonly string[];
  /** The policy's bounds on every command's processes and memory. */
  limits?: CommandLimits;
  signal: AbortSignal;
}

export interface Tool<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: Schema;
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolResult>;
}

export function ok(result: string, extra: Partial<ToolResult> = {}): ToolResult {
  return { ok: true, result, error_type: null, message: null, recoverable: false, suggestion: null, ...extra };
}

export function fault(
  error_type: ErrorType,
  message: string,
  options: { recoverable?: boolean; suggestion?: string | null; result?: string } = {},
): ToolResult {
  return {
    ok: false,
    result: options.result ?? '',
    error_type,
    message,
    recoverable: options.recoverable ?? true,
    suggestion: options.suggestion ?? null,
  };
}

export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool<Schema> {
  return tool;
}

/** Cuts text at the cap and says so, keeping the head (where file headers and errors are). */
export function capOutput(text: string, cap: number): { text: string; truncated: boolean; chars: number } {
  if (text.length <= cap) return { text, truncated: false, chars: text.length };
  return {
    // A token split by the cap is dropped whole: the redactor could not recognise half a secret.
    text: `${cutAtToken(text, cap)}\n[output truncated: ${text.length} characters, showing the first ${cap}]`,
    truncated: true,
    chars: text.length,
  };
}
