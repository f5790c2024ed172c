import { mkdirSync } from 'node:fs';
import { writeFileAtomicSync } from '../files/atomicWrite.js';
import path from 'node:path';
import { JsonFileError, readJson, zodProblem } from '../files/jsonFile.js';
import { REPORT_SCHEMA_VERSION, RunReportSchema, type RunReport } from '../schema/report.js';

/** Reads a report or baseline, refusing another schema version with a clear message. */
export function readReport(file: string): RunReport {
  const raw = readJson(file, 'report');
  const version = (raw as { schema_version?: unknown } | null)?.schema_version;
  if (version !== REPORT_SCHEMA_VERSION) {
    throw new JsonFileError(
      `${file}: field schema_version: ${JSON.stringify(version ?? null)} is not ${REPORT_SCHEMA_VERSION}; re-create it with this tracegate (tracegate baseline save)`,
    );
  }
  const parsed = RunReportSchema.safeParse(raw);
  if (!parsed.success) throw new JsonFileError(`${file}: ${zodProblem(parsed.error)}`);
  // Two rows for one task would make the diff's per-task pairing ambiguous.
  const seen = new Set<string>();
  for (const [i, task] of parsed.data.tasks.entries()) {
    if (seen.has(task.id)) throw new JsonFileError(`${file}: field tasks.${i}.id: task ${task.id} appears more than once`);
    seen.add(task.id);
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
  writeFileAtomicSync(file, JSON.stringify(RunReportSchema.parse(toBaseline(report)), null, 2) + '\n', { durable: true });
}
