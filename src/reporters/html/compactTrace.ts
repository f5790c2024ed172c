import { TraceSchema, type Trace } from '../../schema/trace.js';
import { packJson } from '../../files/packJson.js';

const TEXT_LIMIT = 1500;

const clip = (value: unknown) => (typeof value === 'string' && value.length > TEXT_LIMIT ? `${value.slice(0, TEXT_LIMIT)}… [${value.length} chars]` : value);

/**
 * What the viewer needs of a trace, smaller: times as milliseconds from the start, long texts
 * clipped, the root span dropped. Unknown input is refused (the viewer then says so).
 */
export function compactTrace(raw: unknown) {
  return compactValidTrace(TraceSchema.parse(raw));
}

/** compactTrace of a trace already known to be valid (a run's own, judged as it was stored). */
function compactValidTrace(trace: Trace) {
  const t0 = Date.parse(trace.started_at);
  return {
    task_id: trace.task_id,
    epoch: trace.epoch,
    duration_ms: Date.parse(trace.ended_at) - t0,
    model: trace.model,
    final_answer: { text: clip(trace.final_answer.text), exit_reason: trace.final_answer.exit_reason },
    error: trace.error,
    usage: trace.usage,
    spans: trace.spans
      .filter((s) => s.kind !== 'agent')
      .map((s) => ({
        id: s.span_id,
        kind: s.kind,
        name: s.name,
        start: Date.parse(s.start) - t0,
        end: Date.parse(s.end) - t0,
        status: s.status,
        attributes: Object.fromEntries(Object.entries(s.attributes).map(([k, v]) => [k, clip(v)])),
        events: s.events.map((e) => e.name),
      })),
  };
}

/** The JSON text of a valid trace's compact form, ready for packJson. */
export function viewerTraceJson(trace: Trace): string {
  return JSON.stringify(compactValidTrace(trace));
}

/** A trace as the page embeds it: compacted, gzip-compressed, base64 (inert text until opened). */
export function packTrace(trace: Trace): string {
  return packJson(viewerTraceJson(trace));
}

