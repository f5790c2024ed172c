import { TracegateError } from '../schema/runError.js';
import type { RunReport } from '../schema/report.js';

/**
 * A baseline that shares no task id with the run is almost always another suite's: diffing against
 * it would call every task "new" and every baseline task "removed" and pass the gate. Refused as bad
 * input. A run with no task at all (an empty shard) has nothing to compare and is let through.
 */
export function checkBaselineShares(tasks: ReadonlyArray<{ id: string }>, baseline: { report: RunReport; file: string } | null): void {
  if (!baseline || tasks.length === 0 || baseline.report.tasks.length === 0) return;
  const ids = new Set(baseline.report.tasks.map((t) => t.id));
  if (tasks.some((t) => ids.has(t.id))) return;
  const suites = baseline.report.run.suites.map((s) => s.path).join(', ') || 'unknown suites';
  throw new TracegateError(
    'BAD_INPUT',
    `baseline ${baseline.file}: it shares no task id with this run (its ${baseline.report.tasks.length} tasks are from ${suites}; this run has ${tasks.length}, e.g. ${tasks[0]!.id}): a different suite? Pass the baseline saved from this suite`,
  );
}
