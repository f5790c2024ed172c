import { z } from 'zod';

/** What `--epochs auto` did: its settings, each stage's look, and why it stopped (report.json run.adaptive). */
export const AdaptiveRunSchema = z.object({
  max_epochs: z.number().int().positive(),
  /** Most trials (agent runs) allowed for the whole run; null when only --max-epochs bounds it. */
  budget_trials: z.number().int().positive().nullable(),
  budget_tokens: z.number().int().positive().nullable(),
  trials_run: z.number().int(),
  tokens_used: z.number(),
  /** Overall alpha, spent over the looks by a Lan–DeMets O'Brien–Fleming-type function. */
  alpha: z.number(),
  /** Nominal level of the look the run stopped at: the diff's paired test uses it. */
  final_level: z.number(),
  stages: z.array(
    z.object({
      stage: z.number().int().positive(),
      trials_run: z.number().int(),
      /** Information fraction: null variance of the statistic now over its estimate at the end of the run. */
      fraction: z.number(),
      /** Two-sided critical |Z| of this look. */
      boundary: z.number(),
      p_value: z.number(),
      level: z.number(),
      verdict: z.enum(['regressed', 'improved', 'inconclusive']),
      rerun: z.number().int(),
    }),
  ),
  stop_reason: z.string(),
  /** `compare --epochs auto`: both variants were staged; budget_trials and calls_both_sides count both sides' model calls. */
  sides: z.enum(['current', 'both']).optional(),
  calls_both_sides: z.number().int().optional(),
});
export type AdaptiveRun = z.infer<typeof AdaptiveRunSchema>;

/** Per task under `--epochs auto`: how many trials it got and why no more. */
export const AdaptiveTaskSchema = z.object({ trials: z.number().int(), reason: z.string() });
export type AdaptiveTask = z.infer<typeof AdaptiveTaskSchema>;
