import { createHash } from 'node:crypto';
import type { AttributeValue, Span, Trace } from '../schema/trace.js';
import { ATTR, attr } from '../schema/traceVocabulary.js';
import { TRACEGATE_VERSION } from '../version.js';
import { EXPORT_KEYS } from './otelSpans.js';

type KeyValue = { key: string; value: Record<string, unknown> };

function anyValue(v: AttributeValue): Record<string, unknown> | null {
  if (v === null) return null; // OTLP has no null: an absent attribute reads the same
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { arrayValue: { values: v.map((x) => ({ stringValue: x })) } };
}

function keyValues(a: Record<string, AttributeValue>): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, v] of Object.entries(a)) {
    const value = anyValue(v);
    if (value) out.push({ key, value });
  }
  return out;
}

const hex = (id: string, chars: 16 | 32) => (new RegExp(`^[0-9a-f]{${chars}}$`).test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, chars));
const nanos = (iso: string) => {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? '0' : (BigInt(ms) * 1_000_000n).toString();
};

/** The GenAI names for what tracegate's own (older) keys say, so other tools read the span. */
function genAi(span: Span): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = { [EXPORT_KEYS.spanKind]: span.kind };
  const op = span.kind === 'tool' ? 'execute_tool' : span.kind === 'llm' ? 'chat' : span.kind === 'agent' ? 'invoke_agent' : null;
  if (op) out[ATTR.operation.key] = op;
  if (span.kind === 'tool') {
    for (const name of ['toolName', 'toolCallId', 'toolArguments', 'toolResult'] as const) {
      const v = attr(span, name);
      if (v !== null) out[ATTR[name].key] = v;
    }
    const errorType = attr(span, 'errorType');
    if (errorType) out['error.type'] = errorType;
  }
  return out;
}

function otlpSpan(span: Span, traceId: string, trace: Trace): Record<string, unknown> {
  const root = span.parent_id === null;
  const attributes: Record<string, AttributeValue> = { ...span.attributes, ...genAi(span) };
  if (root) {
    Object.assign(attributes, {
      [EXPORT_KEYS.taskId]: trace.task_id,
      [EXPORT_KEYS.epoch]: trace.epoch,
      [EXPORT_KEYS.exitReason]: trace.final_answer.exit_reason,
      [EXPORT_KEYS.model]: trace.model.model,
      'gen_ai.usage.input_tokens': trace.usage.input_tokens,
      'gen_ai.usage.output_tokens': trace.usage.output_tokens,
    });
    if (trace.final_answer.text !== null) attributes[EXPORT_KEYS.finalAnswer] = trace.final_answer.text;
    if (trace.error) Object.assign(attributes, { [EXPORT_KEYS.errorCode]: trace.error.code, [EXPORT_KEYS.errorMessage]: trace.error.message });
  }
  // A failed tool call is an ERROR span for other tools, whatever the recorder set.
  const failed = span.status === 'error' || (span.kind === 'tool' && attr(span, 'resultOk') === false);
  const message = failed ? (attr(span, 'errorType') ?? attr(span, 'message') ?? (root ? trace.error?.message : null) ?? '') : '';
  return {
    traceId,
    spanId: hex(span.span_id, 16),
    ...(span.parent_id ? { parentSpanId: hex(span.parent_id, 16) } : {}),
    name: span.name,
    // SPAN_KIND_CLIENT for a model call (a request to a provider), INTERNAL otherwise.
    kind: span.kind === 'llm' ? 3 : 1,
    startTimeUnixNano: nanos(span.start),
    endTimeUnixNano: nanos(span.end),
    attributes: keyValues(attributes),
    events: span.events.map((e) => ({ name: e.name, timeUnixNano: nanos(e.time), attributes: keyValues(e.attributes) })),
    status: failed ? { code: 2, message } : { code: 1 },
  };
}

/** One trace as an OTLP/JSON ExportTraceServiceRequest (hex ids, GenAI names, tracegate's keys kept). */
export function toOtlpRequest(traces: Trace[]): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': 'tracegate', 'telemetry.sdk.name': 'tracegate' }) },
        scopeSpans: [
          {
            scope: { name: 'tracegate', version: TRACEGATE_VERSION },
            spans: traces.flatMap((t) => {
              const traceId = hex(t.trace_id, 32);
              return t.spans.map((s) => otlpSpan(s, traceId, t));
            }),
          },
        ],
      },
    ],
  };
}
