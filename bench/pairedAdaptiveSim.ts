/** Simulated `compare --epochs auto` runs (both sides staged), driven by the same planner the CLI uses. */
import { planPairedStage, type PairedSettings, type PairedTaskTrials } from '../src/baseline/pairedAdaptivePlan.js';
import { taskWeight } from '../src/baseline/significance.js';
import { rng } from './seededRandom.js';

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
 * `runs` A/A and `runs` A/B comparisons; in A/B every task's probability is scaled so that the mean
 * falls by `drop` (or, with `where`, only tasks the predicate picks are scaled, by the same total drop).
 */
export function simulatePairedAdaptive(settings: PairedSettings, mixture: Mixture, tasks: number, runs: number, seed: number, drop = 0.05, shift: 'scaled' | 'logit' = 'scaled'): PairedSimResult {
  const random = rng(seed);
  const r = { falseAlarm: 0, anyVerdict: 0, power: 0, callsNull: 0, callsDrop: 0, coverageNull: 0, coverageDrop: 0 };
  for (let k = 0; k < runs; k++) {
    const base = mixture(tasks, random);
    const aa = run(settings, base, base, random);
    if (aa.decision.look.verdict === 'regressed') r.falseAlarm++;
    if (aa.decision.look.verdict !== 'inconclusive') r.anyVerdict++;
    r.callsNull += aa.calls;
    const cur = shift === 'scaled' ? scaled(base, drop) : logitShifted(base, drop);
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

function scaled(base: number[], drop: number): number[] {
  const mean = base.reduce((a, b) => a + b, 0) / base.length;
  const factor = Math.max(0, 1 - drop / mean);
  return base.map((p) => p * factor);
}

/** The same mean drop as a shift on the logit scale: middling tasks move most, near-certain ones least. */
function logitShifted(base: number[], drop: number): number[] {
  const mean = base.reduce((a, b) => a + b, 0) / base.length;
  const at = (s: number) => base.map((p) => {
    const q = Math.min(Math.max(p, 1e-6), 1 - 1e-6);
    return 1 / (1 + Math.exp(-(Math.log(q / (1 - q)) - s)));
  });
  let lo = 0;
  let hi = 5;
  for (let i = 0; i < 50; i++) {
    const mid = (lo + hi) / 2;
    const m = at(mid).reduce((a, b) => a + b, 0) / base.length;
    if (mean - m < drop) lo = mid;
    else hi = mid;
  }
  return at((lo + hi) / 2);
}

/**
 * What no allocation rule can beat: for each simulated suite, trials are given (one pair at a time,
 * each task at least one pair, at most `maxEpochs`) to whichever task raises the expected Z of the
 * paired statistic most, knowing every task's TRUE pass probability on both sides; power is the
 * fixed-sample normal power at two-sided alpha. A ceiling for any rule that must learn from data.
 */
export function oracleCeiling(mixture: Mixture, tasks: number, epochs: number, maxEpochs: number, runs: number, seed: number, drop = 0.05, alpha = 0.05): number {
  const random = rng(seed);
  const Phi = (x: number) => 0.5 * (1 + erf(x / Math.SQRT2));
  const z = zQuantile(1 - alpha / 2);
  let power = 0;
  for (let r = 0; r < runs; r++) {
    const pa = mixture(tasks, random);
    const pb = scaled(pa, drop);
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
