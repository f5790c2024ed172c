import type { CassetteResponse } from '../schema/cassette.js';
import { tokenCount } from '../schema/trace.js';

/**
 * One model reply as the capture proxy saw it, whether it came as a chat completion, as an SSE
 * stream of chunks, or from a cassette. Untrusted: every field read defensively.
 */
export interface ChatReply {
  model: string | null;
  content: string | null;
  refusal: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  usage: { input_tokens: number; output_tokens: number } | null;
  finishReason: string | null;
  /** A reasoning model's `reasoning_content` (or `reasoning`), when it sent one. */
  reasoning?: string | null;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : 0);

/** Present only when the model sent some, so replies without it keep their shape. */
const optionalReasoning = (reasoning: string | null): { reasoning?: string } => (reasoning === null ? {} : { reasoning });

function usageOf(v: unknown): ChatReply['usage'] {
  if (!v || typeof v !== 'object') return null;
  const u = obj(v);
  return { input_tokens: tokenCount(u['prompt_tokens']), output_tokens: tokenCount(u['completion_tokens']) };
}

/** A non-streaming `chat.completion` body. */
export function replyFromCompletion(body: unknown): ChatReply {
  const b = obj(body);
  const choice = obj(Array.isArray(b['choices']) ? b['choices'][0] : undefined);
  const message = obj(choice['message']);
  const calls = Array.isArray(message['tool_calls']) ? message['tool_calls'] : [];
  return {
    model: str(b['model']),
    content: contentText(message['content']),
    refusal: str(message['refusal']),
    toolCalls: calls.map((c, i) => {
      const call = obj(c);
      // A custom tool's call carries free-form `input` where a function's carries `arguments`.
      const fn = obj(call['function'] ?? call['custom']);
      return { id: str(call['id']) ?? `call_${i + 1}`, name: str(fn['name']) ?? '', arguments: argumentsText(fn['arguments'] ?? fn['input']) };
    }),
    usage: usageOf(b['usage']),
    finishReason: str(choice['finish_reason']),
    ...optionalReasoning(str(message['reasoning_content']) ?? str(message['reasoning'])),
  };
}

/** Arguments as text: some servers (llama.cpp) send them as a JSON object instead of a string. */
function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** A reply's text: a string, or a list of content parts (Mistral's reasoning models) whose text parts are joined. */
function contentText(value: unknown): string | null {
  if (!Array.isArray(value)) return str(value);
  const texts = value.map((part) => obj(part)).filter((part) => part['type'] === 'text' || typeof part['text'] === 'string').map((part) => str(part['text']) ?? '');
  return texts.length > 0 ? texts.join('') : null;
}

/**
 * A tool call's name from its fragments: some servers (MiniMax via NIM, some GPT-5 streams) repeat
 * the whole name in every fragment, others send it growing, others in pieces to be joined.
 */
function joinName(sofar: string, fragment: string): string {
  if (!fragment || fragment === sofar) return sofar;
  if (sofar === '' || fragment.startsWith(sofar)) return fragment;
  return sofar + fragment;
}

/**
 * Folds `chat.completion.chunk` objects into one reply: content and argument fragments are
 * concatenated, tool calls are keyed by their `index`, the id and name arrive in the first fragment,
 * and with `stream_options.include_usage` a last chunk with no choices carries the usage.
 */
export class ChunkAccumulator {
  private model: string | null = null;
  private content: string | null = null;
  private refusal: string | null = null;
  private reasoning: string | null = null;
  private finishReason: string | null = null;
  private usage: ChatReply['usage'] = null;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();
  private lastIndex: number | null = null;

  /**
   * The call a fragment belongs to: its `index`; without one (Gemini's OpenAI layer sends each
   * parallel call whole, unindexed) the last call, unless the fragment's id names another call.
   */
  private indexOf(index: unknown, id: string): number {
    if (typeof index === 'number') return num(index);
    if (this.lastIndex === null) return 0;
    const last = this.calls.get(this.lastIndex)!;
    if (id && last.id && id !== last.id) return Math.max(...this.calls.keys()) + 1;
    return this.lastIndex;
  }

  add(chunk: unknown): void {
    const c = obj(chunk);
    this.model ??= str(c['model']);
    if (c['usage']) this.usage = usageOf(c['usage']);
    const choices = Array.isArray(c['choices']) ? c['choices'] : [];
    for (const raw of choices) {
      const choice = obj(raw);
      if (num(choice['index']) !== 0) continue;
      const delta = obj(choice['delta']);
      const text = str(delta['content']);
      if (text !== null) this.content = (this.content ?? '') + text;
      const refusal = str(delta['refusal']);
      if (refusal !== null) this.refusal = (this.refusal ?? '') + refusal;
      const reasoning = str(delta['reasoning_content']) ?? str(delta['reasoning']);
      if (reasoning !== null) this.reasoning = (this.reasoning ?? '') + reasoning;
      for (const rawCall of Array.isArray(delta['tool_calls']) ? delta['tool_calls'] : []) {
        const call = obj(rawCall);
        const id = str(call['id']) ?? '';
        const index = this.indexOf(call['index'], id);
        this.lastIndex = index;
        const fn = obj(call['function'] ?? call['custom']);
        const entry = this.calls.get(index) ?? { id: '', name: '', arguments: '' };
        entry.id ||= id;
        entry.name = joinName(entry.name, str(fn['name']) ?? '');
        entry.arguments += str(fn['arguments']) ?? str(fn['input']) ?? '';
        this.calls.set(index, entry);
      }
      this.finishReason = str(choice['finish_reason']) ?? this.finishReason;
    }
  }

  reply(): ChatReply {
    const toolCalls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, c]) => ({ ...c, id: c.id || `call_${index + 1}` }));
    return { model: this.model, content: this.content, refusal: this.refusal, toolCalls, usage: this.usage, finishReason: this.finishReason, ...optionalReasoning(this.reasoning) };
  }
}

/**
 * The provider's error when a body or stream frame is one (`{"error": {...}}` with no choices), as
 * openai-node reads it: it throws an APIError for such a frame even inside a 200 stream.
 */
export function providerErrorOf(body: unknown): string | null {
  const b = obj(body);
  if (b['error'] === undefined || b['error'] === null || Array.isArray(b['choices'])) return null;
  const error = b['error'];
  if (typeof error === 'string') return error;
  const e = obj(error);
  const message = str(e['message']) ?? JSON.stringify(error).slice(0, 300);
  const code = str(e['code']) ?? (typeof e['code'] === 'number' ? String(e['code']) : null) ?? str(e['type']);
  return code ? `${message} (${code})` : message;
}

/** Splits an SSE byte stream into the payloads of its `data:` fields, one per event, with the event's name. */
export class SseParser {
  private buffer = '';
  private heldCr = false;

  push(text: string, onData: (data: string, event: string | null) => void): void {
    // A chunk ending in \r may be cut inside \r\n: hold the \r until the next chunk shows which it
    // is (as openai-node's LineDecoder does), or one line ending becomes two and an event ends early.
    let whole = this.heldCr ? '\r' + text : text;
    this.heldCr = whole.endsWith('\r');
    if (this.heldCr) whole = whole.slice(0, -1);
    this.buffer += whole.replace(/\r\n?/g, '\n');
    let cut: number;
    while ((cut = this.buffer.indexOf('\n\n')) >= 0) {
      const event = this.buffer.slice(0, cut);
      this.buffer = this.buffer.slice(cut + 2);
      const lines = event.split('\n');
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      const name = lines.findLast((line) => line.startsWith('event:'))?.slice(6).trim() ?? null;
      if (data) onData(data, name);
    }
  }

  /** The stream has ended: a \r held back was a line ending (a stream with CR-only line endings). */
  end(onData: (data: string, event: string | null) => void): void {
    if (!this.heldCr) return;
    this.heldCr = false;
    this.push('\n', onData);
  }
}

export function replyFromCassette(response: CassetteResponse, model: string): ChatReply {
  return {
    model,
    content: response.content,
    refusal: response.refusal,
    toolCalls: response.tool_calls.map((c, i) => ({
      id: c.id ?? `call_${i + 1}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    })),
    usage: response.usage ?? null,
    finishReason: response.finish_reason ?? (response.tool_calls.length ? 'tool_calls' : 'stop'),
    ...optionalReasoning(response.reasoning_content ?? null),
  };
}

export function cassetteResponseOf(reply: ChatReply): CassetteResponse {
  return {
    content: reply.content,
    refusal: reply.refusal,
    tool_calls: reply.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    ...(reply.usage ? { usage: reply.usage } : {}),
    ...(reply.finishReason ? { finish_reason: reply.finishReason } : {}),
    ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
  };
}

const openAiUsage = (u: NonNullable<ChatReply['usage']>) => ({
  prompt_tokens: u.input_tokens,
  completion_tokens: u.output_tokens,
  total_tokens: u.input_tokens + u.output_tokens,
});

/** A replayed reply as a `chat.completion` body. */
export function completionBody(reply: ChatReply, id: string, created: number): Json {
  return {
    id,
    object: 'chat.completion',
    created,
    model: reply.model ?? 'replayed',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          refusal: reply.refusal,
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
          ...(reply.toolCalls.length
            ? { tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason ?? 'stop',
      },
    ],
    usage: reply.usage ? openAiUsage(reply.usage) : null,
  };
}

/** A replayed reply as the SSE stream an OpenAI endpoint would have sent, ending in `data: [DONE]`. */
export function sseBody(reply: ChatReply, id: string, created: number, includeUsage: boolean): string {
  const base = { id, object: 'chat.completion.chunk', created, model: reply.model ?? 'replayed' };
  const chunk = (delta: Json, finish: string | null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const chunks: Json[] = [chunk({ role: 'assistant', content: '' }, null)];
  if (reply.reasoning) chunks.push(chunk({ reasoning_content: reply.reasoning }, null));
  if (reply.content) chunks.push(chunk({ content: reply.content }, null));
  if (reply.refusal) chunks.push(chunk({ refusal: reply.refusal }, null));
  reply.toolCalls.forEach((c, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }, null));
    if (c.arguments) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: c.arguments } }] }, null));
  });
  chunks.push(chunk({}, reply.finishReason ?? 'stop'));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: reply.usage ? openAiUsage(reply.usage) : null });
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}
