import { readReport } from '../baseline/baselineFile.js';
import { runAdaptive } from '../runner/adaptiveEpochs.js';
import { runPairedAdaptive, type ExecuteSide } from '../runner/pairedAdaptiveEpochs.js';
import type { RunReport } from '../schema/report.js';
import type { Task } from '../schema/task.js';
import { CliError, EXIT } from './exitCodes.js';

/** The flags of `run` that --epochs auto reads. */
export interface EpochsFlags {
  epochs: number | 'auto';
  maxEpochs?: number;
  budget?: number;
  budgetTokens?: number;
  baseline?: string;
  alpha?: number;
  resume: boolean;
}

/** `compare --epochs auto`: one side's stages, run together with the other side's; resolves to that side's report. */
export type PairedSide = (tasks: Task[], execute: ExecuteSide) => Promise<RunReport>;

/** What --epochs auto returns: the report and the significance level of the look it stopped at. */
export interface EpochsAutoResult {
  report: RunReport;
  /** The diff's paired test must use this level (alpha is spent over the looks); null: the side of a pair (compare holds the level). */
  alpha: number | null;
}

const DEFAULT_MAX_EPOCHS = 5;

/** The most trials a task can get: --epochs K, or --max-epochs with --epochs auto. */
export function epochCount(flags: EpochsFlags): number {
  return flags.epochs === 'auto' ? (flags.maxEpochs ?? DEFAULT_MAX_EPOCHS) : flags.epochs;
}

/** --max-epochs and the budgets only mean something with --epochs auto, which needs a readable baseline. */
export function checkEpochsFlags(flags: EpochsFlags): void {
  const extras = [flags.maxEpochs !== undefined && '--max-epochs', flags.budget !== undefined && '--budget', flags.budgetTokens !== undefined && '--budget-tokens'].filter(Boolean);
  if (flags.epochs !== 'auto' && extras.length) throw new CliError(`${extras.join(', ')} need --epochs auto`, EXIT.BAD_INPUT);
  if (flags.epochs !== 'auto') return;
  if (!flags.baseline) throw new CliError('--epochs auto needs --baseline: stages re-run only where more trials can still move the verdict against it', EXIT.BAD_INPUT);
  readReport(flags.baseline); // a bad baseline is exit 2 before any trial
}

/**
 * Runs --epochs auto through `execute` (one call per stage); returns the report and the level of the
 * look the run stopped at, which the diff's paired test must use.
 */
export async function runEpochsAuto(flags: EpochsFlags, tasks: Task[], execute: ExecuteSide, pairedSide?: PairedSide): Promise<EpochsAutoResult> {
  if (pairedSide) return { report: await pairedSide(tasks, execute), alpha: null };
  checkEpochsFlags(flags);
  const adaptive = await runAdaptive({
    maxEpochs: epochCount(flags),
    budgetTrials: flags.budget ?? null,
    budgetTokens: flags.budgetTokens ?? null,
    alpha: flags.alpha ?? 0.05,
    baseline: readReport(flags.baseline!),
    tasks,
    resume: flags.resume,
    execute,
    log: (line) => process.stderr.write(`epochs auto: ${line}\n`),
  });
  return { report: adaptive.report, alpha: adaptive.finalLevel };
}

/** Trials a side every task gets under `compare --epochs auto` before "its trials all agree" stops it. */
export const COMPARE_MIN_EPOCHS = 2;

/** `compare`: --max-epochs and the budgets only mean something with --epochs auto (no baseline file needed). */
export function checkCompareEpochsFlags(flags: EpochsFlags): void {
  const extras = [flags.maxEpochs !== undefined && '--max-epochs', flags.budget !== undefined && '--budget', flags.budgetTokens !== undefined && '--budget-tokens'].filter(Boolean);
  if (flags.epochs !== 'auto' && extras.length) throw new CliError(`${extras.join(', ')} need --epochs auto`, EXIT.BAD_INPUT);
  if (flags.epochs === 'auto' && flags.baseline) throw new CliError('compare --epochs auto: A is the baseline; drop --baseline', EXIT.BAD_INPUT);
}

/**
 * `compare --epochs auto`: both sides run in stages together. Each side's `runInto` hands its
 * executor to `side('a')` / `side('b')`; once both have, the stages run
 * (src/runner/pairedAdaptiveEpochs.ts) and each side gets its own final report. `finalLevel()` is the
 * level of the look the run stopped at, which the diff of B against A must use.
 */
export function pairedEpochsAuto(flags: EpochsFlags): { side: (name: 'a' | 'b') => PairedSide; finalLevel: () => number } {
  const executors: Partial<Record<'a' | 'b', ExecuteSide>> = {};
  let ready: (tasks: Task[]) => void = () => undefined;
  const both = new Promise<Task[]>((resolve) => (ready = resolve));
  let level = flags.alpha ?? 0.05;
  const result = both.then((tasks) =>
    runPairedAdaptive(
      {
        maxEpochs: epochCount(flags),
        minEpochs: COMPARE_MIN_EPOCHS,
        budgetCalls: flags.budget ?? null,
        budgetTokens: flags.budgetTokens ?? null,
        alpha: flags.alpha ?? 0.05,
        tasks,
        resume: flags.resume,
        log: (line) => process.stderr.write(`epochs auto: ${line}\n`),
      },
      executors.a!,
      executors.b!,
    ).then((r) => {
      level = r.finalLevel;
      return r;
    }),
  );
  const side = (name: 'a' | 'b') => async (tasks: Task[], execute: ExecuteSide) => {
    executors[name] = execute;
    if (executors.a && executors.b) ready(tasks);
    return (await result)[name];
  };
  return { side, finalLevel: () => level };
}
