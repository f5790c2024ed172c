import type { SpanAttributes } from './traceVocabulary.js';

/**
 * How much of the model's input and output an llm span records (`--record-content`): `none` (counts,
 * tokens and finish reasons only), `summary` (a preview of the reply: the default) or `full` (every
 * input message and the whole reply). Redacted at every level; tool spans and the final answer,
 * which the checks read, are recorded at every level.
 */
export const RECORD_CONTENT = ['none', 'summary', 'full'] as const;
export type RecordContent = (typeof RECORD_CONTENT)[number];
export const DEFAULT_RECORD_CONTENT: RecordContent = 'summary';

/** Characters of the reply kept at `summary` (and beside the whole reply at `full`). */
export const CONTENT_PREVIEW_CHARS = 2000;

/** Redact, then cut at `max` characters (Redactor.preview); `Infinity` keeps the whole text. */
type Redact = (text: string, max: number) => string;

/** An llm span's content attributes at `level`; `input` is the messages sent, as the wire format has them. */
export function modelContentAttributes(
  level: RecordContent,
  redact: Redact,
  exchange: { input: readonly unknown[]; output: string | null },
): SpanAttributes {
  if (level === 'none') return {};
  const output = exchange.output ?? '';
  const preview = { 'llm.content_preview': redact(output, CONTENT_PREVIEW_CHARS) };
  if (level === 'summary') return preview;
  return {
    ...preview,
    // Each string is redacted before it is escaped as JSON: a secret with a line break (a PEM block)
    // would not be recognised in its escaped form.
    'llm.input_messages': JSON.stringify(exchange.input, (_key, value: unknown) => (typeof value === 'string' ? redact(value, Number.POSITIVE_INFINITY) : value)),
    'llm.output_content': redact(output, Number.POSITIVE_INFINITY),
  };
}
