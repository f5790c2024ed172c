import { describe, expect, it } from 'vitest';
import { exactMcNemarP, pairedSignificance, taskWeight, weightedChange, type PairedTask } from '../../src/baseline/significance.js';
import { hypergeometric, stratifiedExact } from '../../src/baseline/stratifiedExact.js';
import { rng } from '../../bench/seededRandom.js';

/** [baseline passed, baseline judged, current passed, current judged] per task. */
type Row = [number, number, number, number];
const tasks = (rows: Row[]): PairedTask[] => rows.map(([xb, nb, xc, nc]) => ({ baseline: { passed: xb, judged: nb }, current: { passed: xc, judged: nc } }));

/** Brute force, independent of the hypergeometric formula: every choice of which pooled trials are "current". */
function bruteForceP(rows: Row[]): number {
  let dist = new Map<number, number>([[0, 1]]);
  for (const [xb, nb, xc, nc] of rows) {
    const pooled: number[] = [...Array<number>(xb + xc).fill(1), ...Array<number>(nb + nc - xb - xc).fill(0)];
    const local = new Map<number, number>();
    let count = 0;
    const choose = (start: number, left: number, sum: number) => {
      if (left === 0) {
        local.set(sum, (local.get(sum) ?? 0) + 1);
        count++;
        return;
      }
      for (let i = start; i <= pooled.length - left; i++) choose(i + 1, left - 1, sum + pooled[i]!);
    };
    choose(0, nc, 0);
    const next = new Map<number, number>();
    for (const [a, pa] of dist) for (const [b, nb2] of local) next.set(a + b, (next.get(a + b) ?? 0) + (pa * nb2) / count);
    dist = next;
  }
  const observed = rows.reduce((s, r) => s + r[2], 0);
  let lower = 0;
  let upper = 0;
  for (const [k, p] of dist) {
    if (k <= observed) lower += p;
    if (k >= observed) upper += p;
  }
  return Math.min(1, 2 * Math.min(lower, upper));
}

describe('exact stratified test', () => {
  it('matches p-values enumerated independently (python3 fractions over every relabelling)', () => {
    // Computed by a python3 script (fractions.Fraction) that enumerates all C(n_b + n_c, n_c) relabellings per task with exact fractions.
    expect(stratifiedExact(tasks([[3, 3, 2, 3], [3, 3, 2, 3]])).p).toBeCloseTo(1 / 2, 12);
    expect(stratifiedExact(tasks([[1, 1, 2, 3], [1, 1, 3, 3], [0, 1, 1, 3], [1, 1, 3, 3], [1, 1, 1, 3], [0, 1, 0, 3], [1, 1, 2, 3]])).p).toBeCloseTo(51 / 64, 12);
    expect(stratifiedExact(tasks([[3, 3, 0, 1], [2, 3, 1, 1], [3, 3, 0, 1], [1, 3, 0, 1], [3, 3, 1, 1]])).p).toBeCloseTo(31 / 128, 12);
    expect(stratifiedExact(tasks([[3, 3, 0, 1], [3, 3, 2, 3], [2, 3, 1, 2], [1, 2, 0, 3]])).p).toBeCloseTo(1 / 8, 12);
    expect(stratifiedExact(tasks(Array.from({ length: 10 }, (): Row => [3, 3, 0, 1]))).p).toBeCloseTo(1 / 524288, 15);
  });

  it('agrees with brute-force enumeration on random small comparisons', () => {
    const random = rng(42);
    for (let c = 0; c < 60; c++) {
      const rows: Row[] = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
        const nb = 1 + Math.floor(random() * 3);
        const nc = 1 + Math.floor(random() * 3);
        return [Math.floor(random() * (nb + 1)), nb, Math.floor(random() * (nc + 1)), nc];
      });
      expect(stratifiedExact(tasks(rows)).p, JSON.stringify(rows)).toBeCloseTo(bruteForceP(rows), 10);
    }
  });

  it('the per-task null distribution is hypergeometric', () => {
    // 5 passes pooled over 3 baseline + 3 current trials: current passes 2 or 3, each with C(5,2)C(1,1)/C(6,3) = 1/2.
    const h = hypergeometric(5, 3, 3);
    expect(h.min).toBe(2);
    expect(h.pmf[0]).toBeCloseTo(0.5, 12);
    expect(h.pmf[1]).toBeCloseTo(0.5, 12);
  });

  it('is exact McNemar with one trial on each side', () => {
    const random = rng(7);
    for (let c = 0; c < 30; c++) {
      const rows: Row[] = Array.from({ length: 5 + Math.floor(random() * 30) }, () => [random() < 0.7 ? 1 : 0, 1, random() < 0.6 ? 1 : 0, 1]);
      const improved = rows.filter((r) => r[2] > r[0]).length;
      const regressed = rows.filter((r) => r[2] < r[0]).length;
      const sig = pairedSignificance(tasks(rows));
      expect(sig.method).toBe('exact_mcnemar');
      expect(sig.p_value).toBeCloseTo(exactMcNemarP(improved, regressed), 8);
    }
  });
});

describe('exact McNemar reference values', () => {
  it('match the binomial sums', () => {
    expect(exactMcNemarP(1, 9)).toBeCloseTo(22 / 1024, 9);
    expect(exactMcNemarP(0, 5)).toBeCloseTo(2 / 32, 9);
    expect(exactMcNemarP(3, 3)).toBe(1);
    expect(exactMcNemarP(0, 0)).toBe(1);
    expect(exactMcNemarP(2, 12)).toBeCloseTo((2 * 106) / 16384, 9);
  });
});

describe('the verdict on every shape of data', () => {
  it('two tasks going 3/3 → 2/3 are inconclusive, with p > 0 and an interval of real width', () => {
    const sig = pairedSignificance(tasks([[3, 3, 2, 3], [3, 3, 2, 3]]));
    expect(sig).toMatchObject({ method: 'stratified_exact', verdict: 'inconclusive', p_value: 0.5, informative_pairs: 2 });
    expect(sig.ci_high - sig.ci_low).toBeGreaterThan(0.5);
    expect(sig.min_attainable_p).toBeCloseTo(0.5, 12);
    expect(sig.weak?.join(' ')).toMatch(/only 2 paired task/);
    expect(sig.weak?.join(' ')).toMatch(/could reach p < 0.05/);
    expect(sig.why).toMatch(/exact stratified permutation/);
    expect(sig.minimum_detectable_effect).toBeGreaterThan(0.01);
  });

  it('never gives p = 0, and a handful of identical tasks that all pass is p = 1', () => {
    const sig = pairedSignificance(tasks([[3, 3, 3, 3], [3, 3, 3, 3], [3, 3, 3, 3]]));
    expect(sig).toMatchObject({ verdict: 'inconclusive', p_value: 1, informative_pairs: 0 });
    expect(sig.ci_low).toBeLessThan(0);
    expect(sig.ci_high).toBeGreaterThan(0);
    expect(sig.minimum_detectable_effect).toBeGreaterThan(1e-3);
  });

  it('weighs a task by its judged trials on both sides', () => {
    expect(taskWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 0, judged: 1 } })).toBeCloseTo(0.75, 12);
    expect(taskWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 1, judged: 3 } })).toBeCloseTo(1.5, 12);
    // One task judged once (two trials errored) and one judged three times: (0.75·−1 + 1.5·−1/3) / 2.25.
    const change = weightedChange(tasks([[3, 3, 0, 1], [3, 3, 2, 3]]), 0.95, 0.05);
    expect(change.delta).toBeCloseTo(-1.25 / 2.25, 12);
  });

  it('pins the interval against an independent computation (python3, t quantiles from tables)', () => {
    const mixed = pairedSignificance(tasks([[3, 3, 0, 1], [3, 3, 2, 3], [2, 3, 1, 2], [1, 2, 0, 3]]));
    expect(mixed.delta).toBeCloseTo(-0.4408602150537634, 10);
    expect(mixed.ci_low).toBeCloseTo(-0.9413911208332161, 8);
    expect(mixed.ci_high).toBeCloseTo(0.05967069072568931, 8);
    expect(mixed.p_value).toBeCloseTo(1 / 8, 12);
    const unequal = pairedSignificance(tasks([[1, 1, 2, 3], [1, 1, 3, 3], [0, 1, 1, 3], [1, 1, 3, 3], [1, 1, 1, 3], [0, 1, 0, 3], [1, 1, 2, 3]]));
    expect(unequal.delta).toBeCloseTo(-0.14285714285714285, 10);
    expect(unequal.ci_low).toBeCloseTo(-0.45678326533551544, 8);
    expect(unequal.ci_high).toBeCloseTo(0.17106897962122974, 8);
    expect(unequal.weak?.join(' ')).toMatch(/7 task\(s\) have different judged trial counts on the two sides \(baseline 1, current 3\)/);
  });

  it('says when many trials errored', () => {
    const sig = pairedSignificance(
      Array.from({ length: 20 }, (_, i) => ({ baseline: { passed: 3, judged: 3 }, current: { passed: i % 2, judged: 1 }, errored: { baseline: 0, current: 2 } })),
    );
    expect(sig.weak?.join(' ')).toMatch(/40 of 60 current trials of the paired tasks errored/);
    expect(sig.trials).toEqual({ baseline_judged: 60, current_judged: 20, baseline_errored: 0, current_errored: 40 });
  });

  it('A/A with a 1-epoch baseline and a 3-epoch current run flags at most 5% either way', () => {
    const random = rng(2024);
    const runs = 400;
    let regressed = 0;
    let improved = 0;
    for (let r = 0; r < runs; r++) {
      const rows: Row[] = Array.from({ length: 100 }, () => {
        const p = 0.85 + random() * 0.1;
        let xc = 0;
        for (let k = 0; k < 3; k++) if (random() < p) xc++;
        return [random() < p ? 1 : 0, 1, xc, 3];
      });
      const forward = pairedSignificance(tasks(rows)).verdict;
      const reverse = pairedSignificance(tasks(rows.map(([a, b, c, d]): Row => [c, d, a, b]))).verdict;
      if (forward === 'regressed') regressed++;
      if (reverse === 'improved') improved++;
      if (forward === 'improved') improved++;
      if (reverse === 'regressed') regressed++;
    }
    // Old behaviour: 44% "regressed" one way and 50% "improved" the other.
    expect(regressed / (2 * runs)).toBeLessThanOrEqual(0.05);
    expect(improved / (2 * runs)).toBeLessThanOrEqual(0.05);
  });

  it('finds a real drop with several epochs and puts the interval below zero', () => {
    const rows: Row[] = Array.from({ length: 30 }, (_, i) => [3, 3, i % 3 === 0 ? 1 : 3, 3]);
    const sig = pairedSignificance(tasks(rows));
    expect(sig.verdict).toBe('regressed');
    expect(sig.ci_high).toBeLessThan(0);
    expect(sig.delta).toBeCloseTo(-2 / 9, 12);
  });
});
