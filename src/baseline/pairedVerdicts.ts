import type { Significance } from '../schema/diff.js';
import { pairedSignificance, type PairedTask } from '../statistics/significance.js';
import { tasksBeyondNoise, type TaskNoise } from '../statistics/taskNoise.js';

/**
 * The two noise-aware verdicts the default gate reads, from the paired tasks' trial counts: the
 * suite's (the paired test) and each task's own (beyond noise or it only moved). The diff and
 * bench:gate both call this, so what the benchmark measures is what the gate decides. Pure.
 *
 * `staged`: both sides were staged by compare --epochs auto (the test is over each task's `flips`).
 * `deterministic`: both runs replayed or scripted their model, or had none: every fall is real.
 */
export function pairedVerdicts(tasks: PairedTask[], alpha: number, options: { staged?: boolean; deterministic: boolean }): { significance: Significance | null; noise: TaskNoise[] } {
  const significance = tasks.length > 0 ? pairedSignificance(tasks, alpha, options.staged ?? false) : null;
  const noise = tasksBeyondNoise(tasks, alpha, {
    deterministic: options.deterministic,
    flips: significance?.method === 'exact_mcnemar' ? { regressed: significance.verdict === 'regressed' } : null,
  });
  return { significance, noise };
}
