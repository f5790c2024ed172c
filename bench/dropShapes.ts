/**
 * The two shapes of a real drop that bench:gate measures power under, each solved so that the mean
 * pass probability falls by exactly `drop`:
 * - additive: every task loses the same points (clipped at 0), so tasks that always passed start
 *   failing now and then — the drop an equal-weight test finds hardest to see;
 * - logit: the same shift on the logit scale, so middling tasks move most and tasks at 0 or 1 not at
 *   all — the drop that weights favouring near-certain tasks would miss.
 */
export type DropShape = 'additive' | 'logit';

const mean = (ps: number[]) => ps.reduce((a, b) => a + b, 0) / ps.length;

/** The smallest shift s in [0, hi] with mean(base) − mean(at(s)) ≥ drop, by bisection. */
function solve(base: number[], drop: number, at: (s: number) => number[], hi: number): number[] {
  const target = mean(base) - drop;
  let lo = 0;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (mean(at(mid)) > target) lo = mid;
    else hi = mid;
  }
  return at(hi);
}

export function applyDrop(base: number[], drop: number, shape: DropShape): number[] {
  if (drop === 0) return base;
  if (shape === 'additive') return solve(base, drop, (s) => base.map((p) => Math.max(0, p - s)), 1);
  const logit = (p: number) => Math.log(p / (1 - p));
  return solve(base, drop, (s) => base.map((p) => (p <= 0 || p >= 1 ? p : 1 / (1 + Math.exp(-(logit(p) - s))))), 20);
}
