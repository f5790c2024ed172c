import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPORT_SCHEMA_VERSION, RunReportSchema, type RunReport } from '../schema/report.js';

export class ReportFileError extends Error {
  readonly code = 'REPORT_INVALID';
}

/** Reads a report or baseline, refusing another schema version with a clear message. */
export function readReport(file: string): RunReport {
  if (!existsSync(file)) throw new ReportFileError(`${file}: file not found`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ReportFileError(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (version !== REPORT_SCHEMA_VERSION) {
    throw new ReportFileError(
      `${file}: field schema_version: ${JSON.stringify(version ?? null)} is not ${REPORT_SCHEMA_VERSION}; re-create it with this tracegate (tracegate baseline save)`,
    );
  }
  const parsed = RunReportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReportFileError(`${file}: field ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}

/** A baseline is a report without its diff and gate, and without trace paths (traces stay out of git). */
export function toBaseline(report: RunReport): RunReport {
  const { diff: _diff, gate: _gate, ...rest } = report;
  return {
    ...rest,
    tasks: report.tasks.map((t) => ({ ...t, trace_file: null, trials: t.trials.map((trial) => ({ ...trial, trace_file: null })) })),
  };
}

export function saveBaseline(report: RunReport, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(RunReportSchema.parse(toBaseline(report)), null, 2) + '\n');
}
