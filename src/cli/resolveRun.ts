import { resolveSystem, secretsOf, type SystemPlan } from '../adapters/resolveSystem.js';
import type { RunInfo, RunReport } from '../schema/report.js';
import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import { resolveJudgePlan, type JudgeFlags, type JudgePlan } from '../runner/judgePlan.js';
import type { Task } from '../schema/task.js';
import { epochCount } from './epochsAuto.js';
import type { GateInputs } from './finishReport.js';
import type { LoadedVariant } from './variantOption.js';

/** What `resolveRun` reads besides the flags: the suites' selection and header, the variant, the gate inputs (each file read once, before). */
export interface RunInputs {
  suiteDefaults: Parameters<typeof resolveSystem>[0]['suite'] & { judgeCassettes?: string | null };
  policyTasksOnly: boolean;
  variant: LoadedVariant | null;
  gate: Pick<GateInputs, 'rules' | 'baseline'>;
  /** The run's selected tasks (every shard's): one with a rubric check needs a judge. */
  tasks?: readonly Task[];
}

/** The flags resolveRun reads (a subset of RunFlags, so it stays testable on its own). */
export type ResolveFlags = Parameters<typeof resolveSystem>[0]['flags'] & {
  concurrency: number;
  epochs: number | 'auto';
  maxEpochs?: number | undefined;
  tag?: string[] | undefined;
  grep?: string | undefined;
} & Partial<Omit<JudgeFlags, 'apiKeyEnv'>>;

/**
 * Everything that decides what a run does, decided once (Inspect AI's ResolvedTask). Adapters, the
 * runner, run-settings.json, the report's run header and the --resume check read this and decide
 * nothing. Frozen: nothing writes into it after it is built.
 */
export interface ResolvedRun {
  /** Which system and which model run (the adapter's plan). */
  readonly system: SystemPlan;
  /** Values every artifact redacts: the upstream key, the HTTP agent's header values. */
  readonly secrets: readonly string[];
  /** Which system runs, as the header names it: "the reference harness", `--agent-cmd …`, `--agent-url …`. */
  readonly agent: string;
  readonly variant: LoadedVariant | null;
  /** Step limit for tasks that set none, and where it came from. */
  readonly maxSteps: number;
  readonly maxStepsFrom: 'flag' | 'variant' | 'default';
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly epochs: number | 'auto';
  /** The most trials a task can get: --epochs K, or --max-epochs (default) with --epochs auto. */
  readonly maxEpochs: number;
  /** The significance level of the paired test and of --epochs auto: --alpha, the gate file, or the default. */
  readonly alpha: number;
  /** The baseline report, read once (null without --baseline, and for compare, whose baseline is variant A). */
  readonly baseline: RunReport | null;
  /** Which tasks were selected and the limits they ran under, as the report records them. */
  readonly selection: RunInfo['selection'];
  /** Where rubric checks get their verdicts (--judge-model, --judge-cassettes, or none). */
  readonly judge: JudgePlan;
}

function agentOf(flags: ResolveFlags): string {
  if (flags.agentCmd) return `--agent-cmd ${flags.agentCmd}`;
  if (flags.agentUrl) return `--agent-url ${flags.agentUrl}`;
  return 'the reference harness';
}

/**
 * The one module that decides what runs: builds the frozen ResolvedRun from the flags, the
 * environment, the suite header, the variant and the gate inputs and defaults (src/schema/runDefaults.ts).
 * A combination that cannot run throws (AdapterConfigError: exit 2) before any trial.
 */
export function resolveRun(flags: ResolveFlags, env: Readonly<Record<string, string | undefined>>, inputs: RunInputs): ResolvedRun {
  const { variant } = inputs;
  const system = resolveSystem({ flags, env, suite: inputs.suiteDefaults, variant, policyTasksOnly: inputs.policyTasksOnly });
  const variantSteps = variant?.settings.harness.maxSteps;
  const maxStepsFrom = flags.maxSteps !== undefined ? 'flag' : variantSteps !== undefined ? 'variant' : 'default';
  const maxSteps = system.adapter === 'harness' ? (system.settings.maxSteps ?? RUN_DEFAULTS.maxSteps) : system.maxSteps;
  const resolved: ResolvedRun = {
    system: Object.freeze(system),
    secrets: Object.freeze(secretsOf({ flags, env })),
    agent: agentOf(flags),
    variant,
    maxSteps,
    maxStepsFrom,
    timeoutMs: flags.timeout,
    concurrency: flags.concurrency,
    epochs: flags.epochs,
    maxEpochs: epochCount(flags),
    alpha: inputs.gate.rules.alpha ?? RUN_DEFAULTS.alpha,
    baseline: inputs.gate.baseline?.report ?? null,
    judge: Object.freeze(resolveJudgePlan(flags, env, inputs.tasks ?? [], inputs.suiteDefaults.judgeCassettes ?? null)),
    selection: Object.freeze({ tags: flags.tag?.length ? flags.tag : null, grep: flags.grep ?? null, max_steps: maxSteps, timeout_ms: flags.timeout }),
  };
  return Object.freeze(resolved);
}
