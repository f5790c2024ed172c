import { nominalLevel, sequentialBoundaries } from './groupSequential.js';
import { pairedSignificance, type PairedTask } from './significance.js';

/**
 * `--epochs auto`: which tasks get another current trial after each stage, and when to stop. Pure:
 * the runner (src/runner/adaptiveEpochs.ts) feeds it the trials so far and runs what it asks for.
 *
 * Error control across stages: a group-sequential design with Lan–DeMets O'Brien–Fleming-type alpha
 * spending over the information fraction (null variance of the statistic now / at the end); each look
 * tests with the exact stratified test at the nominal level of its boundary. Stopping for futility
 * (no sign of a regression) is non-binding and never adds false alarms.
 */
export interface AdaptiveSettings {
  maxEpochs: number;
  /** Most current trials (model calls) for the whole run, stage 1 included; null: maxEpochs × tasks. */
  budget: number | null;
  alpha: number;
  /** Stop early when, after a third of the trials, the current run looks no worse than the baseline. */
  futility?: boolean;
}

export interface TaskTrials {
  id: string;
  /** The baseline's judged trials of this task; null when it has none (new, redefined, all errored). */
  baseline: { passed: number; judged: number } | null;
  current: { passed: number; judged: number; errored: number };
}

export const TASK_STOP_REASONS = {
  no_baseline: 'no judged baseline trial to pair with: more trials cannot move the paired verdict',
  max_epochs: 'reached --max-epochs',
  baseline_limits: 'current trials already outnumber the baseline’s twice over: the baseline’s own noise now dominates',
  verdict_settled: 'the verdict settled at an interim look',
  no_regression_sign: 'after a third of the trials the run looked no worse than the baseline: stopped for futility',
  budget_spent: 'the budget of trials (--budget or --budget-tokens) is spent',
} as const;
export type TaskStopReason = keyof typeof TASK_STOP_REASONS;

export interface StageDecision {
  /** The look after this stage: information fraction, boundary, p-value and the level it was tested at. */
  look: { stage: number; fraction: number; boundary: number; p: number; level: number; verdict: 'regressed' | 'improved' | 'inconclusive' };
  done: boolean;
  /** Why the run stops (when done). */
  reason: string | null;
  /** Tasks to run once more in the next stage. */
  rerun: string[];
  /** Tasks that get no more trials, with why. */
  stopped: Record<string, TaskStopReason>;
}

/** Futility is looked at from this information fraction on, and stops when Z ≥ 0 (no sign of a drop). */
const FUTILITY_FROM = 1 / 3;

/** The most current trials a task can get: --max-epochs, and twice the baseline's judged trials. */
function cap(t: TaskTrials, maxEpochs: number): number {
  return !t.baseline || t.baseline.judged === 0 ? 1 : Math.min(maxEpochs, 2 * t.baseline.judged);
}

/** When the budget cannot cover every task, the tasks with the fewest current trials go first. */
function byFewestTrials(a: TaskTrials, b: TaskTrials): number {
  return a.current.judged + a.current.errored - (b.current.judged + b.current.errored) || a.id.localeCompare(b.id);
}

/**
 * Information fraction of a look: the null variance of the test statistic now, over what it would be
 * once the rest of the budget is spent the way the planner spends it (fewest trials first, up to each
 * task's cap). A task's share is w(n_b, n_c) · p(1 − p), p its pooled pass rate (half a pass and half
 * a failure added); with a fixed baseline it grows more slowly than the task's trials.
 */
function informationFraction(tasks: TaskTrials[], budget: number, spent: number, maxEpochs: number): number {
  const paired = tasks.filter((t) => t.baseline && t.baseline.judged > 0);
  const share = (t: TaskTrials, judged: number) => {
    const b = t.baseline!;
    const p = (b.passed + t.current.passed + 0.5) / (b.judged + t.current.judged + 1);
    return judged > 0 ? ((b.judged * judged) / (b.judged + judged)) * p * (1 - p) : 0;
  };
  const planned = paired.map((t) => t.current.judged + t.current.errored);
  let left = budget - spent;
  for (let level = 1; level <= maxEpochs && left > 0; level++) {
    for (let i = 0; i < paired.length && left > 0; i++) {
      if (planned[i]! < level && planned[i]! < cap(paired[i]!, maxEpochs)) {
        planned[i]!++;
        left--;
      }
    }
  }
  const now = paired.reduce((s, t) => s + share(t, t.current.judged), 0);
  const most = paired.reduce((s, t, i) => s + share(t, t.current.judged + planned[i]! - t.current.judged - t.current.errored), 0);
  return most > 0 ? now / most : 1;
}

/**
 * Decides the next stage after `stage` stages (1-based) have run and `spent` current trials were
 * made; `fractions` are the information fractions of the earlier looks.
 */
export function planNextStage(tasks: TaskTrials[], stage: number, spent: number, settings: AdaptiveSettings, fractions: number[] = []): StageDecision {
  const stopped: Record<string, TaskStopReason> = {};
  const candidates: TaskTrials[] = [];
  for (const t of tasks) {
    const trials = t.current.judged + t.current.errored;
    if (!t.baseline || t.baseline.judged === 0) stopped[t.id] = 'no_baseline';
    else if (trials >= settings.maxEpochs) stopped[t.id] = 'max_epochs';
    else if (t.current.judged >= cap(t, settings.maxEpochs)) stopped[t.id] = 'baseline_limits';
    else candidates.push(t);
  }
  const most = tasks.reduce((s, t) => s + cap(t, settings.maxEpochs), 0);
  const budget = Math.min(settings.budget ?? Infinity, most);
  const left = budget - spent;
  const final = stage >= settings.maxEpochs || candidates.length === 0 || left <= 0;
  const previous = fractions.length ? fractions[fractions.length - 1]! : 0;
  const fraction = final ? 1 : Math.min(Math.max(informationFraction(tasks, budget, spent, settings.maxEpochs), previous + 1e-3), 1 - 1e-3);
  const boundary = sequentialBoundaries([...fractions, fraction], settings.alpha).at(-1)!;
  const level = nominalLevel(boundary);

  const paired: PairedTask[] = tasks.filter((t) => t.baseline && t.baseline.judged > 0 && t.current.judged > 0).map((t) => ({ baseline: t.baseline!, current: t.current }));
  const sig = paired.length > 0 ? pairedSignificance(paired, level) : null;
  const look = { stage, fraction, boundary, p: sig?.p_value ?? 1, level, verdict: sig?.verdict ?? ('inconclusive' as const) };

  const finish = (reason: string, why: TaskStopReason) => {
    for (const t of candidates) stopped[t.id] = why;
    return { look, done: true, reason, rerun: [], stopped };
  };
  if (look.verdict !== 'inconclusive') {
    return finish(`the verdict settled at stage ${stage}: ${look.verdict}, p=${look.p.toPrecision(3)} ≤ ${level.toPrecision(3)}`, 'verdict_settled');
  }
  if (candidates.length === 0) return { look, done: true, reason: 'no task can still move the verdict', rerun: [], stopped };
  if (left <= 0) return finish(`the budget of ${budget} trials is spent`, 'budget_spent');
  if (stage >= settings.maxEpochs) return finish(`reached --max-epochs ${settings.maxEpochs}`, 'max_epochs');
  if ((settings.futility ?? true) && fraction >= FUTILITY_FROM - 1e-9 && sig && sig.delta >= 0) {
    return finish(`no sign of a regression after ${spent} of ${budget} trials (change ${(sig.delta * 100).toFixed(1)} points): stopped for futility`, 'no_regression_sign');
  }
  const ranked = [...candidates].sort(byFewestTrials);
  const rerun = ranked.slice(0, left).map((t) => t.id);
  for (const t of ranked.slice(left)) stopped[t.id] = 'budget_spent';
  return { look, done: false, reason: null, rerun, stopped };
}
