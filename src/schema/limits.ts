import { z } from 'zod';
import { MAX_TIMEOUT_MS } from './timerLimit.js';

export { MAX_TIMEOUT_MS };

/** A time limit in whole milliseconds that Node's timers can honour. */
export const TimeoutMsSchema = z
  .number()
  .int()
  .positive()
  .max(MAX_TIMEOUT_MS, `at most ${MAX_TIMEOUT_MS} ms (about 24.8 days): a longer timer would fire at once`);

/** A tool result larger than this fits no model's context; the cap also bounds what a command buffers. */
export const MAX_OUTPUT_CAP = 1_000_000;

/**
 * The tool layer's limits, as a policy sets them and a task overrides them; unset, the harness's
 * defaults hold (10 s, 8000 characters).
 */
export const ToolLimitsShape = {
  /** How long one run_shell command may run before its process group is killed (COMMAND_TIMEOUT). */
  shell_timeout_ms: TimeoutMsSchema.optional(),
  /** The most characters of one tool result the model sees (run_shell, read_file, list_files, MCP tools); the rest is cut and flagged. */
  output_cap: z.number().int().positive().max(MAX_OUTPUT_CAP, `at most ${MAX_OUTPUT_CAP} characters`).optional(),
};

export interface ToolLimits {
  shellTimeoutMs?: number | undefined;
  outputCap?: number | undefined;
}
