import { asText, isRecord, num, str } from './jsonText.js';
import { ImportError } from './importError.js';
import { hexId, idProblem, parentId } from './otelIds.js';
import { stem } from './otlpJson.js';
import { otelConversations, type OtelSpan } from './otelSpans.js';
import type { SniffInput, TraceFormat } from './traceFormat.js';

/** ISO text, epoch seconds/ms/µs/ns numbers: all as ISO. */
function isoOf(v: unknown, unit: 'auto' | 'us' = 'auto'): string | null {
  if (typeof v === 'string' && /^\d+$/.test(v)) v = Number(v);
  if (typeof v === 'number' && Number.isFinite(v)) {
    const ms = unit === 'us' ? v / 1e3 : v > 1e17 ? v / 1e6 : v > 1e14 ? v / 1e3 : v > 1e11 ? v : v * 1e3;
    return new Date(Math.floor(ms)).toISOString();
  }
  if (typeof v !== 'string') return null;
  const t = Date.parse(v.includes('T') || v.endsWith('Z') ? v : `${v.replace(' ', 'T')}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function statusText(v: unknown): OtelSpan['status'] {
  const s = String(v ?? '').toUpperCase();
  return s.includes('ERROR') ? 'error' : s.includes('OK') ? 'ok' : 'unset';
}

/** Values of a JSON file that is a list of spans, one span, several concatenated spans, or JSON Lines. */
function records(input: SniffInput): unknown[] {
  if (Array.isArray(input.json)) return input.json;
  // A list wrapped in an object: any-agent's AgentTrace `{spans, final_output}`, `{data: […]}`.
  if (isRecord(input.json) && Array.isArray(input.json['spans'])) return input.json['spans'];
  if (input.json !== undefined) return [input.json];
  return input.jsonLines ?? [];
}

// ---- OpenTelemetry SDK console / file exporters (Python `span.to_json()`; the JS SDK's span info as JSON) ----

const isPySpan = (v: unknown) => isRecord(v) && isRecord(v['context']) && ('span_id' in v['context'] || 'spanId' in v['context']) && 'name' in v && !('span_kind' in v);
/** The JavaScript SDK's exported span info (what ConsoleSpanExporter shows), saved as JSON. */
const isJsSpan = (v: unknown) => isRecord(v) && typeof v['traceId'] === 'string' && typeof v['id'] === 'string' && 'timestamp' in v && 'name' in v;
const isSdkSpan = (v: unknown) => isPySpan(v) || isJsSpan(v);

/** An HrTime `[seconds, nanoseconds]`, or microseconds since the epoch, as ISO. */
function hrIso(v: unknown): string | null {
  if (Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'number') return new Date(v[0] * 1000 + Math.floor(v[1] / 1e6)).toISOString();
  return isoOf(v, 'us');
}

function jsSpan(v: Record<string, unknown>, fileName: string): OtelSpan {
  const traceId = hexId(v['traceId'], 16);
  const spanId = hexId(v['id'], 8);
  if (!traceId || !spanId) throw new ImportError('BAD_FORMAT', fileName, `span ${JSON.stringify(v['name'])}: traceId/id unreadable`);
  const start = num(v['timestamp']);
  const parentContext = isRecord(v['parentSpanContext']) ? v['parentSpanContext']['spanId'] : undefined;
  const status = isRecord(v['status']) ? v['status'] : {};
  return {
    traceId,
    spanId,
    parentId: parentId(v['parentId'] ?? v['parentSpanId'] ?? parentContext),
    name: str(v['name']) ?? '',
    start: start === null ? null : isoOf(start, 'us'),
    end: start === null ? null : isoOf(start + (num(v['duration']) ?? 0), 'us'),
    attributes: isRecord(v['attributes']) ? v['attributes'] : {},
    status: status['code'] === 2 ? 'error' : status['code'] === 1 ? 'ok' : 'unset',
    statusMessage: str(status['message']),
    events: (Array.isArray(v['events']) ? v['events'] : []).filter(isRecord).map((e) => ({ name: str(e['name']) ?? '', time: hrIso(e['time']), attributes: isRecord(e['attributes']) ? e['attributes'] : {} })),
  };
}

function sdkSpan(v: Record<string, unknown>, fileName: string): OtelSpan {
  const ctx = v['context'] as Record<string, unknown>;
  const traceId = hexId(ctx['trace_id'] ?? ctx['traceId'], 16);
  const spanId = hexId(ctx['span_id'] ?? ctx['spanId'], 8);
  if (!traceId || !spanId) throw new ImportError('BAD_FORMAT', fileName, `span ${JSON.stringify(v['name'])}: ${!traceId ? idProblem('context.trace_id', ctx['trace_id'] ?? ctx['traceId']) : idProblem('context.span_id', ctx['span_id'] ?? ctx['spanId'])}`);
  const status = isRecord(v['status']) ? v['status'] : {};
  return {
    traceId,
    spanId,
    parentId: parentId(v['parent_id'] ?? v['parentId'] ?? (isRecord(v['parent']) ? (v['parent']['span_id'] ?? v['parent']['spanId']) : null)),
    name: str(v['name']) ?? '',
    start: isoOf(v['start_time'] ?? v['startTime']),
    end: isoOf(v['end_time'] ?? v['endTime']),
    attributes: isRecord(v['attributes']) ? v['attributes'] : {},
    status: statusText(status['status_code'] ?? status['code']),
    statusMessage: str(status['description'] ?? status['message']),
    events: (Array.isArray(v['events']) ? v['events'] : []).filter(isRecord).map((e) => ({
      name: str(e['name']) ?? '',
      time: isoOf(e['timestamp'] ?? e['time']),
      attributes: isRecord(e['attributes']) ? e['attributes'] : {},
    })),
  };
}

export const otelSdkSpans: TraceFormat = {
  label: 'OpenTelemetry SDK console/file exporter spans (context.trace_id, parent_id)',
  extensions: ['.json', '.jsonl', '.log'],
  sniff: (input) => {
    const r = records(input);
    return r.length > 0 && r.every(isSdkSpan);
  },
  parse: (input) => {
    const conversations = otelConversations(
      records(input).map((v) => (isJsSpan(v) ? jsSpan(v as Record<string, unknown>, input.fileName) : sdkSpan(v as Record<string, unknown>, input.fileName))),
      'otel-sdk-spans',
      stem(input.fileName),
    );
    // any-agent's AgentTrace keeps what the agent answered beside its spans (`final_output`: text, or
    // the structured output as JSON); its spans may not (an answer given through a final_answer tool).
    const finalOutput = isRecord(input.json) && conversations.length === 1 ? asText(input.json['final_output']) : null;
    const c = conversations[0];
    if (c && finalOutput !== null) {
      c.finalAnswer = finalOutput;
      if (c.exitReason === 'unknown') c.exitReason = 'completed';
      c.unknown = c.unknown.filter((u) => u !== 'final answer' && u !== 'exit reason');
    }
    return conversations;
  },
};

// ---- Jaeger JSON export: {data: [{traceID, spans: [...], processes}]} ----

function tags(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Array.isArray(list)) for (const t of list) if (isRecord(t) && typeof t['key'] === 'string') out[t['key']] = t['value'];
  return out;
}

const isJaeger = (v: unknown) => isRecord(v) && Array.isArray(v['data']) && v['data'].length > 0 && v['data'].every((t) => isRecord(t) && Array.isArray(t['spans']) && ('traceID' in t || 'processes' in t));

function jaegerSpans(v: Record<string, unknown>, fileName: string): OtelSpan[] {
  return (v['data'] as Array<Record<string, unknown>>).flatMap((t) =>
    (t['spans'] as unknown[]).filter(isRecord).map((s) => {
      const traceId = hexId(s['traceID'] ?? t['traceID'], 16);
      const spanId = hexId(s['spanID'], 8);
      if (!traceId || !spanId) throw new ImportError('BAD_FORMAT', fileName, `Jaeger span ${JSON.stringify(s['operationName'])}: ${!traceId ? idProblem('traceID', s['traceID'] ?? t['traceID']) : idProblem('spanID', s['spanID'])}`);
      const refs = Array.isArray(s['references']) ? s['references'].filter(isRecord) : [];
      const parent = refs.find((r) => r['refType'] === 'CHILD_OF') ?? refs[0];
      const a = tags(s['tags']);
      const start = num(s['startTime']);
      const duration = num(s['duration']) ?? 0;
      const failed = a['error'] === true || a['error'] === 'true' || a['otel.status_code'] === 'ERROR';
      return {
        traceId,
        spanId,
        parentId: parentId(parent?.['spanID'] ?? s['parentSpanID']),
        name: str(s['operationName']) ?? '',
        start: start === null ? null : isoOf(start, 'us'),
        startNanos: start === null || !Number.isSafeInteger(start) ? null : BigInt(start) * 1000n,
        end: start === null ? null : isoOf(start + duration, 'us'),
        attributes: a,
        status: failed ? 'error' : a['otel.status_code'] === 'OK' ? 'ok' : 'unset',
        statusMessage: str(a['otel.status_description']),
        events: (Array.isArray(s['logs']) ? s['logs'] : []).filter(isRecord).map((l) => {
          const fields = tags(l['fields']);
          return { name: str(fields['event']) ?? 'log', time: isoOf(num(l['timestamp']) ?? 0, 'us'), attributes: fields };
        }),
      } satisfies OtelSpan;
    }),
  );
}

export const jaegerJson: TraceFormat = {
  label: 'Jaeger JSON export (data[].spans with tags)',
  extensions: ['.json'],
  sniff: ({ json }) => isJaeger(json),
  parse: ({ json, fileName }) => otelConversations(jaegerSpans(json as Record<string, unknown>, fileName), 'jaeger-json', stem(fileName)),
};

// ---- Phoenix span export: span_kind, context.{trace_id,span_id}, OpenInference attributes ----

/** Nested attribute objects ({llm: {model_name}}) as OpenInference's dotted keys. */
function flatten(v: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (isRecord(v)) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(v) && v.some((x) => isRecord(x))) {
    v.forEach((x, i) => flatten(x, `${prefix}.${i}`, out));
  } else out[prefix] = v;
  return out;
}

const isPhoenixSpan = (v: unknown) => isRecord(v) && 'span_kind' in v && (isRecord(v['context']) || 'context.span_id' in v);

function phoenixRecords(input: SniffInput): unknown[] {
  const j = input.json;
  if (isRecord(j) && Array.isArray(j['data'])) return j['data'];
  if (isRecord(j) && Array.isArray(j['spans'])) return j['spans'];
  // Span lists kept under names, one per trace (Phoenix's own test fixtures: `{scenario: [spans…], …}`).
  const lists = isRecord(j) ? Object.values(j) : [];
  if (lists.length > 0 && lists.every((l) => Array.isArray(l) && l.length > 0 && l.every(isPhoenixSpan))) return lists.flat();
  return records(input);
}

function phoenixSpan(v: Record<string, unknown>, fileName: string): OtelSpan {
  const ctx = isRecord(v['context']) ? v['context'] : { trace_id: v['context.trace_id'], span_id: v['context.span_id'] };
  const traceId = hexId(ctx['trace_id'], 16);
  const spanId = hexId(ctx['span_id'], 8);
  if (!traceId || !spanId) throw new ImportError('BAD_FORMAT', fileName, `Phoenix span ${JSON.stringify(v['name'])}: ${!traceId ? idProblem('context.trace_id', ctx['trace_id']) : idProblem('context.span_id', ctx['span_id'])}`);
  const attributes: Record<string, unknown> = isRecord(v['attributes']) ? flatten(v['attributes']) : {};
  for (const [k, x] of Object.entries(v)) if (k.startsWith('attributes.') && x !== null) attributes[k.slice('attributes.'.length)] = x;
  attributes['openinference.span.kind'] ??= v['span_kind'];
  return {
    traceId,
    spanId,
    parentId: parentId(v['parent_id']),
    name: str(v['name']) ?? '',
    start: isoOf(v['start_time']),
    end: isoOf(v['end_time']),
    attributes,
    status: statusText(v['status_code']),
    statusMessage: str(v['status_message']) || null,
    events: (Array.isArray(v['events']) ? v['events'] : []).filter(isRecord).map((e) => ({
      name: str(e['name']) ?? '',
      time: isoOf(e['timestamp']),
      attributes: isRecord(e['attributes']) ? flatten(e['attributes']) : {},
    })),
  };
}

export const phoenixSpans: TraceFormat = {
  label: 'Phoenix span export (span_kind, context, OpenInference attributes)',
  extensions: ['.json', '.jsonl'],
  sniff: (input) => {
    const r = phoenixRecords(input);
    return r.length > 0 && r.every(isPhoenixSpan);
  },
  parse: (input) => otelConversations(phoenixRecords(input).map((v) => phoenixSpan(v as Record<string, unknown>, input.fileName)), 'phoenix-spans', stem(input.fileName)),
};
