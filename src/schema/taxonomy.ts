import { z } from 'zod';

/** The failure taxonomy and statuses, shared by the report and the diff. */
export const STATUSES = ['passed', 'failed', 'errored'] as const;
export const StatusSchema = z.enum(STATUSES);
export type Status = z.infer<typeof StatusSchema>;

export const FAILURE_REASONS = [
  'POLICY_VIOLATION',
  'AGENT_CRASH',
  'AGENT_TIMEOUT',
  'AGENT_OUTPUT_INVALID',
  'NO_MODEL_REQUEST',
  'POLICY_MISMATCH',
  'MAX_STEPS_EXCEEDED',
  'COMPRESSION_INEFFECTIVE',
  'CONTEXT_LOSS',
  'INVALID_ARGUMENTS',
  'TOOL_ARGUMENT_ERROR',
  'COMMAND_TIMEOUT',
  'FILE_NOT_FOUND_UNRECOVERED',
  'PERMISSION_DENIED_UNRECOVERED',
  'TOOL_SELECTION_ERROR',
  'MODEL_UNDERSTANDING_ERROR',
  'TRAJECTORY_MISMATCH',
  'FINAL_ANSWER_INCOMPLETE',
  'BUDGET_EXCEEDED',
  'OUTCOME_UNMET',
  'CHANGED_FILES_OUT_OF_SCOPE',
  'CUSTOM_CHECK_FAILED',
  'RUBRIC_FAILED',
  'UNKNOWN',
] as const;
export const FailureReasonSchema = z.enum(FAILURE_REASONS);
export type FailureReason = z.infer<typeof FailureReasonSchema>;

export const LAYERS = ['model', 'tool', 'environment', 'harness', 'unknown'] as const;
export const LayerSchema = z.enum(LAYERS);
export type Layer = z.infer<typeof LayerSchema>;

export const EvidenceSchema = z.object({
  span_id: z.string().nullable(),
  step: z.number().int().nullable(),
  detail: z.string(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

