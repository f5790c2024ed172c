import { z } from 'zod';

/**
 * Trace v1: one task run, OpenTelemetry-shaped. This is the contract between an agent (the
 * reference harness or any external one) and the platform; everything the platform judges is here.
 */
export const TRACE_SCHEMA_VERSION = 'trace/v1';

export const ERROR_TYPES = [
  'FILE_NOT_FOUND',
  'INVALID_ARGUMENTS',
  'UNKNOWN_TOOL',
  'PERMISSION_DENIED',
  'COMMAND_BLOCKED',
  'APPROVAL_DENIED',
  'COMMAND_TIMEOUT',
  'COMMAND_FAILED',
  'PATH_OUTSIDE_WORKSPACE',
  'OUTPUT_TRUNCATED',
  'DIVISION_BY_ZERO',
  /** An MCP tool answered with `isError`: the tool ran and reported a failure. */
  'TOOL_ERROR',
  /** A limit of the agent's framework (time, tokens, messages) stopped the call; from imported traces. */
  'LIMIT_EXCEEDED',
] as const;
export const ErrorTypeSchema = z.enum(ERROR_TYPES);
export type ErrorType = z.infer<typeof ErrorTypeSchema>;

/**
 * Error types that stand for a family: the seeds call every refusal `PERMISSION_DENIED`, while the
 * harness says which guard refused (the shell policy, the approver, the workspace boundary). A task
 * expecting the family's name is met by any member; the classifier reads the same family.
 */
export const ERROR_TYPE_FAMILIES: Partial<Record<ErrorType, readonly ErrorType[]>> = {
  PERMISSION_DENIED: ['PERMISSION_DENIED', 'COMMAND_BLOCKED', 'APPROVAL_DENIED', 'PATH_OUTSIDE_WORKSPACE'],
};

/** True when a tool result's error type meets an expected one (itself, or a member of its family). */
export function errorTypeMeets(actual: string | null, expected: string): boolean {
  if (actual === null) return false;
  return actual === expected || (ERROR_TYPE_FAMILIES[expected as ErrorType]?.includes(actual as ErrorType) ?? false);
}

export const PolicyDecisionSchema = z.enum(['allow', 'deny', 'require_approval']);
export type PolicyDecision = z.infer<typeof PolicyDecisionSchema>;

export const RiskLevelSchema = z.enum(['low', 'medium', 'high']);
export type RiskLevel = z.infer<typeof RiskLevelSchema>;

/** `unknown`: an imported trace whose source format does not say how the run ended. */
export const ExitReasonSchema = z.enum(['completed', 'max_steps', 'error', 'refused', 'unknown']);
export type ExitReason = z.infer<typeof ExitReasonSchema>;

export const SpanKindSchema = z.enum(['agent', 'llm', 'tool', 'compression', 'check']);
export type SpanKind = z.infer<typeof SpanKindSchema>;

export type AttributeValue = string | number | boolean | null | string[];

function isAttributeValue(value: unknown): value is AttributeValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      return value === null || (Array.isArray(value) && value.every((item) => typeof item === 'string'));
    default:
      return false;
  }
}

/**
 * One predicate, not a union of five schemas: every trace is validated when it is judged and when
 * the report embeds it, and a trace has dozens of attributes (a union tries each member in turn).
 */
const AttributeValue = z.custom<AttributeValue>(isAttributeValue, { message: 'an attribute value is a string, a finite number, a boolean, null or a list of strings' });

export const SpanEventSchema = z.object({
  name: z.string(),
  time: z.string(),
  attributes: z.record(z.string(), AttributeValue).default({}),
});
export type SpanEvent = z.infer<typeof SpanEventSchema>;

export const SpanSchema = z.object({
  span_id: z.string().min(1),
  parent_id: z.string().nullable(),
  kind: SpanKindSchema,
  name: z.string(),
  start: z.string(),
  end: z.string(),
  status: z.enum(['ok', 'error']),
  attributes: z.record(z.string(), AttributeValue),
  events: z.array(SpanEventSchema).default([]),
});
export type Span = z.infer<typeof SpanSchema>;

/**
 * A token count from an untrusted source (a model endpoint's `usage`) as a trace may hold it: a
 * whole, non-negative, safe integer, or 0 when the value is anything else.
 */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(Math.floor(value)) && value > 0 ? Math.floor(value) : 0;
}

export const UsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** Which model answered: reports must say plainly when nothing real did. */
export const ModelInfoSchema = z.object({
  /** The live API the run calls: an external agent's proxy names the one upstream it has when that is not OpenAI's. */
  provider: z.enum(['openai', 'anthropic', 'gemini', 'cassette', 'none', 'imported']),
  /** live: a real endpoint; recording: live and written to a cassette; replayed: a recorded
   * cassette; scripted: hand-written responses; none: policy task, no model involved;
   * imported: read from a stored trace (`tracegate import`), the model ran elsewhere. */
  mode: z.enum(['live', 'recording', 'replayed', 'scripted', 'none', 'imported']),
  model: z.string(),
  base_url: z.string().nullable().default(null),
});
export type ModelInfo = z.infer<typeof ModelInfoSchema>;

export const TraceSchema = z.object({
  schema_version: z.literal(TRACE_SCHEMA_VERSION),
  trace_id: z.string(),
  task_id: z.string(),
  epoch: z.number().int().nonnegative(),
  started_at: z.string(),
  ended_at: z.string(),
  model: ModelInfoSchema,
  /**
   * What the task asked (redacted like the rest of the trace): its prompt, or for a policy task the
   * tool call it makes (see taskInput in schema/task.ts). Optional: older and imported traces lack it.
   */
  prompt: z.string().nullable().optional(),
  final_answer: z.object({
    text: z.string().nullable(),
    exit_reason: ExitReasonSchema,
  }),
  /** Set when the run itself broke (provider outage, cassette miss): the trace is then not judged. */
  error: z.object({ code: z.string(), message: z.string() }).nullable().default(null),
  usage: UsageSchema,
  spans: z.array(SpanSchema),
});
export type Trace = z.infer<typeof TraceSchema>;

/** Attribute keys and the typed readers live in the vocabulary (see docs/traces.md). */
export { attr, toolAttr, llmAttr, compressionAttr, stepOf, ATTR, SPAN_KIND } from './traceVocabulary.js';

export function toolSpans(trace: Trace): Span[] {
  return trace.spans.filter((s) => s.kind === 'tool');
}

export function llmSpans(trace: Trace): Span[] {
  return trace.spans.filter((s) => s.kind === 'llm');
}

/**
 * Steps are model turns of the conversation (side requests such as title or summary calls, marked
 * `llm.side_request`, are not steps); a policy task (no model) counts its single tool execution as one step.
 */
export function stepCount(trace: Trace): number {
  const llm = llmSpans(trace).filter((s) => s.attributes['llm.side_request'] !== true).length;
  return llm > 0 ? llm : Math.min(1, toolSpans(trace).length);
}
