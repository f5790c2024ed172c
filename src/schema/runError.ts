import { z } from 'zod';

/** Bad input: the run does not start (exit 2). */
const BAD_INPUT = ['BAD_INPUT', 'SUITE_INVALID', 'FILE_INVALID', 'CASSETTE_INVALID', 'ADAPTER_CONFIG', 'MERGE_INVALID', 'IMPORT_INVALID'] as const;

/**
 * Every code a run can fail with, as a trial error (data in the report) or as a thrown error (which
 * the CLI maps to an exit code). One vocabulary, like error types and failure reasons.
 */
export const RUN_ERROR_CODES = [
  // A trial's own fault: recorded as that trial's error, never the run's end.
  'TASK_TIMEOUT',
  'INTERRUPTED',
  'ADAPTER_CRASH',
  'PROVIDER_ERROR',
  'CASSETTE_MISS',
  /** An external agent called a model, but the run has neither an upstream nor cassettes. */
  'NO_MODEL',
  /** An external agent called an API (or sent a body) the capture proxy does not speak; the message names it. */
  'PROTOCOL_REFUSED',
  /** The HTTP agent could not be reached after retries. */
  'AGENT_UNREACHABLE',
  /** The agent command could not be started at all. */
  'AGENT_SPAWN_FAILED',
  /** An MCP server the harness was given could not be started or listed. */
  'MCP_CONNECT',
  /** Bubblewrap could not promise its isolation for a command (e.g. too many files to mask every secret). */
  'SANDBOX_UNAVAILABLE',
  'TRACE_INVALID',
  'NO_TRACE',
  /** An outcome or custom check could not run or judge (timed out, crashed, printed bad output). */
  'CHECK_ERROR',
  /** A rubric check's judge failed after retries, answered no verdict, or its cassette has no answer. */
  'JUDGE_ERROR',
  /** An external agent's trace records an error of its own (its code is kept in the message). */
  'AGENT_ERROR',
  ...BAD_INPUT,
  // The run could not go on (exit 3).
  'COULD_NOT_RUN',
] as const;
export const RunErrorCodeSchema = z.enum(RUN_ERROR_CODES);
export type RunErrorCode = z.infer<typeof RunErrorCodeSchema>;

/** A trial's error as the report stores it. */
export const RunErrorSchema = z.object({ code: RunErrorCodeSchema, message: z.string() });
export type RunError = z.infer<typeof RunErrorSchema>;

/** A trace's error (any code an agent chose) as a run error: known codes kept, others named in the message. */
export function asRunError(error: { code: string; message: string }): RunError {
  const known = RunErrorCodeSchema.safeParse(error.code);
  return known.success ? { code: known.data, message: error.message } : { code: 'AGENT_ERROR', message: `${error.code}: ${error.message}` };
}

/** Codes that mean the user gave bad input: exit code 2. */
export const BAD_INPUT_CODES: ReadonlySet<RunErrorCode> = new Set(BAD_INPUT);

/** The one base of tracegate's errors: a stable `code` that the CLI and the report read. */
export class TracegateError extends Error {
  constructor(
    readonly code: RunErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
