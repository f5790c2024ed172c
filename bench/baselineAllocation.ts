/**
 * bench:gate's allocation probe (GATE_MODE=allocation): could `run --epochs auto` spend its ≤ 3
 * current trials a task unevenly, by what the baseline alone shows, and reach 80% power at a 5-point
 * drop under both drop shapes? Each rule maps the baseline's trials to a current trial count per task
 * (never fewer than 1), then the run is tested once, at the end, at alpha.
 *
 * Two tests are measured. The plain stratified test (src/statistics/stratifiedExact.ts) assumes a
 * task's trial counts are fixed; when they depend on the baseline's passes it is not exact: a hard
 * task whose baseline passed by luck gets more current trials, which then regress to its true rate
 * and look like a drop. The exact test for such a design conditions on what the allocation saw:
 * within a task, only relabellings that would have left the task in the same allocation class count,
 * so the null distribution of current passes is the hypergeometric restricted to baseline pass
 * counts of that class. That restriction is where the baseline information the allocation used is
 * paid back.
 */
import type { DropShape } from './dropShapes.js';
import { applyDrop } from './dropShapes.js';
import { rng } from './seededRandom.js';
import type { Mixture } from './pairedAdaptiveSim.js';
import { hypergeometric } from '../src/statistics/stratifiedExact.js';

export interface AllocationRule {
  label: string;
  /** The allocation class of a task from its baseline passes (of nb): tasks of one class get one trial count. */
  classOf: (passed: number, nb: number) => number;
  /** Current trials per task from every task's class (a function of the classes only), within the budget. */
  allocate: (classes: number[], budget: number) => number[];
  /** The test's integer weight of a task from its pooled margins. */
  weight: (pooledPassed: number, nb: number, nc: number) => number;
}

/** round(3 · (p̃(1 − p̃))^(−e)), p̃ the pooled pass rate, as src/statistics/significance.ts (e = ¼ there). */
export const pooledWeight = (e: number) => (s: number, nb: number, nc: number) => {
  const n = nb + nc;
  const p = (Math.min(Math.max(s, 1), n - 1) + 0.5) / (n + 1);
  return Math.max(1, Math.round(3 * (p * (1 - p)) ** -e));
};

/**
 * Tasks of the classes in `fixed` get that many trials; the rest share what is left of the budget
 * evenly (a level at a time, in task order), up to `max` each.
 */
export function fillRest(fixed: Record<number, number>, max: number) {
  return (classes: number[], budget: number): number[] => {
    const n = classes.map((c) => fixed[c] ?? 0);
    let left = budget - n.reduce((s, x) => s + x, 0);
    const rest = classes.flatMap((c, i) => (c in fixed ? [] : [i]));
    for (let level = 1; level <= max && left > 0; level++) {
      for (const i of rest) {
        if (left > 0 && n[i]! < level) {
          n[i]!++;
          left--;
        }
      }
    }
    return n.map((x) => Math.max(1, x));
  };
}

/**
 * Lower tail of the weighted stratified statistic Σ a_i x_i at its observed value; with `conditional`
 * each task's null is the hypergeometric restricted to baseline pass counts of the task's own class.
 */
function lowerTail(strata: Array<{ s: number; nb: number; nc: number; x: number; a: number; allowed: (b: number) => boolean }>, conditional: boolean): number {
  let dist = new Float64Array(1).fill(1);
  let offset = 0;
  let observed = 0;
  for (const t of strata) {
    const h = hypergeometric(t.s, t.nb, t.nc);
    const support: Array<[number, number]> = [];
    h.pmf.forEach((p, j) => {
      const x = h.min + j;
      if (!conditional || t.allowed(t.s - x)) support.push([x, p]);
    });
    if (support.length < 2) continue;
    const total = support.reduce((s, [, p]) => s + p, 0);
    const min = support[0]![0];
    const next = new Float64Array(dist.length + t.a * (support.at(-1)![0] - min));
    for (let i = 0; i < dist.length; i++) {
      if (dist[i] === 0) continue;
      for (const [x, p] of support) next[i + t.a * (x - min)]! += (dist[i]! * p) / total;
    }
    dist = next;
    offset += t.a * min;
    observed += t.a * t.x;
  }
  let lower = 0;
  for (let i = 0; i <= observed - offset; i++) lower += dist[i]!;
  return lower;
}

const binomial = (p: number, n: number, random: () => number) => {
  let x = 0;
  for (let k = 0; k < n; k++) if (random() < p) x++;
  return x;
};

/** How often `rule` says "regressed" (lower tail ≤ alpha/2) under `shape` ('none' for A/A), and its mean current trials a task. */
export function probe(rule: AllocationRule, mixture: Mixture, o: { tasks: number; nb: number; budget: number; alpha: number; runs: number; seed: number; drop: number; shape: DropShape | 'none'; conditional: boolean }) {
  const random = rng(o.seed);
  let hits = 0;
  let trials = 0;
  for (let r = 0; r < o.runs; r++) {
    const pa = mixture(o.tasks, random);
    const pb = o.shape === 'none' ? pa : applyDrop(pa, o.drop, o.shape);
    const b = pa.map((p) => binomial(p, o.nb, random));
    const classes = b.map((x) => rule.classOf(x, o.nb));
    const nc = rule.allocate(classes, o.budget);
    trials += nc.reduce((s, x) => s + x, 0);
    const strata = b.map((bi, i) => {
      const x = binomial(pb[i]!, nc[i]!, random);
      const s = bi + x;
      return { s, nb: o.nb, nc: nc[i]!, x, a: rule.weight(s, o.nb, nc[i]!), allowed: (bb: number) => rule.classOf(bb, o.nb) === classes[i] };
    });
    if (lowerTail(strata, o.conditional) <= o.alpha / 2) hits++;
  }
  return { hits, trialsPerTask: trials / o.runs / o.tasks };
}
