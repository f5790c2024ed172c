import { describe, expect, it } from 'vitest';
import { planNextStage, type TaskTrials } from '../../src/statistics/adaptivePlan.js';
import { nominalLevel, obrienFlemingSpent, sequentialBoundaries } from '../../src/statistics/groupSequential.js';
import { simulateAdaptive } from '../../bench/adaptiveSim.js';

describe('group-sequential boundaries', () => {
  it('match the published Lan–DeMets O\'Brien–Fleming values (gsDesign sfLDOF / ldbounds, two-sided 0.05)', () => {
    const five = sequentialBoundaries([0.2, 0.4, 0.6, 0.8, 1], 0.05);
    [4.8769, 3.3569, 2.6803, 2.2898, 2.031].forEach((c, i) => expect(five[i]).toBeCloseTo(c, 3));
    const two = sequentialBoundaries([0.5, 1], 0.05);
    expect(two[0]).toBeCloseTo(2.9626, 3);
    expect(two[1]).toBeCloseTo(1.9686, 3);
    // One look is the fixed-sample test.
    expect(sequentialBoundaries([1], 0.05)[0]).toBeCloseTo(1.959964, 4);
  });

  it('spends almost nothing early and all of alpha at the end', () => {
    // alpha/2 per side: 2 − 2Φ(z_{0.9875} / √0.5) = 2 − 2Φ(3.1698) = 0.001526 per side.
    expect(obrienFlemingSpent(0.5, 0.05)).toBeCloseTo(0.00305, 4);
    expect(obrienFlemingSpent(1, 0.05)).toBe(0.05);
    expect(obrienFlemingSpent(0, 0.05)).toBe(0);
    expect(nominalLevel(1.959964)).toBeCloseTo(0.05, 5);
  });
});

const task = (id: string, baseline: [number, number] | null, current: [number, number, number?]): TaskTrials => ({
  id,
  baseline: baseline ? { passed: baseline[0], judged: baseline[1] } : null,
  current: { passed: current[0], judged: current[1], errored: current[2] ?? 0 },
});

describe('planNextStage', () => {
  const settings = { maxEpochs: 4, budget: null, alpha: 0.05 };

  it('re-runs the tasks that can still move the verdict, and says why the others stop', () => {
    const tasks = [
      task('mixed', [2, 3], [1, 1]),
      task('easy', [3, 3], [1, 1]),
      task('new', null, [1, 1]),
      task('thin_baseline', [1, 1], [1, 2]),
    ];
    const d = planNextStage(tasks, 1, 5, settings);
    expect(d.done).toBe(false);
    expect(d.rerun.sort()).toEqual(['easy', 'mixed']);
    expect(d.stopped).toEqual({ new: 'no_baseline', thin_baseline: 'baseline_limits' });
    expect(d.look.stage).toBe(1);
    expect(d.look.fraction).toBeGreaterThan(0);
    expect(d.look.fraction).toBeLessThan(1);
    expect(d.look.level).toBeLessThan(0.01);
  });

  it('spends a budget on the tasks with the fewest trials first, then stops', () => {
    const tasks = [task('a', [5, 10], [1, 2]), task('b', [5, 10], [0, 1]), task('c', [5, 10], [1, 1])];
    const d = planNextStage(tasks, 2, 4, { maxEpochs: 4, budget: 5, alpha: 0.05, futility: false }, [0.3]);
    expect(d.rerun).toEqual(['b']);
    expect(d.stopped).toMatchObject({ a: 'budget_spent', c: 'budget_spent' });
    const spent = planNextStage(tasks, 3, 5, { maxEpochs: 4, budget: 5, alpha: 0.05, futility: false }, [0.3, 0.6]);
    expect(spent).toMatchObject({ done: true, reason: expect.stringContaining('budget of 5 trials is spent') });
    expect(spent.look.fraction).toBe(1);
  });

  it('stops at once when a drop is beyond the boundary', () => {
    const tasks = Array.from({ length: 40 }, (_, i) => task(`t${i}`, [10, 10], [0, 2]));
    const d = planNextStage(tasks, 2, 80, { maxEpochs: 5, budget: null, alpha: 0.05 }, [0.2]);
    expect(d.done).toBe(true);
    expect(d.look.verdict).toBe('regressed');
    expect(d.stopped['t0']).toBe('verdict_settled');
  });

  it('stops for futility once a third of the trials show no sign of a drop', () => {
    const tasks = Array.from({ length: 30 }, (_, i) => task(`t${i}`, [2, 3], i % 2 ? [2, 2] : [1, 2]));
    const d = planNextStage(tasks, 2, 60, { maxEpochs: 4, budget: null, alpha: 0.05 }, [0.25]);
    expect(d.done).toBe(true);
    expect(d.reason).toMatch(/futility/);
    expect(d.stopped['t1']).toBe('no_regression_sign');
  });

  it('at the last stage the look is final and spends what is left of alpha', () => {
    const tasks = [task('a', [2, 4], [1, 4]), task('b', [2, 4], [2, 4])];
    const d = planNextStage(tasks, 4, 8, settings, [0.25, 0.5, 0.75]);
    expect(d.done).toBe(true);
    expect(d.look.fraction).toBe(1);
    expect(d.look.boundary).toBeCloseTo(sequentialBoundaries([0.25, 0.5, 0.75, 1], 0.05)[3]!, 10);
  });
});

describe('--epochs auto on simulated agents', () => {
  it('keeps A/A false alarms at most alpha/2 per side beyond simulation error', () => {
    const realistic = (n: number, random: () => number) => Array.from({ length: n }, () => 0.3 + random() * 0.7);
    const r = simulateAdaptive({ tasks: 60, baselineEpochs: 5, maxEpochs: 4, budgetEpochs: null, alpha: 0.05 }, realistic, 250, 11, 0.15);
    expect(r.falseAlarm).toBeLessThanOrEqual(0.05);
    expect(r.power).toBeGreaterThan(0.5);
    expect(r.callsNull).toBeLessThanOrEqual(4 * 60);
  });
});
