import type { CheckSpec } from './task.js';

/**
 * What the runner found for one outcome or custom check (src/runner/outcomeProbe.ts), recorded as
 * JSON text on the check's span (`tracegate.check.facts`) and judged by src/judging/checks/outcomeChecks.ts.
 * The trace keeps the evidence, so a re-scored trace gives the same verdict.
 */
export type OutcomeSpec = Extract<CheckSpec, { type: 'command' | 'file' | 'changed_files' | 'custom' }>;
export const OUTCOME_CHECK_TYPES: ReadonlySet<string> = new Set(['command', 'file', 'changed_files', 'custom']);

export function isOutcomeSpec(spec: CheckSpec): spec is OutcomeSpec {
  return OUTCOME_CHECK_TYPES.has(spec.type);
}

/** Which check of the task a span is evidence for: its spec as JSON text (key order as written). */
export function checkKey(spec: CheckSpec): string {
  return JSON.stringify(spec);
}

export interface CommandFacts {
  exit_code: number | null;
  timed_out: boolean;
  output: string;
  truncated: boolean;
}

export interface FileFacts {
  exists: boolean;
  is_file: boolean;
  /** The file's text (at most FILE_TEXT_CAP characters), null when absent or not a file. */
  text: string | null;
  truncated: boolean;
  /** Byte-equal to the `equals` fixture; null when the check has no `equals`. */
  equals_fixture: boolean | null;
}

export interface ChangedFilesFacts {
  /** Workspace-relative paths (with `/`) added, modified or deleted by the trial, sorted. */
  changed: string[];
}

/** check-output/v1, as validated. */
export interface CustomFacts {
  pass: boolean;
  reason: string;
  score?: number;
  layer?: string;
}

export const FILE_TEXT_CAP = 256 * 1024;
export const CHECK_OUTPUT_CAP = 16 * 1024;
export const DEFAULT_CHECK_TIMEOUT_MS = 120_000;
