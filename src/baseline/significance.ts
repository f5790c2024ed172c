import jstat from 'jstat';
import type { Significance } from '../schema/diff.js';

const { jStat } = jstat;
const POWER = 0.8;

export interface PairedOutcome {
  /** Baseline and current pass fraction of one task (0 or 1 with a single trial). */
  baseline: number;
  current: number;
}

function zQuantile(p: number): number {
  return jStat.normal.inv(p, 0, 1);
}

function verdictOf(pValue: number, delta: number, alpha: number): Significance['verdict'] {
  if (pValue >= alpha || delta === 0) return 'inconclusive';
  return delta < 0 ? 'regressed' : 'improved';
}

/** Two-sided exact McNemar test: the flips are Binomial(b + c, 1/2) under no change. */
export function exactMcNemarP(improved: number, regressed: number): number {
  const discordant = improved + regressed;
  if (discordant === 0) return 1;
  return Math.min(1, 2 * jStat.binomial.cdf(Math.min(improved, regressed), discordant, 0.5));
}

/**
 * Confidence interval for a paired difference of proportions: Wald with the Agresti–Min
 * adjustment (half a count added to every cell), which holds its coverage at small counts.
 */
export function pairedProportionInterval(improved: number, regressed: number, pairs: number, confidence: number): [number, number] {
  const b = improved + 0.5;
  const c = regressed + 0.5;
  const n = pairs + 2;
  const d = (b - c) / n;
  const se = Math.sqrt(Math.max(0, b + c - ((b - c) * (b - c)) / n)) / n;
  const z = zQuantile(1 - (1 - confidence) / 2);
  return [Math.max(-1, d - z * se), Math.min(1, d + z * se)];
}

/** Paired t-test on per-task differences; returns t, p (two-sided) and the interval for the mean. */
export function pairedT(differences: number[], confidence: number): { mean: number; t: number; p: number; low: number; high: number } {
  const n = differences.length;
  const mean = differences.reduce((s, d) => s + d, 0) / n;
  if (n < 2) return { mean, t: 0, p: 1, low: -1, high: 1 };
  const variance = differences.reduce((s, d) => s + (d - mean) ** 2, 0) / (n - 1);
  if (variance === 0) {
    return mean === 0 ? { mean, t: 0, p: 1, low: 0, high: 0 } : { mean, t: Math.sign(mean) * Infinity, p: 0, low: mean, high: mean };
  }
  const se = Math.sqrt(variance / n);
  const t = mean / se;
  const p = Math.min(1, 2 * (1 - jStat.studentt.cdf(Math.abs(t), n - 1)));
  const q = jStat.studentt.inv(1 - (1 - confidence) / 2, n - 1);
  return { mean, t, p, low: mean - q * se, high: mean + q * se };
}

/**
 * The smallest pass-rate change detectable with 80% power: (z_{1-α/2} + z_{power}) · sd / √n.
 * sd is the observed spread of per-task differences, or, when every task agreed, the spread two
 * independent runs at the baseline pass rate would show (a planning value).
 */
function minimumDetectableEffect(sd: number, baselineRate: number, trials: number, pairs: number, alpha: number): number | null {
  if (pairs === 0) return null;
  const planning = Math.sqrt((2 * baselineRate * (1 - baselineRate)) / trials);
  const spread = sd > 0 ? sd : planning;
  if (spread === 0) return null;
  return Math.min(1, ((zQuantile(1 - alpha / 2) + zQuantile(POWER)) * spread) / Math.sqrt(pairs));
}

/**
 * Compares two runs task by task. One trial per task: exact McNemar on the tasks that flipped.
 * Several epochs: a paired t-test on per-task pass fractions. Verdict at `alpha`, two-sided.
 */
export function pairedSignificance(outcomes: PairedOutcome[], epochs: number, alpha = 0.05): Significance {
  const pairs = outcomes.length;
  const confidence = 1 - alpha;
  const differences = outcomes.map((o) => o.current - o.baseline);
  const improved = differences.filter((d) => d > 0).length;
  const regressed = differences.filter((d) => d < 0).length;
  const delta = pairs === 0 ? 0 : differences.reduce((s, d) => s + d, 0) / pairs;
  const baselineRate = pairs === 0 ? 0 : outcomes.reduce((s, o) => s + o.baseline, 0) / pairs;
  const sd = pairs < 2 ? 0 : Math.sqrt(differences.reduce((s, d) => s + (d - delta) ** 2, 0) / (pairs - 1));
  const mde = minimumDetectableEffect(sd, baselineRate, epochs, pairs, alpha);

  if (epochs <= 1) {
    const p = exactMcNemarP(improved, regressed);
    const [low, high] = pairedProportionInterval(improved, regressed, pairs, confidence);
    const verdict = verdictOf(p, delta, alpha);
    return {
      method: 'exact_mcnemar',
      pairs,
      regressed,
      improved,
      delta,
      ci_low: low,
      ci_high: high,
      confidence,
      p_value: p,
      alpha,
      verdict,
      minimum_detectable_effect: mde,
      explanation: `${regressed} task(s) went pass→fail and ${improved} fail→pass of ${pairs} paired; exact McNemar p=${p.toPrecision(3)}; ${verdict}`,
    };
  }
  const t = pairedT(differences, confidence);
  const verdict = verdictOf(t.p, t.mean, alpha);
  return {
    method: 'paired_t',
    pairs,
    regressed,
    improved,
    delta: t.mean,
    ci_low: Math.max(-1, t.low),
    ci_high: Math.min(1, t.high),
    confidence,
    p_value: t.p,
    alpha,
    verdict,
    minimum_detectable_effect: mde,
    explanation: `mean per-task pass-fraction change ${(t.mean * 100).toFixed(1)} points over ${pairs} paired tasks × ${epochs} epochs; paired t p=${t.p.toPrecision(3)}; ${verdict}`,
  };
}
