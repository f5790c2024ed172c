import { createHash } from 'node:crypto';
import { TRACE_SCHEMA_VERSION, TraceSchema, type AttributeValue, type Span, type Trace } from '../schema/trace.js';
import { spanAttributes } from '../schema/spanWriter.js';
import { ATTR, SPAN_KIND, attributes } from '../schema/traceVocabulary.js';
import type { Conversation } from './conversation.js';

const UNKNOWN_TIME = '1970-01-01T00:00:00.000Z';
const PREVIEW = 4000;
const clip = (t: string | null) => (t === null ? null : t.length > PREVIEW ? `${t.slice(0, PREVIEW)}… [${t.length} chars]` : t);

/** A stable id for a span the source did not name: the same file imports to the same ids. */
const derivedId = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16);

/** A trace/v1 from a conversation, with canonical attribute keys; it validates before it leaves. */
export function buildTrace(c: Conversation): Trace {
  const traceId = c.traceId ?? createHash('sha256').update(`${c.format}\u0000${c.taskId}\u0000${c.epoch}\u0000${JSON.stringify(c.turns).slice(0, 100_000)}`).digest('hex').slice(0, 32);
  const times = c.turns.flatMap((t) => [t.model?.start, t.model?.end, ...t.tools.flatMap((x) => [x.start, x.end])]).filter((x): x is string => typeof x === 'string');
  const startedAt = c.startedAt ?? times.reduce<string | null>((a, b) => (a === null || b < a ? b : a), null) ?? UNKNOWN_TIME;
  const endedAt = c.endedAt ?? times.reduce<string | null>((a, b) => (a === null || b > a ? b : a), null) ?? startedAt;
  const unknown = [...new Set([...c.unknown, ...(times.length === 0 && !c.startedAt ? ['timing'] : [])])];
  const rootId = c.rootSpanId ?? derivedId(traceId, 'root');
  const spans: Span[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let step = 0;
  c.turns.forEach((turn, t) => {
    if (turn.model || step === 0) step++;
    const m = turn.model;
    let parent = rootId;
    if (m) {
      inputTokens += m.inputTokens ?? 0;
      outputTokens += m.outputTokens ?? 0;
      const id = m.spanId ?? derivedId(traceId, 'llm', String(t));
      spans.push({
        span_id: id,
        parent_id: rootId,
        kind: SPAN_KIND.llm,
        name: `chat ${m.model ?? c.model ?? 'model'}`,
        start: m.start ?? startedAt,
        end: m.end ?? m.start ?? startedAt,
        status: m.error ? 'error' : 'ok',
        attributes: {
          ...m.extra,
          ...attributes({
            step,
            operation: 'chat',
            requestModel: m.model ?? c.model,
            inputTokens: m.inputTokens,
            outputTokens: m.outputTokens,
            llmToolCalls: m.toolCalls,
            llmContent: clip(m.content),
          }),
        },
        events: m.events ?? [],
      });
      parent = id;
    }
    turn.tools.forEach((x, i) => {
      // ok null: the source does not say (no result came back); such a call is not counted as a success.
      const ok = x.ok ?? true;
      const resultOk = x.ok;
      const extra: Record<string, AttributeValue> = { ...x.extra };
      if (x.sourceErrorType) extra['error.type'] = x.sourceErrorType;
      spans.push({
        span_id: x.spanId ?? derivedId(traceId, 'tool', String(t), String(i)),
        parent_id: m ? parent : rootId,
        kind: SPAN_KIND.tool,
        name: `tool ${x.name}`,
        start: x.start ?? m?.end ?? startedAt,
        end: x.end ?? x.start ?? m?.end ?? startedAt,
        status: ok ? 'ok' : 'error',
        attributes: {
          ...extra,
          ...attributes({
            step,
            operation: 'execute_tool',
            toolName: x.name,
            toolCallId: x.id,
            toolArguments: x.arguments,
            toolResult: clip(x.result),
            resultOk,
            errorType: ok ? (x.errorType === 'OUTPUT_TRUNCATED' ? x.errorType : null) : (x.errorType ?? 'COMMAND_FAILED'),
            truncated: x.truncated ? true : null,
            message: x.message,
            exitCode: x.exitCode,
            outputChars: x.result?.length ?? null,
            // An imported call ran in the agent's own world: no tracegate policy judged it.
            executed: x.extra?.[ATTR.executed.key] === undefined ? true : null,
          }),
        },
        events: x.events ?? [],
      });
    });
  });
  const raw = c.usage ?? { input: inputTokens, output: outputTokens };
  // Token counts from other tools may be floats or negative; a trace holds whole, non-negative counts.
  const whole = (n: number) => (Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0);
  const usage = { input: whole(raw.input), output: whole(raw.output) };
  const root: Span = {
    span_id: rootId,
    parent_id: null,
    kind: SPAN_KIND.agent,
    name: `task ${c.taskId}`,
    start: startedAt,
    end: endedAt,
    status: c.exitReason === 'error' || c.runError ? 'error' : 'ok',
    attributes: {
      ...c.rootExtra,
      ...spanAttributes({ 'task.id': c.taskId, epoch: c.epoch, exit_reason: c.exitReason, 'tracegate.import.task_id_from': c.taskIdFrom }),
      ...attributes({ operation: 'invoke_agent', importFormat: c.format, importUnknown: unknown.length ? unknown : null }),
    },
    events: [],
  };
  return TraceSchema.parse({
    schema_version: TRACE_SCHEMA_VERSION,
    trace_id: traceId,
    task_id: c.taskId,
    epoch: c.epoch,
    started_at: startedAt,
    ended_at: endedAt,
    model: { provider: 'imported', mode: 'imported', model: c.model ?? 'unknown', base_url: null },
    final_answer: { text: c.finalAnswer, exit_reason: c.exitReason },
    error: c.runError,
    usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output },
    spans: [root, ...spans, ...(c.otherSpans ?? []).map((s) => ({ ...s, parent_id: rootId, start: s.start || startedAt, end: s.end || startedAt }))],
  });
}
