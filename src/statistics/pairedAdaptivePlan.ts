import type { TaskResult } from '../schema/report.js';
import { nominalLevel, sequentialBoundaries } from './groupSequential.js';
import { pairedSignificance, type PairedTask } from './significance.js';

/**
 * `compare --epochs auto`: both variants are run in stages, A (the baseline) and B alike. After each
 * stage this pure planner looks at the trials so far and says which tasks get one more trial on
 * BOTH sides, or that the run stops. The runner (src/runner/pairedAdaptiveEpochs.ts) runs what it asks.
 *
 * Allocation rule (label-blind): a task gets more trials while it has fewer than `minEpochs` trials a
 * side, or while its pooled trials (A and B together) show both a pass and a failure, up to
 * `maxEpochs` a side. A task whose pooled trials all agree after `minEpochs` a side gets no more: the
 * stratified test draws no information from a task without variance. The rule looks only at the
 * pooled outcomes, never at which side a pass came from, so under "no change" it cannot favour
 * either side; the stratified test stays valid (checked by simulation in bench:gate).
 *
 * The test at each look is weighted exact McNemar over epoch-paired trials (each stage gives a task one trial
 * a side, so each pair's two labels are exchangeable whatever the rule did); a task-level relabelling
 * would not be exact here, because whether a task went on depended on its earlier pooled outcomes.
 *
 * Error control: group-sequential, Lan–DeMets O'Brien–Fleming-type alpha spending over the
 * information fraction (null variance of the statistic now / its projection at the end), each look
 * at the nominal level of its boundary; non-binding futility (B no worse than A in the pairs so far).
 */
export interface PairedSettings {
  /** Most trials a side of any task gets. */
  maxEpochs: number;
  /** Trials a side every task gets before "its trials all agree" stops it. */
  minEpochs: number;
  /** Most model calls for the whole run, both sides and stage 1 included; null: 2 × maxEpochs × tasks. */
  budget: number | null;
  alpha: number;
  futility?: boolean;
}

export interface SideTrials {
  passed: number;
  judged: number;
  errored: number;
}

export interface PairedTaskTrials {
  id: string;
  a: SideTrials;
  b: SideTrials;
  /** Epoch-paired trials (both judged): how many disagreed with only A passing, only B passing, and how many pairs in all. */
  flips: { aOnly: number; bOnly: number; pairs: number };
}

export const PAIRED_STOP_REASONS = {
  max_epochs: 'reached --max-epochs on both sides',
  no_variance: 'its trials on both sides all agree (all passed or all failed): the stratified test draws no information from it',
  verdict_settled: 'the verdict settled at an interim look',
  no_regression_sign: 'after a third of the information B looked no worse than A: stopped for futility',
  budget_spent: 'the budget of model calls (--budget or --budget-tokens) is spent',
  information_complete: 'the statistical information was all but complete: the last look spent what was left of alpha',
} as const;
export type PairedStopReason = keyof typeof PAIRED_STOP_REASONS;

export interface PairedDecision {
  look: {
    stage: number;
    fraction: number;
    boundary: number;
    p: number;
    level: number;
    verdict: 'regressed' | 'improved' | 'inconclusive';
    /** Weighted change B − A and its interval at the look's level (a repeated confidence interval). */
    delta: number;
    ciLow: number;
    ciHigh: number;
  };
  done: boolean;
  reason: string | null;
  /** Tasks to run once more on both sides in the next stage. */
  rerun: string[];
  stopped: Record<string, PairedStopReason>;
}

const FUTILITY_FROM = 1 / 3;
/** Information fractions are floored to this grid so that boundaries can be cached across runs. */
const FRACTION_STEP = 0.01;

const trials = (s: SideTrials) => s.judged + s.errored;

/** Why a task can get no more trials, or null when it can (label-blind: pooled outcomes only). */
export function taskStop(t: PairedTaskTrials, settings: Pick<PairedSettings, 'maxEpochs' | 'minEpochs'>): PairedStopReason | null {
  if (trials(t.a) >= settings.maxEpochs && trials(t.b) >= settings.maxEpochs) return 'max_epochs';
  const judged = t.a.judged + t.b.judged;
  const passed = t.a.passed + t.b.passed;
  const agree = passed === 0 || passed === judged;
  if (agree && Math.min(t.a.judged, t.b.judged) >= settings.minEpochs) return 'no_variance';
  return null;
}

/** Null variance of a task's share of the statistic at n_a, n_b judged trials (pooled rate, half a pass and a failure added). */
function share(t: PairedTaskTrials, na: number, nb: number): number {
  if (na === 0 || nb === 0) return 0;
  const p = (t.a.passed + t.b.passed + 0.5) / (t.a.judged + t.b.judged + 1);
  return ((na * nb) / (na + nb)) * p * (1 - p);
}

/**
 * Information fraction: null variance now over its projection once the calls left are spent on the
 * tasks that can still take trials (fewest first, up to maxEpochs). Tasks stopped for agreeing add nothing.
 */
function informationFraction(tasks: PairedTaskTrials[], candidates: Set<string>, left: number, maxEpochs: number): number {
  const now = tasks.reduce((s, t) => s + share(t, t.a.judged, t.b.judged), 0);
  const open = tasks.filter((t) => candidates.has(t.id));
  const extra = open.map(() => 0);
  let pairs = Math.floor(left / 2);
  for (let level = 1; level <= maxEpochs && pairs > 0; level++) {
    for (let i = 0; i < open.length && pairs > 0; i++) {
      if (Math.max(trials(open[i]!.a), trials(open[i]!.b)) + extra[i]! < maxEpochs && extra[i]! < level) {
        extra[i]!++;
        pairs--;
      }
    }
  }
  const most = now + open.reduce((s, t, i) => s + share(t, t.a.judged + extra[i]!, t.b.judged + extra[i]!) - share(t, t.a.judged, t.b.judged), 0);
  return most > 0 ? now / most : 1;
}

/** Pairs of calls go to tasks with fewer trials first, then to the ones whose trials disagree. */
function byFewestTrials(a: PairedTaskTrials, b: PairedTaskTrials): number {
  return trials(a.a) + trials(a.b) - trials(b.a) - trials(b.b) || a.id.localeCompare(b.id);
}

/** The stage plan after `stage` stages; `spent` model calls so far (both sides); `fractions` of earlier looks. */
export function planPairedStage(tasks: PairedTaskTrials[], stage: number, spent: number, settings: PairedSettings, fractions: number[] = []): PairedDecision {
  const stopped: Record<string, PairedStopReason> = {};
  const candidates: PairedTaskTrials[] = [];
  for (const t of tasks) {
    const why = taskStop(t, settings);
    if (why) stopped[t.id] = why;
    else candidates.push(t);
  }
  const budget = Math.min(settings.budget ?? Infinity, 2 * settings.maxEpochs * tasks.length);
  const left = budget - spent;
  const previous = fractions.length ? fractions[fractions.length - 1]! : 0;
  const raw = informationFraction(tasks, new Set(candidates.map((t) => t.id)), left, settings.maxEpochs);
  // When the grid leaves no room for another interim look, this look is the last one.
  const complete = previous + FRACTION_STEP > 1 - FRACTION_STEP + 1e-9;
  const final = candidates.length === 0 || left < 2 || complete;
  const fraction = final ? 1 : Math.min(Math.max(Math.floor(raw / FRACTION_STEP) * FRACTION_STEP, previous + FRACTION_STEP), 1 - FRACTION_STEP);
  const boundary = sequentialBoundaries([...fractions, fraction], settings.alpha).at(-1)!;
  const level = nominalLevel(boundary);

  const usable = tasks.filter((t) => t.a.judged > 0 && t.b.judged > 0);
  const paired: PairedTask[] = usable.map((t) => ({ baseline: t.a, current: t.b, flips: { baselineOnly: t.flips.aOnly, currentOnly: t.flips.bOnly, pairs: t.flips.pairs } }));
  const sig = paired.length > 0 ? pairedSignificance(paired, level, true) : null;
  const look = { stage, fraction, boundary, p: sig?.p_value ?? 1, level, verdict: sig?.verdict ?? ('inconclusive' as const), delta: sig?.delta ?? 0, ciLow: sig?.ci_low ?? -1, ciHigh: sig?.ci_high ?? 1 };
  const finish = (reason: string, why: PairedStopReason) => {
    for (const t of candidates) stopped[t.id] = why;
    return { look, done: true, reason, rerun: [], stopped };
  };
  if (look.verdict !== 'inconclusive') return finish(`the verdict settled at stage ${stage}: ${look.verdict}, p=${look.p.toPrecision(3)} ≤ ${level.toPrecision(3)}`, 'verdict_settled');
  if (candidates.length === 0) return { look, done: true, reason: 'no task can still move the verdict', rerun: [], stopped };
  if (left < 2) return finish(`the budget of ${budget} model calls is spent`, 'budget_spent');
  if (complete) return finish('the information is all but complete: the last look spent what was left of alpha', 'information_complete');
  if ((settings.futility ?? true) && fraction >= FUTILITY_FROM - 1e-9 && sig && sig.delta >= 0) {
    return finish(`no sign of a regression after ${spent} of ${budget} model calls (change ${(sig.delta * 100).toFixed(1)} points): stopped for futility`, 'no_regression_sign');
  }
  const ranked = [...candidates].sort(byFewestTrials);
  const room = Math.floor(left / 2);
  for (const t of ranked.slice(room)) stopped[t.id] = 'budget_spent';
  return { look, done: false, reason: null, rerun: ranked.slice(0, room).map((t) => t.id), stopped };
}

/** Trials of a task paired by epoch, both judged: how many disagreed (only A passed, only B passed) and how many pairs in all. */
export function epochFlips(a: TaskResult, b: TaskResult): { aOnly: number; bOnly: number; pairs: number } {
  const byEpoch = new Map(b.trials.map((t) => [t.epoch, t.status]));
  let aOnly = 0;
  let bOnly = 0;
  let pairs = 0;
  for (const t of a.trials) {
    const other = byEpoch.get(t.epoch);
    if (t.status === 'errored' || other === undefined || other === 'errored') continue;
    pairs++;
    if (t.status === 'passed' && other === 'failed') aOnly++;
    if (t.status === 'failed' && other === 'passed') bOnly++;
  }
  return { aOnly, bOnly, pairs };
}

