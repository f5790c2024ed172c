/**
 * npm run bench:gate — does the default gate cry wolf on a noisy agent, how often does it catch a
 * real 5-point drop, and do its intervals cover the true change? Agents are simulated with known
 * per-task pass probabilities; every simulated comparison goes through the verdicts the gate reads
 * (src/baseline/pairedVerdicts.ts: the paired test and each task's beyond-noise test), the staged
 * designs through the planners the CLI uses (src/statistics/adaptivePlan.ts, pairedAdaptivePlan.ts).
 *
 * Part 1 is the issue-19 table on the bench's own task mixture (no test uses it); part 2 checks the
 * paired test's level and coverage on every other shape of data the gate meets.
 */
import { estimateWeight, type PairedTask } from '../src/statistics/significance.js';
import { pairedVerdicts } from '../src/baseline/pairedVerdicts.js';
import type { PairedSettings } from '../src/statistics/pairedAdaptivePlan.js';
import { COMPARE_MIN_EPOCHS } from '../src/cli/epochsAuto.js';
import { simulateAdaptive } from './adaptiveSim.js';
import { fillRest, pooledWeight, probe, type AllocationRule } from './baselineAllocation.js';
import { applyDrop, type DropShape } from './dropShapes.js';
import { oracleCeiling, oracleLimit, simulatePairedAdaptive, type Mixture } from './pairedAdaptiveSim.js';
import { rng } from './seededRandom.js';

const RUNS = Number(process.env['SIMULATIONS'] ?? 1_000);
const STAGED_RUNS = Number(process.env['STAGED_RUNS'] ?? 600);
const SHAPE_RUNS = Number(process.env['SHAPE_RUNS'] ?? 500);
const ALPHA = 0.05;
const TASKS = 100;
const DROP = 0.05;
const started = performance.now();
const problems: string[] = [];

/**
 * The bench's mixture, used by no test: of 100 tasks, 30 always pass, 25 nearly always (0.85–1),
 * 25 middling (0.3–0.85), 10 hard (0.05–0.3) and 10 always fail.
 */
const benchMix: Mixture = (tasks, random) =>
  Array.from({ length: tasks }, (_, i) => {
    const at = i / tasks;
    if (at < 0.3) return 1;
    if (at < 0.55) return 0.85 + 0.15 * random();
    if (at < 0.8) return 0.3 + 0.55 * random();
    if (at < 0.9) return 0.05 + 0.25 * random();
    return 0;
  });

/** Wilson 95% interval of a Monte-Carlo proportion, as "x% [lo, hi]". */
function rate(hits: number, n: number): string {
  const p = hits / n;
  const z = 1.96;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  const f = (v: number) => (v * 100).toFixed(1);
  return `${f(p)}% [${f(Math.max(0, centre - half))}, ${f(Math.min(1, centre + half))}]`;
}
/** Hits above `limit` beyond three Monte-Carlo standard errors: a real excess, not chance. */
const over = (hits: number, n: number, limit: number) => hits / n > limit + 3 * Math.sqrt((limit * (1 - limit)) / n);

/**
 * GATE_MODE=allocation: the allocation probe alone (bench/baselineAllocation.ts) — current trials
 * spread unevenly by the 10-epoch baseline's passes, 3 a task on average, tested once at the end.
 */
function allocationProbe() {
  const runs = Number(process.env['ALLOCATION_RUNS'] ?? 600);
  const nb = 10;
  const settled = (b: number) => b === 0 || b === nb;
  const rules: AllocationRule[] = [
    { label: 'even: 3 a task (fixed 10 → 3)', classOf: () => 0, allocate: fillRest({}, 3), weight: pooledWeight(0.25) },
    { label: 'by p̂(1 − p̂): 1 where the baseline never varied (0/10, 10/10), the rest share, ≤ 5', classOf: (b) => (settled(b) ? 0 : 1), allocate: fillRest({ 0: 1 }, 5), weight: pooledWeight(0.25) },
    { label: 'the same, equal weights (the most powerful against a common logit shift)', classOf: (b) => (settled(b) ? 0 : 1), allocate: fillRest({ 0: 1 }, 5), weight: () => 1 },
    { label: '1 at 0/10, 2 at 9–10/10, the rest share, ≤ 6', classOf: (b) => (b === 0 ? 0 : b >= nb - 1 ? 2 : 1), allocate: fillRest({ 0: 1, 2: 2 }, 6), weight: pooledWeight(0.25) },
    { label: '1 at 0/10, the rest share, ≤ 4; weights (p̃(1 − p̃))^−½', classOf: (b) => (b === 0 ? 0 : 1), allocate: fillRest({ 0: 1 }, 4), weight: pooledWeight(0.5) },
  ];
  const hardSuite: Mixture = (tasks, random) => Array.from({ length: tasks }, () => 0.05 + 0.15 * random());
  const base = { tasks: TASKS, nb, budget: 3 * TASKS, alpha: ALPHA, runs, drop: DROP };
  console.log(`Allocation probe: ${TASKS} tasks, 10-epoch baseline, ${3 * TASKS} current trials, one test at the end (${runs} runs per cell; 95% Monte-Carlo intervals)\n`);
  console.log('| allocation by the baseline | current trials a task | "regressed" A/A, exact test | power, additive | power, logit | plain test\'s "regressed" A/A, suite of hard tasks (0.05–0.2) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  rules.forEach((rule, row) => {
    const seed = 500 + 10 * row;
    const exact = { ...base, conditional: true };
    const aa = probe(rule, benchMix, { ...exact, seed, shape: 'none' });
    const additive = probe(rule, benchMix, { ...exact, seed: seed + 1, shape: 'additive' });
    const logit = probe(rule, benchMix, { ...exact, seed: seed + 2, shape: 'logit' });
    const plain = probe(rule, hardSuite, { ...base, conditional: false, seed: seed + 3, shape: 'none' });
    if (over(aa.hits, runs, ALPHA / 2)) problems.push(`allocation probe A/A (${rule.label}): ${rate(aa.hits, runs)}`);
    console.log(`| ${rule.label} | ${additive.trialsPerTask.toFixed(2)} | ${rate(aa.hits, runs)} | ${rate(additive.hits, runs)} | ${rate(logit.hits, runs)} | ${rate(plain.hits, runs)} |`);
  });
}
if (process.env['GATE_MODE'] === 'allocation') {
  allocationProbe();
  if (problems.length) console.error(problems.join('\n'));
  process.exit(problems.length ? 1 : 0);
}

function trials(p: number, n: number, random: () => number, errorRate = 0) {
  let passed = 0;
  let judged = 0;
  for (let k = 0; k < n; k++) {
    if (errorRate > 0 && random() < errorRate) continue;
    judged++;
    if (random() < p) passed++;
  }
  return { passed, judged, errored: n - judged };
}

/** One simulated comparison at fixed epochs: what the default gate and the paired test say, and whether the interval covers the truth. */
function compare(pa: number[], pb: number[], nb: number, nc: number, random: () => number, errorRate = 0) {
  const tasks: PairedTask[] = [];
  const change: number[] = [];
  pa.forEach((p, i) => {
    const b = trials(p, nb, random, errorRate);
    const c = trials(pb[i]!, nc, random, errorRate);
    if (b.judged === 0 || c.judged === 0) return;
    tasks.push({ baseline: b, current: c, errored: { baseline: b.errored, current: c.errored } });
    change.push(pb[i]! - p);
  });
  const { significance, noise } = pairedVerdicts(tasks, ALPHA, { deterministic: false });
  const sig = significance!;
  // The estimand: the true change weighted as the estimate weighs the tasks.
  const w = tasks.map(estimateWeight);
  const total = w.reduce((s, x) => s + x, 0);
  const truth = total === 0 ? 0 : w.reduce((s, x, i) => s + x * change[i]!, 0) / total;
  return {
    sig,
    gateFails: sig.verdict === 'regressed' || noise.some((n) => n.beyond_noise),
    covered: sig.ci_low <= truth + 1e-12 && truth - 1e-12 <= sig.ci_high,
  };
}

// ---------------------------------------------------------------- part 1: the gate on the bench mix
console.log(`tracegate gate benchmark, part 1: ${TASKS} tasks of the bench mix (30 always pass, 25 at 0.85–1, 25 at 0.3–0.85, 10 at 0.05–0.3, 10 always fail), alpha ${ALPHA}; 95% Monte-Carlo intervals in brackets\n`);
console.log(`The default gate under noise (${RUNS} A/A comparisons per row; coverage also at a 5-point drop, ${RUNS} per shape)\n`);
console.log('| epochs base→current | default gate fails A/A | "regressed" A/A | any verdict A/A | CI coverage A/A | CI coverage, additive drop | CI coverage, logit drop |');
console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
const SHAPES: Array<[number, number]> = [[1, 1], [3, 3], [5, 5], [1, 3], [3, 1], [10, 3]];
SHAPES.forEach(([nb, nc], row) => {
  const random = rng(100 + row);
  const n = { fails: 0, regressed: 0, any: 0, covered: 0, coveredAdd: 0, coveredLogit: 0 };
  for (let s = 0; s < RUNS; s++) {
    const pa = benchMix(TASKS, random);
    const aa = compare(pa, pa, nb, nc, random);
    if (aa.gateFails) n.fails++;
    if (aa.sig.verdict === 'regressed') n.regressed++;
    if (aa.sig.verdict !== 'inconclusive') n.any++;
    if (aa.covered) n.covered++;
    if (compare(pa, applyDrop(pa, DROP, 'additive'), nb, nc, random).covered) n.coveredAdd++;
    if (compare(pa, applyDrop(pa, DROP, 'logit'), nb, nc, random).covered) n.coveredLogit++;
  }
  if (over(n.fails, RUNS, ALPHA)) problems.push(`default gate A/A at ${nb}→${nc}: ${rate(n.fails, RUNS)} > ${ALPHA}`);
  if (over(n.regressed, RUNS, ALPHA / 2)) problems.push(`"regressed" A/A at ${nb}→${nc}: ${rate(n.regressed, RUNS)} > ${ALPHA / 2}`);
  console.log(`| ${nb}→${nc} | ${rate(n.fails, RUNS)} | ${rate(n.regressed, RUNS)} | ${rate(n.any, RUNS)} | ${rate(n.covered, RUNS)} | ${rate(n.coveredAdd, RUNS)} | ${rate(n.coveredLogit, RUNS)} |`);
});

console.log(`\nPower at a ${DROP * 100}-point drop on ${TASKS} tasks (fixed rows: ${RUNS} runs; staged rows: ${STAGED_RUNS} A/A and ${STAGED_RUNS} A/B runs), beside the valid-test limit of the same design (a test that knows every task's true pass probabilities; normal power, 300 suites)\n`);
console.log('| design | current trials a task (A/B) | "regressed" A/A | power, additive drop | limit, additive | power, logit drop | limit, logit |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');

function limit(shape: DropShape, nb: number, current: Parameters<typeof oracleLimit>[3], seed: number): string {
  const random = rng(seed);
  let sum = 0;
  for (let s = 0; s < 300; s++) {
    const pa = benchMix(TASKS, random);
    sum += oracleLimit(pa, applyDrop(pa, DROP, shape), nb, current, ALPHA);
  }
  return pct(sum / 300);
}
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

function fixedRow(nb: number, nc: number, seed: number) {
  const random = rng(seed);
  const hits = { aa: 0, additive: 0, logit: 0 };
  for (let s = 0; s < RUNS; s++) {
    const pa = benchMix(TASKS, random);
    if (compare(pa, pa, nb, nc, random).sig.verdict === 'regressed') hits.aa++;
    for (const shape of ['additive', 'logit'] as const) if (compare(pa, applyDrop(pa, DROP, shape), nb, nc, random).sig.verdict === 'regressed') hits[shape]++;
  }
  console.log(`| fixed ${nb} → ${nc} epochs | ${nc} | ${rate(hits.aa, RUNS)} | ${rate(hits.additive, RUNS)} | ${limit('additive', nb, { nc }, seed)} | ${rate(hits.logit, RUNS)} | ${limit('logit', nb, { nc }, seed)} |`);
}
fixedRow(3, 3, 200);
fixedRow(5, 5, 201);
fixedRow(10, 3, 202);
fixedRow(10, 5, 203);

// run --epochs auto against a 10-epoch baseline: at most 3 current trials a task on average (--budget 300).
for (const [maxEpochs, seed] of [[5, 210], [8, 211]] as const) {
  const sim = { tasks: TASKS, baselineEpochs: 10, maxEpochs, budgetEpochs: 3, alpha: ALPHA };
  const additive = simulateAdaptive(sim, benchMix, STAGED_RUNS, seed, DROP, 'additive');
  const logit = simulateAdaptive(sim, benchMix, STAGED_RUNS, seed + 50, DROP, 'logit');
  const aaHits = Math.round(additive.falseAlarm * STAGED_RUNS);
  if (over(aaHits, STAGED_RUNS, ALPHA / 2)) problems.push(`run --epochs auto A/A: ${rate(aaHits, STAGED_RUNS)}`);
  const budget = { budget: 3 * TASKS, maxEpochs };
  console.log(
    `| run --epochs auto --max-epochs ${maxEpochs} --budget ${3 * TASKS}, 10-epoch baseline | ${(additive.callsDrop / TASKS).toFixed(2)} / ${(logit.callsDrop / TASKS).toFixed(2)} | ${rate(aaHits, STAGED_RUNS)} | ${rate(Math.round(additive.power * STAGED_RUNS), STAGED_RUNS)} | ${limit('additive', 10, budget, seed)} | ${rate(Math.round(logit.power * STAGED_RUNS), STAGED_RUNS)} | ${limit('logit', 10, budget, seed)} |`,
  );
}

// compare --epochs auto against the fixed comparison of the same average budget (3 a side).
const compareDesign: PairedSettings = { maxEpochs: 5, minEpochs: COMPARE_MIN_EPOCHS, budget: 2 * 3 * TASKS, alpha: ALPHA };
{
  const additive = simulatePairedAdaptive(compareDesign, benchMix, TASKS, STAGED_RUNS, 220, DROP, 'additive');
  const logit = simulatePairedAdaptive(compareDesign, benchMix, TASKS, STAGED_RUNS, 221, DROP, 'logit');
  const aaHits = Math.round(additive.falseAlarm * STAGED_RUNS);
  if (over(aaHits, STAGED_RUNS, ALPHA / 2)) problems.push(`compare --epochs auto A/A: ${rate(aaHits, STAGED_RUNS)}`);
  console.log(
    `| compare --epochs auto --max-epochs 5 --budget ${2 * 3 * TASKS} (both sides staged) | ${additive.callsDrop.toFixed(2)} / ${logit.callsDrop.toFixed(2)} | ${rate(aaHits, STAGED_RUNS)} | ${rate(Math.round(additive.power * STAGED_RUNS), STAGED_RUNS)} | ${pct(oracleCeiling(benchMix, TASKS, 3, 5, 300, 220, DROP, 'additive', ALPHA))} | ${rate(Math.round(logit.power * STAGED_RUNS), STAGED_RUNS)} | ${pct(oracleCeiling(benchMix, TASKS, 3, 5, 300, 221, DROP, 'logit', ALPHA))} |`,
  );
}

// ---------------------------------------------------------------- part 2: the paired test on every shape of data
/** The project's earlier mix: most tasks easy and stable, some hard, a few coin flips. */
const realistic: Mixture = (tasks, random) =>
  Array.from({ length: tasks }, () => {
    const kind = random();
    if (kind < 0.55) return 0.9 + random() * 0.1;
    if (kind < 0.85) return 0.4 + random() * 0.5;
    return 0.05 + random() * 0.35;
  });
/** A third of the tasks never vary (always pass or always fail), the rest spread evenly. */
const frozenThird: Mixture = (tasks, random) => Array.from({ length: tasks }, (_, i) => (i % 3 === 0 ? (random() < 0.7 ? 1 : 0) : 0.15 + random() * 0.8));
const allPass: Mixture = (tasks) => Array.from({ length: tasks }, () => 1);

interface Shape {
  label: string;
  tasks: number;
  nb: number;
  nc: number;
  mixture: Mixture;
  errorRate?: number;
  drop: number;
}
const shapes: Shape[] = [
  { label: 'realistic mix', tasks: 100, nb: 3, nc: 3, mixture: realistic, drop: 0.1 },
  { label: 'realistic mix', tasks: 100, nb: 1, nc: 1, mixture: realistic, drop: 0.1 },
  { label: 'unequal epochs', tasks: 100, nb: 1, nc: 3, mixture: realistic, drop: 0.1 },
  { label: 'tiny suite', tasks: 2, nb: 3, nc: 3, mixture: realistic, drop: 0.3 },
  { label: 'tiny suite', tasks: 10, nb: 3, nc: 3, mixture: realistic, drop: 0.3 },
  { label: 'all-pass suite', tasks: 20, nb: 3, nc: 3, mixture: allPass, drop: 0.1 },
  { label: 'partly errored (20% of trials)', tasks: 100, nb: 3, nc: 3, mixture: realistic, errorRate: 0.2, drop: 0.1 },
  { label: 'a third never vary', tasks: 100, nb: 3, nc: 3, mixture: frozenThird, drop: 0.1 },
  { label: 'a third never vary', tasks: 100, nb: 1, nc: 3, mixture: frozenThird, drop: 0.1 },
];
console.log(`\nPart 2: the default gate and the paired test on other shapes of data (${SHAPE_RUNS} A/A and ${SHAPE_RUNS} A/B comparisons per row, additive drop)\n`);
console.log('| data shape | tasks | epochs base→current | default gate fails A/A | "regressed" A/A | power at drop | CI coverage A/A | CI coverage A/B |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
shapes.forEach((shape, row) => {
  const random = rng(300 + row);
  const n = { fails: 0, regressed: 0, power: 0, covered: 0, coveredDrop: 0 };
  for (let s = 0; s < SHAPE_RUNS; s++) {
    const pa = shape.mixture(shape.tasks, random);
    const aa = compare(pa, pa, shape.nb, shape.nc, random, shape.errorRate);
    if (aa.gateFails) n.fails++;
    if (aa.sig.verdict === 'regressed') n.regressed++;
    if (aa.covered) n.covered++;
    const ab = compare(pa, applyDrop(pa, shape.drop, 'additive'), shape.nb, shape.nc, random, shape.errorRate);
    if (ab.sig.verdict === 'regressed') n.power++;
    if (ab.covered) n.coveredDrop++;
  }
  if (over(n.fails, SHAPE_RUNS, ALPHA)) problems.push(`default gate A/A on ${shape.label} ${shape.nb}→${shape.nc}: ${rate(n.fails, SHAPE_RUNS)}`);
  console.log(`| ${shape.label} | ${shape.tasks} | ${shape.nb}→${shape.nc} | ${rate(n.fails, SHAPE_RUNS)} | ${rate(n.regressed, SHAPE_RUNS)} | ${rate(n.power, SHAPE_RUNS)} at ${Math.round(shape.drop * 100)} pts | ${rate(n.covered, SHAPE_RUNS)} | ${rate(n.coveredDrop, SHAPE_RUNS)} |`);
});

console.log(`\ntook ${((performance.now() - started) / 1000).toFixed(1)} s`);
if (problems.length) {
  console.error(`a false-alarm rate exceeds its level beyond Monte-Carlo error:\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
}
