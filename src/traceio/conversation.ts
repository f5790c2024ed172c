import type { AttributeValue, ErrorType, ExitReason, Span, SpanEvent } from '../schema/trace.js';

/**
 * What every importer produces before it becomes a trace: model turns, each with the tool calls it
 * asked for. Fields a source format cannot tell stay null and are named in `unknown`.
 */
export interface ToolCallRecord {
  name: string;
  id: string | null;
  arguments: string | null;
  result: string | null;
  /** null: the format does not say whether the call succeeded. */
  ok: boolean | null;
  errorType: ErrorType | null;
  /** The source's own error type (Inspect's `timeout`, an exception class), kept as `error.type`. */
  sourceErrorType: string | null;
  message: string | null;
  exitCode: number | null;
  /** The result arrived cut short (OUTPUT_TRUNCATED then flags it, the call still succeeded). */
  truncated?: boolean;
  start: string | null;
  end: string | null;
  spanId?: string;
  /** Attributes carried over from the source span as they were. */
  extra?: Record<string, AttributeValue>;
  events?: SpanEvent[];
}

export interface ModelCallRecord {
  content: string | null;
  toolCalls: number;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  start: string | null;
  end: string | null;
  error: string | null;
  /** The model declined to answer (its reply is the refusal). */
  refused?: boolean;
  spanId?: string;
  extra?: Record<string, AttributeValue>;
  events?: SpanEvent[];
}

export interface Turn {
  /** null: tool calls with no model call recorded before them. */
  model: ModelCallRecord | null;
  tools: ToolCallRecord[];
}

export interface Conversation {
  format: string;
  taskId: string;
  /** Where the task id came from: the trace itself, or the file name. */
  taskIdFrom: 'trace' | 'file';
  epoch: number;
  traceId: string | null;
  model: string | null;
  startedAt: string | null;
  endedAt: string | null;
  finalAnswer: string | null;
  exitReason: ExitReason;
  turns: Turn[];
  usage: { input: number; output: number } | null;
  /** What the source format cannot tell (shown in the import table and kept on the root span). */
  unknown: string[];
  runError: { code: string; message: string } | null;
  rootSpanId?: string;
  rootExtra?: Record<string, AttributeValue>;
  /** Spans kept as they were (compression spans of tracegate's own export). */
  otherSpans?: Span[];
}

export function emptyTool(name: string): ToolCallRecord {
  return { name, id: null, arguments: null, result: null, ok: null, errorType: null, sourceErrorType: null, message: null, exitCode: null, start: null, end: null };
}

export function emptyModel(): ModelCallRecord {
  return { content: null, toolCalls: 0, model: null, inputTokens: null, outputTokens: null, start: null, end: null, error: null };
}
