import type { AttributeValue, Span, SpanKind } from './trace.js';
import type { SpanAttributes } from './traceVocabulary.js';

type SpanStatus = Span['status'];

/**
 * The one way a trace producer (the reference harness's recorder, the capture proxy, the external
 * adapters) writes span attributes: typed by the vocabulary (src/schema/traceVocabulary.ts), so a
 * key that is not in it, or a legacy spelling, does not compile. Readers stay lenient (`attr`).
 */
export function spanAttributes(values: SpanAttributes): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(values) as Array<[string, AttributeValue | undefined]>) if (value !== undefined) out[key] = value;
  return out;
}

/** The fields of a span besides its attributes, which are typed. */
export interface SpanFields {
  span_id: string;
  parent_id: string | null;
  kind: SpanKind;
  name: string;
  start: string;
  end: string;
  status: SpanStatus;
  attributes?: SpanAttributes;
  events?: Span['events'];
}

/** A span whose attributes went through the vocabulary's types. */
export function writeSpan(fields: SpanFields): Span {
  const { attributes, events, ...rest } = fields;
  return { ...rest, attributes: spanAttributes(attributes ?? {}), events: events ?? [] };
}

/** A span being written: typed attribute setters, events, and its end. */
export class SpanWriter {
  constructor(private readonly span: Span) {}

  get id(): string {
    return this.span.span_id;
  }

  set(attributes: SpanAttributes): this {
    const into = this.span.attributes;
    for (const [key, value] of Object.entries(attributes) as Array<[string, AttributeValue | undefined]>) if (value !== undefined) into[key] = value;
    return this;
  }

  event(name: string, attributes: Record<string, AttributeValue> = {}): this {
    this.span.events.push({ name, time: new Date().toISOString(), attributes });
    return this;
  }

  end(status: SpanStatus = 'ok'): void {
    this.span.end = new Date().toISOString();
    this.span.status = status;
  }
}
