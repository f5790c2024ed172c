import type { RunReport } from '../schema/report.js';

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/**
 * The summary's one row of counts, each column in its own unit: tasks and trials apart (under
 * --epochs 3 "tasks 16 | passed 39" read as if 39 of 16 tasks passed), and the run's wall time apart
 * from the trials' summed time (more than the wall under -j). The terminal and summary.md show it.
 */
export function summaryCounts(report: Pick<RunReport, 'run' | 'summary'>): { head: string[]; row: string[] } {
  const s = report.summary;
  const oneTrialEach = s.trials === s.total;
  const counts: Array<[string, number]> = oneTrialEach
    ? [['tasks', s.total], ['passed', s.passed], ['failed', s.failed], ['errored', s.errored]]
    : [['tasks', s.total], ['trials', s.trials], ['trials passed', s.passed], ['trials failed', s.failed], ['trials errored', s.errored]];
  const head = [...counts.map(([name]) => name), 'pass rate', 'steps (mean)', 'tokens', 'wall time', 'trial time (sum)'];
  const row = [...counts.map(([, n]) => String(n)), pct(s.pass_rate), s.steps.mean.toFixed(1), String(s.tokens.total), seconds(report.run.duration_ms), seconds(s.duration_ms.total)];
  return { head, row };
}
