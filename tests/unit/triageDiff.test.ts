import { describe, expect, it } from 'vitest';
import { diffReports } from '../../src/baseline/diffReports.js';
import { formatDiff } from '../../src/reporters/terminalDiff.js';
import { triageRows } from '../../src/reporters/triage.js';
import { COMPRESSION_METRIC } from '../../src/schema/diff.js';
import type { RunReport } from '../../src/schema/report.js';
import { makeReport } from '../helpers/reportBuilder.js';

const compression = (baseline: RunReport, current: RunReport) => diffReports(current, baseline, 'baseline.json').metrics.find((m) => m.name === COMPRESSION_METRIC)!;

describe('the compression metric of the diff', () => {
  it('is the share of judged trials that compressed, baseline vs current; an errored trial counts on neither side of the ratio', () => {
    const baseline = makeReport([
      { id: 'a', trials: 'pp', compressed: 'c.' },
      { id: 'b', trials: 'pp', compressed: '..' },
    ]);
    const current = makeReport([
      { id: 'a', trials: 'pf', compressed: 'cc' },
      // Its errored trial compressed too, but errored trials are not judged.
      { id: 'b', trials: 'pe', compressed: 'cc' },
    ]);
    expect(baseline.summary.compressed_trials).toBe(1);
    expect(current.summary.compressed_trials).toBe(3);
    const metric = compression(baseline, current);
    expect(metric).toMatchObject({ baseline: 0.25, current: 1, better: 'lower' });
    expect(metric.delta).toBeCloseTo(0.75);
    expect(formatDiff(diffReports(current, baseline, 'baseline.json'))).toContain('context compression: 25.0% → 100.0% of judged trials compressed');
  });

  it('is unknown (null), not 0 %, against a report older than the count, and the terminal says so', () => {
    const old = makeReport([{ id: 'a', trials: 'p' }]);
    delete (old.summary as { compressed_trials?: number }).compressed_trials;
    const current = makeReport([{ id: 'a', trials: 'p', compressed: 'c' }]);
    expect(compression(old, current)).toMatchObject({ baseline: null, current: 1, delta: null });
    expect(formatDiff(diffReports(current, old, 'baseline.json'))).toContain('context compression: n/a → 100.0%');
  });
});

describe('triage rows', () => {
  it('puts the reasons that grew first, then the larger counts, then by name, and drops the empty ones', () => {
    const rows = triageRows({
      FILE_NOT_FOUND_UNRECOVERED: { baseline: 1, current: 1 },
      INVALID_ARGUMENTS: { baseline: 0, current: 3 },
      MAX_STEPS_EXCEEDED: { baseline: 2, current: 0 },
      CONTEXT_LOSS: { baseline: 0, current: 0 },
      TOOL_ARGUMENT_ERROR: { baseline: 0, current: 1 },
    });
    expect(rows.map((r) => `${r.name} ${r.delta}`)).toEqual(['INVALID_ARGUMENTS 3', 'TOOL_ARGUMENT_ERROR 1', 'FILE_NOT_FOUND_UNRECOVERED 0', 'MAX_STEPS_EXCEEDED -2']);
  });
});
