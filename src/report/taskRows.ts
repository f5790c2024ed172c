import type { RunReport, TaskResult } from '../schema/report.js';

/**
 * A report's task rows as the artifacts read them: one pass at a time, in order. An array is one;
 * so is a run's journal read again for each pass (src/runner/journalRows.ts), which keeps a
 * 100,000-task report phase from holding every row at once.
 */
export interface TaskRows extends Iterable<TaskResult> {
  readonly length: number;
}

/** A RunReport whose rows may be streamed: what the reporters, the terminal summary and the gate's end read. */
export type StreamedReport = Omit<RunReport, 'tasks'> & { tasks: TaskRows };

/** Every row that `keep` selects, held (a few failing tasks, say, out of a streamed 100,000). */
export function rowsWhere(rows: TaskRows, keep: (row: TaskResult) => boolean): TaskResult[] {
  const kept: TaskResult[] = [];
  for (const row of rows) if (keep(row)) kept.push(row);
  return kept;
}

/** The report with every row held in memory, for what needs them all at once (a diff, --epochs auto's stages). */
export function heldReport(report: StreamedReport): RunReport {
  return Array.isArray(report.tasks) ? (report as RunReport) : { ...report, tasks: [...report.tasks] };
}
