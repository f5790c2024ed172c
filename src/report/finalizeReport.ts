import type { Redactor } from '../schema/redact.js';
import { RunReportSchema, TaskResultSchema, type RunReport } from '../schema/report.js';

/**
 * Validates a report against report/v1 without copying it: the frame once, then each task on its
 * own, so a 100k-task report is never held twice. Throws the schema's error on the first problem.
 */
export function checkReport(report: RunReport): RunReport {
  RunReportSchema.parse({ ...report, tasks: [] });
  for (const task of report.tasks) TaskResultSchema.parse(task);
  return report;
}

/**
 * The report as it is written: validated, then redacted (the frame as a copy, the task rows one at
 * a time in place, so memory holds one copy of the rows). The report passed in is consumed.
 */
export function finalizeReport(report: RunReport, redactor: Redactor): RunReport {
  checkReport(report);
  const { tasks, ...frame } = report;
  for (let i = 0; i < tasks.length; i++) tasks[i] = redactor.deep(tasks[i]!);
  return { ...redactor.deep(frame), tasks };
}
