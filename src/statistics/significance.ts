import { standardNormal } from './standardNormal.js';
import { DEFAULT_ALPHA } from '../schema/gate.js';
import type { Significance } from '../schema/diff.js';
import { describeDrop } from './dropFigure.js';
import { P_FLOOR, stratifiedExact, type TaskCounts } from './stratifiedExact.js';

export type { TaskCounts } from './stratifiedExact.js';

const POWER = 0.8;
/** Below this many paired tasks a comparison is called weak whatever its p-value. */
const FEW_PAIRS = 10;
/** Above this share of errored trials on either side a comparison is called weak. */
const MANY_ERRORS = 0.1;

/** One paired task: its judged trials on each side, and how many trials errored (not judged). */
export interface PairedTask extends TaskCounts {
  errored?: { baseline: number; current: number };
  /** Its trials paired by epoch, when both sides were staged (compare --epochs auto). */
  flips?: TrialPairs;
}

function zQuantile(p: number): number {
  return standardNormal.inv(p);
}

const logFactorials = [0];
function logChoose(n: number, k: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[n]! - logFactorials[k]! - logFactorials[n - k]!;
}

/** The Binomial(n, 1/2) distribution of "only the current side passed" among n discordant pairs, from log terms (no underflow of the terms themselves). */
function halfBinomial(n: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  for (let k = 0; k <= n; k++) pmf[k] = Math.exp(logChoose(n, k) - n * Math.LN2);
  return pmf;
}

/** Two-sided exact McNemar test: the flips are Binomial(b + c, 1/2) under no change; never below P_FLOOR. */
export function exactMcNemarP(improved: number, regressed: number): number {
  const discordant = improved + regressed;
  if (discordant === 0) return 1;
  const pmf = halfBinomial(discordant);
  let tail = 0;
  for (let k = 0; k <= Math.min(improved, regressed); k++) tail += pmf[k]!;
  return Math.max(P_FLOOR, Math.min(1, 2 * tail));
}

const fraction = (side: { passed: number; judged: number }) => side.passed / side.judged;

/**
 * A task's trial weight: the inverse of the variance factor 1/n_b + 1/n_c of its pass-fraction
 * difference. Equal trial counts give equal weights; a task judged once weighs less than one judged
 * three times.
 */
export function taskWeight(t: TaskCounts): number {
  const nb = t.baseline.judged;
  const nc = t.current.judged;
  return nb > 0 && nc > 0 ? (nb * nc) / (nb + nc) : 0;
}

/**
 * The test's integer weight of a task, from its pooled margins only (passes over judged trials on
 * both sides together — never which side a pass came from, so relabelling leaves it fixed and the
 * exact test stays exact): (p̃(1 − p̃))^(−1/4) on a grid of thirds, p̃ = (s + ½)/(N + 1).
 *
 * Why this power: a drop that is the same on the logit scale moves each task's pass count in
 * proportion to p(1 − p), for which equal weights are best; a drop that is the same in points is best
 * found with weights 1/(p(1 − p)). The fourth root sits between them: in bench:gate it keeps the
 * power of equal weights under a logit-shaped drop and gains under an additive one (docs/statistics.md).
 */
export function informationWeight(t: TaskCounts): number {
  const n = t.baseline.judged + t.current.judged;
  // A task whose trials all agree weighs as if one had gone the other way: it is left out of the
  // test, and weighing it more than a near-certain task that showed one failure would tie its
  // weight in the estimate to its outcome (and shrink the estimate of a drop).
  const s = Math.min(Math.max(t.baseline.passed + t.current.passed, 1), n - 1);
  const p = (s + 0.5) / (n + 1);
  return Math.round(3 * (p * (1 - p)) ** -0.25);
}

/** Each paired task's weight in the estimate: its trial weight times its information weight. */
export function estimateWeight(t: TaskCounts): number {
  return taskWeight(t) * informationWeight(t);
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
 * One task's trials paired by epoch, for runs whose both sides were staged by a label-blind rule
 * (`compare --epochs auto`): how many pairs only the baseline passed, only the current, and how
 * many pairs (both sides judged) there were in all.
 */
export interface TrialPairs {
  baselineOnly: number;
  currentOnly: number;
  pairs: number;
}

/** What a test hands the verdict: its estimate, and the interval it does not reject (in change-of-pass-rate units). */
interface TestOutcome {
  p: number;
  pBound: boolean;
  delta: number;
  low: number;
  high: number;
  /** Which tail rejected, or none. */
  verdict: Significance['verdict'];
}

/** The estimate and the interval of every shift the test would not reject, in units of the pass fraction (`scale` per unit of T). */
function shiftInterval(exact: ReturnType<typeof stratifiedExact>, scale: number): Pick<TestOutcome, 'delta' | 'low' | 'high'> {
  return {
    delta: (exact.observed - exact.expected) / scale,
    low: (exact.observed - exact.acceptHigh) / scale,
    high: (exact.observed - exact.acceptLow) / scale,
  };
}

/**
 * The weighted stratified test and its interval. The estimate is Δ = (T − E₀[T]) / Σ a_i w_i, the
 * change in pass fraction weighted as the test weighs the tasks (a_i its information weight, w_i its
 * trial weight); the interval is every shift of Δ the test would not reject, [(T − hi)/C, (T − lo)/C]
 * with [lo, hi] the test's acceptance region — so it excludes 0 exactly when the test rejects.
 */
function stratifiedOutcome(tasks: TaskCounts[], alpha: number): TestOutcome & { exact: ReturnType<typeof stratifiedExact> } {
  const a = tasks.map(informationWeight);
  const exact = stratifiedExact(tasks, alpha, a);
  const scale = tasks.reduce((s, t, i) => s + a[i]! * taskWeight(t), 0);
  const verdict = exact.observed < exact.acceptLow ? 'regressed' : exact.observed > exact.acceptHigh ? 'improved' : 'inconclusive';
  // Nothing varied: the test cannot reject any change, so its interval is every change.
  if (scale === 0 || exact.informative === 0) return { p: exact.p, pBound: exact.pBound, delta: 0, low: -1, high: 1, verdict, exact };
  return {
    p: exact.p,
    pBound: exact.pBound,
    ...shiftInterval(exact, scale),
    verdict,
    exact,
  };
}

/** A discordant pair as a stratum of one trial a side with one pass: under no change either label is equally likely. */
const CURRENT_ONLY: TaskCounts = { baseline: { passed: 0, judged: 1 }, current: { passed: 1, judged: 1 } };
const BASELINE_ONLY: TaskCounts = { baseline: { passed: 1, judged: 1 }, current: { passed: 0, judged: 1 } };

/**
 * Weighted exact McNemar over epoch-paired trials, and its interval. The statistic is T = Σ a_i ·
 * (pairs of task i only the current passed), a_i the task's information weight from its pooled
 * trials (which swapping the two labels of a pair leaves fixed, so the test stays exact); under no
 * change each discordant pair is a fair coin, so T's null is a convolution of scaled Bernoulli(½).
 * Δ = Σ a_i (only current − only baseline) / Σ a_i · pairs_i; the interval is every shift the test
 * would not reject. With equal weights it is exact McNemar.
 */
function flipsOutcome(tasks: PairedTask[], alpha: number): TestOutcome {
  const strata: TaskCounts[] = [];
  const weights: number[] = [];
  let pairs = 0;
  for (const t of tasks) {
    const f = t.flips ?? { baselineOnly: 0, currentOnly: 0, pairs: 0 };
    const a = informationWeight(t);
    for (let k = 0; k < f.currentOnly + f.baselineOnly; k++) {
      strata.push(k < f.currentOnly ? CURRENT_ONLY : BASELINE_ONLY);
      weights.push(a);
    }
    pairs += a * f.pairs;
  }
  const exact = stratifiedExact(strata, alpha, weights);
  const verdict = exact.informative === 0 ? 'inconclusive' : exact.observed < exact.acceptLow ? 'regressed' : exact.observed > exact.acceptHigh ? 'improved' : 'inconclusive';
  // T − E₀[T] = Σ a_i (only current − only baseline) / 2, so Δ is twice it over the weighted pairs.
  const scale = Math.max(1, pairs) / 2;
  if (exact.informative === 0) return { p: 1, pBound: false, delta: 0, low: -1, high: 1, verdict };
  return {
    p: exact.p,
    pBound: exact.pBound,
    ...shiftInterval(exact, scale),
    verdict,
  };
}

/**
 * Compares two runs task by task, valid for any trial counts on either side. The test is the exact
 * stratified permutation test on judged trials, tasks weighted by their pooled margins (exact McNemar
 * when every task has one judged trial per side); two-sided at `alpha`. The estimate and interval are
 * the test's own (see stratifiedOutcome), so the verdict and the interval cannot disagree.
 *
 * With `staged`, the test is weighted exact McNemar over each task's epoch-paired trials (its
 * `flips`) instead: when which tasks got more trials depended on their pooled outcomes, relabelling
 * is exact only within a pair (a stage gives each side one trial), not across a task's stages.
 */
export function pairedSignificance(tasks: PairedTask[], alpha = DEFAULT_ALPHA, staged = false): Significance {
  const confidence = 1 - alpha;
  const usable = tasks.filter((t) => t.baseline.judged > 0 && t.current.judged > 0);
  const pairs = usable.length;
  const diffs = usable.map((t) => fraction(t.current) - fraction(t.baseline));
  const improved = diffs.filter((d) => d > 0).length;
  const regressed = diffs.filter((d) => d < 0).length;
  const stratified = stratifiedOutcome(usable, alpha);
  const exact = stratified.exact;
  const outcome = staged ? flipsOutcome(usable, alpha) : stratified;
  const discordant = usable.reduce((n, t) => n + (t.flips ? t.flips.baselineOnly + t.flips.currentOnly : 0), 0);
  const mcnemar = pairs > 0 && usable.every((t) => t.baseline.judged === 1 && t.current.judged === 1);
  const method: Significance['method'] = mcnemar || staged ? 'exact_mcnemar' : exact.method === 'normal' ? 'stratified_normal' : 'stratified_exact';
  const { verdict } = outcome;
  const why = staged
    ? `both sides were run in stages (compare --epochs auto) and more trials went to tasks by their pooled outcomes: exact McNemar over the ${discordant} epoch-paired trials that disagreed (tasks weighted by their pooled pass rate), exact under that allocation`
    : mcnemar
    ? 'every paired task has one judged trial on each side: exact McNemar on the tasks that flipped'
    : exact.method === 'normal'
      ? 'too many trials for exact enumeration: normal approximation (continuity-corrected) of the weighted stratified permutation test'
      : 'several or unequal judged trials per task: exact stratified permutation test (trials relabelled within each task, all relabellings enumerated; tasks weighted by their pooled pass rate)';
  const weak = weakReasons(usable, exact.minAttainableP, exact.informative, alpha);
  const interval = `${Number((confidence * 100).toFixed(1))}% CI`;
  const sig: Significance = {
    method,
    pairs,
    regressed,
    improved,
    delta: outcome.delta,
    ci_low: Math.max(-1, outcome.low),
    ci_high: Math.min(1, outcome.high),
    confidence,
    p_value: outcome.p,
    ...(outcome.pBound ? { p_value_bound: true } : {}),
    alpha,
    verdict,
    minimum_detectable_effect: pairs === 0 ? null : minimumDetectableEffect(usable, alpha),
    explanation: '',
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
    interval_method: staged
      ? 'every change the weighted exact McNemar test over epoch-paired trials would not reject at alpha (its acceptance region, shifted)'
      : 'every change the weighted exact stratified test would not reject at alpha (its acceptance region, shifted): excludes 0 exactly when the verdict is not inconclusive',
  };
  sig.explanation =
    `${regressed} task(s) fell and ${improved} rose of ${pairs} paired (${exact.informative} informative); ` +
    `${describeDrop(sig)} (${interval} of the test); ${method}; ${verdict}${weak.length ? ' (weak comparison)' : ''}`;
  return sig;
}

/**
 * Minimum detectable effect: the change this many tasks and trials would detect with 80% power,
 * (z_{1−α/2} + z_{0.8}) · √(Σ a_i² w_i p̃_i(1 − p̃_i)) / Σ a_i w_i with the pooled pass rate p̃_i
 * (half a pass and half a failure added). Never 0.
 */
function minimumDetectableEffect(tasks: TaskCounts[], alpha: number): number {
  let spread = 0;
  let scale = 0;
  for (const t of tasks) {
    const a = informationWeight(t);
    const w = taskWeight(t);
    const pooled = (t.baseline.passed + t.current.passed + 0.5) / (t.baseline.judged + t.current.judged + 1);
    spread += a * a * w * pooled * (1 - pooled);
    scale += a * w;
  }
  return scale === 0 ? 1 : Math.min(1, ((zQuantile(1 - alpha / 2) + zQuantile(POWER)) * Math.sqrt(spread)) / scale);
}
