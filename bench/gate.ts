/**
 * npm run bench:gate — how often does the significance rule cry wolf, how often does it catch a real
 * drop, and do its intervals cover the true change? Agents are simulated with known per-task pass
 * probabilities; each simulated comparison runs the same paired test the gate uses
 * (src/baseline/significance.ts), on every shape of data the gate meets: unequal epochs, tiny
 * suites, all-pass suites, partly errored tasks, tasks that never vary. The last sections simulate
 * `run --epochs auto` against a fixed baseline (src/baseline/adaptivePlan.ts) and `compare --epochs
 * auto` with both sides staged (src/baseline/pairedAdaptivePlan.ts) on the same agents.
 */
import { pairedSignificance, taskWeight, type PairedTask } from '../src/baseline/significance.js';
import { simulateAdaptive, type AdaptiveSimulation } from './adaptiveSim.js';
import { rng } from './seededRandom.js';
import { oracleCeiling, simulatePairedAdaptive } from './pairedAdaptiveSim.js';
import type { PairedSettings } from '../src/baseline/pairedAdaptivePlan.js';

const SIMULATIONS = Number(process.env['SIMULATIONS'] ?? 2_000);
const ALPHA = 0.05;

type Mixture = (tasks: number, random: () => number) => number[];

/** The project's mix: most tasks are easy and stable, some are hard, a few are coin flips. */
const realistic: Mixture = (tasks, random) =>
  Array.from({ length: tasks }, () => {
    const kind = random();
    if (kind < 0.55) return 0.9 + random() * 0.1;
    if (kind < 0.85) return 0.4 + random() * 0.5;
    return 0.05 + random() * 0.35;
  });

/** A second mix: a third of the tasks never vary (always pass or always fail), the rest spread evenly. */
const frozenThird: Mixture = (tasks, random) =>
  Array.from({ length: tasks }, (_, i) => (i % 3 === 0 ? (random() < 0.7 ? 1 : 0) : 0.15 + random() * 0.8));

const allPass: Mixture = (tasks) => Array.from({ length: tasks }, () => 1);

interface Shape {
  label: string;
  tasks: number;
  baselineEpochs: number;
  currentEpochs: number;
  mixture: Mixture;
  /** Chance that a trial errors (is not judged), on both sides. */
  errorRate?: number;
  /** The drop at which power is measured. */
  drop: number;
}

function side(p: number, epochs: number, errorRate: number, random: () => number) {
  let passed = 0;
  let judged = 0;
  for (let k = 0; k < epochs; k++) {
    if (random() < errorRate) continue;
    judged++;
    if (random() < p) passed++;
  }
  return { passed, judged, errored: epochs - judged };
}

/** Every task's probability scaled down so that the mean falls by exactly `drop` (stays in [0, 1]). */
function dropped(base: number[], drop: number): number[] {
  const mean = base.reduce((a, b) => a + b, 0) / base.length;
  const factor = mean === 0 ? 1 : Math.max(0, 1 - drop / mean);
  return base.map((p) => p * factor);
}

function compare(shape: Shape, drop: number, random: () => number) {
  const base = shape.mixture(shape.tasks, random);
  const cur = dropped(base, drop);
  const tasks: PairedTask[] = [];
  const truth: Array<{ w: number; d: number }> = [];
  base.forEach((p, i) => {
    const b = side(p, shape.baselineEpochs, shape.errorRate ?? 0, random);
    const c = side(cur[i]!, shape.currentEpochs, shape.errorRate ?? 0, random);
    if (b.judged === 0 || c.judged === 0) return;
    const t = { baseline: b, current: c, errored: { baseline: b.errored, current: c.errored } };
    tasks.push(t);
    truth.push({ w: taskWeight(t), d: cur[i]! - p });
  });
  const sig = pairedSignificance(tasks, ALPHA);
  const total = truth.reduce((s, t) => s + t.w, 0);
  const trueDelta = total === 0 ? 0 : truth.reduce((s, t) => s + t.w * t.d, 0) / total;
  return { sig, covered: sig.ci_low <= trueDelta + 1e-12 && trueDelta - 1e-12 <= sig.ci_high };
}

function measure(shape: Shape, seed: number) {
  const random = rng(seed);
  let falseAlarm = 0;
  let anySignificant = 0;
  let power = 0;
  let coveredNull = 0;
  let coveredDrop = 0;
  let halfWidth = 0;
  for (let s = 0; s < SIMULATIONS; s++) {
    const aa = compare(shape, 0, random);
    if (aa.sig.verdict === 'regressed') falseAlarm++;
    if (aa.sig.verdict !== 'inconclusive') anySignificant++;
    if (aa.covered) coveredNull++;
    const ab = compare(shape, shape.drop, random);
    if (ab.sig.verdict === 'regressed') power++;
    if (ab.covered) coveredDrop++;
    halfWidth += (ab.sig.ci_high - ab.sig.ci_low) / 2;
  }
  const n = SIMULATIONS;
  return { falseAlarm: falseAlarm / n, anySignificant: anySignificant / n, power: power / n, coveredNull: coveredNull / n, coveredDrop: coveredDrop / n, halfWidth: halfWidth / n };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const started = performance.now();
let failed = false;

console.log(`tracegate gate benchmark: ${SIMULATIONS} simulated A/A and ${SIMULATIONS} A/B comparisons per row, alpha ${ALPHA} (two-sided)\n`);
console.log('| data shape | tasks | epochs base→current | A/A flagged "regressed" | A/A any verdict | power at drop | CI coverage A/A | CI coverage A/B | mean CI half-width |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const shapes: Shape[] = [
  { label: 'realistic mix', tasks: 100, baselineEpochs: 3, currentEpochs: 3, mixture: realistic, drop: 0.05 },
  { label: 'realistic mix', tasks: 100, baselineEpochs: 3, currentEpochs: 3, mixture: realistic, drop: 0.1 },
  { label: 'realistic mix', tasks: 100, baselineEpochs: 5, currentEpochs: 5, mixture: realistic, drop: 0.05 },
  { label: 'realistic mix', tasks: 100, baselineEpochs: 1, currentEpochs: 1, mixture: realistic, drop: 0.1 },
  { label: 'unequal epochs', tasks: 100, baselineEpochs: 1, currentEpochs: 3, mixture: realistic, drop: 0.1 },
  { label: 'unequal epochs', tasks: 100, baselineEpochs: 3, currentEpochs: 1, mixture: realistic, drop: 0.1 },
  { label: 'tiny suite', tasks: 2, baselineEpochs: 3, currentEpochs: 3, mixture: realistic, drop: 0.3 },
  { label: 'tiny suite', tasks: 5, baselineEpochs: 3, currentEpochs: 3, mixture: realistic, drop: 0.3 },
  { label: 'tiny suite', tasks: 10, baselineEpochs: 3, currentEpochs: 3, mixture: realistic, drop: 0.3 },
  { label: 'all-pass suite', tasks: 20, baselineEpochs: 3, currentEpochs: 3, mixture: allPass, drop: 0.1 },
  { label: 'all-pass suite', tasks: 100, baselineEpochs: 1, currentEpochs: 3, mixture: allPass, drop: 0.05 },
  { label: 'partly errored (20% of trials)', tasks: 100, baselineEpochs: 3, currentEpochs: 3, mixture: realistic, errorRate: 0.2, drop: 0.1 },
  { label: 'partly errored (40% of trials)', tasks: 30, baselineEpochs: 3, currentEpochs: 3, mixture: realistic, errorRate: 0.4, drop: 0.2 },
  { label: 'a third never vary', tasks: 100, baselineEpochs: 3, currentEpochs: 3, mixture: frozenThird, drop: 0.1 },
  { label: 'a third never vary', tasks: 100, baselineEpochs: 1, currentEpochs: 3, mixture: frozenThird, drop: 0.1 },
  { label: 'a third never vary', tasks: 10, baselineEpochs: 3, currentEpochs: 3, mixture: frozenThird, drop: 0.3 },
];
shapes.forEach((shape, i) => {
  const r = measure(shape, 1000 + i);
  // Allow for simulation error: 3 standard errors above alpha/2 for the one-sided false alarm.
  const slack = 3 * Math.sqrt((ALPHA / 2) * (1 - ALPHA / 2) / SIMULATIONS);
  if (r.falseAlarm > ALPHA / 2 + slack || r.anySignificant > ALPHA + 2 * slack) failed = true;
  console.log(
    `| ${shape.label}${shape.errorRate ? '' : ''} | ${shape.tasks} | ${shape.baselineEpochs}→${shape.currentEpochs} | ${pct(r.falseAlarm)} | ${pct(r.anySignificant)} | ${pct(r.power)} at ${Math.round(shape.drop * 100)} pts | ${pct(r.coveredNull)} | ${pct(r.coveredDrop)} | ${pct(r.halfWidth)} |`,
  );
});

console.log('\n--epochs auto: staged re-runs of the current side against a fixed baseline (100 tasks, realistic mix; O\'Brien–Fleming alpha spending, futility from a third of the trials)\n');
console.log('| baseline epochs | --max-epochs | A/A flagged "regressed" | power at 5 pts | mean trials A/A | mean trials at 5 pts | 3 full epochs | power of 3 fixed epochs, same baseline |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const ADAPTIVE_RUNS = Math.max(300, Math.round(SIMULATIONS / 2));
const adaptiveRows: AdaptiveSimulation[] = [
  { tasks: 100, baselineEpochs: 3, maxEpochs: 6, budgetEpochs: null, alpha: ALPHA },
  { tasks: 100, baselineEpochs: 10, maxEpochs: 5, budgetEpochs: null, alpha: ALPHA },
  { tasks: 100, baselineEpochs: 30, maxEpochs: 4, budgetEpochs: null, alpha: ALPHA },
  { tasks: 100, baselineEpochs: 30, maxEpochs: 5, budgetEpochs: null, alpha: ALPHA },
];
adaptiveRows.forEach((row, i) => {
  const r = simulateAdaptive(row, realistic, ADAPTIVE_RUNS, 5000 + i);
  const fixed = measure({ label: '', tasks: row.tasks, baselineEpochs: row.baselineEpochs, currentEpochs: 3, mixture: realistic, drop: 0.05 }, 6000 + i);
  if (r.falseAlarm > ALPHA / 2 + 3 * Math.sqrt((ALPHA / 2) * (1 - ALPHA / 2) / ADAPTIVE_RUNS)) failed = true;
  console.log(`| ${row.baselineEpochs} | ${row.maxEpochs} | ${pct(r.falseAlarm)} | ${pct(r.power)} | ${r.callsNull.toFixed(0)} | ${r.callsDrop.toFixed(0)} | ${row.tasks * 3} | ${pct(fixed.power)} |`);
});
console.log(`(${ADAPTIVE_RUNS} simulated A/A and A/B runs per row)`);

// compare --epochs auto: both sides staged. Fewer runs per row (each run is up to five staged looks).
const PAIRED_RUNS = Number(process.env['PAIRED_RUNS'] ?? 1000);
console.log(`\ncompare --epochs auto: both sides staged (100 tasks; more trials on both sides only while a task's pooled trials vary; exact McNemar over epoch-paired trials; O'Brien–Fleming spending; ${PAIRED_RUNS} simulated A/A and A/B runs per row)\n`);
console.log('| task mix | drop | design | A/A flagged "regressed" | A/A any verdict | power | calls per task per side A/A | calls per task per side at drop | CI coverage A/A | CI coverage A/B | target met |');
console.log('| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
const compareDesign: PairedSettings = { maxEpochs: 5, minEpochs: 2, budget: 3 * 2 * 100, alpha: ALPHA };
const pairedRows: Array<{ mix: string; mixture: Mixture; drop: number; shift?: 'logit'; design: string; settings: PairedSettings }> = [
  { mix: 'realistic', mixture: realistic, drop: 0.05, design: '--max-epochs 5 --budget 600 (3 epochs a side)', settings: compareDesign },
  { mix: 'realistic', mixture: realistic, drop: 0.05, design: 'no allocation: every task 3 a side (--max-epochs 3)', settings: { ...compareDesign, maxEpochs: 3, minEpochs: 3 } },
  { mix: 'realistic', mixture: realistic, drop: 0.05, design: '--max-epochs 5, no budget', settings: { ...compareDesign, budget: null } },
  { mix: 'realistic, logit shift', mixture: realistic, drop: 0.05, shift: 'logit', design: '--max-epochs 5 --budget 600', settings: compareDesign },
  { mix: 'realistic, logit shift', mixture: realistic, drop: 0.05, shift: 'logit', design: 'no allocation: every task 3 a side', settings: { ...compareDesign, maxEpochs: 3, minEpochs: 3 } },
  { mix: 'a third never vary', mixture: frozenThird, drop: 0.05, design: '--max-epochs 5 --budget 600', settings: compareDesign },
  { mix: 'a third never vary', mixture: frozenThird, drop: 0.05, design: 'no allocation: every task 3 a side', settings: { ...compareDesign, maxEpochs: 3, minEpochs: 3 } },
  { mix: 'realistic', mixture: realistic, drop: 0.08, design: '--max-epochs 5 --budget 600', settings: compareDesign },
  { mix: 'realistic', mixture: realistic, drop: 0.1, design: '--max-epochs 5 --budget 600', settings: compareDesign },
];
pairedRows.forEach((row, i) => {
  const r = simulatePairedAdaptive(row.settings, row.mixture, 100, PAIRED_RUNS, 7000 + i, row.drop, row.shift ?? 'scaled');
  const se = Math.sqrt((ALPHA / 2) * (1 - ALPHA / 2) / PAIRED_RUNS);
  if (r.falseAlarm > ALPHA / 2 + 3 * se || r.anyVerdict > ALPHA + 6 * se) failed = true;
  const met = r.power >= 0.8 && r.anyVerdict <= ALPHA && r.callsNull <= 3 && r.callsDrop <= 3;
  console.log(
    `| ${row.mix} | ${Math.round(row.drop * 100)} pts | ${row.design} | ${pct(r.falseAlarm)} | ${pct(r.anyVerdict)} | ${pct(r.power)} | ${r.callsNull.toFixed(2)} | ${r.callsDrop.toFixed(2)} | ${pct(r.coverageNull)} | ${pct(r.coverageDrop)} | ${met ? 'yes' : 'no'} |`,
  );
});
const mcPower = (p: number) => (100 * Math.sqrt((p * (1 - p)) / PAIRED_RUNS)).toFixed(1);
console.log(`(Monte-Carlo standard error with ${PAIRED_RUNS} runs: ±${mcPower(0.5)} points on a power near 50%, ±${mcPower(0.8)} near 80%, ±${mcPower(0.025)} on a 2.5% false-alarm rate)`);
const ceiling3 = oracleCeiling(realistic, 100, 3, 5, 500, 8000);
const ceiling3Wide = oracleCeiling(realistic, 100, 3, 30, 500, 8001);
console.log(`ceiling, realistic mix, 5 pts, 3 epochs a side: an oracle that knows every task's true pass probabilities and gives each pair of trials where it raises the expected Z most reaches ${pct(ceiling3)} (at most 5 a side) or ${pct(ceiling3Wide)} (at most 30 a side), fixed-sample normal power, 500 suites`);

console.log(`\ntook ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (failed) {
  console.error('a false-alarm rate exceeds alpha beyond simulation error');
  process.exitCode = 1;
}
