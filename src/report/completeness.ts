import type { RunReport } from '../schema/report.js';

export interface Completeness {
  complete: boolean;
  /** Trials the run set out to do (null for reports written before this was recorded). */
  planned: number | null;
  done: number;
  /** One line for the top of every artifact, or null when the run is complete. */
  notice: string | null;
}

/** An interrupted or partial run must say so everywhere and can never pass a gate. */
export function completeness(report: Pick<RunReport, 'run' | 'summary'>): Completeness {
  const planned = report.run.trials_planned ?? null;
  const done = report.summary.trials;
  const partial = planned !== null && done < planned;
  if (!report.run.interrupted && !partial) return { complete: true, planned, done, notice: null };
  const how = report.run.interrupted ? 'INTERRUPTED' : 'INCOMPLETE';
  const counts = planned !== null ? `${done} of ${planned} trials ran` : `${done} trials ran`;
  return { complete: false, planned, done, notice: `${how}: ${counts}; this report is partial and cannot pass the gate (finish it with --resume)` };
}
