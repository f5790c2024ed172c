import { randomFillSync } from 'node:crypto';
import {
  TRACE_SCHEMA_VERSION,
  type ExitReason,
  type ModelInfo,
  type Span,
  type SpanKind,
  type Trace,
} from '../../src/schema/trace.js';
import { createRedactor, type Redactor } from '../../src/schema/redact.js';
import { SpanWriter, spanAttributes } from '../../src/schema/spanWriter.js';
import type { SpanAttributes } from '../../src/schema/traceVocabulary.js';

let envRedactor: Redactor | null = null;

// Ids come from one pool of random bytes refilled 4 KiB at a time: a syscall per span cost more than the span.
const pool = Buffer.alloc(4096);
let poolUsed = pool.length;
function hex(bytes: number): string {
  if (poolUsed + bytes > pool.length) {
    randomFillSync(pool);
    poolUsed = 0;
  }
  poolUsed += bytes;
  return pool.toString('hex', poolUsed - bytes, poolUsed);
}

/** Builds one trace v1 as the run goes; `finish` returns it (unredacted: the writer redacts). */
export class TraceRecorder {
  private readonly spans: Span[] = [];
  private readonly root: SpanWriter;
  private readonly startedAt = new Date().toISOString();
  private usage = { input_tokens: 0, output_tokens: 0 };

  constructor(
    private readonly taskId: string,
    private readonly epoch: number,
    private readonly model: ModelInfo,
    private readonly redactor: Redactor = (envRedactor ??= createRedactor(process.env)),
    /** What the task asked (its prompt, or a policy task's tool call); the writer redacts it with the rest. */
    private readonly prompt: string | null = null,
  ) {
    this.root = this.start('agent', `task ${taskId}`, null, { 'task.id': taskId, epoch });
  }

  /** Attributes of the whole run (sandbox, tool-calling options) on the root span. */
  setRoot(attributes: SpanAttributes): void {
    this.root.set(attributes);
  }

  get rootId(): string {
    return this.root.id;
  }

  start(kind: SpanKind, name: string, parentId: string | null | undefined = this.root?.id ?? null, attributes: SpanAttributes = {}): SpanWriter {
    const now = new Date().toISOString();
    const span: Span = {
      span_id: hex(8),
      parent_id: parentId,
      kind,
      name,
      start: now,
      end: now,
      status: 'ok',
      attributes: spanAttributes(attributes),
      events: [],
    };
    this.spans.push(span);
    return new SpanWriter(span);
  }

  /** A preview for a span attribute: redacted before it is cut (the whole trace is redacted again when written). */
  preview(text: string, max: number): string {
    return this.redactor.preview(text, max);
  }

  addUsage(input: number, output: number): void {
    this.usage.input_tokens += input;
    this.usage.output_tokens += output;
  }

  finish(text: string | null, exitReason: ExitReason, error: { code: string; message: string } | null = null): Trace {
    this.root.set({ exit_reason: exitReason }).end(error ? 'error' : 'ok');
    return {
      schema_version: TRACE_SCHEMA_VERSION,
      trace_id: hex(16),
      task_id: this.taskId,
      epoch: this.epoch,
      started_at: this.startedAt,
      ended_at: new Date().toISOString(),
      model: this.model,
      prompt: this.prompt,
      final_answer: { text, exit_reason: exitReason },
      error,
      usage: { ...this.usage, total_tokens: this.usage.input_tokens + this.usage.output_tokens },
      spans: this.spans,
    };
  }
}
