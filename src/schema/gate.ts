import { z } from 'zod';
import { RUN_DEFAULTS } from './runDefaults.js';

export const GATE_SCHEMA_VERSION = 'gate/v1';

const Rate = z.number().min(0).max(1);

/** The paired test's significance level when neither --alpha nor the gate file gives one. */
export const DEFAULT_ALPHA = RUN_DEFAULTS.alpha;

/** Gate rules, from a gate file or flags. Rates are fractions (0.8 = 80%). */
export const GateRulesSchema = z.strictObject({
  schema_version: z.literal(GATE_SCHEMA_VERSION).optional(),
  min_pass_rate: Rate.optional(),
  /** Largest allowed fall of the pass rate against the baseline, in fraction points (0.05 = 5 points). */
  max_drop: Rate.optional(),
  /** Most paired tasks whose own fall is beyond noise (exact per-task test, Benjamini–Hochberg over the suite). */
  max_regressions: z.number().int().nonnegative().optional(),
  /** Most tasks that went from pass to fail, noise or not: for deterministic suites (policy tasks, replayed cassettes). */
  max_tasks_down: z.number().int().nonnegative().optional(),
  must_pass_tags: z.array(z.string().min(1)).optional(),
  max_error_rate: Rate.optional(),
  /** Largest allowed rise of the cost per trial against the baseline, a fraction of it (0.1 = 10%). */
  max_cost_increase: z.number().nonnegative().optional(),
  /** Fail when the paired test finds a significant regression. */
  no_significant_regression: z.boolean().optional(),
  alpha: z.number().gt(0).lt(1).optional(),
});
export type GateRules = z.infer<typeof GateRulesSchema>;

export const GateRuleResultSchema = z.object({
  rule: z.string(),
  passed: z.boolean(),
  expected: z.string(),
  actual: z.string(),
  detail: z.string().optional(),
});
export type GateRuleResult = z.infer<typeof GateRuleResultSchema>;

export const GateResultSchema = z.object({
  passed: z.boolean(),
  /** The rules as applied (after defaults). */
  rules: GateRulesSchema,
  /** Where the rules came from: a file, flags, or the defaults. */
  source: z.string(),
  results: z.array(GateRuleResultSchema),
});
export type GateResult = z.infer<typeof GateResultSchema>;
