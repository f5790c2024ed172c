import jstat from 'jstat';

const { jStat } = jstat;

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

export interface ExactResult {
  /** Current passes summed over the informative tasks, and its null mean and variance. */
  observed: number;
  expected: number;
  variance: number;
  /** P(S <= observed) and P(S >= observed) under no change. */
  lower: number;
  upper: number;
  /** Two-sided p-value: twice the smaller tail, at most 1. */
  p: number;
  /** The smallest two-sided p-value any outcome with these margins could give. */
  minAttainableP: number;
  /** Tasks whose pooled trials are all passes or all failures carry no information and are left out. */
  informative: number;
  method: 'exact' | 'normal';
}

/** The test statistic standardised under no change: (current passes − expected) / null sd; 0 when nothing varies. */
export function conditionalZ(tasks: TaskCounts[]): number {
  let diff = 0;
  let variance = 0;
  for (const t of tasks) {
    const n = t.baseline.judged + t.current.judged;
    const s = t.baseline.passed + t.current.passed;
    if (t.baseline.judged === 0 || t.current.judged === 0 || s === 0 || s === n) continue;
    diff += t.current.passed - (t.current.judged * s) / n;
    variance += (t.baseline.judged * t.current.judged * s * (n - s)) / (n * n * (n - 1));
  }
  return variance > 0 ? diff / Math.sqrt(variance) : 0;
}

/**
 * Exact stratified permutation test (the exact conditional test of Mantel–Haenszel / Birch): within
 * each task the judged trials are pooled and relabelled; the statistic is the total of current
 * passes, whose null distribution is the convolution of one hypergeometric per task. Valid for any
 * number of tasks and any trial counts on either side; with one trial each side it is exact McNemar.
 */
export function stratifiedExact(tasks: TaskCounts[]): ExactResult {
  const strata = tasks
    .map((t) => ({ s: t.baseline.passed + t.current.passed, nb: t.baseline.judged, nc: t.current.judged, x: t.current.passed }))
    .filter((t) => t.nb > 0 && t.nc > 0 && t.s > 0 && t.s < t.nb + t.nc);
  let observed = 0;
  let expected = 0;
  let variance = 0;
  let support = 0;
  for (const t of strata) {
    const n = t.nb + t.nc;
    observed += t.x;
    expected += (t.nc * t.s) / n;
    variance += (t.nb * t.nc * t.s * (n - t.s)) / (n * n * (n - 1));
    support += Math.min(t.nc, t.s) - Math.max(0, t.s - t.nb);
  }
  if (strata.length === 0) {
    return { observed, expected, variance, lower: 1, upper: 1, p: 1, minAttainableP: 1, informative: 0, method: 'exact' };
  }
  if (support > EXACT_SUPPORT_LIMIT) {
    // Very large suites: the normal approximation with a continuity correction is accurate here.
    const sd = Math.sqrt(variance);
    const lower = jStat.normal.cdf((observed - expected + 0.5) / sd, 0, 1);
    const upper = 1 - jStat.normal.cdf((observed - expected - 0.5) / sd, 0, 1);
    return { observed, expected, variance, lower, upper, p: Math.min(1, 2 * Math.min(lower, upper)), minAttainableP: 0, informative: strata.length, method: 'normal' };
  }

  // Convolution of the per-task hypergeometric distributions, offset by the sum of their minima.
  let offset = 0;
  let dist = [1];
  for (const t of strata) {
    const h = hypergeometric(t.s, t.nb, t.nc);
    const next = new Array<number>(dist.length + h.pmf.length - 1).fill(0);
    for (let i = 0; i < dist.length; i++) {
      const di = dist[i]!;
      if (di === 0) continue;
      for (let j = 0; j < h.pmf.length; j++) next[i + j]! += di * h.pmf[j]!;
    }
    dist = next;
    offset += h.min;
  }
  const k = observed - offset;
  let lower = 0;
  let upper = 0;
  for (let i = 0; i < dist.length; i++) {
    if (i <= k) lower += dist[i]!;
    if (i >= k) upper += dist[i]!;
  }
  lower = Math.min(1, lower);
  upper = Math.min(1, upper);
  const minAttainableP = Math.min(1, 2 * Math.min(dist[0]!, dist[dist.length - 1]!));
  return { observed, expected, variance, lower, upper, p: Math.min(1, 2 * Math.min(lower, upper)), minAttainableP, informative: strata.length, method: 'exact' };
}
