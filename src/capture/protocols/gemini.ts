import type { ChatMessage } from '../../schema/agentIo.js';
import { tokenCount } from '../../schema/trace.js';
import { providerErrorOf, type ChatReply } from '../chatReply.js';
import { argumentsObject, arr, canonicalArguments, estimateTokens, obj, str, sseEvents, type NormalizedRequest, type Protocol, type StreamFolder } from './protocol.js';

/**
 * Gemini: `POST …/models/{model}:generateContent`, `:streamGenerateContent` (`?alt=sse`: SSE frames
 * of GenerateContentResponse; without it one JSON array of them) and `:countTokens`. The path after
 * the trial's prefix (`/v1beta/models/…`) is sent after the upstream's base URL as it came, so a
 * base URL with a path prefix keeps it. `functionCall` parts are the model's calls,
 * `functionResponse` parts the agent's results (paired by `id` when the agent sends one, otherwise
 * by position); tools are `tools[].functionDeclarations[]`, other tools (googleSearch, …) keyed whole.
 */

const ROUTE = /^(.*\/models\/)([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** A function response as text: its `output` or `result` when a string, else its JSON. */
function responseText(response: unknown): string {
  const r = obj(response);
  for (const key of ['output', 'result', 'content']) if (typeof r[key] === 'string') return r[key] as string;
  return JSON.stringify(response ?? {});
}

export function messagesOfContents(systemInstruction: unknown, contents: unknown[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const systemText = arr(obj(systemInstruction)['parts']).map((p) => str(obj(p)['text']) ?? '').join('') || (typeof systemInstruction === 'string' ? systemInstruction : '');
  if (systemText) out.push({ role: 'system', content: systemText });
  for (const raw of contents) {
    const c = obj(raw);
    const parts = arr(c['parts']).map(obj);
    if (c['role'] === 'model') {
      const text = parts.filter((p) => typeof p['text'] === 'string' && p['thought'] !== true).map((p) => p['text'] as string).join('');
      const calls = parts
        .filter((p) => p['functionCall'])
        .map((p) => {
          const call = obj(p['functionCall']);
          return { id: str(call['id']) ?? undefined, type: 'function', function: { name: str(call['name']) ?? '', arguments: canonicalArguments(call['args'] ?? {}) } };
        });
      out.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const p of parts.filter((part) => part['functionResponse'])) {
      const response = obj(p['functionResponse']);
      const id = str(response['id']);
      const error = obj(response['response'])['error'];
      out.push({ role: 'tool', ...(id ? { tool_call_id: id } : {}), name: str(response['name']) ?? undefined, content: responseText(response['response']), ...(error !== undefined && error !== null ? { is_error: true } : {}) });
    }
    const rest = parts.filter((part) => !part['functionResponse']);
    if (rest.length) out.push({ role: 'user', content: rest.map((p) => (typeof p['text'] === 'string' ? { type: 'text', text: p['text'] } : p)) });
  }
  return out;
}

const FINISH_IN: Record<string, string> = { STOP: 'stop', MAX_TOKENS: 'length', SAFETY: 'content_filter', RECITATION: 'content_filter', PROHIBITED_CONTENT: 'content_filter', BLOCKLIST: 'content_filter', SPII: 'content_filter' };
const FINISH_OUT: Record<string, string> = { stop: 'STOP', tool_calls: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY' };

function usageOf(value: unknown): ChatReply['usage'] {
  if (!value || typeof value !== 'object') return null;
  const u = obj(value);
  return { input_tokens: tokenCount(u['promptTokenCount']), output_tokens: tokenCount(u['candidatesTokenCount']) + tokenCount(u['thoughtsTokenCount']) };
}

/** Folds GenerateContentResponse chunks (one for a whole reply): text joined, calls collected, the last finish reason and usage. */
class GeminiFolder implements StreamFolder {
  private model: string | null = null;
  private content: string | null = null;
  private reasoning: string | null = null;
  private readonly calls: ChatReply['toolCalls'] = [];
  private finish: string | null = null;
  private usage: ChatReply['usage'] = null;

  addChunk(chunk: Record<string, unknown>): void {
    this.model = str(chunk['modelVersion']) ?? this.model;
    if (chunk['usageMetadata']) this.usage = usageOf(chunk['usageMetadata']);
    const candidate = obj(arr(chunk['candidates'])[0]);
    for (const part of arr(obj(candidate['content'])['parts']).map(obj)) {
      if (typeof part['text'] === 'string') {
        if (part['thought'] === true) this.reasoning = (this.reasoning ?? '') + part['text'];
        else this.content = (this.content ?? '') + part['text'];
      }
      if (part['functionCall']) {
        const call = obj(part['functionCall']);
        this.calls.push({ id: str(call['id']) ?? `call_${this.calls.length + 1}`, name: str(call['name']) ?? '', arguments: canonicalArguments(call['args'] ?? {}) });
      }
    }
    if (typeof candidate['finishReason'] === 'string') this.finish = candidate['finishReason'];
  }

  add(data: string): string | null {
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return null;
    }
    const problem = providerErrorOf(chunk);
    if (problem !== null) return problem;
    this.addChunk(obj(chunk));
    return null;
  }

  complete(): boolean {
    return this.finish !== null;
  }

  reply(): ChatReply {
    const finishReason = this.finish === null ? null : this.finish === 'STOP' && this.calls.length ? 'tool_calls' : (FINISH_IN[this.finish] ?? this.finish.toLowerCase());
    return { model: this.model, content: this.content, refusal: null, toolCalls: [...this.calls], usage: this.usage, finishReason, ...(this.reasoning !== null ? { reasoning: this.reasoning } : {}) };
  }
}

export function replyFromGenerateContent(body: unknown): ChatReply {
  const folder = new GeminiFolder();
  for (const chunk of Array.isArray(body) ? body : [body]) folder.addChunk(obj(chunk));
  return folder.reply();
}

function responseObject(reply: ChatReply, request: NormalizedRequest, step: number, parts: Array<Record<string, unknown>>, finish: boolean): Record<string, unknown> {
  const reason = reply.finishReason ?? 'stop';
  return {
    candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: FINISH_OUT[reason] ?? reason.toUpperCase() } : {}), index: 0 }],
    ...(finish && reply.usage
      ? { usageMetadata: { promptTokenCount: reply.usage.input_tokens, candidatesTokenCount: reply.usage.output_tokens, totalTokenCount: reply.usage.input_tokens + reply.usage.output_tokens } }
      : {}),
    modelVersion: reply.model ?? request.model,
    responseId: `tracegate-${step}`,
  };
}

function partsOf(reply: ChatReply): Array<Record<string, unknown>> {
  return [
    ...(reply.reasoning ? [{ text: reply.reasoning, thought: true }] : []),
    ...(reply.content !== null ? [{ text: reply.content }] : []),
    ...reply.toolCalls.map((c) => ({ functionCall: { ...(/^call_\d+$/.test(c.id) ? {} : { id: c.id }), name: c.name, args: argumentsObject(c.arguments) } })),
  ];
}

/** google.rpc status names of the HTTP statuses the proxy answers with (the Gemini API's `error.status`). */
const RPC_STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 413: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 502: 'UNAVAILABLE', 503: 'UNAVAILABLE' };

export const gemini: Protocol = {
  id: 'gemini',
  label: 'the Gemini API',
  keyHeader: 'x-goog-api-key',
  upstream: 'gemini',
  forwardedHeaders: ['x-goog-api-client', 'x-goog-user-project'],
  match(method, route, query) {
    const m = ROUTE.exec(route);
    if (method !== 'POST' || !m) return null;
    // The key in the query (`?key=`) is the trial's: it never goes upstream (the header carries the real one).
    const kept = new URLSearchParams([...query].filter(([name]) => name !== 'key'));
    const q = kept.size ? `?${kept.toString()}` : '';
    const model = decodeURIComponent(m[2]!);
    if (m[3] === 'countTokens') return { kind: 'count-tokens', upstreamPath: `${route}${q}`, model };
    return { kind: 'generate', upstreamPath: `${route}${q}`, model, streamed: m[3] === 'streamGenerateContent', sse: query.get('alt') === 'sse' };
  },
  read(raw, route) {
    const body = obj(raw);
    if (!Array.isArray(body['contents'])) return 'not a generateContent request: contents: a list is expected';
    if (body['tools'] !== undefined && !Array.isArray(body['tools'])) return 'not a generateContent request: tools: a list is expected';
    const model = route.model ?? 'gemini';
    type Keyed = { function: { name: string; description?: string | undefined; parameters?: unknown } };
    const declarations = arr(body['tools']).flatMap((t): Keyed[] => {
      const tool = obj(t);
      const fns = arr(tool['functionDeclarations']).map(obj);
      return fns.length ? fns.map((f) => ({ function: { name: str(f['name']) ?? '', description: str(f['description']) ?? undefined, parameters: f['parameters'] ?? f['parametersJsonSchema'] } })) : [{ function: { name: Object.keys(tool)[0] ?? 'tool', parameters: tool } }];
    });
    const messages = messagesOfContents(body['systemInstruction'] ?? body['system_instruction'], body['contents']);
    const config = obj(body['generationConfig'] ?? body['generation_config']);
    return {
      model,
      messages,
      toolNames: declarations.map((d) => d.function.name),
      streamed: route.streamed === true,
      keyed: {
        model,
        temperature: typeof config['temperature'] === 'number' ? config['temperature'] : null,
        tools: declarations,
        messages,
        tool_choice: body['toolConfig'],
        top_p: config['topP'],
        max_tokens: config['maxOutputTokens'],
        stop: config['stopSequences'],
        response_format: config['responseSchema'] ?? config['responseJsonSchema'] ?? config['responseMimeType'],
        reasoning_effort: config['thinkingConfig'],
      },
      hints: { sse: route.sse === true },
    };
  },
  fold: replyFromGenerateContent,
  errorOf: (body) => providerErrorOf(Array.isArray(body) ? body.find((c) => obj(c)['error']) : body),
  folder: () => new GeminiFolder(),
  write(reply, request, step) {
    if (!request.streamed) return { contentType: 'application/json', body: JSON.stringify(responseObject(reply, request, step, partsOf(reply), true)) };
    // One chunk per part, the last one carrying the finish reason and usage.
    const parts = partsOf(reply);
    const chunks = parts.length ? parts.map((p, i) => responseObject(reply, request, step, [p], i === parts.length - 1)) : [responseObject(reply, request, step, [], true)];
    return request.hints['sse'] === true
      ? { contentType: 'text/event-stream', body: sseEvents(chunks.map((c) => [null, c])) }
      : { contentType: 'application/json', body: JSON.stringify(chunks) };
  },
  countTokens: (body) => ({ totalTokens: estimateTokens(obj(body)['contents']) }),
  errorBody: (status, message) => ({ error: { code: status, message, status: RPC_STATUS[status] ?? 'UNKNOWN' } }),
};
