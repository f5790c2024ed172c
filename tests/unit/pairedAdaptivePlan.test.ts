import { describe, expect, it } from 'vitest';
import { epochFlips, planPairedStage, taskStop, type PairedTaskTrials } from '../../src/statistics/pairedAdaptivePlan.js';
import { exactMcNemarP, pairedSignificance } from '../../src/statistics/significance.js';
import { sequentialBoundaries } from '../../src/statistics/groupSequential.js';
import type { TaskResult } from '../../src/schema/report.js';
import { simulatePairedAdaptive } from '../../bench/pairedAdaptiveSim.js';
import { rng } from '../../bench/seededRandom.js';

/** A task with [passed, judged] on each side and the epoch-paired flips (only A passed, only B passed). */
const task = (id: string, a: [number, number], b: [number, number], flips: [number, number] = [0, 0]): PairedTaskTrials => ({
  id,
  a: { passed: a[0], judged: a[1], errored: 0 },
  b: { passed: b[0], judged: b[1], errored: 0 },
  flips: { aOnly: flips[0], bOnly: flips[1], pairs: Math.min(a[1], b[1]) },
});
const settings = { maxEpochs: 5, minEpochs: 2, budget: null, alpha: 0.05, futility: false };

describe('the allocation rule of compare --epochs auto', () => {
  it('keeps every task until it has minEpochs a side, then only tasks whose pooled trials vary, up to maxEpochs', () => {
    expect(taskStop(task('one_each', [1, 1], [1, 1]), settings)).toBeNull();
    expect(taskStop(task('all_pass', [2, 2], [2, 2]), settings)).toBe('no_variance');
    expect(taskStop(task('all_fail', [0, 3], [0, 3]), settings)).toBe('no_variance');
    expect(taskStop(task('varies', [2, 2], [1, 2], [1, 0]), settings)).toBeNull();
    expect(taskStop(task('varies_on_one_side', [1, 2], [1, 2]), settings)).toBeNull();
    expect(taskStop(task('capped', [3, 5], [2, 5]), settings)).toBe('max_epochs');
    // A side whose trials all errored has no judged trial yet: it is not known to agree.
    expect(taskStop({ id: 'errored', a: { passed: 2, judged: 2, errored: 0 }, b: { passed: 0, judged: 0, errored: 2 }, flips: { aOnly: 0, bOnly: 0, pairs: 0 } }, settings)).toBeNull();
  });

  it('re-runs on both sides exactly the tasks that can still move the verdict, and says why the others stop', () => {
    const tasks = [task('new', [1, 1], [1, 1]), task('stable', [2, 2], [2, 2]), task('mixed', [2, 2], [1, 2], [1, 0]), task('done', [3, 5], [2, 5], [1, 0])];
    const d = planPairedStage(tasks, 2, 22, settings, [0.2]);
    expect(d.done).toBe(false);
    expect(d.rerun.sort()).toEqual(['mixed', 'new']);
    expect(d.stopped).toEqual({ stable: 'no_variance', done: 'max_epochs' });
  });

  it('never looks at which side passed: swapping A and B in any task leaves the plan unchanged', () => {
    const random = rng(5);
    for (let round = 0; round < 50; round++) {
      const tasks = Array.from({ length: 12 }, (_, i) => {
        const n = 1 + Math.floor(random() * 4);
        const a = Math.floor(random() * (n + 1));
        const b = Math.floor(random() * (n + 1));
        return task(`t${i}`, [a, n], [b, n], [Math.max(0, a - b), Math.max(0, b - a)]);
      });
      const swapped = tasks.map((t) => (random() < 0.5 ? { ...t, a: t.b, b: t.a, flips: { aOnly: t.flips.bOnly, bOnly: t.flips.aOnly, pairs: t.flips.pairs } } : t));
      // A tiny alpha keeps the verdict from settling, so only the allocation is compared.
      const plan = planPairedStage(tasks, 2, 60, { ...settings, budget: 80, alpha: 1e-6 }, [0.2]);
      const planSwapped = planPairedStage(swapped, 2, 60, { ...settings, budget: 80, alpha: 1e-6 }, [0.2]);
      expect(plan.done).toBe(false);
      expect(planSwapped.rerun).toEqual(plan.rerun);
      expect(planSwapped.look.fraction).toBe(plan.look.fraction);
    }
  });

  it('spends a budget of model calls in pairs (one per side), fewest trials first, then stops', () => {
    const tasks = [task('a', [1, 2], [2, 2], [0, 1]), task('b', [0, 1], [1, 1], [0, 1]), task('c', [1, 1], [0, 1], [1, 0])];
    const d = planPairedStage(tasks, 2, 8, { ...settings, budget: 12 }, [0.3]);
    expect(d.rerun).toEqual(['b', 'c']);
    expect(d.stopped).toEqual({ a: 'budget_spent' });
    const odd = planPairedStage(tasks, 2, 8, { ...settings, budget: 11 }, [0.3]);
    expect(odd.rerun).toEqual(['b']);
    const spent = planPairedStage(tasks, 3, 11, { ...settings, budget: 12 }, [0.3, 0.6]);
    expect(spent).toMatchObject({ done: true, reason: expect.stringContaining('budget of 12 model calls is spent') });
    expect(spent.look.fraction).toBe(1);
    expect(spent.look.boundary).toBeCloseTo(sequentialBoundaries([0.3, 0.6, 1], 0.05)[2]!, 10);
  });

  it('tests each look with weighted exact McNemar over the epoch-paired trials at the level of its boundary', () => {
    // 30 tasks, each 3 trials a side; 14 pairs only A passed, 2 only B passed.
    const tasks = Array.from({ length: 30 }, (_, i) => (i < 14 ? task(`t${i}`, [3, 3], [2, 3], [1, 0]) : i < 16 ? task(`t${i}`, [2, 3], [3, 3], [0, 1]) : task(`t${i}`, [2, 3], [2, 3], [1, 1])));
    const d = planPairedStage(tasks, 3, 180, { ...settings, maxEpochs: 3 }, [0.3, 0.6]);
    // Pooled 5/6 weighs 5 (16 flips, 2 of them B's), pooled 4/6 weighs 4 (28 flips, 14 B's): under no
    // change T = 5·Bin(16, ½) + 4·Bin(28, ½), observed 5·2 + 4·14 = 66; summed here term by term.
    const choose = (n: number, k: number): number => (k === 0 ? 1 : (choose(n, k - 1) * (n - k + 1)) / k);
    let below = 0;
    for (let k1 = 0; k1 <= 16; k1++) for (let k2 = 0; k2 <= 28; k2++) if (5 * k1 + 4 * k2 <= 66) below += choose(16, k1) * choose(28, k2) * 0.5 ** 44;
    expect(d.look.p).toBeCloseTo(2 * below, 12);
    expect(d.look.p).toBeLessThan(exactMcNemarP(16, 28));
    expect(d.look.fraction).toBe(1);
    expect(d.done).toBe(true);
  });

  it('makes a look the last one when the fraction grid leaves no room for another', () => {
    const tasks = [task('a', [1, 2], [2, 2], [0, 1]), task('b', [1, 2], [0, 2], [1, 0])];
    const d = planPairedStage(tasks, 3, 8, settings, [0.5, 0.99]);
    expect(d).toMatchObject({ done: true, rerun: [], stopped: { a: 'information_complete', b: 'information_complete' } });
    expect(d.look.fraction).toBe(1);
    expect(Number.isFinite(d.look.boundary)).toBe(true);
  });

  it('stops for futility when B looks no worse than A after a third of the information', () => {
    const tasks = Array.from({ length: 20 }, (_, i) => task(`t${i}`, [1, 2], [1, 2], i % 2 ? [1, 0] : [0, 1]));
    const d = planPairedStage(tasks, 2, 80, { ...settings, futility: true }, [0.2]);
    expect(d.done).toBe(true);
    expect(d.reason).toMatch(/futility/);
    expect(d.stopped['t0']).toBe('no_regression_sign');
  });
});

describe('epoch-paired trials', () => {
  const result = (statuses: Array<'passed' | 'failed' | 'errored'>) => ({ trials: statuses.map((status, epoch) => ({ epoch, status })) }) as unknown as TaskResult;

  it('counts the pairs that disagree and skips pairs with an errored or missing side', () => {
    expect(epochFlips(result(['passed', 'passed', 'failed', 'passed', 'passed']), result(['failed', 'passed', 'passed', 'errored']))).toEqual({ aOnly: 1, bOnly: 1, pairs: 3 });
  });

  it('give the paired test its p-value, direction, estimate and interval (exact McNemar over the pairs)', () => {
    const tasks = [{ baseline: { passed: 8, judged: 10 }, current: { passed: 1, judged: 10 }, flips: { baselineOnly: 7, currentOnly: 0, pairs: 10 } }];
    const sig = pairedSignificance(tasks, 0.05, true);
    expect(sig.method).toBe('exact_mcnemar');
    expect(sig.p_value).toBeCloseTo(2 * 0.5 ** 7, 12);
    expect(sig.verdict).toBe('regressed');
    expect(sig.why).toMatch(/epoch-paired/);
    // The estimate is the test's own: (0 − 7) / 10 pairs. Binomial(7, 1/2) accepts 1..6 current-only
    // wins at 5% (P(X ≤ 0) = 1/128 < 2.5% ≤ P(X ≤ 1) = 8/128), so the interval is every shift that
    // would land the difference in [2·1 − 7, 2·6 − 7] = [−5, 5]: [(−7 − 5)/10, (−7 + 5)/10].
    expect(sig.delta).toBeCloseTo(-0.7, 12);
    expect(sig.ci_low).toBe(-1);
    expect(sig.ci_high).toBeCloseTo(-0.2, 12);
  });
});

describe('compare --epochs auto on simulated agents', () => {
  it('keeps A/A false alarms within alpha beyond simulation error and catches a large drop', () => {
    const mix = (n: number, random: () => number) => Array.from({ length: n }, () => 0.3 + random() * 0.7);
    const r = simulatePairedAdaptive({ maxEpochs: 4, minEpochs: 2, budget: 6 * 40, alpha: 0.05 }, mix, 40, 150, 13, 0.2);
    expect(r.falseAlarm).toBeLessThanOrEqual(0.025 + 3 * Math.sqrt((0.025 * 0.975) / 150));
    expect(r.power).toBeGreaterThan(0.7);
    expect(r.callsNull).toBeLessThanOrEqual(3);
  });
});
