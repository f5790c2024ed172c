/**
 * npm run bench:gate — how often does the significance rule cry wolf, and how often does it catch a
 * real drop? Agents are simulated with known per-task pass probabilities; each simulated comparison
 * runs the same paired test the gate uses (src/baseline/significance.ts).
 */
import { pairedSignificance } from '../src/baseline/significance.js';

const TASKS = 100;
const EPOCHS = 3;
const SIMULATIONS = Number(process.env['SIMULATIONS'] ?? 10_000);
const ALPHA = 0.05;

/** Deterministic PRNG (mulberry32) so the numbers in the README can be reproduced. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A realistic mix: most tasks are easy and stable, some are hard, a few are coin flips. */
function taskProbabilities(random: () => number): number[] {
  return Array.from({ length: TASKS }, () => {
    const kind = random();
    if (kind < 0.55) return 0.9 + random() * 0.1;
    if (kind < 0.85) return 0.4 + random() * 0.5;
    return 0.05 + random() * 0.35;
  });
}

function passFraction(p: number, epochs: number, random: () => number): number {
  let passed = 0;
  for (let k = 0; k < epochs; k++) if (random() < p) passed++;
  return passed / epochs;
}

interface Scenario {
  label: string;
  drop: number;
  epochs: number;
}

function simulate(scenario: Scenario, seed: number) {
  const random = rng(seed);
  let regressed = 0;
  let improved = 0;
  let ciHalfWidth = 0;
  let mde = 0;
  for (let s = 0; s < SIMULATIONS; s++) {
    const base = taskProbabilities(random);
    const mean = base.reduce((a, b) => a + b, 0) / base.length;
    // Scale every task down so that the mean pass rate falls by exactly `drop` (stays in [0, 1]).
    const factor = Math.max(0, 1 - scenario.drop / mean);
    const outcomes = base.map((p) => ({
      baseline: passFraction(p, scenario.epochs, random),
      current: passFraction(p * factor, scenario.epochs, random),
    }));
    const verdict = pairedSignificance(outcomes, scenario.epochs, ALPHA);
    if (verdict.verdict === 'regressed') regressed++;
    if (verdict.verdict === 'improved') improved++;
    ciHalfWidth += (verdict.ci_high - verdict.ci_low) / 2;
    mde += verdict.minimum_detectable_effect ?? 0;
  }
  return { regressed: regressed / SIMULATIONS, improved: improved / SIMULATIONS, ci: ciHalfWidth / SIMULATIONS, mde: mde / SIMULATIONS };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const started = performance.now();
console.log(`tracegate gate benchmark: ${TASKS} tasks, ${SIMULATIONS} simulated comparisons per row, alpha ${ALPHA} (two-sided)\n`);
console.log('| epochs | true drop | flagged "regressed" | flagged "improved" | mean CI half-width | mean MDE |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
const scenarios: Scenario[] = [
  { label: 'A/A', drop: 0, epochs: EPOCHS },
  { label: '5 pts', drop: 0.05, epochs: EPOCHS },
  { label: '10 pts', drop: 0.1, epochs: EPOCHS },
  { label: '20 pts', drop: 0.2, epochs: EPOCHS },
  { label: 'A/A', drop: 0, epochs: 1 },
  { label: '5 pts', drop: 0.05, epochs: 1 },
  { label: '10 pts', drop: 0.1, epochs: 1 },
  { label: '20 pts', drop: 0.2, epochs: 1 },
];
let gateFalseAlarm = 0;
let anySignificant = 0;
scenarios.forEach((scenario, i) => {
  const r = simulate(scenario, 1000 + i);
  if (scenario.drop === 0 && scenario.epochs === EPOCHS) {
    gateFalseAlarm = r.regressed;
    anySignificant = r.regressed + r.improved;
  }
  console.log(`| ${scenario.epochs} | ${scenario.label} | ${pct(r.regressed)}${scenario.drop === 0 ? ' (false alarm)' : ' (power)'} | ${pct(r.improved)} | ${pct(r.ci)} | ${pct(r.mde)} |`);
});
console.log(`\nA/A at ${TASKS} tasks × ${EPOCHS} epochs:`);
console.log(`  the gate's false-alarm rate (flagged "regressed"): ${pct(gateFalseAlarm)} — at most alpha = ${pct(ALPHA)} (ratio ${(gateFalseAlarm / ALPHA).toFixed(2)}; a two-sided test spends alpha/2 per side)`);
console.log(`  any significant verdict, either direction: ${pct(anySignificant)} (the test's size; ideal ${pct(ALPHA)}, ratio ${(anySignificant / ALPHA).toFixed(2)})`);
console.log(`took ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (gateFalseAlarm > ALPHA) {
  console.error('the gate false-alarm rate exceeds alpha');
  process.exitCode = 1;
}
