import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import { runAdaptive } from '../runner/adaptiveEpochs.js';
import { runPairedAdaptive, type ExecuteSide } from '../runner/pairedAdaptiveEpochs.js';
import type { RunReport } from '../schema/report.js';
import type { Task } from '../schema/task.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './errors.js';

/** The flags of `run` that --epochs auto reads. */
export interface EpochsFlags {
  epochs: number | 'auto';
  maxEpochs?: number;
  budget?: number;
  budgetTokens?: number;
  baseline?: string;
  resume: boolean;
}

/** `compare --epochs auto`: one side's stages, run together with the other side's; resolves to that side's report. */
export type PairedSide = (tasks: Task[], execute: ExecuteSide) => Promise<RunReport>;


/**
 * `run --epochs auto` without --budget or --budget-tokens spends at most this many current trials a
 * task on average: against a baseline recorded once with many epochs (the rich-baseline workflow),
 * that is where the paired test gets most of its power per call (docs/statistics.md).
 */
export const AUTO_TRIALS_PER_TASK = 3;

/** The most trials a task can get: --epochs K, or --max-epochs with --epochs auto. */
export function epochCount(flags: Pick<EpochsFlags, 'epochs' | 'maxEpochs'>): number {
  return flags.epochs === 'auto' ? (flags.maxEpochs ?? RUN_DEFAULTS.maxEpochs) : flags.epochs;
}

/** Most trials (tasks × epochs) one run may plan: its journal, report and copies of workspaces grow with it. */
export const MAX_TRIALS = 1_000_000;

/** A run that plans more trials than MAX_TRIALS is bad input, before anything runs. */
export function checkTrialCount(tasks: number, flags: EpochsFlags): void {
  const count = epochCount(flags);
  if (tasks * count > MAX_TRIALS) {
    throw new CliError(`${tasks} tasks × ${count} epochs = ${tasks * count} trials; a run holds at most ${MAX_TRIALS} (fewer --epochs, or split the run with --shard)`, EXIT.BAD_INPUT);
  }
}

/** --max-epochs and the budgets only mean something with --epochs auto, which needs a readable baseline. */
export function checkEpochsFlags(flags: EpochsFlags): void {
  const extras = [flags.maxEpochs !== undefined && '--max-epochs', flags.budget !== undefined && '--budget', flags.budgetTokens !== undefined && '--budget-tokens'].filter(Boolean);
  if (flags.epochs !== 'auto' && extras.length) throw new CliError(`${extras.join(', ')} need --epochs auto`, EXIT.BAD_INPUT);
  if (flags.epochs !== 'auto') return;
  // The baseline itself is read once, with the gate's inputs (loadGateInputs): a bad one is exit 2 there.
  if (!flags.baseline) throw new CliError('--epochs auto needs --baseline: stages re-run only where more trials can still move the verdict against it', EXIT.BAD_INPUT);
}

/**
 * Runs --epochs auto through `execute` (one call per stage) at the resolved run's significance level
 * (the gate's, from --alpha or the gate file), against its baseline (read once). The report records under `run.adaptive.final_level` the
 * level of the look the run stopped at, which the diff's paired test then uses (finishReport).
 */
export async function runEpochsAuto(flags: EpochsFlags, tasks: Task[], execute: ExecuteSide, run: { alpha: number; maxEpochs: number; baseline: RunReport | null }, pairedSide?: PairedSide): Promise<RunReport> {
  if (pairedSide) return pairedSide(tasks, execute);
  if (!run.baseline) throw new CliError('--epochs auto needs --baseline: stages re-run only where more trials can still move the verdict against it', EXIT.BAD_INPUT);
  const adaptive = await runAdaptive({
    maxEpochs: run.maxEpochs,
    budgetTrials: flags.budget ?? (flags.budgetTokens === undefined ? AUTO_TRIALS_PER_TASK * tasks.length : null),
    budgetTokens: flags.budgetTokens ?? null,
    alpha: run.alpha,
    baseline: run.baseline,
    tasks,
    resume: flags.resume,
    execute,
    log: (line) => process.stderr.write(`epochs auto: ${line}\n`),
  });
  return adaptive.report;
}

/**
 * Trials a side every task gets under `compare --epochs auto` before "its trials all agree" stops it.
 * Three, the fixed comparison's usual epochs: a task that passed 2 of 2 on each side may still be the
 * one a drop shows in, and stopping it there made the staged design weaker than a fixed 3 → 3 under
 * an additive drop (bench:gate).
 */
export const COMPARE_MIN_EPOCHS = 3;

/** `compare`: --max-epochs and the budgets only mean something with --epochs auto (no baseline file needed). */
export function checkCompareEpochsFlags(flags: EpochsFlags): void {
  const extras = [flags.maxEpochs !== undefined && '--max-epochs', flags.budget !== undefined && '--budget', flags.budgetTokens !== undefined && '--budget-tokens'].filter(Boolean);
  if (flags.epochs !== 'auto' && extras.length) throw new CliError(`${extras.join(', ')} need --epochs auto`, EXIT.BAD_INPUT);
  if (flags.epochs === 'auto' && flags.baseline) throw new CliError('compare --epochs auto: A is the baseline; drop --baseline', EXIT.BAD_INPUT);
}

/**
 * `compare --epochs auto`: both sides run in stages together at significance level `alpha`. Each
 * side's `runInto` hands its executor to `side('a')` / `side('b')` ;
 * once both have, the stages run (src/runner/pairedAdaptiveEpochs.ts) and each side gets its own
 * final report, whose `run.adaptive.final_level` the diff of B against A uses.
 */
export function pairedEpochsAuto(flags: EpochsFlags, alpha: number): { side: (name: 'a' | 'b') => PairedSide } {
  const executors: Partial<Record<'a' | 'b', ExecuteSide>> = {};
  let ready: (tasks: Task[]) => void = () => undefined;
  const both = new Promise<Task[]>((resolve) => (ready = resolve));
  const result = both.then((tasks) =>
    runPairedAdaptive(
      {
        maxEpochs: epochCount(flags),
        minEpochs: COMPARE_MIN_EPOCHS,
        budgetCalls: flags.budget ?? null,
        budgetTokens: flags.budgetTokens ?? null,
        alpha,
        tasks,
        resume: flags.resume,
        log: (line) => process.stderr.write(`epochs auto: ${line}\n`),
      },
      executors.a!,
      executors.b!,
    ),
  );
  const side = (name: 'a' | 'b') => async (tasks: Task[], execute: ExecuteSide) => {
    executors[name] = execute;
    if (executors.a && executors.b) ready(tasks);
    return (await result)[name];
  };
  return { side };
}
