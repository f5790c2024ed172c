import { randomBytes } from 'node:crypto';
import type { ChatMessage } from '../schema/agentIo.js';
import { DEFAULT_RECORD_CONTENT, modelContentAttributes, type RecordContent } from '../schema/recordContent.js';
import { cutAtToken } from '../schema/redact.js';
import { spanAttributes, writeSpan } from '../schema/spanWriter.js';
import type { Span } from '../schema/trace.js';
import type { SpanAttributes } from '../schema/traceVocabulary.js';
import type { Exchange } from './exchange.js';

const ARGUMENT_CHARS_KEPT = 4000;
const PREVIEW_CHARS = 2000;

/**
 * How a long text becomes a span attribute: redacted, then cut (Redactor.preview), so a secret
 * straddling the cut cannot leave its first part behind. Without a redactor, cutAtToken drops a
 * token straddling the cut whole, and the trace's redaction does the rest.
 */
export type Preview = (text: string, max: number) => string;

/** A suite-level rule: a tool result whose text matches `pattern` carries `error_type`. */
export interface ErrorPattern {
  /** Compiled by the suite loader's linear-time engine (src/schema/safeRegex.ts). */
  pattern: { test(text: string): boolean };
  error_type: string;
}

export interface TrafficSpans {
  spans: Span[];
  /** The conversation's last assistant text when it ended without tool calls. */
  lastAnswer: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

const spanId = () => randomBytes(8).toString('hex');

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
      .join('');
  }
  return '';
}

/** A message as "the same turn" for threading: role, text and tool calls, never ids. */
function turnKey(m: ChatMessage): string {
  const calls = (m.tool_calls ?? []).map((c) => [c.function.name, c.function.arguments]);
  return JSON.stringify([m.role === 'developer' ? 'system' : m.role, contentText(m.content).trim(), calls]);
}

/**
 * Which calls belong to one conversation. A call continues a thread when the thread's last request,
 * plus the reply it got, is a prefix of the call's messages; anything else opens a thread. The
 * thread with most calls is the conversation; the others (titles, summaries) are side requests.
 */
export function threadsOf(exchanges: Exchange[]): number[] {
  const heads: string[][] = [];
  return exchanges.map((ex) => {
    const keys = ex.messages.map(turnKey);
    let thread = -1;
    for (let t = heads.length - 1; t >= 0; t--) {
      const head = heads[t]!;
      if (head.length <= keys.length && head.every((k, i) => k === keys[i])) {
        thread = t;
        break;
      }
    }
    if (thread < 0) thread = heads.push([]) - 1;
    const reply = ex.reply
      ? [turnKey({ role: 'assistant', content: ex.reply.content ?? '', tool_calls: ex.reply.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })) })]
      : [];
    heads[thread] = [...keys, ...reply];
    return thread;
  });
}

/** The conversation: the thread with most calls; on a tie the one that offered tools, then the later one. */
function mainThread(threads: number[], exchanges: Exchange[]): number {
  const score = new Map<number, [number, number]>();
  threads.forEach((t, i) => {
    const [n, tools] = score.get(t) ?? [0, 0];
    score.set(t, [n + 1, Math.max(tools, exchanges[i]!.toolNames.length > 0 ? 1 : 0)]);
  });
  let best = 0;
  for (const [t, [n, tools]] of score) {
    const [bn, btools] = score.get(best)!;
    if (n > bn || (n === bn && tools >= btools)) best = t;
  }
  return best;
}

/** A tool call whose result the proxy never saw. */
const UNSEEN: SpanAttributes = { executed: false, 'result.ok': null, 'result.seen': false };

/** A tool result as span attributes: a ToolResult-shaped `{ok: false, ...}` or a matching pattern is an error. */
function resultAttributes(text: string, patterns: ErrorPattern[], preview: Preview): SpanAttributes {
  const base: SpanAttributes = { 'gen_ai.tool.call.result': preview(text, PREVIEW_CHARS), output_chars: text.length, executed: true };
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { ok?: unknown }).ok === 'boolean') {
      const r = parsed as Record<string, unknown>;
      const s = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : null);
      return { ...base, 'result.ok': r['ok'] as boolean, error_type: s('error_type'), recoverable: r['recoverable'] === true, suggestion: s('suggestion'), message: s('message') };
    }
  } catch {
    // Plain text results are the common case.
  }
  const hit = patterns.find((p) => p.pattern.test(text));
  return hit ? { ...base, 'result.ok': false, error_type: hit.error_type } : { ...base, 'result.ok': true, error_type: null };
}

/**
 * Spans from what the proxy saw: one `llm` span per model call and one `tool` span per tool call,
 * paired with the `role: "tool"` message the agent sent back in a later call of the same thread
 * (or, for a handed-over messages array, anywhere after it: `tail`).
 */
export function spansFromTraffic(
  exchanges: Exchange[],
  rootId: string,
  patterns: ErrorPattern[] = [],
  mode = 'live',
  tail: ChatMessage[] = [],
  preview: Preview = cutAtToken,
  recordContent: RecordContent = DEFAULT_RECORD_CONTENT,
): TrafficSpans {
  const threads = threadsOf(exchanges);
  const main = mainThread(threads, exchanges);
  const spans: Span[] = [];
  const usage = { input_tokens: 0, output_tokens: 0 };
  const stepOf = new Map<number, number>();
  let mainSteps = 0;
  let lastAnswer: string | null = null;

  exchanges.forEach((ex, i) => {
    const thread = threads[i]!;
    const side = thread !== main;
    if (!side) mainSteps++;
    // A side request carries the conversation step it happened during.
    const step = mainSteps;
    stepOf.set(i, step);
    const reply = ex.reply;
    if (reply?.usage) {
      usage.input_tokens += reply.usage.input_tokens;
      usage.output_tokens += reply.usage.output_tokens;
    }
    const llmId = spanId();
    spans.push(writeSpan({
      span_id: llmId,
      parent_id: rootId,
      kind: 'llm',
      name: `${side ? 'side ' : ''}chat ${ex.model}`,
      start: ex.started,
      end: ex.ended || ex.started,
      status: reply ? 'ok' : 'error',
      attributes: {
        step,
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': ex.model,
        'gen_ai.response.model': reply?.model ?? null,
        'gen_ai.usage.input_tokens': reply?.usage?.input_tokens ?? 0,
        'gen_ai.usage.output_tokens': reply?.usage?.output_tokens ?? 0,
        'gen_ai.response.finish_reasons': reply?.finishReason ? [reply.finishReason] : [],
        'llm.mode': ex.source === 'none' ? mode : ex.source,
        'llm.messages': ex.messages.length,
        'llm.tools': ex.toolNames,
        'llm.streamed': ex.streamed,
        'llm.tool_calls': reply?.toolCalls.length ?? 0,
        ...modelContentAttributes(recordContent, preview, { input: ex.messages, output: reply?.content ?? null }),
        'llm.thread': thread,
        'llm.side_request': side,
        'llm.error': ex.error || undefined,
      },
    }));
    if (!reply) return;
    if (!side && reply.toolCalls.length === 0 && reply.content !== null) lastAnswer = reply.content;

    reply.toolCalls.forEach((call, n) => {
      // The agent's result for this call: the first later call of the same thread that carries it.
      let result: { text: string; at: string } | null = null;
      for (let j = i + 1; j < exchanges.length && !result; j++) {
        if (threads[j] !== thread) continue;
        const later = exchanges[j]!;
        const toolMessages = later.messages.filter((m) => m.role === 'tool');
        const byId = toolMessages.find((m) => m.tool_call_id === call.id);
        const message = byId ?? (toolMessages.some((m) => reply.toolCalls.some((c) => c.id === m.tool_call_id)) ? undefined : toolMessages.at(-reply.toolCalls.length + n));
        if (message) result = { text: contentText(message.content), at: later.started };
      }
      // A handed-over messages array ends with results no later call carries.
      const last = tail.find((m) => m.role === 'tool' && m.tool_call_id === call.id);
      if (!result && last) result = { text: contentText(last.content), at: ex.ended || ex.started };
      const attributes = spanAttributes({
        step,
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        'gen_ai.tool.call.arguments': preview(call.arguments, ARGUMENT_CHARS_KEPT),
        'tool.side_request': side,
        ...(result ? resultAttributes(result.text, patterns, preview) : UNSEEN),
      });
      spans.push({
        span_id: spanId(),
        parent_id: llmId,
        kind: 'tool',
        name: `tool ${call.name}`,
        start: ex.ended || ex.started,
        end: result?.at ?? (ex.ended || ex.started),
        status: result && attributes['result.ok'] === false ? 'error' : 'ok',
        attributes,
        events: [],
      });
    });
  });
  return { spans, lastAnswer, usage };
}

/**
 * An OpenAI messages array (from an agent's output or trace file) as the exchanges it implies:
 * each assistant message is the reply to the messages before it. Times are the trial's bounds.
 */
export function exchangesFromMessages(messages: ChatMessage[], model: string, started: string, ended: string): Exchange[] {
  const out: Exchange[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    out.push({
      index: out.length + 1,
      started,
      ended,
      model,
      messages: messages.slice(0, i),
      toolNames: [],
      streamed: false,
      source: 'none',
      reply: {
        model,
        content: contentText(m.content) || null,
        refusal: null,
        toolCalls: (m.tool_calls ?? []).map((c, n) => ({ id: c.id ?? `call_${i}_${n}`, name: c.function.name, arguments: c.function.arguments })),
        usage: null,
        finishReason: (m.tool_calls ?? []).length ? 'tool_calls' : 'stop',
      },
      error: null,
    });
  });
  return out;
}
