/** Simulated `compare --epochs auto` runs (both sides staged), driven by the same planner the CLI uses. */
import { planPairedStage, type PairedSettings, type PairedTaskTrials } from '../src/statistics/pairedAdaptivePlan.js';
import { taskWeight } from '../src/statistics/significance.js';
import { rng } from './seededRandom.js';
import { applyDrop, type DropShape } from './dropShapes.js';

export type Mixture = (tasks: number, random: () => number) => number[];

function run(settings: PairedSettings, pa: number[], pb: number[], random: () => number) {
  const tasks: PairedTaskTrials[] = pa.map((_, i) => ({ id: `t${i}`, a: { passed: 0, judged: 0, errored: 0 }, b: { passed: 0, judged: 0, errored: 0 }, flips: { aOnly: 0, bOnly: 0, pairs: 0 } }));
  const once = (i: number) => {
    const t = tasks[i]!;
    const a = random() < pa[i]!;
    const b = random() < pb[i]!;
    t.a.judged++;
    t.b.judged++;
    if (a) t.a.passed++;
    if (b) t.b.passed++;
    t.flips.pairs++;
    if (a && !b) t.flips.aOnly++;
    if (b && !a) t.flips.bOnly++;
  };
  tasks.forEach((_, i) => once(i));
  let spent = 2 * tasks.length;
  const fractions: number[] = [];
  for (let stage = 1; ; stage++) {
    const decision = planPairedStage(tasks, stage, spent, settings, fractions);
    fractions.push(decision.look.fraction);
    if (decision.done) {
      // Coverage of the true change weighted as the estimate weights the tasks (its level is the look's).
      const weights = tasks.map((t) => taskWeight({ baseline: t.a, current: t.b }));
      const total = weights.reduce((s, w) => s + w, 0);
      const truth = pa.reduce((s, p, i) => s + weights[i]! * (pb[i]! - p), 0) / total;
      return { decision, calls: spent, truth, stages: stage };
    }
    for (const id of decision.rerun) once(Number(id.slice(1)));
    spent += 2 * decision.rerun.length;
  }
}

export interface PairedSimResult {
  falseAlarm: number;
  anyVerdict: number;
  power: number;
  /** Mean model calls per task per side (3 = three full epochs). */
  callsNull: number;
  callsDrop: number;
  coverageNull: number;
  coverageDrop: number;
}

/**
 * `runs` A/A and `runs` A/B comparisons; in A/B the tasks' probabilities fall by `drop` on the mean,
 * in the given shape (bench/dropShapes.ts).
 */
export function simulatePairedAdaptive(settings: PairedSettings, mixture: Mixture, tasks: number, runs: number, seed: number, drop = 0.05, shape: DropShape = 'additive'): PairedSimResult {
  const random = rng(seed);
  const r = { falseAlarm: 0, anyVerdict: 0, power: 0, callsNull: 0, callsDrop: 0, coverageNull: 0, coverageDrop: 0 };
  for (let k = 0; k < runs; k++) {
    const base = mixture(tasks, random);
    const aa = run(settings, base, base, random);
    if (aa.decision.look.verdict === 'regressed') r.falseAlarm++;
    if (aa.decision.look.verdict !== 'inconclusive') r.anyVerdict++;
    r.callsNull += aa.calls;
    const cur = applyDrop(base, drop, shape);
    const ab = run(settings, base, cur, random);
    if (ab.decision.look.verdict === 'regressed') r.power++;
    r.callsDrop += ab.calls;
    if (aa.decision.look.ciLow <= aa.truth + 1e-12 && aa.truth - 1e-12 <= aa.decision.look.ciHigh) r.coverageNull++;
    if (ab.decision.look.ciLow <= ab.truth + 1e-12 && ab.truth - 1e-12 <= ab.decision.look.ciHigh) r.coverageDrop++;
  }
  const perSide = 2 * tasks * runs;
  return {
    falseAlarm: r.falseAlarm / runs,
    anyVerdict: r.anyVerdict / runs,
    power: r.power / runs,
    callsNull: r.callsNull / perSide,
    callsDrop: r.callsDrop / perSide,
    coverageNull: r.coverageNull / runs,
    coverageDrop: r.coverageDrop / runs,
  };
}

/**
 * What no allocation rule can beat: for each simulated suite, trials are given (one pair at a time,
 * each task at least one pair, at most `maxEpochs`) to whichever task raises the expected Z of the
 * paired statistic most, knowing every task's TRUE pass probability on both sides; power is the
 * fixed-sample normal power at two-sided alpha. A ceiling for any rule that must learn from data.
 */
export function oracleCeiling(mixture: Mixture, tasks: number, epochs: number, maxEpochs: number, runs: number, seed: number, drop = 0.05, shape: DropShape = 'additive', alpha = 0.05): number {
  const random = rng(seed);
  const Phi = (x: number) => 0.5 * (1 + erf(x / Math.SQRT2));
  const z = zQuantile(1 - alpha / 2);
  let power = 0;
  for (let r = 0; r < runs; r++) {
    const pa = mixture(tasks, random);
    const pb = applyDrop(pa, drop, shape);
    const d = pa.map((p, i) => p - pb[i]!);
    const v = pa.map((p, i) => p * (1 - pb[i]!) + pb[i]! * (1 - p) - d[i]! ** 2);
    const n = pa.map(() => 1);
    let N = d.reduce((s, x) => s + x, 0);
    let V = v.reduce((s, x) => s + x, 0);
    for (let left = tasks * (epochs - 1); left > 0; left--) {
      let best = -1;
      let bestZ = N / Math.sqrt(V);
      for (let i = 0; i < tasks; i++) {
        if (n[i]! >= maxEpochs) continue;
        const zi = (N + d[i]!) / Math.sqrt(V + v[i]!);
        if (zi > bestZ) [best, bestZ] = [i, zi];
      }
      if (best < 0) break;
      n[best]!++;
      N += d[best]!;
      V += v[best]!;
    }
    power += Phi(N / Math.sqrt(V) - z);
  }
  return power / runs;
}

/**
 * The valid-test limit of a design with a fixed baseline: `nb` baseline trials a task, and current
 * trials either `nc` each or, with `budget`, as many as `budget` in all (1 to `maxEpochs` a task)
 * placed where they add most. The test knows every task's TRUE pass probability on both sides and
 * weighs task i by d_i / v_i (d its drop, v the variance of its pass-fraction difference), the most
 * powerful weighted test there is; its power is Φ(√(Σ d_i² / v_i) − z_{1−α/2}) (normal). No test
 * that must estimate the weights from the data can beat it, so a target above it is out of reach.
 */
export function oracleLimit(pa: number[], pb: number[], nb: number, current: { nc: number } | { budget: number; maxEpochs: number }, alpha = 0.05): number {
  const d = pa.map((p, i) => p - pb[i]!);
  const info = (i: number, n: number) => {
    const v = (pa[i]! * (1 - pa[i]!)) / nb + (pb[i]! * (1 - pb[i]!)) / n;
    return v > 0 ? d[i]! ** 2 / v : 0;
  };
  const n = pa.map(() => ('nc' in current ? current.nc : 1));
  if (!('nc' in current)) {
    // Σ info is concave in each n_i: giving each next trial to the largest gain is optimal.
    for (let left = current.budget - pa.length; left > 0; left--) {
      let best = -1;
      let gain = 0;
      for (let i = 0; i < pa.length; i++) {
        if (n[i]! >= current.maxEpochs) continue;
        const g = info(i, n[i]! + 1) - info(i, n[i]!);
        if (g > gain) [best, gain] = [i, g];
      }
      if (best < 0) break;
      n[best]!++;
    }
  }
  const total = n.reduce((s, ni, i) => s + info(i, ni), 0);
  return 0.5 * (1 + erf((Math.sqrt(total) - zQuantile(1 - alpha / 2)) / Math.SQRT2));
}

function erf(x: number): number {
  // Abramowitz & Stegun 7.1.26 (error below 1.5e-7): enough for a power ceiling.
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return x >= 0 ? y : -y;
}

function zQuantile(p: number): number {
  let lo = -10;
  let hi = 10;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (0.5 * (1 + erf(mid / Math.SQRT2)) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
