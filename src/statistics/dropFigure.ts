import type { Significance } from '../schema/diff.js';

/**
 * The one drop figure: the paired test's estimate of the fall in pass rate, in points (positive =
 * worse), with the interval and p-value of that same test. The terminal, summary.md, report.html, the
 * gate's `max_drop` and the docs all print it through here, so no two of them can disagree.
 */
export const DROP_NAME = 'drop';

/** Points with one decimal; "−0.0" never appears. */
export function formatPoints(fraction: number): string {
  const v = Number((fraction * 100).toFixed(1));
  return (v === 0 ? 0 : v).toFixed(1);
}

/** A p-value as the test gave it: an exact tail, or the bound it is below when the tail underflows. */
export function formatP(sig: Pick<Significance, 'p_value' | 'p_value_bound'>): string {
  return sig.p_value_bound ? `p < ${sig.p_value.toExponential(0)}` : `p=${sig.p_value.toPrecision(3)}`;
}

/**
 * "drop 5.2 points, 95% CI [2.1, 8.4], p=0.00312": the interval of the drop, from the test that gave
 * the verdict. When no task's trials differ between the runs the test has nothing to invert, and its
 * interval is the whole range: that is said in words, not printed as [-100.0, 100.0].
 */
export function describeDrop(sig: Significance): string {
  const level = Number((sig.confidence * 100).toFixed(1));
  const interval = sig.informative_pairs === 0 ? `no ${level}% CI (no task's outcome differs between the runs)` : `${level}% CI [${formatPoints(-sig.ci_high)}, ${formatPoints(-sig.ci_low)}]`;
  return `${DROP_NAME} ${formatPoints(-sig.delta)} points, ${interval}, ${formatP(sig)}`;
}
