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
  // int64 as a decimal string: 1e300 is an integer to JS but `String` writes it as "1e+300".
  if (typeof v === 'number') return Number.isSafeInteger(v) ? { intValue: String(v) } : { doubleValue: v };
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
const MAX_FIXED64 = 2n ** 64n - 1n;
/** fixed64 nanoseconds since 1970; a time before 1970, after 2554 or unreadable is 0 (unknown). */
const nanos = (iso: string) => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || ms < 0) return '0';
  const ns = BigInt(ms) * 1_000_000n;
  return ns > MAX_FIXED64 ? '0' : ns.toString();
};

/**
 * The trace's span ids as OTLP ids, one per span even when a stored trace repeats an id (a repeat
 * would merge spans in the backend and on re-import), and parents that never loop: a span whose
 * parent chain comes back to itself is exported as a root.
 */
function spanIds(spans: Span[]): { ids: string[]; parents: Array<string | null> } {
  const first = new Map<string, number>();
  const used = new Set<string>();
  const ids = spans.map((span, i) => {
    if (!first.has(span.span_id)) first.set(span.span_id, i);
    let id = hex(span.span_id, 16);
    for (let n = 1; used.has(id); n++) id = hex(`${span.span_id}#${i}#${n}`, 16);
    used.add(id);
    return id;
  });
  const parentIndex = spans.map((span) => (span.parent_id === null ? undefined : first.get(span.parent_id)));
  // A parent that is not in the trace stays named: OTLP allows a span whose parent is elsewhere.
  const parents = spans.map((span, i) => (span.parent_id === null ? null : parentIndex[i] === undefined ? hex(span.parent_id, 16) : ids[parentIndex[i]!]!));
  // Each chain is walked once (a 100k-span chain is linear); the span that closes a loop loses its parent.
  const state = new Uint8Array(spans.length); // 0 unseen, 1 on the current walk, 2 done
  for (let start = 0; start < spans.length; start++) {
    const walk: number[] = [];
    let at: number | undefined = start;
    while (at !== undefined && state[at] === 0) {
      state[at] = 1;
      walk.push(at);
      at = parentIndex[at];
    }
    if (at !== undefined && state[at] === 1) parents[walk.at(-1)!] = null;
    for (const w of walk) state[w] = 2;
  }
  return { ids, parents };
}

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
  // gen_ai.provider.name took the place of gen_ai.system (semantic conventions 1.37); both go, for old and new readers.
  const system = span.attributes['gen_ai.system'];
  if (span.kind === 'llm' && typeof system === 'string') out['gen_ai.provider.name'] = system;
  return out;
}

/** The span's name as the GenAI conventions give it for a tool call (`execute_tool {gen_ai.tool.name}`); others keep theirs. */
function otlpSpanName(span: Span): string {
  const tool = span.kind === 'tool' ? attr(span, 'toolName') : null;
  return tool ? `execute_tool ${tool}` : span.name;
}

function otlpSpan(span: Span, traceId: string, trace: Trace, spanId: string, parentSpanId: string | null): Record<string, unknown> {
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
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name: otlpSpanName(span),
    // SPAN_KIND_CLIENT for a model call (a request to a provider), INTERNAL otherwise.
    kind: span.kind === 'llm' ? 3 : 1,
    startTimeUnixNano: nanos(span.start),
    endTimeUnixNano: nanos(span.end),
    attributes: keyValues(attributes),
    events: span.events.map((e) => ({ name: e.name, timeUnixNano: nanos(e.time), attributes: keyValues(e.attributes) })),
    status: failed ? { code: 2, message } : { code: 1 },
  };
}

/** The OTLP/JSON spans of traces, in order (hex ids, GenAI names, tracegate's keys kept). */
function otlpSpans(traces: Trace[]): Array<Record<string, unknown>> {
  return traces.flatMap((t) => {
    const traceId = hex(t.trace_id, 32);
    const { ids, parents } = spanIds(t.spans);
    return t.spans.map((s, i) => otlpSpan(s, traceId, t, ids[i]!, parents[i]!));
  });
}

function request(spans: Array<Record<string, unknown>>): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': 'tracegate', 'telemetry.sdk.name': 'tracegate' }) },
        scopeSpans: [{ scope: { name: 'tracegate', version: TRACEGATE_VERSION }, spans }],
      },
    ],
  };
}

/** Traces as one OTLP/JSON ExportTraceServiceRequest. */
export function toOtlpRequest(traces: Trace[]): Record<string, unknown> {
  return request(otlpSpans(traces));
}

/** Spans per request sent to an endpoint: collectors refuse bodies past a few MB (a trace may hold 100k spans). */
export const SPANS_PER_REQUEST = 2000;

/**
 * Traces as requests of at most `maxSpans` spans each (a big trace is split across requests: OTLP
 * backends join spans by trace id); `traces` says how many traces are whole once the request is sent.
 */
export function toOtlpRequests(traces: Trace[], maxSpans = SPANS_PER_REQUEST): Array<{ request: Record<string, unknown>; spans: number; traces: number }> {
  const out: Array<{ request: Record<string, unknown>; spans: number; traces: number }> = [];
  let batch: Array<Record<string, unknown>> = [];
  let done = 0;
  const flush = () => {
    if (batch.length > 0) out.push({ request: request(batch), spans: batch.length, traces: done });
    batch = [];
  };
  for (const trace of traces) {
    for (const span of otlpSpans([trace])) {
      if (batch.length >= maxSpans) flush();
      batch.push(span);
    }
    done++;
  }
  flush();
  return out;
}
