import type { Redactor } from '../schema/redact.js';
import { RunReportSchema, TaskResultSchema, type RunReport, type TaskResult } from '../schema/report.js';
import type { StreamedReport, TaskRows } from './taskRows.js';

/** The rows, each validated against report/v1 as it is read (one pass serves the summary and the check). */
export function* checkedRows(rows: TaskRows): Generator<TaskResult> {
  for (const row of rows) {
    TaskResultSchema.parse(row);
    yield row;
  }
}

/** Rows that pass through `map` as they are read; an array is mapped in place, once, instead. */
function mappedRows(rows: TaskRows, map: (row: TaskResult) => TaskResult): TaskRows {
  if (Array.isArray(rows)) {
    for (let i = 0; i < rows.length; i++) rows[i] = map(rows[i]!);
    return rows;
  }
  return {
    length: rows.length,
    *[Symbol.iterator]() {
      for (const row of rows) yield map(row);
    },
  };
}

/**
 * The report as it is written: its frame validated, then redacted (the frame as a copy, the task
 * rows one at a time: in place for an array, as each is read for streamed rows, so memory holds one
 * copy of the rows or none). Every row was validated where it came from: built (buildReport) or
 * read from a file (readReport); the diff and the gate change the frame only, so only the frame is
 * checked again. The report passed in is consumed.
 */
export function finalizeReport(report: RunReport, redactor: Redactor): RunReport;
export function finalizeReport(report: StreamedReport, redactor: Redactor): StreamedReport;
export function finalizeReport(report: StreamedReport, redactor: Redactor): StreamedReport {
  RunReportSchema.parse({ ...report, tasks: [] });
  const { tasks, ...frame } = report;
  return { ...redactor.deep(frame), tasks: mappedRows(tasks, (row) => redactor.deep(row)) };
}
