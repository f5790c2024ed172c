import { ATTR } from './traceVocabulary.js';
import { z } from 'zod';
import { TraceSchema } from './trace.js';

/**
 * The contract between tracegate and an external agent (command or HTTP adapter). The input goes to
 * the agent on stdin (or as the POST body); the output is what it prints (or answers). Unknown fields
 * in the output are accepted and ignored: an agent is untrusted input and may be newer than we are.
 */
export const AGENT_INPUT_SCHEMA_VERSION = 'agent-input/v1';
export const AGENT_OUTPUT_SCHEMA_VERSION = 'agent-output/v1';

export const AgentInputSchema = z.strictObject({
  schema_version: z.literal(AGENT_INPUT_SCHEMA_VERSION),
  task_id: z.string(),
  prompt: z.string(),
  epoch: z.number().int().nonnegative(),
  max_steps: z.number().int().positive(),
  metadata: z.record(z.string(), z.unknown()),
  /** The trial's fresh workspace copy (the command adapter's cwd). */
  workspace: z.string(),
  /** Where the agent may write a trace (trace/v1, or an OpenAI messages array). */
  trace_file: z.string(),
  /** W3C trace id (32 hex) of this trial. */
  trace_id: z.string(),
  /** The trial's own capture-proxy endpoint and dummy key (also OPENAI_BASE_URL / OPENAI_API_KEY). */
  openai_base_url: z.string(),
  openai_api_key: z.string(),
  /** W3C traceparent naming the trial's root span (also TRACEPARENT): spans exported under it join the trial's trace. */
  traceparent: z.string().optional(),
  /** The run's OTLP/HTTP receiver, a base URL exporters append /v1/traces to (also OTEL_EXPORTER_OTLP_ENDPOINT). */
  otlp_endpoint: z.string().optional(),
});
export type AgentInput = z.infer<typeof AgentInputSchema>;

/** One OpenAI chat-completions message, loosely: enough to build llm and tool spans from. */
export const ChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.null(), z.array(z.unknown())]).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string().optional(),
        type: z.string().optional(),
        function: z.looseObject({ name: z.string(), arguments: z.string().default('') }),
      }),
    )
    .nullable()
    .optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
export const ChatMessagesSchema = z.array(ChatMessageSchema);

export const AgentOutputSchema = z.looseObject({
  schema_version: z.literal(AGENT_OUTPUT_SCHEMA_VERSION),
  final_answer: z.string().nullable(),
  messages: ChatMessagesSchema.optional(),
  trace: TraceSchema.optional(),
  usage: z
    .looseObject({ input_tokens: z.number().int().nonnegative(), output_tokens: z.number().int().nonnegative() })
    .optional(),
});
export type AgentOutput = z.infer<typeof AgentOutputSchema>;

/** A clear one-line account of what is wrong with an untrusted document. */
export function describeIssues(error: z.ZodError, limit = 3): string {
  return error.issues
    .slice(0, limit)
    .map((i) => `${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}`)
    .join('; ');
}

/**
 * Attributes the external-agent adapters put on the root `agent` span, read by the classifier.
 * `agent.outcome`: how the agent process (or service) ended when that ended the trial early.
 */
export const AGENT_ATTR = {
  outcome: ATTR.agentOutcome.key,
  exitCode: ATTR.agentExitCode.key,
  signal: ATTR.agentSignal.key,
  stderrTail: ATTR.agentStderrTail.key,
  errorLine: ATTR.agentErrorLine.key,
  httpStatus: ATTR.agentHttpStatus.key,
  httpBody: ATTR.agentHttpBody.key,
  stdoutBytes: ATTR.agentStdoutBytes.key,
  stdoutTruncated: ATTR.agentStdoutTruncated.key,
  problem: ATTR.agentProblem.key,
} as const;

export const AGENT_OUTCOMES = ['exited', 'crash', 'timeout', 'output_invalid'] as const;
export type AgentOutcome = (typeof AGENT_OUTCOMES)[number];
