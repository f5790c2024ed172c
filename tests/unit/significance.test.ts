import { describe, expect, it } from 'vitest';
import { estimateWeight, exactMcNemarP, informationWeight, pairedSignificance, taskWeight, type PairedTask } from '../../src/statistics/significance.js';
import { hypergeometric, stratifiedExact } from '../../src/statistics/stratifiedExact.js';
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

  it('weighs a task by its judged trials on both sides and by its pooled pass rate (label-blind)', () => {
    expect(taskWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 0, judged: 1 } })).toBeCloseTo(0.75, 12);
    expect(taskWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 1, judged: 3 } })).toBeCloseTo(1.5, 12);
    // p̃ = (s + ½)/(N + 1): 3.5/5 = 0.7 → 3·0.21^(−1/4) = 4.43 → 4; 5.5/7 → 3·0.168^(−1/4) = 4.68 → 5.
    expect(informationWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 0, judged: 1 } })).toBe(4);
    expect(informationWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 2, judged: 3 } })).toBe(5);
    // A task whose trials all agree weighs as if one had gone the other way, so its weight in the
    // estimate does not grow with showing no failure (which biased the drop towards 0, bench:gate coverage).
    expect(informationWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 3, judged: 3 } })).toBe(5);
    expect(informationWeight({ baseline: { passed: 0, judged: 10 }, current: { passed: 0, judged: 3 } })).toBe(informationWeight({ baseline: { passed: 1, judged: 10 }, current: { passed: 0, judged: 3 } }));
    // Which side a pass came from never changes the weight.
    expect(informationWeight({ baseline: { passed: 1, judged: 3 }, current: { passed: 3, judged: 3 } })).toBe(informationWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 1, judged: 3 } }));
    // The estimate: (4·0.75·(−1) + 5·1.5·(−1/3)) / (4·0.75 + 5·1.5).
    const sig = pairedSignificance(tasks([[3, 3, 0, 1], [3, 3, 2, 3]]));
    expect(sig.delta).toBeCloseTo(-5.5 / 10.5, 12);
    expect(estimateWeight({ baseline: { passed: 3, judged: 3 }, current: { passed: 2, judged: 3 } })).toBeCloseTo(7.5, 12);
  });

  it('pins the interval: every shift the exact test would not reject (hand-computed)', () => {
    // Ten tasks 3/3 → 0/1: each task's current pass is Bernoulli(3/4) under no change, so T ~ Bin(10, 3/4).
    // P(T ≤ 4) = 0.0197 < 2.5% ≤ P(T ≤ 5) = 0.0781 and P(T ≥ 10) = 0.0563: acceptance region [5, 10].
    // With weights 0.75 a task, Δ = (0 − 7.5)/7.5 = −1 and the interval is [(0 − 10)/7.5, (0 − 5)/7.5].
    const sig = pairedSignificance(tasks(Array.from({ length: 10 }, (): Row => [3, 3, 0, 1])));
    expect(sig.delta).toBeCloseTo(-1, 12);
    expect(sig.ci_low).toBe(-1);
    expect(sig.ci_high).toBeCloseTo(-2 / 3, 12);
    expect(sig.verdict).toBe('regressed');
    expect(sig.p_value).toBeCloseTo(2 / 4 ** 10, 15);
  });

  it('the interval printed with a verdict excludes 0 exactly when the verdict is not inconclusive', () => {
    // Old: 6 of 100 always-pass tasks going 3/3 → 2/3 said "regressed" beside [−7.1, +3.1].
    const six = pairedSignificance(tasks(Array.from({ length: 100 }, (_, i): Row => [3, 3, i < 6 ? 2 : 3, 3])));
    expect(six.verdict === 'inconclusive').toBe(six.ci_low <= 0 && 0 <= six.ci_high);
    const random = rng(1919);
    let disagreements = 0;
    let verdicts = 0;
    for (let c = 0; c < 400; c++) {
      const nb = 1 + Math.floor(random() * 5);
      const nc = 1 + Math.floor(random() * 5);
      const drop = random() * 0.3;
      const rows: Row[] = Array.from({ length: 5 + Math.floor(random() * 60) }, () => {
        const p = random() < 0.4 ? 1 : random();
        let xb = 0;
        let xc = 0;
        for (let k = 0; k < nb; k++) if (random() < p) xb++;
        for (let k = 0; k < nc; k++) if (random() < Math.max(0, p - drop)) xc++;
        return [xb, nb, xc, nc];
      });
      const sig = pairedSignificance(tasks(rows));
      if (sig.verdict !== 'inconclusive') verdicts++;
      if ((sig.verdict === 'inconclusive') !== (sig.ci_low <= 0 && 0 <= sig.ci_high)) disagreements++;
      if (sig.verdict === 'regressed' && !(sig.delta < 0)) disagreements++;
    }
    expect(verdicts).toBeGreaterThan(50);
    expect(disagreements).toBe(0);
  });

  it('never says p = 0: 250 tasks PPP → FFF give the bound "< 1e-300"', () => {
    const sig = pairedSignificance(tasks(Array.from({ length: 250 }, (): Row => [3, 3, 0, 3])));
    expect(sig.p_value).toBeGreaterThan(0);
    expect(sig.p_value).toBe(1e-300);
    expect(sig.p_value_bound).toBe(true);
    expect(sig.explanation).toMatch(/p < 1e-300/);
    expect(sig.verdict).toBe('regressed');
    expect(exactMcNemarP(0, 2000)).toBeGreaterThan(0);
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
    // Weighted as the test weighs: the ten 3/3 → 1/3 tasks (pooled 4/6) weigh 4; the twenty that
    // stayed 3/3 weigh as a task with one failure would (5/6: 5), not more for showing none.
    expect(sig.delta).toBeCloseTo((10 * 4 * (-2 / 3)) / (10 * 4 + 20 * 5), 12);
  });
});
