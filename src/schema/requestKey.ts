import { createHash } from 'node:crypto';

/**
 * The key of a recorded model interaction, shared by the harness's cassettes and the capture proxy
 * so one definition decides what "the same request" means. Tool-call ids are dropped (providers mint
 * new ones on every call) and transport details (stream, stream_options, user, ...) are ignored, so a
 * replay matches the recording whenever the conversation itself is the same.
 */
export interface KeyedRequest extends Partial<Record<(typeof GENERATION_FIELDS)[number], unknown>> {
  model: string;
  temperature?: number | null | undefined;
  tools?: ReadonlyArray<{ function: { name: string; description?: string | undefined; parameters?: unknown } }> | undefined;
  messages: ReadonlyArray<KeyedMessage>;
}

export interface KeyedMessage {
  role: string;
  content?: unknown;
  tool_calls?: ReadonlyArray<{ function: { name: string; arguments: string } }> | null | undefined;
}

/** Request fields that change what the model answers, keyed only when the request sets them. */
const GENERATION_FIELDS = [
  'n', 'tool_choice', 'response_format', 'seed', 'top_p', 'max_tokens', 'max_completion_tokens', 'stop',
  'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'parallel_tool_calls', 'reasoning_effort',
] as const;

export function requestHash(request: KeyedRequest): string {
  const generation = Object.fromEntries(GENERATION_FIELDS.filter((f) => request[f] !== undefined && request[f] !== null).map((f) => [f, request[f]]));
  const normalized = {
    model: request.model,
    temperature: request.temperature ?? null,
    tools: (request.tools ?? []).map((t) => [t.function.name, t.function.description, t.function.parameters]),
    messages: request.messages.map((m) => {
      if (m.role === 'tool') return { role: m.role, content: m.content };
      if (m.role === 'assistant') {
        return {
          role: m.role,
          content: m.content ?? '',
          tool_calls: (m.tool_calls ?? []).map((c) => [c.function.name, c.function.arguments]),
        };
      }
      return { role: m.role, content: m.content };
    }),
    // Absent when no such field is set, so recordings made before these were keyed still match.
    ...(Object.keys(generation).length ? { generation } : {}),
  };
  return 'sha256:' + createHash('sha256').update(JSON.stringify(normalized)).digest('hex');
}
