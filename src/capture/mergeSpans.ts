import type { Span, Trace } from '../schema/trace.js';
import { SPAN_KIND, attr } from '../schema/traceVocabulary.js';

const overlaps = (a: Span, b: Span) => a.start <= b.end && b.start <= a.end;

/**
 * The span of `trace` that `span` reports again, if any: the same span id; a tool span with the
 * same tool call id; or a model call whose time overlaps one already recorded (the capture proxy
 * and the agent's own instrumentation both see every model call).
 */
function duplicateOf(trace: Span[], span: Span): Span | undefined {
  const callId = span.kind === SPAN_KIND.tool ? attr(span, 'toolCallId') : null;
  return trace.find(
    (s) =>
      s.span_id === span.span_id ||
      (callId !== null && s.kind === SPAN_KIND.tool && attr(s, 'toolCallId') === callId) ||
      (span.kind === SPAN_KIND.llm && s.kind === SPAN_KIND.llm && overlaps(s, span)),
  );
}

/**
 * Pure: a trial's trace with spans received over OTLP merged in. Duplicates add only the
 * attributes the recorded span lacks; new spans hang under the trace's root and get the step of
 * the model call before them. Agent (root) spans of the sender are not copied.
 */
export function mergeSpans(trace: Trace, incoming: Span[]): Trace {
  const spans = trace.spans.map((s) => ({ ...s, attributes: { ...s.attributes } }));
  const root = spans.find((s) => s.parent_id === null) ?? null;
  const added: Span[] = [];
  for (const span of incoming) {
    if (span.kind === SPAN_KIND.agent) continue;
    const dup = duplicateOf(spans, span);
    if (dup) {
      for (const [k, v] of Object.entries(span.attributes)) if (!(k in dup.attributes)) dup.attributes[k] = v;
      continue;
    }
    const copy = { ...span, attributes: { ...span.attributes }, parent_id: spans.some((s) => s.span_id === span.parent_id) ? span.parent_id : (root?.span_id ?? null) };
    spans.push(copy);
    added.push(copy);
  }
  const models = spans.filter((s) => s.kind === SPAN_KIND.llm).sort((a, b) => a.start.localeCompare(b.start));
  for (const span of added) {
    const before = models.filter((m) => m.start <= span.start);
    const step = span.kind === SPAN_KIND.llm ? models.indexOf(span) + 1 : Math.max(1, before.length > 0 ? (attr(before.at(-1)!, 'step') ?? before.length) : 1);
    span.attributes['step'] = step;
  }
  // Model calls only the agent's instrumentation saw (none went through the proxy) add their tokens.
  const usage = { ...trace.usage };
  for (const span of added.filter((s) => s.kind === SPAN_KIND.llm)) {
    usage.input_tokens += attr(span, 'inputTokens') ?? 0;
    usage.output_tokens += attr(span, 'outputTokens') ?? 0;
  }
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  return { ...trace, usage, spans };
}
