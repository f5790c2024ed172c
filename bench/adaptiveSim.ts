/** Simulated `--epochs auto` runs against a fixed baseline, driven by the same planner the CLI uses. */
import { rng } from './seededRandom.js';
import { applyDrop, type DropShape } from './dropShapes.js';
import { planNextStage, type AdaptiveSettings, type TaskTrials } from '../src/statistics/adaptivePlan.js';

export interface AdaptiveSimulation {
  tasks: number;
  baselineEpochs: number;
  maxEpochs: number;
  /** Budget in current trials per task (3 = three full epochs); null: --max-epochs bounds it. */
  budgetEpochs: number | null;
  alpha: number;
}

function run(sim: AdaptiveSimulation, base: number[], cur: number[], random: () => number) {
  const settings: AdaptiveSettings = { maxEpochs: sim.maxEpochs, budget: sim.budgetEpochs === null ? null : sim.budgetEpochs * sim.tasks, alpha: sim.alpha };
  const tasks: TaskTrials[] = base.map((p, i) => {
    let passed = 0;
    for (let k = 0; k < sim.baselineEpochs; k++) if (random() < p) passed++;
    return { id: `t${i}`, baseline: { passed, judged: sim.baselineEpochs }, current: { passed: 0, judged: 0, errored: 0 } };
  });
  const once = (i: number) => {
    tasks[i]!.current.judged++;
    if (random() < cur[i]!) tasks[i]!.current.passed++;
  };
  tasks.forEach((_, i) => once(i));
  let spent = tasks.length;
  const fractions: number[] = [];
  for (let stage = 1; ; stage++) {
    const decision = planNextStage(tasks, stage, spent, settings, fractions);
    fractions.push(decision.look.fraction);
    if (decision.done) return { verdict: decision.look.verdict, calls: spent };
    for (const id of decision.rerun) once(Number(id.slice(1)));
    spent += decision.rerun.length;
  }
}

export function simulateAdaptive(sim: AdaptiveSimulation, mixture: (tasks: number, random: () => number) => number[], runs: number, seed: number, drop = 0.05, shape: DropShape = 'additive') {
  const random = rng(seed);
  let falseAlarm = 0;
  let power = 0;
  let callsNull = 0;
  let callsDrop = 0;
  for (let r = 0; r < runs; r++) {
    const base = mixture(sim.tasks, random);
    const aa = run(sim, base, base, random);
    if (aa.verdict === 'regressed') falseAlarm++;
    callsNull += aa.calls;
    const ab = run(sim, base, applyDrop(base, drop, shape), random);
    if (ab.verdict === 'regressed') power++;
    callsDrop += ab.calls;
  }
  return { falseAlarm: falseAlarm / runs, power: power / runs, callsNull: callsNull / runs, callsDrop: callsDrop / runs };
}
