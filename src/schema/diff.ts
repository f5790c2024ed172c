import { z } from 'zod';
import { EvidenceSchema, FailureReasonSchema, LayerSchema, StatusSchema } from './taxonomy.js';

export const TASK_CHANGES = [
  'regressed',
  'fixed',
  'reason_changed',
  'still_failing',
  'unchanged',
  'errored',
  'new',
  'removed',
] as const;
export const TaskChangeSchema = z.enum(TASK_CHANGES);
export type TaskChange = z.infer<typeof TaskChangeSchema>;

const Side = z.object({
  status: StatusSchema,
  pass_fraction: z.number().nullable(),
  failure_reason: FailureReasonSchema.nullable(),
  failure_layer: LayerSchema.nullable(),
  steps: z.number(),
  /** Trials of this task by outcome on this side (errored trials are not judged). */
  trials: z.object({ passed: z.number().int(), judged: z.number().int(), errored: z.number().int() }).optional(),
});

export const TaskDiffSchema = z.object({
  id: z.string(),
  change: TaskChangeSchema,
  /** The task's definition differs between the runs (prompt, checks, workspace path ...). */
  definition_changed: z.boolean(),
  baseline: Side.nullable(),
  current: Side.nullable(),
  evidence: z.array(EvidenceSchema),
  trace_file: z.string().nullable(),
  /** The baseline's trace of this task, relative to the current output folder, when it is on disk. */
  baseline_trace_file: z.string().nullable(),
  /** Paired tasks only: the one-sided exact p-value of this task's own fall (Fisher, on its judged trials). */
  drop_p: z.number().optional(),
  /**
   * Paired tasks only: its fall is beyond noise (Benjamini–Hochberg over the suite at alpha/2; with one
   * trial a side, the paired test's flip rule). What the default gate's max_regressions counts.
   */
  beyond_noise: z.boolean().optional(),
});
export type TaskDiff = z.infer<typeof TaskDiffSchema>;

export const MetricDiffSchema = z.object({
  name: z.string(),
  baseline: z.number().nullable(),
  current: z.number().nullable(),
  delta: z.number().nullable(),
  /** Which way is better, for the reader. */
  better: z.enum(['higher', 'lower']),
  note: z.string().optional(),
});
export type MetricDiff = z.infer<typeof MetricDiffSchema>;

/** The diff metric that says how often context compression ran: judged trials that compressed. */
export const COMPRESSION_METRIC = 'compressed_trial_rate';

/** The diff metrics that are fractions of 0..1, shown in points; the others (steps, tokens, latency) are shown as they are. */
export const RATE_METRICS: ReadonlySet<string> = new Set(['pass_rate', 'error_rate', 'tool_error_rate', 'recovery_rate', COMPRESSION_METRIC, 'pass_hat_k']);

export const SignificanceSchema = z.object({
  /** paired_t: older reports only; new ones use the exact tests. */
  method: z.enum(['exact_mcnemar', 'stratified_exact', 'stratified_normal', 'paired_t']),
  /** Tasks judged in both runs with an unchanged definition. */
  pairs: z.number().int(),
  regressed: z.number().int(),
  improved: z.number().int(),
  /**
   * The paired test's estimate of the change in pass rate (current − baseline; the drop figure is its
   * negative): each paired task's change in pass fraction weighted as the test weighs it.
   */
  delta: z.number(),
  /** The interval of the test that gave the verdict: it excludes 0 exactly when the verdict is not inconclusive. */
  ci_low: z.number(),
  ci_high: z.number(),
  confidence: z.number(),
  /** Never 0: an exact tail, or (with p_value_bound) the bound it is below when the tail underflows a double. */
  p_value: z.number(),
  /** True when p_value is an upper bound (the exact tail is below 1e-300). */
  p_value_bound: z.boolean().optional(),
  alpha: z.number(),
  verdict: z.enum(['regressed', 'improved', 'inconclusive']),
  /** Smallest pass-rate change this many tasks and epochs detect with 80% power at alpha. */
  minimum_detectable_effect: z.number().nullable(),
  explanation: z.string(),
  /** Which test ran and why (absent in older reports). */
  why: z.string().optional(),
  /** Paired tasks whose pooled trials were not all passes or all failures: the ones the test can use. */
  informative_pairs: z.number().int().optional(),
  /** The smallest p-value any outcome with these trial counts could give. */
  min_attainable_p: z.number().optional(),
  /** Why this comparison is weak (few pairs, unequal trial counts, many errored trials); empty when it is not. */
  weak: z.array(z.string()).optional(),
  trials: z
    .object({ baseline_judged: z.number().int(), current_judged: z.number().int(), baseline_errored: z.number().int(), current_errored: z.number().int() })
    .optional(),
  interval_method: z.string().optional(),
});
export type Significance = z.infer<typeof SignificanceSchema>;

export const DiffSchema = z.object({
  baseline: z.object({
    file: z.string(),
    run_id: z.string(),
    started_at: z.string(),
    model: z.string(),
    scripted: z.boolean(),
    variant: z.string().nullable(),
  }),
  notes: z.array(z.string()),
  counts: z.record(TaskChangeSchema, z.number().int()),
  tasks: z.array(TaskDiffSchema),
  metrics: z.array(MetricDiffSchema),
  failure_layers: z.record(z.string(), z.object({ baseline: z.number(), current: z.number() })),
  failure_reasons: z.record(z.string(), z.object({ baseline: z.number(), current: z.number() })),
  significance: SignificanceSchema.nullable(),
});
export type Diff = z.infer<typeof DiffSchema>;
