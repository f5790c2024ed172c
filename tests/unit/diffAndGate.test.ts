import { describe, expect, it } from 'vitest';
import { diffReports } from '../../src/baseline/diffReports.js';
import { toBaseline } from '../../src/baseline/baselineFile.js';
import { defaultRules, evaluateGate } from '../../src/gate/evaluateGate.js';
import { makeReport } from '../helpers/reportBuilder.js';
import { describeDrop } from '../../src/statistics/dropFigure.js';
import { formatDiff } from '../../src/reporters/terminalDiff.js';
import { mdText, summaryMarkdown } from '../../src/reporters/summaryMarkdown.js';
import { buildCharts } from '../../src/reporters/html/charts.js';
import { rng } from '../../bench/seededRandom.js';
import type { RunReport } from '../../src/schema/report.js';

const baseline = makeReport([
  { id: 'stable', trials: 'p' },
  { id: 'breaks', trials: 'p' },
  { id: 'heals', trials: 'f' },
  { id: 'shifts', trials: 'f', reason: 'FILE_NOT_FOUND_UNRECOVERED', layer: 'environment' },
  { id: 'stuck', trials: 'f' },
  { id: 'flaky_infra', trials: 'p' },
  { id: 'dropped', trials: 'p' },
  { id: 'redefined', trials: 'p' },
]);
const current = makeReport([
  { id: 'stable', trials: 'p' },
  { id: 'breaks', trials: 'f', reason: 'INVALID_ARGUMENTS', layer: 'tool' },
  { id: 'heals', trials: 'p' },
  { id: 'shifts', trials: 'f', reason: 'INVALID_ARGUMENTS', layer: 'tool' },
  { id: 'stuck', trials: 'f' },
  { id: 'flaky_infra', trials: 'e' },
  { id: 'added', trials: 'p' },
  { id: 'redefined', trials: 'f', fingerprint: 'other' },
]);

describe('diff', () => {
  const diff = diffReports(current, baseline, 'baselines/x.json');
  const change = (id: string) => diff.tasks.find((t) => t.id === id);

  it('classifies every task and lists regressions first', () => {
    expect(change('stable')?.change).toBe('unchanged');
    expect(change('breaks')).toMatchObject({ change: 'regressed', current: { failure_reason: 'INVALID_ARGUMENTS', failure_layer: 'tool' } });
    expect(change('heals')?.change).toBe('fixed');
    expect(change('shifts')?.change).toBe('reason_changed');
    expect(change('stuck')?.change).toBe('still_failing');
    expect(change('flaky_infra')?.change).toBe('errored');
    expect(change('added')?.change).toBe('new');
    expect(change('dropped')?.change).toBe('removed');
    expect(change('redefined')).toMatchObject({ change: 'regressed', definition_changed: true });
    expect(diff.tasks[0]!.change).toBe('regressed');
    expect(diff.counts).toMatchObject({ regressed: 2, fixed: 1, reason_changed: 1, still_failing: 1, unchanged: 1, errored: 1, new: 1, removed: 1 });
  });

  it('says plainly what changed in the suite, and keeps changed or errored tasks out of the test', () => {
    expect(diff.notes.join('\n')).toMatch(/1 task\(s\) are new/);
    expect(diff.notes.join('\n')).toMatch(/did not run: dropped/);
    expect(diff.notes.join('\n')).toMatch(/changed definition .* redefined/);
    expect(diff.notes.join('\n')).toMatch(/errored on one side/);
    // stable, breaks, heals, shifts, stuck: paired; flaky_infra (errored), added, redefined are not.
    expect(diff.significance).toMatchObject({ method: 'exact_mcnemar', pairs: 5, regressed: 1, improved: 1 });
  });

  it('diffs metrics and distributions', () => {
    const metric = (name: string) => diff.metrics.find((m) => m.name === name)!;
    expect(metric('pass_rate').baseline).toBeCloseTo(5 / 8, 10);
    expect(metric('pass_rate').current).toBeCloseTo(3 / 7, 10);
    expect(metric('error_rate')).toMatchObject({ baseline: 0, better: 'lower' });
    expect(diff.failure_layers['tool']).toEqual({ baseline: 0, current: 2 });
    expect(diff.failure_layers['model']).toEqual({ baseline: 2, current: 2 });
  });

  it('a baseline drops diff, gate and trace paths', () => {
    const saved = toBaseline({ ...current, diff, gate: evaluateGate(current, {}, 'x') });
    expect(saved.diff).toBeUndefined();
    expect(saved.gate).toBeUndefined();
    expect(saved.tasks.every((t) => t.trace_file === null && t.trials.every((x) => x.trace_file === null))).toBe(true);
  });
});

describe('gate', () => {
  const diffed = { ...current, diff: diffReports(current, baseline, 'b.json') };
  const rule = (name: string, rules: Parameters<typeof evaluateGate>[1], report = diffed) => evaluateGate(report, rules, 'test').results.find((r) => r.rule === name)!;

  it('evaluates each rule with its numbers', () => {
    expect(rule('min_pass_rate', { min_pass_rate: 0.4 })).toMatchObject({ passed: true, actual: '42.9%' });
    expect(rule('min_pass_rate', { min_pass_rate: 0.5 }).passed).toBe(false);
    expect(rule('max_error_rate', { max_error_rate: 0 })).toMatchObject({ passed: false, actual: expect.stringContaining('1 errored') });
    // The regression of a redefined task does not count. These runs replay scripts: no noise, so a fall is beyond it.
    expect(rule('max_regressions', { max_regressions: 0 })).toMatchObject({ passed: false, actual: '1 beyond noise, 0 only moved', detail: expect.stringContaining('beyond noise: breaks (1/1 → 0/1') });
    expect(rule('max_regressions', { max_regressions: 1 }).passed).toBe(true);
    expect(rule('max_tasks_down', { max_tasks_down: 0 })).toMatchObject({ passed: false, actual: '1', detail: expect.stringContaining('breaks (INVALID_ARGUMENTS, tool)') });
    expect(rule('max_drop', { max_drop: 0 }).passed).toBe(true);
    expect(rule('no_significant_regression', { no_significant_regression: true }).passed).toBe(true);
  });

  it('must_pass_tags needs every tagged task to pass, and at least one to exist', () => {
    const tagged = makeReport([{ id: 'a', trials: 'p', tags: ['security'] }, { id: 'b', trials: 'f', tags: ['security'] }, { id: 'c', trials: 'p', tags: ['smoke'] }]);
    expect(rule('must_pass_tag:smoke', { must_pass_tags: ['smoke'] }, tagged).passed).toBe(true);
    expect(rule('must_pass_tag:security', { must_pass_tags: ['security'] }, tagged)).toMatchObject({ passed: false, detail: 'b' });
    expect(rule('must_pass_tag:nightly', { must_pass_tags: ['nightly'] }, tagged)).toMatchObject({ passed: false, actual: 'no task has this tag' });
  });

  it('rules that need a baseline fail without one, and say so', () => {
    expect(rule('max_regressions', { max_regressions: 0 }, current)).toMatchObject({ passed: false, detail: expect.stringContaining('needs --baseline') });
  });

  it('finds a significant regression over many tasks', () => {
    const many = (letter: string, n: number, offset = 0) => Array.from({ length: n }, (_, i) => ({ id: `t${i + offset}`, trials: letter }));
    const before = makeReport([...many('p', 40)]);
    const after = makeReport([...many('f', 12), ...many('p', 28, 12)]);
    const gate = evaluateGate({ ...after, diff: diffReports(after, before, 'b') }, { no_significant_regression: true }, 't');
    expect(gate.passed).toBe(false);
    expect(gate.results[0]!.actual).toMatch(/^regressed/);
  });

  it('defaults: everything passes without a baseline; no regression with one', () => {
    expect(defaultRules(false)).toEqual({ min_pass_rate: 1, max_error_rate: 0 });
    expect(defaultRules(true)).toEqual({ max_regressions: 0, max_error_rate: 0, no_significant_regression: true });
  });
});

describe('epochs in the report', () => {
  it('computes pass@k, pass^k, pass fractions and flaky tasks', () => {
    const report = makeReport([
      { id: 'always', trials: 'ppp' },
      { id: 'sometimes', trials: 'pfp' },
      { id: 'never', trials: 'fff' },
      { id: 'infra', trials: 'eee' },
    ]);
    expect(report.summary).toMatchObject({ epochs: 3, flaky: 1, trials: 12, passed: 5, failed: 4, errored: 3 });
    expect(report.summary.pass_at_k).toBeCloseTo(2 / 3, 10);
    expect(report.summary.pass_hat_k).toBeCloseTo(1 / 3, 10);
    const sometimes = report.tasks.find((t) => t.id === 'sometimes')!;
    expect(sometimes).toMatchObject({ status: 'failed', flaky: true });
    expect(sometimes.pass_fraction).toBeCloseTo(2 / 3, 10);
    expect(report.tasks.find((t) => t.id === 'infra')).toMatchObject({ status: 'errored', pass_fraction: null });
  });
});

describe('the diff on every shape of data', () => {
  const many = (n: number, trials: (i: number) => string) => Array.from({ length: n }, (_, i) => ({ id: `t${i}`, trials: trials(i) }));

  it('a 1-epoch baseline against a 3-epoch run with the same pass rates is not a regression', () => {
    // 30 tasks, each 90% in both: baseline one trial, current three; old behaviour said "regressed".
    const before = makeReport(many(30, (i) => (i % 10 === 0 ? 'f' : 'p')));
    const after = makeReport(many(30, (i) => (i % 10 === 0 ? 'fpp' : i % 10 === 5 ? 'ppf' : 'ppp')));
    const diff = diffReports(after, before, 'b.json');
    expect(diff.significance).toMatchObject({ method: 'stratified_exact', verdict: 'inconclusive' });
    expect(diff.significance!.why).toMatch(/unequal judged trials/);
    expect(diff.notes.join('\n')).toMatch(/epochs differ: baseline 1, current 3; the paired test weighs each task by its judged trials/);
    expect(diff.notes.join('\n')).toMatch(/weak comparison: .*different judged trial counts/);
    const gate = evaluateGate({ ...after, diff }, defaultRules(true), 'defaults');
    expect(gate.results.find((r) => r.rule === 'no_significant_regression')!.passed).toBe(true);
  });

  it('reproduces the outside check through report files: A/A, 1-epoch baseline vs 3-epoch run, flags at most 5%', () => {
    const random = rng(12);
    const letters = (p: number, n: number) => Array.from({ length: n }, () => (random() < p ? 'p' : 'f')).join('');
    const runs = 120;
    let regressed = 0;
    let improved = 0;
    for (let r = 0; r < runs; r++) {
      const ps = Array.from({ length: 60 }, () => 0.85 + random() * 0.1);
      const base = makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(p, 1) })));
      const cur = makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(p, 3) })));
      if (diffReports(cur, base, 'b.json').significance?.verdict === 'regressed') regressed++;
      if (diffReports(base, cur, 'b.json').significance?.verdict === 'improved') improved++;
    }
    // The old rule: 44% "regressed" one way, 50% "improved" the other.
    expect(regressed / runs).toBeLessThanOrEqual(0.05);
    expect(improved / runs).toBeLessThanOrEqual(0.05);
  });

  it('two tasks going 3/3 → 2/3 are inconclusive and do not fail the significance rule', () => {
    const before = makeReport([{ id: 'a', trials: 'ppp' }, { id: 'b', trials: 'ppp' }]);
    const after = makeReport([{ id: 'a', trials: 'ppf' }, { id: 'b', trials: 'pfp' }]);
    const diff = diffReports(after, before, 'b.json');
    expect(diff.significance).toMatchObject({ verdict: 'inconclusive', p_value: 0.5, pairs: 2 });
    expect(diff.significance!.ci_high - diff.significance!.ci_low).toBeGreaterThan(0.5);
    expect(diff.notes.join('\n')).toMatch(/weak comparison: only 2 paired task/);
    const gate = evaluateGate({ ...after, diff }, { no_significant_regression: true }, 't');
    expect(gate.passed).toBe(true);
  });

  it('a partly errored task weighs by its judged trials, and the diff shows each side\'s trial counts', () => {
    const before = makeReport([{ id: 'half', trials: 'ppp' }, { id: 'full', trials: 'ppp' }]);
    const after = makeReport([{ id: 'half', trials: 'eef' }, { id: 'full', trials: 'ppf' }]);
    const diff = diffReports(after, before, 'b.json');
    // Trial weights 3·1/(3+1) = 0.75 and 3·3/(3+3) = 1.5, times the pooled-rate weights 4 and 5:
    // (4·0.75·(−1) + 5·1.5·(−1/3)) / (4·0.75 + 5·1.5).
    expect(diff.significance!.delta).toBeCloseTo(-5.5 / 10.5, 12);
    expect(diff.significance!.trials).toEqual({ baseline_judged: 6, current_judged: 4, baseline_errored: 0, current_errored: 2 });
    expect(diff.tasks.find((t) => t.id === 'half')!.current!.trials).toEqual({ passed: 0, judged: 1, errored: 2 });
    expect(diff.significance!.weak!.join(' ')).toMatch(/2 of 6 current trials of the paired tasks errored/);
  });

  it('ten partly errored tasks that fail their one judged trial: p from the exact distribution, (1/4)^10 · 2', () => {
    const before = makeReport(many(10, () => 'ppp'));
    const after = makeReport(many(10, () => 'eef'));
    const sig = diffReports(after, before, 'b.json').significance!;
    expect(sig.p_value).toBeCloseTo(2 / 4 ** 10, 15);
    expect(sig.verdict).toBe('regressed');
  });
});

describe('a default gate right under noise, one verdict and one number', () => {
  /** A live (noisy) run: the builder's reports replay scripts, which have no trial noise. */
  const live = (report: RunReport): RunReport => ({ ...report, run: { ...report.run, model: { ...report.run.model, provider: 'openai', mode: 'live' } } });
  const letters = (random: () => number, p: number, n: number) => Array.from({ length: n }, () => (random() < p ? 'p' : 'f')).join('');
  /** The mixture: 35 always pass, 25 at U(0.4, 0.95), 20 at Beta(½, ½), 20 at U(0, 0.2). */
  const mixture = (random: () => number) => [
    ...Array.from({ length: 35 }, () => 1),
    ...Array.from({ length: 25 }, () => 0.4 + 0.55 * random()),
    ...Array.from({ length: 20 }, () => Math.sin((random() * Math.PI) / 2) ** 2),
    ...Array.from({ length: 20 }, () => 0.2 * random()),
  ];
  const pair = (random: () => number, ps: number[], nb: number, nc: number) => {
    const base = live(makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(random, p, nb) }))));
    const cur = live(makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(random, p, nc) }))));
    return { ...cur, diff: diffReports(cur, base, 'b.json') };
  };

  it('fails an A/A run of a noisy agent at most 5% of the time at epochs (1,1) (3,3) (5,5) (1,3) (3,1)', () => {
    // Old default (max_regressions counted any task that went down): 100% at 3 epochs, 20 of 20 at 1.
    const runs = 200;
    for (const [nb, nc] of [[1, 1], [3, 3], [5, 5], [1, 3], [3, 1]] as const) {
      const random = rng(1900 + 10 * nb + nc);
      let failed = 0;
      for (let r = 0; r < runs; r++) if (!evaluateGate(pair(random, mixture(random), nb, nc), defaultRules(true), 'defaults').passed) failed++;
      expect(failed / runs, `epochs (${nb},${nc})`).toBeLessThanOrEqual(0.05);
    }
  });

  it('names which tasks fell beyond noise and which only moved; the literal rule counts every fall', () => {
    const ps = Array.from({ length: 40 }, () => 1);
    const base = live(makeReport(ps.map((_, i) => ({ id: `t${i}`, trials: 'pppppppppp' }))));
    // t0 collapses 10/10 → 0/10 (p = 1/184756 by itself, beyond noise after BH over 2 informative tasks); t1 goes 10/10 → 9/10.
    const cur = live(makeReport(ps.map((_, i) => ({ id: `t${i}`, trials: i === 0 ? 'ffffffffff' : i === 1 ? 'pppppppppf' : 'pppppppppp' }))));
    const report = { ...cur, diff: diffReports(cur, base, 'b.json') };
    const beyond = evaluateGate(report, { max_regressions: 0 }, 't').results[0]!;
    expect(beyond).toMatchObject({ rule: 'max_regressions', passed: false, actual: '1 beyond noise, 1 only moved' });
    expect(beyond.detail).toMatch(/^beyond noise: t0 \(10\/10 → 0\/10, p=5\.4e-6\); only moved \(within noise\): t1 \(10\/10 → 9\/10, p=0\.50\)$/);
    expect(report.diff.tasks.find((t) => t.id === 't0')).toMatchObject({ beyond_noise: true });
    expect(report.diff.tasks.find((t) => t.id === 't1')).toMatchObject({ beyond_noise: false, drop_p: 0.5 });
    expect(evaluateGate(report, { max_tasks_down: 1 }, 't').results[0]).toMatchObject({ rule: 'max_tasks_down', passed: false, actual: '2' });
  });

  it('one drop figure: max_drop checks the number the paired test prints', () => {
    const random = rng(77);
    const ps = mixture(random);
    const base = live(makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(random, p, 3) }))));
    const cur = live(makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(random, Math.max(0, p - 0.15), 3) }))));
    const report = { ...cur, diff: diffReports(cur, base, 'b.json') };
    const sig = report.diff.significance!;
    const printed = (-sig.delta * 100).toFixed(1);
    const gate = evaluateGate(report, { max_drop: (Number(printed) - 0.1) / 100, no_significant_regression: true }, 't');
    expect(gate.results[0]).toMatchObject({ rule: 'max_drop', passed: false, actual: `drop ${printed} points` });
    expect(gate.results[1]!.actual).toContain(`drop ${printed} points`);
    expect(evaluateGate(report, { max_drop: Number(printed) / 100 }, 't').passed).toBe(true);
    expect(report.diff.metrics.map((m) => m.name)).not.toContain('paired_pass_rate');
  });

  it('one drop figure: the terminal, summary.md, the report.html verdict chart and max_drop print the same drop, interval and p', () => {
    const random = rng(78);
    const ps = mixture(random);
    const base = live(makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(random, p, 3) }))));
    const cur = live(makeReport(ps.map((p, i) => ({ id: `t${i}`, trials: letters(random, Math.max(0, p - 0.1), 3) }))));
    const diffed = { ...cur, diff: diffReports(cur, base, 'b.json') };
    const report = { ...diffed, gate: evaluateGate(diffed, { max_drop: 0.5, no_significant_regression: true }, 't') };
    const figure = describeDrop(report.diff.significance!);
    expect(figure).toMatch(/^drop \d+\.\d points, 95% CI \[-?\d+\.\d, -?\d+\.\d\], p/);
    expect(formatDiff(report.diff)).toContain(figure);
    expect(summaryMarkdown(report)).toContain(mdText(figure));
    expect(buildCharts(report).find((c) => c.id === 'verdict')!.title).toContain(figure);
    expect(report.gate.results.find((r) => r.rule === 'max_drop')!.actual).toBe(figure.split(',')[0]);
    expect(report.gate.results.find((r) => r.rule === 'no_significant_regression')!.actual).toContain(figure);
  });

  it('a comparison in which no task differs says it has no interval instead of printing [-100.0, 100.0]', () => {
    const same = makeReport([{ id: 'a', trials: 'ppp' }, { id: 'b', trials: 'fff' }]);
    const figure = describeDrop(diffReports(same, same, 'b.json').significance!);
    expect(figure).toContain("no 95% CI (no task's outcome differs between the runs)");
    expect(figure).not.toContain('[-100.0, 100.0]');
  });

  it('max_drop reads the drop as printed: a printed "drop 17.0 points" passes --max-drop 17%', () => {
    const cur = makeReport([{ id: 'a', trials: 'p' }]);
    const sig = { ...diffReports(cur, cur, 'b.json').significance!, delta: -0.17043 };
    const report = { ...cur, diff: { ...diffReports(cur, cur, 'b.json'), significance: sig } };
    expect(evaluateGate(report, { max_drop: 0.17 }, 't').results[0]).toMatchObject({ passed: true, actual: 'drop 17.0 points' });
    expect(evaluateGate(report, { max_drop: 0.169 }, 't').results[0]).toMatchObject({ passed: false, actual: 'drop 17.0 points' });
  });

  it('a comparison with no paired task is not a pass: the rule fails and says why', () => {
    const base = makeReport([{ id: 'a', trials: 'p' }, { id: 'b', trials: 'p' }]);
    const cur = makeReport([{ id: 'a', trials: 'p', fingerprint: 'new' }, { id: 'b', trials: 'f', fingerprint: 'new' }]);
    const report = { ...cur, diff: diffReports(cur, base, 'b.json') };
    expect(report.diff.significance).toBeNull();
    const gate = evaluateGate(report, { no_significant_regression: true, max_drop: 0.05 }, 't');
    expect(gate.passed).toBe(false);
    expect(gate.results.map((r) => [r.rule, r.passed, r.actual])).toEqual([
      ['max_drop', false, 'no paired task'],
      ['no_significant_regression', false, 'no paired task'],
    ]);
    expect(gate.results[0]!.detail).toMatch(/new, removed, redefined or errored/);
  });

  it('every trial errored: the gate does not pass (exit 3 is never beside gate.passed: true)', () => {
    const report = makeReport([{ id: 'a', trials: 'ee' }, { id: 'b', trials: 'ee' }]);
    const gate = evaluateGate(report, {}, 't');
    expect(gate.passed).toBe(false);
    expect(gate.results).toEqual([{ rule: 'trials_judged', passed: false, expected: 'at least one judged trial', actual: 'every one of 4 trials errored' }]);
    // An empty shard has no trial at all and applies no rule.
    expect(evaluateGate(makeReport([]), {}, 't').passed).toBe(true);
  });
});
