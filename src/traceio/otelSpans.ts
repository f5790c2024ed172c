import { ExitReasonSchema, type AttributeValue, type ExitReason, type Span, type SpanEvent } from '../schema/trace.js';
import { ATTR } from '../schema/traceVocabulary.js';
import { emptyModel, emptyTool, type Conversation, type ModelCallRecord, type ToolCallRecord, type Turn } from './conversation.js';
import { errorTypeFrom } from './errorTypes.js';
import { spanMessages, type RequestedCall } from './genaiMessages.js';
import { asText, num, str } from './jsonText.js';
import { codingAgentSpan } from './codingAgentSpans.js';

/** A span as every OpenTelemetry-shaped format gives it, before tracegate reads meaning into it. */
export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  start: string | null;
  end: string | null;
  /** The start in nanoseconds when the source has them: ISO times keep only milliseconds, and spans often start within one. */
  startNanos?: bigint | null;
  attributes: Record<string, unknown>;
  status: 'ok' | 'error' | 'unset';
  statusMessage: string | null;
  events: Array<{ name: string; time: string | null; attributes: Record<string, unknown> }>;
  /** The exporting process's resource attributes (OTLP), when the source has them. */
  resource?: Record<string, unknown>;
}

/** Keys tracegate's own exporter writes on the root span so a trace round-trips. */
export const EXPORT_KEYS = {
  spanKind: 'tracegate.span.kind',
  taskId: 'tracegate.task_id',
  epoch: 'tracegate.epoch',
  finalAnswer: 'tracegate.final_answer',
  exitReason: 'tracegate.exit_reason',
  model: 'tracegate.model',
  errorCode: 'tracegate.error.code',
  errorMessage: 'tracegate.error.message',
} as const;

/** Model-call operation names across GenAI convention versions and frameworks (`call_llm`: any-agent, Google ADK). */
const LLM_OPERATIONS = new Set(['chat', 'text_completion', 'generate_content', 'completion', 'call_llm']);
const TOOL_OPERATIONS = new Set(['execute_tool', 'tool_call']);
/** LangSmith's run types that are not a model call although its exporter names them `chat` (a prompt template) or by themselves. */
const LANGSMITH_NOT_MODEL = new Set(['prompt', 'parser', 'chain', 'retriever', 'embedding']);
const VERCEL_CALL = /^ai\.(generateText|streamText|generateObject|streamObject)$/;
const VERCEL_MODEL = /^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$/;

type Kind = 'agent' | 'llm' | 'tool' | 'compression' | 'check' | null;

/** Which tracegate span kind an OTel span is, by GenAI, OpenInference, Vercel AI SDK or tracegate names. */
export function kindOf(span: OtelSpan): Kind {
  const a = span.attributes;
  const own = str(a[EXPORT_KEYS.spanKind]);
  if (own === 'agent' || own === 'llm' || own === 'tool' || own === 'compression' || own === 'check') return own;
  // LangSmith's exporter writes `gen_ai.operation.name: chat` on prompt-template runs too: its run type decides.
  const langsmith = str(a['langsmith.span.kind']);
  if (langsmith === 'llm') return 'llm';
  if (langsmith === 'tool') return 'tool';
  if (langsmith && LANGSMITH_NOT_MODEL.has(langsmith)) return langsmith === 'chain' ? 'agent' : null;
  const op = str(a['gen_ai.operation.name']);
  if (op && TOOL_OPERATIONS.has(op)) return 'tool';
  if (op && LLM_OPERATIONS.has(op)) return 'llm';
  if (op === 'invoke_agent' || op === 'create_agent') return 'agent';
  const oi = str(a['openinference.span.kind'])?.toUpperCase();
  if (oi === 'TOOL') return 'tool';
  if (oi === 'LLM') return 'llm';
  if (oi === 'AGENT' || oi === 'CHAIN') return 'agent';
  // OpenLLMetry (Traceloop): llm.request.type on model calls, traceloop.span.kind on the spans around them.
  const requestType = str(a['llm.request.type']);
  if (requestType === 'chat' || requestType === 'completion') return 'llm';
  const traceloop = str(a['traceloop.span.kind']);
  if (traceloop === 'tool') return 'tool';
  if (traceloop === 'workflow' || traceloop === 'agent' || traceloop === 'task') return 'agent';
  const vercel = str(a['ai.operationId']) ?? span.name;
  if (vercel === 'ai.toolCall') return 'tool';
  if (VERCEL_MODEL.test(vercel)) return 'llm';
  if (VERCEL_CALL.test(vercel)) return 'agent';
  return null;
}

const first = (a: Record<string, unknown>, ...keys: string[]) => {
  for (const k of keys) if (a[k] !== undefined && a[k] !== null) return a[k];
  return undefined;
};

/** Attribute values tracegate can store as they are (others become JSON text). */
function keep(a: Record<string, unknown>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string' || typeof v === 'boolean' || v === null) out[k] = v;
    else if (typeof v === 'number') out[k] = Number.isFinite(v) ? v : String(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v as string[];
    else if (v !== undefined) out[k] = JSON.stringify(v);
  }
  return out;
}

function events(span: OtelSpan): SpanEvent[] {
  return span.events.map((e) => ({ name: e.name, time: e.time ?? span.start ?? '1970-01-01T00:00:00.000Z', attributes: keep(e.attributes) }));
}

function parseJsonText(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

/** The reply text, number of tool calls and the calls themselves of a model span, from whichever convention it uses. */
function reply(a: Record<string, unknown>, spanEvents: OtelSpan['events'] = []): { content: string | null; toolCalls: number; calls: RequestedCall[] } {
  const own = num(a[ATTR.llmToolCalls.key]);
  if (own !== null || a[ATTR.llmContent.key] !== undefined) return { content: str(a[ATTR.llmContent.key]), toolCalls: own ?? 0, calls: [] };
  // GenAI messages: span attributes, or events (gen_ai.choice, gen_ai.content.completion, inference details).
  const messages = spanMessages(a, spanEvents, 'output');
  if (messages.content !== null || messages.calls.length > 0) return { content: messages.content, toolCalls: messages.calls.length, calls: messages.calls };
  let calls = 0;
  let content: string | null = null;
  for (const [k, v] of Object.entries(a)) {
    if (/^llm\.output_messages\.\d+\.message\.content$/.test(k) || /^gen_ai\.completion\.\d+\.content$/.test(k)) content = str(v) ?? content;
    // OpenInference's multi-part form: message.contents.N.message_content.{type,text}.
    if (/^llm\.output_messages\.\d+\.message\.contents\.\d+\.message_content\.text$/.test(k) && typeof v === 'string') content = (content ?? '') + v;
    if (/^llm\.output_messages\.\d+\.message\.tool_calls\.\d+\.tool_call\.function\.name$/.test(k) || /^gen_ai\.completion\.\d+\.tool_calls\.\d+\.name$/.test(k)) calls++;
  }
  // any-agent: `gen_ai.output` is the reply text, or (type json) the tool calls `[{"tool.name", "tool.args"}]`.
  const anyAgent = a['gen_ai.output.type'] === 'json' ? parseJsonText(a['gen_ai.output']) : undefined;
  if (Array.isArray(anyAgent) && anyAgent.every((c) => typeof c === 'object' && c !== null && 'tool.name' in c)) calls += anyAgent.length;
  else content ??= str(a['gen_ai.output']);
  // LangSmith: `gen_ai.completion` is the run's outputs as JSON (LangChain generations, or an OpenAI response).
  if (content === null && calls === 0 && typeof a['gen_ai.completion'] === 'string') {
    const reply = langchainReply(parseJsonText(a['gen_ai.completion']));
    content = reply.content;
    calls += reply.calls;
  }
  const vercelCalls = parseJsonText(a['ai.response.toolCalls']);
  if (Array.isArray(vercelCalls)) calls += vercelCalls.length;
  content ??= str(a['ai.response.text']);
  if (content === null && str(a['output.mime_type']) !== 'application/json') content = str(a['output.value']);
  return { content, toolCalls: calls, calls: [] };
}

function modelCall(span: OtelSpan): ModelCallRecord {
  const a = span.attributes;
  const { content, toolCalls } = reply(a, span.events);
  return {
    ...emptyModel(),
    content,
    toolCalls,
    model: str(first(a, 'gen_ai.request.model', 'gen_ai.response.model', 'llm.model_name', 'ai.model.id')),
    inputTokens: num(first(a, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'ai.usage.promptTokens', 'ai.usage.inputTokens')),
    outputTokens: num(first(a, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion', 'ai.usage.completionTokens', 'ai.usage.outputTokens')),
    start: span.start,
    end: span.end,
    error: span.status === 'error' ? (span.statusMessage ?? 'error') : null,
    spanId: span.spanId,
    extra: keep(a),
    events: events(span),
  };
}

function toolCall(span: OtelSpan): ToolCallRecord {
  const a = span.attributes;
  const exception = span.events.find((e) => e.name === 'exception');
  const ownOk = a[ATTR.resultOk.key];
  const ok = typeof ownOk === 'boolean' ? ownOk : !(span.status === 'error' || exception !== undefined);
  const sourceType = str(a['error.type']) ?? str(exception?.attributes['exception.type']);
  const message = str(a[ATTR.message.key]) ?? str(exception?.attributes['exception.message']) ?? (ok ? null : span.statusMessage);
  return {
    ...emptyTool(str(first(a, 'gen_ai.tool.name', 'tool.name', 'ai.toolCall.name', 'tool_call.function.name', 'traceloop.entity.name')) ?? span.name.replace(/^execute_tool\s+/, '')),
    id: str(first(a, 'gen_ai.tool.call.id', 'tool.call_id', 'tool_call.id', 'ai.toolCall.id')),
    arguments: asText(first(a, 'gen_ai.tool.call.arguments', 'gen_ai.tool.args', 'tool.arguments', 'ai.toolCall.args', 'tool_call.function.arguments', 'input.value') ?? traceloopInput(a['traceloop.entity.input'])),
    result: asText(first(a, 'gen_ai.tool.call.result', 'gen_ai.output', 'result.preview', 'ai.toolCall.result', 'output.value', 'traceloop.entity.output')),
    ok,
    errorType: ok ? null : errorTypeFrom(str(a[ATTR.errorType.key]), sourceType, message),
    sourceErrorType: str(a[ATTR.errorType.key]) ? null : sourceType,
    message,
    exitCode: num(a[ATTR.exitCode.key]),
    start: span.start,
    end: span.end,
    spanId: span.spanId,
    extra: keep(a),
    events: events(span),
  };
}

/**
 * Tool calls a model asked for that have no execute_tool span (openai-v2 and other client-only
 * instrumentations): taken from its messages, with the result a later model call was given.
 */
function addMessageOnlyCalls(turns: Turn[], sorted: OtelSpan[], kinds: Map<OtelSpan, Kind>): void {
  // Only model calls that asked for tools and got no tool span are looked at again.
  const pending = turns.filter((t) => t.model?.spanId && t.model.toolCalls > 0 && t.tools.length === 0);
  if (pending.length === 0) return;
  const byId = new Map(sorted.map((s) => [s.spanId, s] as const));
  const spanIds = new Set(turns.flatMap((t) => t.tools.map((x) => x.id)).filter((x): x is string => x !== null));
  const results = new Map<string, string | null>();
  for (const s of sorted) if (kinds.get(s) === 'llm') for (const [id, r] of spanMessages(s.attributes, s.events, 'input').results) results.set(id, r);
  for (const turn of pending) {
    const m = turn.model!;
    const span = byId.get(m.spanId!);
    if (!span) continue;
    for (const c of reply(span.attributes, span.events).calls) {
      if (c.id !== null && spanIds.has(c.id)) continue;
      const answered = c.id !== null && results.has(c.id);
      turn.tools.push({ ...emptyTool(c.name), id: c.id, arguments: c.arguments, result: answered ? results.get(c.id!)! : null, ok: answered ? true : null, start: m.end, end: m.end, extra: { 'tracegate.import.from_messages': true } });
    }
  }
}

/** A LangChain run's outputs (`{generations: [[{text, message}]]}`, `{choices}`, a serialized AIMessage) as reply text and tool-call count. */
function langchainReply(v: unknown): { content: string | null; calls: number } {
  if (typeof v !== 'object' || v === null) return { content: typeof v === 'string' ? v : null, calls: 0 };
  const o = v as Record<string, unknown>;
  const generations = Array.isArray(o['generations']) ? o['generations'].flat() : null;
  const first = (generations?.[0] ?? (Array.isArray(o['choices']) ? o['choices'][0] : null)) as Record<string, unknown> | null | undefined;
  const message = (first && typeof first['message'] === 'object' ? first['message'] : first ? null : o) as Record<string, unknown> | null;
  const body = (message && typeof message['kwargs'] === 'object' && message['kwargs'] !== null ? message['kwargs'] : message) as Record<string, unknown> | null;
  const toolCalls = body && Array.isArray(body['tool_calls']) ? body['tool_calls'].length : 0;
  const content = (body && typeof body['content'] === 'string' && body['content'] !== '' ? body['content'] : null) ?? (first && typeof first['text'] === 'string' && first['text'] !== '' ? first['text'] : null);
  return { content, calls: toolCalls };
}

/** Traceloop's tool input `{"args": [], "kwargs": {…}}` as the call's arguments: the kwargs when there are no positional ones. */
function traceloopInput(v: unknown): string | null {
  const input = parseJsonText(v);
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const { args, kwargs } = input as { args?: unknown; kwargs?: unknown };
    if ((args === undefined || (Array.isArray(args) && args.length === 0)) && kwargs !== undefined) return JSON.stringify(kwargs);
  }
  return str(v);
}

/**
 * Model spans with a model span inside them: a framework's call (LangChain's ChatOpenAI) wrapping the
 * client library's (OpenAI's ChatCompletion) when both are instrumented. Only the innermost is a call.
 */
function outerModelSpans(spans: OtelSpan[], kinds: Map<OtelSpan, Kind>): Set<OtelSpan> {
  const byId = new Map(spans.map((s) => [s.spanId, s] as const));
  const outer = new Set<OtelSpan>();
  for (const s of spans) {
    if (kinds.get(s) !== 'llm') continue;
    const seen = new Set<string>();
    for (let p = s.parentId ? byId.get(s.parentId) : undefined; p && !seen.has(p.spanId); p = p.parentId ? byId.get(p.parentId) : undefined) {
      seen.add(p.spanId);
      if (kinds.get(p) === 'llm') outer.add(p);
    }
  }
  return outer;
}

/** A root's `output.value` as answer text: JSON output (mime application/json) unwrapped from `{"output": …}`, LangGraph `{"messages": […]}` and the like. */
function outputText(value: unknown, mime: unknown): string | null {
  const text = str(value);
  if (text === null || mime !== 'application/json') return text;
  const answer = (v: unknown, depth = 0): string | null => {
    if (typeof v === 'string') return v;
    if (depth > 5 || typeof v !== 'object' || v === null) return null;
    if (Array.isArray(v)) return v.length ? answer(v.at(-1), depth + 1) : null;
    const o = v as Record<string, unknown>;
    // OpenLLMetry's LangChain envelope `{"outputs": …, "kwargs": …}`; a serialized message keeps its text in `kwargs.content`.
    for (const k of ['outputs', 'output', 'answer', 'result', 'final_answer', 'content', 'text', 'return_values', 'messages', 'kwargs']) if (o[k] !== undefined) return answer(o[k], depth + 1);
    return null;
  };
  return answer(parseJsonText(text)) ?? text;
}

const byStart = (x: OtelSpan, y: OtelSpan) => {
  if (x.startNanos != null && y.startNanos != null) return x.startNanos < y.startNanos ? -1 : x.startNanos > y.startNanos ? 1 : 0;
  const a = x.start ?? '';
  const b = y.start ?? '';
  return a < b ? -1 : a > b ? 1 : 0;
};

/**
 * One span per (trace id, span id). A span may be written more than once: a start and an end
 * snapshot (Microsoft Agent Framework's console export, exporters that flush on start), an exporter
 * that retried, the same file given twice. The copies are one span: attributes and events of all,
 * the end time and status of whichever has them.
 */
export function mergeSnapshots(spans: OtelSpan[]): OtelSpan[] {
  const byId = new Map<string, OtelSpan>();
  for (const span of spans) {
    const key = `${span.traceId}/${span.spanId}`;
    const seen = byId.get(key);
    if (!seen) {
      byId.set(key, span);
      continue;
    }
    const events = [...seen.events];
    for (const e of span.events) if (!events.some((x) => x.name === e.name && x.time === e.time)) events.push(e);
    byId.set(key, {
      ...seen,
      name: span.name || seen.name,
      parentId: seen.parentId ?? span.parentId,
      start: seen.start ?? span.start,
      startNanos: seen.startNanos ?? span.startNanos,
      end: span.end ?? seen.end,
      attributes: { ...seen.attributes, ...span.attributes },
      status: span.status !== 'unset' ? span.status : seen.status,
      statusMessage: span.statusMessage ?? seen.statusMessage,
      events,
    });
  }
  return byId.size === spans.length ? spans : [...byId.values()];
}

/**
 * Spans of one or many traces → one conversation per trace id. Spans may come in any order; the
 * tree is built from parent ids and turns from start times. Spans of no known kind are counted.
 */
export function otelConversations(spans: OtelSpan[], format: string, fileStem: string): Conversation[] {
  const byTrace = new Map<string, OtelSpan[]>();
  // The coding CLIs' own span names (Claude Code, Codex, Gemini CLI) read as GenAI spans.
  for (const s of mergeSnapshots(spans).map(codingAgentSpan)) {
    let list = byTrace.get(s.traceId);
    if (!list) byTrace.set(s.traceId, (list = []));
    list.push(s);
  }
  const many = byTrace.size > 1;
  return [...byTrace.entries()].map(([traceId, list]) => oneTrace(traceId, list, format, fallbackTaskId(fileStem, traceId, many)));
}

/** The task id of a trace that names none: the file's stem, with the trace id's start when the file holds several. */
export const fallbackTaskId = (fileStem: string, traceId: string, many: boolean) => (many ? `${fileStem}-${traceId.slice(0, 8)}` : fileStem);

/** One trace's spans (all of them, any order) → its conversation: what a streamed reader calls per trace. */
export function otelTraceConversation(traceId: string, spans: OtelSpan[], format: string, taskIdFallback: string): Conversation {
  return oneTrace(traceId, mergeSnapshots(spans).map(codingAgentSpan), format, taskIdFallback);
}

function oneTrace(traceId: string, spans: OtelSpan[], format: string, fallbackTaskId: string): Conversation {
  const ids = new Set(spans.map((s) => s.spanId));
  const roots = spans.filter((s) => s.parentId === null || !ids.has(s.parentId)).sort(byStart);
  const sorted = [...spans].sort(byStart);
  const kinds = new Map(sorted.map((s) => [s, kindOf(s)] as const));
  const root = roots.find((s) => kinds.get(s) === 'agent') ?? sorted.find((s) => kinds.get(s) === 'agent') ?? null;
  const ra = root?.attributes ?? {};
  const exported = sorted.find((s) => s.attributes[EXPORT_KEYS.taskId] !== undefined)?.attributes ?? ra;

  const outer = outerModelSpans(spans, kinds);
  const turns: Turn[] = [];
  const otherSpans: Span[] = [];
  let skipped = 0;
  for (const s of sorted) {
    const kind = kinds.get(s);
    if (kind === 'llm' && outer.has(s)) continue;
    if (kind === 'llm') turns.push({ model: modelCall(s), tools: [] });
    else if (kind === 'tool') {
      if (turns.length === 0) turns.push({ model: null, tools: [] });
      turns.at(-1)!.tools.push(toolCall(s));
    } else if (kind === 'compression' || kind === 'check') {
      // tracegate's own: a compression, or an outcome check or judge verdict that `score` judges again.
      otherSpans.push({ span_id: s.spanId, parent_id: root?.spanId ?? null, kind, name: s.name, start: s.start ?? '', end: s.end ?? s.start ?? '', status: s.status === 'error' ? 'error' : 'ok', attributes: keep(s.attributes), events: events(s) });
    } else if (kind === null) skipped++;
  }

  addMessageOnlyCalls(turns, sorted, kinds);

  const unknown: string[] = [];
  let finalAnswer = str(exported[EXPORT_KEYS.finalAnswer]) ?? outputText(ra['output.value'], ra['output.mime_type']) ?? str(ra['ai.response.text']) ?? outputText(ra['traceloop.entity.output'], 'application/json');
  if (finalAnswer === null && root && typeof ra['gen_ai.output.messages'] === 'string') finalAnswer = reply({ 'gen_ai.output.messages': ra['gen_ai.output.messages'] }).content;
  const lastModel = [...turns].reverse().find((t) => t.model)?.model ?? null;
  if (finalAnswer === null && lastModel && lastModel.toolCalls === 0 && turns.at(-1)?.tools.length === 0) finalAnswer = lastModel.content;
  const ownExit = ExitReasonSchema.safeParse(exported[EXPORT_KEYS.exitReason]);
  let exitReason: ExitReason | null = ownExit.success ? ownExit.data : null;
  if (exitReason === null) {
    if (root?.status === 'error') exitReason = 'error';
    else if (finalAnswer !== null) exitReason = 'completed';
    else {
      exitReason = 'unknown';
      unknown.push('final answer', 'exit reason');
    }
  }
  if (turns.every((t) => t.model === null) && exported[EXPORT_KEYS.taskId] === undefined) unknown.push('model calls');
  if (turns.some((t) => t.tools.some((x) => x.arguments === null))) unknown.push('tool arguments');
  if (turns.some((t) => t.tools.some((x) => x.result === null))) unknown.push('tool results');
  if (skipped > 0) unknown.push(`${skipped} span${skipped > 1 ? 's' : ''} of no GenAI/OpenInference kind skipped`);
  const taskId = str(exported[EXPORT_KEYS.taskId]);
  // tracegate's own export carries the trace's token totals on its root.
  const ownUsage = taskId !== null ? num(exported['gen_ai.usage.input_tokens']) : null;
  const errorCode = str(exported[EXPORT_KEYS.errorCode]);
  const starts = sorted.map((s) => s.start).filter((x): x is string => x !== null);
  const ends = sorted.map((s) => s.end).filter((x): x is string => x !== null);
  return {
    format,
    taskId: taskId ?? fallbackTaskId,
    taskIdFrom: taskId ? 'trace' : 'file',
    epoch: num(exported[EXPORT_KEYS.epoch]) ?? 0,
    traceId,
    model: str(exported[EXPORT_KEYS.model]) ?? lastModel?.model ?? null,
    // The agent span may be nested under a root of no GenAI kind (an HTTP handler, a workflow): the trace's window is all its spans'.
    startedAt: earliest(root?.start ?? null, starts.sort()[0] ?? null),
    endedAt: latest(root?.end ?? null, ends.sort().at(-1) ?? null),
    finalAnswer,
    exitReason,
    turns,
    unknown,
    runError: errorCode ? { code: errorCode, message: str(exported[EXPORT_KEYS.errorMessage]) ?? '' } : null,
    usage: ownUsage !== null ? { input: ownUsage, output: num(exported['gen_ai.usage.output_tokens']) ?? 0 } : null,
    rootSpanId: root?.spanId,
    rootExtra: root ? keep(root.attributes) : undefined,
    otherSpans,
  };
}

const earliest = (a: string | null, b: string | null) => (a === null ? b : b === null || a <= b ? a : b);
const latest = (a: string | null, b: string | null) => (a === null ? b : b === null || a >= b ? a : b);

/** Nanoseconds since the epoch (a decimal string, number or {low, high}) as a bigint. */
export function nanosOf(v: unknown): bigint | null {
  if (v && typeof v === 'object' && typeof (v as { low?: unknown }).low === 'number' && typeof (v as { high?: unknown }).high === 'number') {
    const { low, high } = v as { low: number; high: number };
    return (BigInt(high >>> 0) << 32n) + BigInt(low >>> 0);
  }
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.floor(v));
  return typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : null;
}

/** Nanoseconds since the epoch (a decimal string or number) as an ISO time (milliseconds kept). */
export function nanosToIso(v: unknown): string | null {
  // protobufjs-style Long {low, high}, as some JSON serializers write 64-bit fields.
  if (v && typeof v === 'object' && typeof (v as { low?: unknown }).low === 'number' && typeof (v as { high?: unknown }).high === 'number') {
    const { low, high } = v as { low: number; high: number };
    v = ((BigInt(high >>> 0) << 32n) + BigInt(low >>> 0)).toString();
  }
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(Math.floor(v / 1e6)).toISOString();
  if (typeof v !== 'string' || !/^\d+$/.test(v)) return null;
  return new Date(v.length > 6 ? Number(v.slice(0, -6)) : 0).toISOString();
}
