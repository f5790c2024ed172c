import { isRecord, num, str } from './jsonText.js';
import { ImportError } from './importError.js';
import { interned } from './internedText.js';
import { hexId, idProblem, parentId } from './otelIds.js';
import { nanosOf, nanosToIso, otelConversations, type OtelSpan } from './otelSpans.js';
import type { TraceFormat } from './traceFormat.js';

/** An OTLP AnyValue (`{stringValue}`, `{intValue}`, `{arrayValue: {values}}`, ...) as a plain value. */
export function anyValue(v: unknown): unknown {
  if (!isRecord(v)) return v;
  // The spec's JSON mapping is lowerCamelCase; protobuf-to-JSON writers (Python's MessageToDict with
  // preserving_proto_field_name) write the proto's snake_case names.
  if ('stringValue' in v || 'string_value' in v) return pick(v, 'stringValue', 'string_value');
  if ('boolValue' in v || 'bool_value' in v) return pick(v, 'boolValue', 'bool_value');
  if ('intValue' in v || 'int_value' in v) {
    const n = pick(v, 'intValue', 'int_value');
    return typeof n === 'string' && Number.isSafeInteger(Number(n)) ? Number(n) : n;
  }
  if ('doubleValue' in v || 'double_value' in v) return num(pick(v, 'doubleValue', 'double_value'));
  if ('bytesValue' in v || 'bytes_value' in v) return pick(v, 'bytesValue', 'bytes_value');
  const array = pick(v, 'arrayValue', 'array_value');
  if (isRecord(array)) return ((array['values'] as unknown[]) ?? []).map(anyValue);
  const kvlist = pick(v, 'kvlistValue', 'kvlist_value');
  if (isRecord(kvlist)) return keyValues(kvlist['values']);
  return null;
}

export function keyValues(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isRecord(kv) || typeof kv['key'] !== 'string') continue;
    const value = anyValue(kv['value']);
    out[kv['key']] = typeof value === 'string' ? interned(value) : value;
  }
  return out;
}

const pick = (o: Record<string, unknown>, camel: string, snake: string) => o[camel] ?? o[snake];

function statusOf(s: unknown): { status: OtelSpan['status']; message: string | null } {
  if (!isRecord(s)) return { status: 'unset', message: null };
  const code = s['code'];
  const status = code === 2 || code === 'STATUS_CODE_ERROR' || code === 'ERROR' ? 'error' : code === 1 || code === 'STATUS_CODE_OK' || code === 'OK' ? 'ok' : 'unset';
  return { status, message: str(s['message']) };
}

/** Every span of an ExportTraceServiceRequest (camelCase per the OTLP/JSON spec, snake_case tolerated). */
export function otlpSpans(request: unknown, fileName: string): OtelSpan[] {
  if (!isRecord(request)) throw new ImportError('BAD_FORMAT', fileName, 'an OTLP request must be a JSON object');
  const out: OtelSpan[] = [];
  const resources = pick(request, 'resourceSpans', 'resource_spans');
  if (!Array.isArray(resources)) throw new ImportError('BAD_FORMAT', fileName, 'resourceSpans is not a list');
  for (const rs of resources) {
    if (!isRecord(rs)) continue;
    const scopes = pick(rs, 'scopeSpans', 'scope_spans') ?? rs['instrumentationLibrarySpans'];
    const resource = isRecord(rs['resource']) ? keyValues(rs['resource']['attributes']) : {};
    for (const ss of Array.isArray(scopes) ? scopes : []) {
      if (!isRecord(ss) || !Array.isArray(ss['spans'])) continue;
      for (const sp of ss['spans']) {
        if (!isRecord(sp)) continue;
        const traceId = hexId(pick(sp, 'traceId', 'trace_id'), 16);
        const spanId = hexId(pick(sp, 'spanId', 'span_id'), 8);
        if (!traceId || !spanId) throw new ImportError('BAD_FORMAT', fileName, `span ${JSON.stringify(sp['name'] ?? '?')}: ${!traceId ? idProblem('traceId', pick(sp, 'traceId', 'trace_id')) : idProblem('spanId', pick(sp, 'spanId', 'span_id'))}`);
        const { status, message } = statusOf(sp['status']);
        const parent = parentId(pick(sp, 'parentSpanId', 'parent_span_id'));
        out.push({
          traceId: interned(traceId),
          spanId,
          parentId: parent === null ? null : interned(parent),
          name: interned(str(sp['name']) ?? ''),
          start: nanosToIso(pick(sp, 'startTimeUnixNano', 'start_time_unix_nano')),
          startNanos: nanosOf(pick(sp, 'startTimeUnixNano', 'start_time_unix_nano')),
          end: nanosToIso(pick(sp, 'endTimeUnixNano', 'end_time_unix_nano')),
          attributes: keyValues(sp['attributes']),
          status,
          statusMessage: message,
          events: (Array.isArray(sp['events']) ? sp['events'] : []).filter(isRecord).map((e) => ({
            name: interned(str(e['name']) ?? ''),
            time: nanosToIso(pick(e, 'timeUnixNano', 'time_unix_nano')),
            attributes: keyValues(e['attributes']),
          })),
          ...(Object.keys(resource).length > 0 ? { resource } : {}),
        });
      }
    }
  }
  return out;
}

const isRequest = (v: unknown) => isRecord(v) && Array.isArray(v['resourceSpans'] ?? v['resource_spans']);
/** oteltest's capture (`{trace_requests: [{pbreq: <request>, headers}], metric_requests, log_requests}`, MessageToDict: camelCase, base64 ids). */
const isCapture = (v: unknown) => isRecord(v) && Array.isArray(v['trace_requests']) && v['trace_requests'].every((r) => isRecord(r) && isRequest(r['pbreq']));

/** The requests a value holds: itself, Jaeger v3's `{result: <request>}`, or an oteltest capture's `pbreq`s. */
export function requestsIn(v: unknown): unknown[] | null {
  if (isRequest(v)) return [v];
  if (isRecord(v) && isRequest(v['result'])) return [v['result']];
  if (isCapture(v)) return ((v as Record<string, unknown>)['trace_requests'] as Array<Record<string, unknown>>).map((r) => r['pbreq']);
  return null;
}

/** Requests (JSON, or protobuf decoded to the JSON shape) → conversations. */
export function otlpRequestConversations(requests: unknown[], format: string, fileName: string) {
  return otelConversations(requests.flatMap((r) => otlpSpans(r, fileName)), format, stem(fileName));
}

export const otlpJson: TraceFormat = {
  label: 'OTLP/JSON (ExportTraceServiceRequest, JSON Lines of them, or an oteltest capture of trace_requests)',
  extensions: ['.json', '.jsonl'],
  sniff: ({ json, jsonLines }) => requestsIn(json) !== null || (jsonLines !== undefined && jsonLines.length > 0 && jsonLines.every((l) => requestsIn(l) !== null)),
  parse: ({ json, jsonLines, fileName }) => otlpRequestConversations((requestsIn(json) ? [json] : (jsonLines ?? [])).flatMap((v) => requestsIn(v) ?? []), 'otlp-json', fileName),
};

/** A file's name without folders and extensions: the task id when the trace names none. */
export function stem(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/(\.(json|jsonl|traj|eval|ndjson|log))+$/i, '').replace(/[^A-Za-z0-9_.:-]/g, '_').replace(/^[^A-Za-z0-9]+/, '') || 'trace';
}
