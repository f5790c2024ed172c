import { z } from 'zod';

/**
 * The model-graded rubric check: a judge model grades the trial against `rubric` with the fixed
 * prompt of src/judging/checks/rubricPrompt.ts. The runner (src/runner/rubricJudge.ts) asks the judge, or
 * replays its recorded answer, and records the verdict on a `check` span; src/judging/checks/rubricChecks.ts
 * judges from that span, so a re-scored trace gives the same verdict without calling the judge.
 */
export const RUBRIC_INCLUDES = ['answer', 'trajectory'] as const;
export type RubricInclude = (typeof RUBRIC_INCLUDES)[number];

export const RUBRIC_CHECK_SCHEMA = z.strictObject({
  type: z.literal('rubric'),
  rubric: z.string().trim().min(1, 'the rubric must say what a good answer is'),
  /** What the judge is shown of the trial (default: the answer only). */
  include: z.array(z.enum(RUBRIC_INCLUDES)).min(1).optional(),
  /** When given, the check passes only if the judge's score (0 to 1) is at least this, whatever its pass. */
  min_score: z.number().min(0).max(1).optional(),
});
export type RubricSpec = z.infer<typeof RUBRIC_CHECK_SCHEMA>;

/** How a verdict was obtained: asked of a live judge, replayed from a recording, or from a hand-written script. */
export const JUDGE_MODES = ['live', 'replayed', 'scripted'] as const;
export type JudgeMode = (typeof JUDGE_MODES)[number];

/** The judge's structured verdict, as parsed from its reply. */
export interface RubricVerdict {
  pass: boolean;
  /** 0 (fails the rubric entirely) to 1 (meets it fully). */
  score: number;
  reasoning: string;
}

/** What a rubric check's span records (`tracegate.check.facts`). */
export interface RubricFacts extends RubricVerdict {
  judge_model: string;
  mode: JudgeMode;
}

/** The judge of a run, as the report's run header names it. */
export const JudgeInfoSchema = z.object({
  model: z.string(),
  mode: z.enum(JUDGE_MODES),
  /** The live endpoint (null when replayed). */
  base_url: z.string().nullable(),
  /** The cassette folder replayed from, or recorded into. */
  cassettes: z.string().nullable(),
  recording: z.boolean(),
});
export type JudgeInfo = z.infer<typeof JudgeInfoSchema>;
