import { hypergeometric, type TaskCounts } from './stratifiedExact.js';

/**
 * Whether one task's own fall is beyond noise: the question the default gate's `max_regressions`
 * asks of every task, with the multiplicity of the suite controlled. Pure.
 *
 * Each task gets the one-sided exact conditional p-value of its drop (Fisher's exact test on its
 * judged trials: given its pooled passes, the chance that the current side got this few or fewer).
 * The suite's p-values are then read with Benjamini–Hochberg at level alpha/2 (one side of the paired
 * test's two-sided alpha). When every task is unchanged BH rejects anything with probability at most
 * alpha/2, so the default gate (this rule beside the paired test's `regressed`, alpha/2 one-sided)
 * fails an A/A run at most alpha of the time.
 */

/** One-sided exact p of a drop in one task; 1 when its pooled trials cannot tell (all pass, all fail, a side unjudged). */
export function taskDropP(t: TaskCounts): number {
  const s = t.baseline.passed + t.current.passed;
  const n = t.baseline.judged + t.current.judged;
  if (t.baseline.judged === 0 || t.current.judged === 0 || s === 0 || s === n) return 1;
  const h = hypergeometric(s, t.baseline.judged, t.current.judged);
  let p = 0;
  for (let x = h.min; x <= t.current.passed; x++) p += h.pmf[x - h.min]!;
  return Math.min(1, p);
}

/**
 * Benjamini–Hochberg step-up at level q over `m` hypotheses (the p-values given plus any left out
 * because they are 1): which of `p` are rejected.
 */
export function benjaminiHochberg(p: number[], q: number, m = p.length): boolean[] {
  const order = p.map((v, i) => ({ v, i })).sort((a, b) => a.v - b.v);
  let last = -1;
  order.forEach(({ v }, k) => {
    if (v <= (q * (k + 1)) / m) last = k;
  });
  const rejected = p.map(() => false);
  for (let k = 0; k <= last; k++) rejected[order[k]!.i] = true;
  return rejected;
}

export interface TaskNoise {
  /** One-sided exact p of the task's drop (null when the task is not a paired one). */
  drop_p: number;
  /** Its fall is beyond noise at the suite's false-discovery level. */
  beyond_noise: boolean;
}

/**
 * Beyond-noise verdicts for the paired tasks. When both runs are deterministic (replayed or scripted
 * model responses, or no model at all) every fall is beyond noise. Otherwise tasks whose pooled trials all agree cannot be tested
 * and are left out of m (their margins alone say so, whichever side a trial came from). With
 * `flipRule` — every paired task judged once a side, or both sides staged by compare --epochs auto —
 * a task's own trials can never be beyond noise on their own, so the tasks that went down are beyond
 * noise exactly when the paired test (exact McNemar over the flips) said `regressed`.
 */
export function tasksBeyondNoise(tasks: TaskCounts[], alpha: number, rule: { deterministic: boolean; flips: { regressed: boolean } | null }): TaskNoise[] {
  const p = tasks.map(taskDropP);
  const fell = (t: TaskCounts) => t.current.passed / t.current.judged < t.baseline.passed / t.baseline.judged;
  // Replayed or scripted responses, or policy tasks with no model: no trial noise to tell a fall from.
  if (rule.deterministic) return tasks.map((t, i) => ({ drop_p: p[i]!, beyond_noise: fell(t) }));
  if (rule.flips) {
    const regressed = rule.flips.regressed;
    return tasks.map((t, i) => ({ drop_p: p[i]!, beyond_noise: regressed && fell(t) }));
  }
  const informative = tasks.map((t) => {
    const s = t.baseline.passed + t.current.passed;
    return s > 0 && s < t.baseline.judged + t.current.judged;
  });
  const tested = p.filter((_, i) => informative[i]);
  const rejected = benjaminiHochberg(tested, alpha / 2);
  let k = 0;
  return tasks.map((_, i) => ({ drop_p: p[i]!, beyond_noise: informative[i] ? rejected[k++]! : false }));
}
