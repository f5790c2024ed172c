import type { Diff } from '../schema/diff.js';

/** One failure reason or layer of the diff: failed trials in the baseline and now. */
export interface TriageRow {
  name: string;
  baseline: number;
  current: number;
  delta: number;
}

export type TriageDistribution = Diff['failure_reasons'];

/**
 * A failure-reason or failure-layer distribution in reading order: the ones that grew most first
 * (the regressions a reader triages), then the ones that shrank least, then by name. Every reporter
 * reads this one order so the terminal, summary.md and report.html agree.
 */
export function triageRows(distribution: TriageDistribution): TriageRow[] {
  return Object.entries(distribution)
    .map(([name, d]) => ({ name, baseline: d.baseline, current: d.current, delta: d.current - d.baseline }))
    .filter((r) => r.baseline > 0 || r.current > 0)
    .sort((a, b) => b.delta - a.delta || b.current - a.current || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `INVALID_ARGUMENTS 0 → 3 (+3)`; an unchanged count has no delta. */
export function triageText(row: TriageRow): string {
  const delta = row.delta === 0 ? '' : ` (${row.delta > 0 ? '+' : ''}${row.delta})`;
  return `${row.name} ${row.baseline} → ${row.current}${delta}`;
}
