import { z } from 'zod';

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
  'TRACE_INVALID',
  'NO_TRACE',
  // Bad input: the run does not start (exit 2).
  'BAD_INPUT',
  'SUITE_INVALID',
  'FILE_INVALID',
  'CASSETTE_INVALID',
  'ADAPTER_CONFIG',
  'REGEX_INVALID',
  // The run could not go on (exit 3).
  'COULD_NOT_RUN',
] as const;
export const RunErrorCodeSchema = z.enum(RUN_ERROR_CODES);
export type RunErrorCode = z.infer<typeof RunErrorCodeSchema>;

/** Codes that mean the user gave bad input: exit code 2. */
export const BAD_INPUT_CODES: ReadonlySet<RunErrorCode> = new Set([
  'BAD_INPUT',
  'SUITE_INVALID',
  'FILE_INVALID',
  'CASSETTE_INVALID',
  'ADAPTER_CONFIG',
  'REGEX_INVALID',
]);

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
