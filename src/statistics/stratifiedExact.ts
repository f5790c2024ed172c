import { standardNormal } from './standardNormal.js';
import { DEFAULT_ALPHA } from '../schema/gate.js';


/** One task's judged trials on each side. Errored trials are not counted at all. */
export interface TaskCounts {
  baseline: { passed: number; judged: number };
  current: { passed: number; judged: number };
}

/** Above this many points of support the exact convolution gives way to its normal approximation. */
const EXACT_SUPPORT_LIMIT = 20_000;

const logFactorials = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[n]!;
}

function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

/**
 * The null distribution of current passes in one task given its pooled passes: under "no change"
 * every split of the pooled trials into baseline and current is equally likely (hypergeometric).
 */
export function hypergeometric(pooledPassed: number, baselineN: number, currentN: number): { min: number; pmf: number[] } {
  const total = baselineN + currentN;
  const min = Math.max(0, pooledPassed - baselineN);
  const max = Math.min(currentN, pooledPassed);
  const denominator = logChoose(total, currentN);
  const pmf: number[] = [];
  for (let x = min; x <= max; x++) pmf.push(Math.exp(logChoose(pooledPassed, x) + logChoose(total - pooledPassed, currentN - x) - denominator));
  const sum = pmf.reduce((s, p) => s + p, 0);
  return { min, pmf: pmf.map((p) => p / sum) };
}

/** Below this a tail is reported as the bound "< 1e-300" rather than as a number a double cannot hold. */
export const P_FLOOR = 1e-300;

export interface ExactResult {
  /** The statistic T = Σ a_i · (current passes of task i) over the informative tasks, and its null mean and variance. */
  observed: number;
  expected: number;
  variance: number;
  /** P(T <= observed) and P(T >= observed) under no change. */
  lower: number;
  upper: number;
  /** Two-sided p-value: twice the smaller tail, at most 1, at least P_FLOOR. */
  p: number;
  /** True when the smaller tail underflowed and `p` is the bound P_FLOOR. */
  pBound: boolean;
  /** The smallest two-sided p-value any outcome with these margins could give. */
  minAttainableP: number;
  /** Tasks whose pooled trials are all passes or all failures carry no information and are left out. */
  informative: number;
  method: 'exact' | 'normal';
  /**
   * The acceptance region at the `alpha` asked for: the test does not reject exactly when
   * acceptLow <= observed <= acceptHigh (in units of T). The verdict's interval is built from it.
   */
  acceptLow: number;
  acceptHigh: number;
}

/** One informative task: pooled passes s of nb + nc judged trials, current passes x, integer weight a. */
interface Stratum {
  s: number;
  nb: number;
  nc: number;
  x: number;
  a: number;
}

function normalTail(z: number): number {
  return standardNormal.cdf(z);
}

/**
 * Exact stratified permutation test (the exact conditional test of Mantel–Haenszel / Birch): within
 * each task the judged trials are pooled and relabelled; the statistic is the total of current
 * passes, each task's weighted by the integer `weights[i]` (1 when none are given), whose null
 * distribution is the convolution of one scaled hypergeometric per task. Weights must be a function
 * of the task's pooled margins only (never of which side a pass came from), so they are fixed under
 * relabelling and the test stays exact. With equal weights and one trial each side it is exact McNemar.
 */
export function stratifiedExact(tasks: TaskCounts[], alpha = DEFAULT_ALPHA, weights?: number[]): ExactResult {
  const strata: Stratum[] = tasks
    .map((t, i) => ({ s: t.baseline.passed + t.current.passed, nb: t.baseline.judged, nc: t.current.judged, x: t.current.passed, a: weights?.[i] ?? 1 }))
    .filter((t) => t.nb > 0 && t.nc > 0 && t.s > 0 && t.s < t.nb + t.nc);
  let observed = 0;
  let expected = 0;
  let variance = 0;
  let support = 0;
  for (const t of strata) {
    const n = t.nb + t.nc;
    observed += t.a * t.x;
    expected += (t.a * t.nc * t.s) / n;
    variance += (t.a * t.a * t.nb * t.nc * t.s * (n - t.s)) / (n * n * (n - 1));
    support += t.a * (Math.min(t.nc, t.s) - Math.max(0, t.s - t.nb));
  }
  if (strata.length === 0) {
    return { observed, expected, variance, lower: 1, upper: 1, p: 1, pBound: false, minAttainableP: 1, informative: 0, method: 'exact', acceptLow: 0, acceptHigh: 0 };
  }
  if (support > EXACT_SUPPORT_LIMIT) {
    // Very large suites: the normal approximation with a continuity correction (half a lattice step) is accurate here.
    const sd = Math.sqrt(variance);
    const half = strata.reduce((g, t) => gcd(g, t.a), 0) / 2;
    const lower = normalTail((observed - expected + half) / sd);
    const upper = normalTail(-(observed - expected - half) / sd);
    const z = standardNormal.inv(1 - alpha / 2);
    return { observed, expected, variance, lower, upper, ...twoSided(lower, upper), minAttainableP: 0, informative: strata.length, method: 'normal', acceptLow: expected - z * sd - half, acceptHigh: expected + z * sd + half };
  }

  // Convolution of the per-task scaled hypergeometric distributions, offset by the sum of their minima.
  let offset = 0;
  let dist = new Float64Array(1).fill(1);
  for (const t of strata) {
    const h = hypergeometric(t.s, t.nb, t.nc);
    const next = new Float64Array(dist.length + t.a * (h.pmf.length - 1));
    for (let i = 0; i < dist.length; i++) {
      const di = dist[i]!;
      if (di === 0) continue;
      for (let j = 0; j < h.pmf.length; j++) next[i + t.a * j]! += di * h.pmf[j]!;
    }
    dist = next;
    offset += t.a * h.min;
  }
  // Each tail is summed from its own end, in the same order as the acceptance region below, so the
  // verdict read from the p-value and the one read from the region cannot differ by a rounding.
  const k = observed - offset;
  let lower = 0;
  for (let i = 0; i <= k; i++) lower += dist[i]!;
  let upper = 0;
  for (let i = dist.length - 1; i >= k; i--) upper += dist[i]!;
  // The acceptance region: the support points whose own tails are both at least alpha/2.
  let acceptLow = dist.length - 1;
  for (let i = 0, below = 0; i < dist.length; i++) {
    below += dist[i]!;
    if (dist[i]! > 0 && below >= alpha / 2) {
      acceptLow = i;
      break;
    }
  }
  let acceptHigh = 0;
  for (let i = dist.length - 1, above = 0; i >= 0; i--) {
    above += dist[i]!;
    if (dist[i]! > 0 && above >= alpha / 2) {
      acceptHigh = i;
      break;
    }
  }
  const minAttainableP = Math.max(P_FLOOR, Math.min(1, 2 * Math.min(dist[0]!, dist[dist.length - 1]!)));
  return {
    observed,
    expected,
    variance,
    lower: Math.min(1, lower),
    upper: Math.min(1, upper),
    ...twoSided(Math.min(1, lower), Math.min(1, upper)),
    minAttainableP,
    informative: strata.length,
    method: 'exact',
    acceptLow: acceptLow + offset,
    acceptHigh: acceptHigh + offset,
  };
}

/** Twice the smaller tail, at most 1; below P_FLOOR (a tail a double cannot hold) it is the bound, flagged. */
function twoSided(lower: number, upper: number): { p: number; pBound: boolean } {
  const p = Math.min(1, 2 * Math.min(lower, upper));
  return p < P_FLOOR ? { p: P_FLOOR, pBound: true } : { p, pBound: false };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
