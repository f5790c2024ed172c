import type { Span, Trace } from '../schema/trace.js';
import { spanAttributes } from '../schema/spanWriter.js';
import { SPAN_KIND, attr } from '../schema/traceVocabulary.js';

const overlaps = (a: Span, b: Span) => a.start <= b.end && b.start <= a.end;

/**
 * The spans of a trace by the keys a re-reported span is recognised by: the same span id; a tool
 * span with the same tool call id; or a model call whose time overlaps one already recorded (the
 * capture proxy and the agent's own instrumentation both see every model call). Indexed, so a
 * trial that sends its cap of 20,000 spans merges in linear time.
 */
class SpanIndex {
  private readonly order = new Map<Span, number>();
  private readonly byId = new Map<string, Span>();
  private readonly byCallId = new Map<string, Span>();
  private readonly models: Span[] = [];

  add(span: Span): void {
    this.order.set(span, this.order.size);
    if (!this.byId.has(span.span_id)) this.byId.set(span.span_id, span);
    const callId = span.kind === SPAN_KIND.tool ? attr(span, 'toolCallId') : null;
    if (callId != null && !this.byCallId.has(callId)) this.byCallId.set(callId, span);
    if (span.kind === SPAN_KIND.llm) this.models.push(span);
  }

  has(spanId: string | null): boolean {
    return spanId !== null && this.byId.has(spanId);
  }

  /** The earliest recorded span that `span` reports again, if any. */
  duplicateOf(span: Span): Span | undefined {
    const callId = span.kind === SPAN_KIND.tool ? attr(span, 'toolCallId') : null;
    const candidates = [
      this.byId.get(span.span_id),
      callId != null ? this.byCallId.get(callId) : undefined,
      span.kind === SPAN_KIND.llm ? this.models.find((s) => overlaps(s, span)) : undefined,
    ].filter((s): s is Span => s !== undefined);
    return candidates.sort((a, b) => this.order.get(a)! - this.order.get(b)!)[0];
  }
}

/** How many of `sorted` (ordered by start) start at or before `start`. */
function countStartedBy(sorted: Span[], start: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.start <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Pure: a trial's trace with spans received over OTLP merged in. Duplicates add only the
 * attributes the recorded span lacks; new spans hang under the trace's root and get the step of
 * the model call before them. Agent (root) spans of the sender are not copied.
 */
export function mergeSpans(trace: Trace, incoming: Span[]): Trace {
  const spans = trace.spans.map((s) => ({ ...s, attributes: { ...s.attributes } }));
  const root = spans.find((s) => s.parent_id === null) ?? null;
  const index = new SpanIndex();
  for (const span of spans) index.add(span);
  const added: Span[] = [];
  for (const span of incoming) {
    if (span.kind === SPAN_KIND.agent) continue;
    const dup = index.duplicateOf(span);
    if (dup) {
      for (const [k, v] of Object.entries(span.attributes)) if (!(k in dup.attributes)) dup.attributes[k] = v;
      continue;
    }
    const copy = { ...span, attributes: { ...span.attributes }, parent_id: index.has(span.parent_id) ? span.parent_id : (root?.span_id ?? null) };
    spans.push(copy);
    index.add(copy);
    added.push(copy);
  }
  const models = spans.filter((s) => s.kind === SPAN_KIND.llm).sort((a, b) => a.start.localeCompare(b.start));
  const modelStep = new Map(models.map((m, i) => [m, i + 1]));
  for (const span of added) {
    const before = countStartedBy(models, span.start);
    const step = span.kind === SPAN_KIND.llm ? modelStep.get(span)! : Math.max(1, before > 0 ? (attr(models[before - 1]!, 'step') ?? before) : 1);
    Object.assign(span.attributes, spanAttributes({ step }));
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
