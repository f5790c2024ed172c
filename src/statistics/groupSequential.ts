import { standardNormal } from './standardNormal.js';


const phi = (x: number) => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
const Phi = (x: number) => standardNormal.cdf(x);

/**
 * Lan–DeMets spending function of O'Brien–Fleming type, spent symmetrically (alpha/2 per side, as in
 * gsDesign's sfLDOF and ldbounds): the alpha a design may have spent by information fraction t.
 * Almost nothing early, nearly all of it at the end.
 */
export function obrienFlemingSpent(t: number, alpha: number): number {
  if (t <= 0) return 0;
  if (t >= 1) return alpha;
  return 2 * (2 - 2 * Phi(standardNormal.inv(1 - alpha / 4) / Math.sqrt(t)));
}

const GRID = 161;
const cache = new Map<string, number[]>();

/**
 * Two-sided critical values |Z| ≥ c_k for looks at increasing information fractions `fractions`
 * (the last may be 1), spending alpha by the O'Brien–Fleming-type function. Under no change the
 * statistics Z_k are taken to be the canonical joint normal of a group-sequential design
 * (corr(Z_j, Z_k) = √(t_j / t_k)); the exit probabilities are found by recursive numerical
 * integration (Armitage, McPherson & Rowe 1969; Jennison & Turnbull 2000, ch. 19).
 */
export function sequentialBoundaries(fractions: number[], alpha: number): number[] {
  const key = `${alpha}|${fractions.map((t) => t.toFixed(4)).join(',')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const bounds: number[] = [];
  // Sub-density of the score B(t) = Z·√t on a grid over the continuation region of the last look.
  let xs: number[] = [];
  let dens: number[] = [];
  let weights: number[] = [];
  let spentBefore = 0;
  let tPrev = 0;
  for (let k = 0; k < fractions.length; k++) {
    const t = fractions[k]!;
    const dt = t - tPrev;
    const sd = Math.sqrt(dt);
    const target = Math.max(0, obrienFlemingSpent(t, alpha) - spentBefore);
    const exitBeyond = (b: number) => {
      // P(continued so far and |B(t)| ≥ b).
      if (k === 0) return 2 * (1 - Phi(b / sd));
      let p = 0;
      for (let i = 0; i < xs.length; i++) p += weights[i]! * dens[i]! * (Phi((-b - xs[i]!) / sd) + 1 - Phi((b - xs[i]!) / sd));
      return p;
    };
    // Bisection on the score scale for the boundary that spends exactly `target` at this look.
    let lo = 0;
    let hi = 12 * Math.sqrt(t);
    if (target <= 0) lo = hi;
    else {
      for (let it = 0; it < 60; it++) {
        const mid = (lo + hi) / 2;
        if (exitBeyond(mid) > target) lo = mid;
        else hi = mid;
      }
    }
    const b = (lo + hi) / 2;
    bounds.push(b / Math.sqrt(t));
    spentBefore += exitBeyond(b);
    // Propagate the density to this look, restricted to |B| < b (Simpson weights on the new grid).
    const nextXs = Array.from({ length: GRID }, (_, i) => -b + (2 * b * i) / (GRID - 1));
    const h = (2 * b) / (GRID - 1);
    const nextWeights = nextXs.map((_, i) => (h / 3) * (i === 0 || i === GRID - 1 ? 1 : i % 2 === 1 ? 4 : 2));
    const nextDens = nextXs.map((y) => {
      if (k === 0) return phi(y / sd) / sd;
      let f = 0;
      for (let i = 0; i < xs.length; i++) f += weights[i]! * dens[i]! * (phi((y - xs[i]!) / sd) / sd);
      return f;
    });
    xs = nextXs;
    dens = nextDens;
    weights = nextWeights;
    tPrev = t;
  }
  cache.set(key, bounds);
  return bounds;
}

/** The two-sided nominal p-value level that a critical value |Z| ≥ c corresponds to. */
export function nominalLevel(c: number): number {
  return 2 * (1 - Phi(c));
}
