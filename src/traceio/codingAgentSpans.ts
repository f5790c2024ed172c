import type { OtelSpan } from './otelSpans.js';

/**
 * The span vocabularies of the coding CLIs, read as the GenAI conventions the importer knows:
 *
 * - Claude Code (2.1, `CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1`): `claude_code.interaction` (the
 *   prompt's turn), `claude_code.llm_request` (`model`, `input_tokens`, `output_tokens`,
 *   `stop_reason`, `success`, `error`), `claude_code.tool` (`tool_name`, `tool_use_id`, `success`,
 *   `error`); honours TRACEPARENT.
 * - Codex (0.171): `handle_responses`, one span per Responses stream event (`otel.name`, `from`,
 *   `tool_name`); the one for `response.completed` carries the turn's `gen_ai.usage.*` and is the
 *   model call. Tool spans are `exec_command` or carry `tool_name` and `call_id`; honours TRACEPARENT.
 * - Gemini CLI (0.61): spans named by `gen_ai.operation.name` — `llm_call`, `tool_call`
 *   (`gen_ai.tool.name`, `gen_ai.tool.call_id`, the call's request in `gen_ai.input.messages`, its
 *   result in `gen_ai.output.messages`), `user_prompt`, `agent_call`; ignores TRACEPARENT (its
 *   spans are tied to their trial by resource attributes or time, in the receiver).
 *
 * Attributes already in the GenAI form win; the span's own are all kept.
 */
export function codingAgentSpan(span: OtelSpan): OtelSpan {
  const extra = mapped(span);
  if (!extra) return span;
  const { status, statusMessage, ...attributes } = extra;
  const merged: Record<string, unknown> = { ...span.attributes };
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined && v !== null && (merged[k] === undefined || k === 'gen_ai.operation.name')) merged[k] = v;
  return {
    ...span,
    attributes: merged,
    ...(status === 'error' && span.status !== 'error' ? { status: 'error' as const, statusMessage: statusMessage ?? span.statusMessage ?? 'error' } : {}),
  };
}

type Mapped = Record<string, unknown> & { status?: 'error'; statusMessage?: string | null };

const text = (v: unknown): string | null => (typeof v === 'string' ? v : v === undefined || v === null ? null : JSON.stringify(v));
const failed = (a: Record<string, unknown>): Mapped => (a['success'] === false ? { status: 'error', statusMessage: text(a['error']) } : {});

function parsed(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function mapped(span: OtelSpan): Mapped | null {
  const a = span.attributes;
  const op = a['gen_ai.operation.name'];
  switch (span.name) {
    case 'claude_code.interaction':
      return { 'gen_ai.operation.name': 'invoke_agent' };
    case 'claude_code.llm_request':
      return {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': a['model'],
        'gen_ai.usage.input_tokens': a['input_tokens'],
        'gen_ai.usage.output_tokens': a['output_tokens'],
        'gen_ai.response.finish_reasons': a['stop_reason'] === undefined ? undefined : [a['stop_reason']],
        ...failed(a),
      };
    case 'claude_code.tool':
      return { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': a['tool_name'], 'gen_ai.tool.call.id': a['tool_use_id'], ...failed(a) };
    case 'handle_responses':
      // Only the completed response's span is a model call; the other events' spans stay unknown.
      return a['gen_ai.usage.input_tokens'] !== undefined || a['otel.name'] === 'completed' ? { 'gen_ai.operation.name': 'chat' } : null;
    case 'exec_command':
      return { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': a['tool_name'] ?? 'exec_command', 'gen_ai.tool.call.id': a['call_id'], 'gen_ai.tool.call.arguments': a['command'] ?? a['cmd'] };
    default:
      break;
  }
  if (op === 'llm_call') return { 'gen_ai.operation.name': 'chat' };
  if (op === 'user_prompt' || op === 'agent_call') return { 'gen_ai.operation.name': 'invoke_agent' };
  if (op === 'tool_call' && a['gen_ai.tool.call_id'] !== undefined) {
    // Gemini CLI: the request {callId, name, args} as the input, the tool's response as the output.
    const request = parsed(a['gen_ai.input.messages']);
    const args = request && typeof request === 'object' && 'args' in request ? (request as { args: unknown }).args : undefined;
    return { 'gen_ai.tool.call.id': a['gen_ai.tool.call_id'], 'gen_ai.tool.call.arguments': args === undefined ? undefined : text(args), 'gen_ai.tool.call.result': text(a['gen_ai.output.messages']) };
  }
  // A Codex tool span: a tool name and a call id on a span that is not a stream event.
  if (typeof a['tool_name'] === 'string' && typeof a['call_id'] === 'string' && op === undefined) {
    return { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': a['tool_name'], 'gen_ai.tool.call.id': a['call_id'], 'gen_ai.tool.call.arguments': a['arguments'] };
  }
  return null;
}
