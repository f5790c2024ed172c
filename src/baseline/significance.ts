import jstat from 'jstat';
import type { Significance } from '../schema/diff.js';
import { stratifiedExact, type TaskCounts } from './stratifiedExact.js';

export type { TaskCounts } from './stratifiedExact.js';

const { jStat } = jstat;
const POWER = 0.8;
/** Below this many paired tasks a comparison is called weak whatever its p-value. */
const FEW_PAIRS = 10;
/** Above this share of errored trials on either side a comparison is called weak. */
const MANY_ERRORS = 0.1;

/** One paired task: its judged trials on each side, and how many trials errored (not judged). */
export interface PairedTask extends TaskCounts {
  errored?: { baseline: number; current: number };
}

function zQuantile(p: number): number {
  return jStat.normal.inv(p, 0, 1);
}

/** Two-sided exact McNemar test: the flips are Binomial(b + c, 1/2) under no change. */
export function exactMcNemarP(improved: number, regressed: number): number {
  const discordant = improved + regressed;
  if (discordant === 0) return 1;
  return Math.min(1, 2 * jStat.binomial.cdf(Math.min(improved, regressed), discordant, 0.5));
}

/**
 * A task's weight: the inverse of the variance factor 1/n_b + 1/n_c of its pass-fraction
 * difference. Equal trial counts give equal weights; a task judged once weighs less than one
 * judged three times. With these weights the weighted change is exactly the exact test's statistic.
 */
export function taskWeight(t: TaskCounts): number {
  const nb = t.baseline.judged;
  const nc = t.current.judged;
  return nb > 0 && nc > 0 ? (nb * nc) / (nb + nc) : 0;
}

const fraction = (side: { passed: number; judged: number }) => side.passed / side.judged;
/** Agresti–Caffo: one pass and one failure added to a side before estimating its variance (never zero). */
const adjustedVariance = (side: { passed: number; judged: number }) => {
  const p = (side.passed + 1) / (side.judged + 2);
  return (p * (1 - p)) / (side.judged + 2);
};

/**
 * Weighted mean change in pass fraction, its interval and the minimum detectable effect. The
 * interval is Wald on the weighted mean with a Student t quantile on pairs − 1 degrees of freedom;
 * its spread is the larger of the observed (sandwich) spread and an Agresti–Caffo trial-level floor.
 */
export function weightedChange(tasks: TaskCounts[], confidence: number, alpha: number) {
  const weights = tasks.map(taskWeight);
  const total = weights.reduce((s, w) => s + w, 0);
  if (total === 0) return { delta: 0, low: -1, high: 1, mde: null };
  const delta = tasks.reduce((s, t, i) => s + weights[i]! * (fraction(t.current) - fraction(t.baseline)), 0) / total;
  // The larger of two spreads: the observed spread of per-task changes (robust to tasks changing
  // differently) and the trial-level floor (keeps the interval honest when nothing varied).
  const k = tasks.length;
  const observed = k < 2 ? 0 : (k / (k - 1)) * tasks.reduce((s, t, i) => s + weights[i]! ** 2 * (fraction(t.current) - fraction(t.baseline) - delta) ** 2, 0) / total ** 2;
  const floor = tasks.reduce((s, t, i) => s + weights[i]! ** 2 * (adjustedVariance(t.baseline) + adjustedVariance(t.current)), 0) / total ** 2;
  const variance = Math.max(observed, floor);
  const df = Math.max(1, tasks.length - 1);
  const q = jStat.studentt.inv(1 - (1 - confidence) / 2, df);
  const se = Math.sqrt(variance);
  // Planning spread for the MDE: both sides at the pooled (adjusted) pass rate of each task.
  const nullVariance = tasks.reduce((s, t, i) => {
    const pooled = (t.baseline.passed + t.current.passed + 1) / (t.baseline.judged + t.current.judged + 2);
    return s + weights[i]! * pooled * (1 - pooled);
  }, 0) / total ** 2;
  const mde = Math.min(1, (zQuantile(1 - alpha / 2) + zQuantile(POWER)) * Math.sqrt(nullVariance));
  return { delta, low: Math.max(-1, delta - q * se), high: Math.min(1, delta + q * se), mde };
}

function weakReasons(tasks: PairedTask[], minAttainableP: number, informative: number, alpha: number): string[] {
  const weak: string[] = [];
  if (tasks.length < FEW_PAIRS) weak.push(`only ${tasks.length} paired task(s)`);
  if (minAttainableP >= alpha) {
    weak.push(`no outcome of these ${informative} informative task(s) could reach p < ${alpha} (smallest attainable p = ${minAttainableP.toPrecision(3)})`);
  }
  const unequal = tasks.filter((t) => t.baseline.judged !== t.current.judged).length;
  if (unequal > 0) {
    const range = (side: 'baseline' | 'current') => {
      const n = tasks.map((t) => t[side].judged);
      return Math.min(...n) === Math.max(...n) ? `${n[0]}` : `${Math.min(...n)}–${Math.max(...n)}`;
    };
    weak.push(`${unequal} task(s) have different judged trial counts on the two sides (baseline ${range('baseline')}, current ${range('current')}); the side with fewer trials limits what can be detected`);
  }
  for (const side of ['baseline', 'current'] as const) {
    const errored = tasks.reduce((s, t) => s + (t.errored?.[side] ?? 0), 0);
    const judged = tasks.reduce((s, t) => s + t[side].judged, 0);
    if (errored > 0 && errored / (errored + judged) > MANY_ERRORS) {
      weak.push(`${errored} of ${errored + judged} ${side} trials of the paired tasks errored and were not judged`);
    }
  }
  return weak;
}

/**
 * Compares two runs task by task, valid for any trial counts on either side. The test is the exact
 * stratified permutation test on judged trials (exact McNemar when every task has one judged trial
 * per side); the estimate is the weighted mean change in pass fraction. Two-sided at `alpha`.
 */
/**
 * Trials paired by epoch across all tasks, for runs whose both sides were staged by a label-blind
 * rule (`compare --epochs auto`): how many pairs only the baseline passed, and only the current.
 */
export interface TrialPairs {
  baselineOnly: number;
  currentOnly: number;
}

/**
 * With `flips`, the p-value is exact McNemar over the epoch-paired trials instead of the task-level
 * test: when which tasks got more trials depended on their pooled outcomes, relabelling is exact
 * only within a pair (a stage gives each side one trial), not across a task's stages.
 */
export function pairedSignificance(tasks: PairedTask[], alpha = 0.05, flips?: TrialPairs): Significance {
  const confidence = 1 - alpha;
  const usable = tasks.filter((t) => t.baseline.judged > 0 && t.current.judged > 0);
  const pairs = usable.length;
  const diffs = usable.map((t) => fraction(t.current) - fraction(t.baseline));
  const improved = diffs.filter((d) => d > 0).length;
  const regressed = diffs.filter((d) => d < 0).length;
  const exact = stratifiedExact(usable);
  const change = weightedChange(usable, confidence, alpha);
  const mcnemar = pairs > 0 && usable.every((t) => t.baseline.judged === 1 && t.current.judged === 1);
  const method: Significance['method'] = mcnemar || flips ? 'exact_mcnemar' : exact.method === 'normal' ? 'stratified_normal' : 'stratified_exact';
  const p = flips ? exactMcNemarP(flips.currentOnly, flips.baselineOnly) : exact.p;
  // The direction is the test's own: the sign of the pair flips (which equals the sign of Δ when each task has as many trials on both sides).
  const direction = flips ? flips.currentOnly - flips.baselineOnly : change.delta;
  const verdict: Significance['verdict'] = p >= alpha || direction === 0 ? 'inconclusive' : direction < 0 ? 'regressed' : 'improved';
  const why = flips
    ? `both sides were run in stages (compare --epochs auto) and more trials went to tasks by their pooled outcomes: exact McNemar over the ${flips.baselineOnly + flips.currentOnly} epoch-paired trials that disagreed, exact under that allocation`
    : mcnemar
    ? 'every paired task has one judged trial on each side: exact McNemar on the tasks that flipped'
    : exact.method === 'normal'
      ? 'too many trials for exact enumeration: normal approximation (continuity-corrected) of the stratified permutation test'
      : 'several or unequal judged trials per task: exact stratified permutation test (trials relabelled within each task, all relabellings enumerated)';
  const weak = weakReasons(usable, exact.minAttainableP, exact.informative, alpha);
  const interval = `${Number((confidence * 100).toFixed(1))}% CI`;
  return {
    method,
    pairs,
    regressed,
    improved,
    delta: change.delta,
    ci_low: change.low,
    ci_high: change.high,
    confidence,
    p_value: p,
    alpha,
    verdict,
    minimum_detectable_effect: pairs === 0 ? null : change.mde,
    explanation:
      `${regressed} task(s) fell and ${improved} rose of ${pairs} paired (${exact.informative} informative); ` +
      `weighted Δ ${(change.delta * 100).toFixed(1)} points, ${interval} [${(change.low * 100).toFixed(1)}, ${(change.high * 100).toFixed(1)}]; ` +
      `${method} p=${p.toPrecision(3)}; ${verdict}${weak.length ? ' (weak comparison)' : ''}`,
    why,
    informative_pairs: exact.informative,
    min_attainable_p: exact.minAttainableP,
    weak,
    trials: {
      baseline_judged: usable.reduce((s, t) => s + t.baseline.judged, 0),
      current_judged: usable.reduce((s, t) => s + t.current.judged, 0),
      baseline_errored: usable.reduce((s, t) => s + (t.errored?.baseline ?? 0), 0),
      current_errored: usable.reduce((s, t) => s + (t.errored?.current ?? 0), 0),
    },
    interval_method: 'weighted mean ± t(pairs − 1) × max(observed spread, Agresti–Caffo trial-level spread)',
  };
}
