import { z } from 'zod';
import { AdaptiveRunSchema, AdaptiveTaskSchema } from './adaptive.js';
import { RunErrorSchema } from './runError.js';
import { DiffSchema } from './diff.js';
import { GateResultSchema } from './gate.js';
import { EvidenceSchema, FailureReasonSchema, LayerSchema, StatusSchema } from './taxonomy.js';
import { ModelInfoSchema } from './trace.js';
import { JUDGE_MODES, JudgeInfoSchema } from './rubric.js';

/** report.json: versioned, validated on write and on every read (baselines are reports). */
export const REPORT_SCHEMA_VERSION = 'report/v1';

export * from './taxonomy.js';

export const CheckResultSchema = z.object({
  type: z.string(),
  passed: z.boolean(),
  reason: z.string(),
  /** Span ids that support the verdict. */
  evidence: z.array(z.string()).default([]),
  /** A policy check failed because a forbidden call was executed or allowed. */
  violation: z.boolean().optional(),
  /** A rubric check: how its verdict was obtained (live, replayed from a cassette, scripted). */
  judge_mode: z.enum(JUDGE_MODES).optional(),
});
export type CheckResult = z.infer<typeof CheckResultSchema>;

/** usd over the priced trials; as_of: the date the price table was read. */
export const CostSummarySchema = z.object({ usd: z.number().nonnegative(), priced_trials: z.number().int().nonnegative(), trials: z.number().int().nonnegative(), as_of: z.string(), source: z.string() });
export type CostSummary = z.infer<typeof CostSummarySchema>;

const Tokens = z.object({ input: z.number(), output: z.number(), total: z.number() });

export const TrialSchema = z.object({
  epoch: z.number().int().nonnegative(),
  status: StatusSchema,
  failure_reason: FailureReasonSchema.nullable(),
  failure_layer: LayerSchema.nullable(),
  evidence: z.array(EvidenceSchema),
  checks: z.array(CheckResultSchema),
  steps: z.number().int().nonnegative(),
  exit_reason: z.string().nullable(),
  duration_ms: z.number().nonnegative(),
  tokens: Tokens,
  tool_calls: z.number().int().nonnegative(),
  tool_errors: z.number().int().nonnegative(),
  /** The model calls' cost in USD at the run's price table; absent when the model is not in it. */
  cost_usd: z.number().nonnegative().optional(),
  /** A recoverable tool error happened and the trial still passed. */
  recovered: z.boolean(),
  /** The trace has a compression span: the harness compressed the context (absent in older reports). */
  compressed: z.boolean().optional(),
  trace_file: z.string().nullable(),
  answer_preview: z.string().nullable(),
  error: RunErrorSchema.nullable(),
});
export type Trial = z.infer<typeof TrialSchema>;

export const TaskResultSchema = z.object({
  id: z.string(),
  tags: z.array(z.string()),
  fingerprint: z.string(),
  source: z.object({ file: z.string(), line: z.number().int() }),
  /** What the task asked, redacted: its prompt, or a policy task's tool call (absent in older reports). */
  prompt: z.string().nullable().optional(),
  /** passed: every judged trial passed; failed: one failed; errored: none could be judged. */
  status: StatusSchema,
  /** Passed trials over judged trials (null when none was judged). */
  pass_fraction: z.number().min(0).max(1).nullable(),
  flaky: z.boolean(),
  failure_reason: FailureReasonSchema.nullable(),
  failure_layer: LayerSchema.nullable(),
  evidence: z.array(EvidenceSchema),
  checks: z.array(CheckResultSchema),
  steps: z.number().nonnegative(),
  answer_preview: z.string().nullable(),
  trace_file: z.string().nullable(),
  duration_ms: z.number().nonnegative(),
  /** The sum of its priced trials' cost_usd; absent when none was priced. */
  cost_usd: z.number().nonnegative().optional(),
  error: RunErrorSchema.nullable(),
  trials: z.array(TrialSchema).min(1),
  /** Under --epochs auto: how many trials this task got and why no more. */
  adaptive: AdaptiveTaskSchema.optional(),
});
export type TaskResult = z.infer<typeof TaskResultSchema>;

const Distribution = z.object({ mean: z.number(), p50: z.number(), p90: z.number(), max: z.number() });
export type Distribution = z.infer<typeof Distribution>;

/** Trials where the rubric and the rule checks (every other check of the task) agree; rate = agree / trials. */
export const RubricAgreementSchema = z.object({
  trials: z.number().int().nonnegative(),
  agree: z.number().int().nonnegative(),
  rate: z.number().nullable(),
  /** The rubric passed where the rules failed, and the other way round. */
  rubric_only_passed: z.number().int().nonnegative(),
  rules_only_passed: z.number().int().nonnegative(),
});
export type RubricAgreement = z.infer<typeof RubricAgreementSchema>;

export const SummarySchema = z.object({
  total: z.number().int(),
  trials: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  errored: z.number().int(),
  /** Over judged trials: passed / (passed + failed). */
  pass_rate: z.number().nullable(),
  error_rate: z.number(),
  steps: Distribution,
  failure_reasons: z.record(z.string(), z.number()),
  failure_layers: z.record(z.string(), z.number()),
  tokens: Tokens,
  duration_ms: Distribution.extend({ total: z.number() }),
  tool_calls: z.number().int(),
  tool_errors: z.number().int(),
  tool_error_rate: z.number().nullable(),
  /** The run's model cost (absent when no trial's model is in the price table). */
  cost: CostSummarySchema.optional(),
  /** Judged trials whose context was compressed (absent in older reports). */
  compressed_trials: z.number().int().nonnegative().optional(),
  recovery_rate: z.number().nullable(),
  flaky: z.number().int(),
  epochs: z.number().int(),
  /** Share of tasks with at least one passing trial. */
  pass_at_k: z.number().nullable(),
  /** Share of tasks whose every trial passed (tau-bench's pass^k). */
  pass_hat_k: z.number().nullable(),
  /** On judged trials of tasks with both a rubric and a rule check: how often the rubric's verdict matches the rule checks'. */
  rubric_agreement: RubricAgreementSchema.optional(),
  by_tag: z.record(z.string(), z.object({ total: z.number(), passed: z.number(), pass_rate: z.number().nullable() })),
});
export type Summary = z.infer<typeof SummarySchema>;

export const RunInfoSchema = z.object({
  id: z.string(),
  started_at: z.string(),
  ended_at: z.string(),
  duration_ms: z.number(),
  tracegate_version: z.string(),
  suites: z.array(z.object({ path: z.string(), tasks: z.number().int(), sha256: z.string() })),
  adapter: z.string(),
  model: ModelInfoSchema,
  /** True when any model response came from a hand-written script rather than a model. */
  scripted: z.boolean(),
  variant: z.object({ name: z.string(), file: z.string().nullable() }).nullable(),
  policy: z.string(),
  sandbox: z.string(),
  /** Why that sandbox ran (`--sandbox auto` says whether bubblewrap works here). */
  sandbox_reason: z.string().optional(),
  epochs: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  shard: z.object({ index: z.number().int(), total: z.number().int() }).nullable(),
  /** The task selection and limits of the run (--tag, --grep, --max-steps, --timeout); merge compares them across shards. */
  selection: z
    .object({ tags: z.array(z.string()).nullable(), grep: z.string().nullable(), max_steps: z.number().int().nullable(), timeout_ms: z.number().int() })
    .optional(),
  interrupted: z.boolean(),
  /** Present when the run used --epochs auto (epochs is then the most any task could get). */
  adaptive: AdaptiveRunSchema.optional(),
  /** Trials the run set out to do (tasks × epochs); fewer in `summary.trials` means a partial run. */
  trials_planned: z.number().int().nonnegative().optional(),
  /** The judge model of the run's rubric checks (absent when no task has one). */
  judge: JudgeInfoSchema.optional(),
  /** Set by `merge`: the shard outputs this report joins. */
  merged_from: z.array(z.string()).optional(),
});
export type RunInfo = z.infer<typeof RunInfoSchema>;

export const RunReportSchema = z.object({
  schema_version: z.literal(REPORT_SCHEMA_VERSION),
  run: RunInfoSchema,
  summary: SummarySchema,
  tasks: z.array(TaskResultSchema),
  /** Filled by the baseline diff and the gate (src/baseline, src/gate). */
  diff: DiffSchema.optional(),
  gate: GateResultSchema.optional(),
});
export type RunReport = z.infer<typeof RunReportSchema>;
