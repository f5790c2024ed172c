import type { ChatMessage } from '../../schema/agentIo.js';
import { tokenCount } from '../../schema/trace.js';
import { providerErrorOf, type ChatReply } from '../chatReply.js';
import { argumentsObject, arr, canonicalArguments, estimateTokens, obj, str, sseEvents, type NormalizedRequest, type Protocol, type StreamFolder } from './protocol.js';

/**
 * Anthropic Messages: `POST /v1/messages` (with or without `?beta=true`), JSON or SSE
 * (`message_start`, `content_block_start/delta/stop` with text, tool_use `input_json_delta`,
 * thinking and signature deltas, `message_delta`, `message_stop`), `POST /v1/messages/count_tokens`
 * and the `HEAD /` reachability probe. `tool_use` blocks are the model's calls; `tool_result`
 * blocks (string or block content, `is_error`) the agent's results, paired by id. `system` may be
 * top-level (a string or text blocks) or a `role: "system"` message.
 */

const blocks = (content: unknown): Array<Record<string, unknown>> => (typeof content === 'string' ? [{ type: 'text', text: content }] : arr(content).map(obj));
const blockText = (content: unknown): string => blocks(content).map((b) => (b['type'] === 'text' ? (str(b['text']) ?? '') : '')).join('');

/** The conversation as chat messages: tool results first (as `role: "tool"`), then the turn's text. */
export function messagesOfRequest(system: unknown, input: unknown[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const systemText = typeof system === 'string' ? system : blockText(system);
  if (systemText) out.push({ role: 'system', content: systemText });
  for (const raw of input) {
    const m = obj(raw);
    const role = str(m['role']);
    const parts = blocks(m['content']);
    if (role === 'system') {
      out.push({ role: 'system', content: blockText(m['content']) });
    } else if (role === 'assistant') {
      const text = parts.filter((b) => b['type'] === 'text').map((b) => str(b['text']) ?? '').join('');
      const calls = parts
        .filter((b) => b['type'] === 'tool_use' || b['type'] === 'server_tool_use')
        .map((b) => ({ id: str(b['id']) ?? undefined, type: 'function', function: { name: str(b['name']) ?? '', arguments: canonicalArguments(b['input']) } }));
      out.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
    } else {
      for (const b of parts.filter((p) => p['type'] === 'tool_result')) {
        out.push({ role: 'tool', tool_call_id: str(b['tool_use_id']) ?? undefined, content: blockText(b['content']), ...(b['is_error'] === true ? { is_error: true } : {}) });
      }
      const rest = parts.filter((p) => p['type'] !== 'tool_result');
      if (rest.length || !parts.length) out.push({ role: 'user', content: typeof m['content'] === 'string' ? m['content'] : rest });
    }
  }
  return out;
}

const STOP_IN = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool_calls', max_tokens: 'length', refusal: 'content_filter', pause_turn: 'pause_turn' } as Record<string, string>;
const STOP_OUT = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens', content_filter: 'refusal' } as Record<string, string>;
const stopIn = (reason: unknown): string | null => (typeof reason === 'string' ? (STOP_IN[reason] ?? reason) : null);

/** Input tokens as the model read them: fresh, cache writes and cache reads together. */
function usageOf(u: Record<string, unknown>, prior: ChatReply['usage'] = null): ChatReply['usage'] {
  const input = tokenCount(u['input_tokens']) + tokenCount(u['cache_creation_input_tokens']) + tokenCount(u['cache_read_input_tokens']);
  return { input_tokens: input || (prior?.input_tokens ?? 0), output_tokens: tokenCount(u['output_tokens']) || (prior?.output_tokens ?? 0) };
}

function replyOfBlocks(message: Record<string, unknown>, content: Array<Record<string, unknown>>, usage: ChatReply['usage']): ChatReply {
  let text: string | null = null;
  let reasoning: string | null = null;
  const toolCalls: ChatReply['toolCalls'] = [];
  for (const b of content) {
    if (b['type'] === 'text') text = (text ?? '') + (str(b['text']) ?? '');
    else if (b['type'] === 'thinking') reasoning = (reasoning ?? '') + (str(b['thinking']) ?? '');
    else if (b['type'] === 'tool_use') toolCalls.push({ id: str(b['id']) ?? `toolu_${toolCalls.length + 1}`, name: str(b['name']) ?? '', arguments: canonicalArguments(b['partial'] ?? b['input']) });
  }
  return { model: str(message['model']), content: text, refusal: null, toolCalls, usage, finishReason: stopIn(message['stop_reason']), ...(reasoning !== null ? { reasoning } : {}) };
}

export function replyFromMessage(body: unknown): ChatReply {
  const m = obj(body);
  return replyOfBlocks(m, arr(m['content']).map(obj), m['usage'] ? usageOf(obj(m['usage'])) : null);
}

class MessagesFolder implements StreamFolder {
  private message: Record<string, unknown> = {};
  private readonly content = new Map<number, Record<string, unknown>>();
  private usage: ChatReply['usage'] = null;
  private stopped = false;

  add(data: string, event: string | null): string | null {
    let e: Record<string, unknown>;
    try {
      e = obj(JSON.parse(data));
    } catch {
      return event === 'error' ? data.slice(0, 300) : null;
    }
    const type = str(e['type']) ?? event;
    if (type === 'error') return providerErrorOf(e) ?? JSON.stringify(e).slice(0, 300);
    const index = typeof e['index'] === 'number' ? e['index'] : 0;
    if (type === 'message_start') {
      this.message = obj(e['message']);
      this.usage = usageOf(obj(this.message['usage']));
    } else if (type === 'content_block_start') {
      const block = { ...obj(e['content_block']) };
      if (block['type'] === 'tool_use') block['partial'] = '';
      this.content.set(index, block);
    } else if (type === 'content_block_delta') {
      const block = this.content.get(index) ?? { type: 'text', text: '' };
      const delta = obj(e['delta']);
      const add = (field: string, piece: unknown) => (block[field] = (str(block[field]) ?? '') + (str(piece) ?? ''));
      if (delta['type'] === 'text_delta') add('text', delta['text']);
      else if (delta['type'] === 'input_json_delta') add('partial', delta['partial_json']);
      else if (delta['type'] === 'thinking_delta') add('thinking', delta['thinking']);
      else if (delta['type'] === 'signature_delta') add('signature', delta['signature']);
      this.content.set(index, block);
    } else if (type === 'content_block_stop') {
      const block = this.content.get(index);
      // A tool call with no argument fragments has the input it started with ({}).
      if (block && block['type'] === 'tool_use' && block['partial'] === '') delete block['partial'];
    } else if (type === 'message_delta') {
      const delta = obj(e['delta']);
      if (delta['stop_reason'] !== undefined) this.message = { ...this.message, stop_reason: delta['stop_reason'] };
      if (e['usage']) this.usage = usageOf(obj(e['usage']), this.usage);
    } else if (type === 'message_stop') {
      this.stopped = true;
    }
    return null;
  }

  complete(): boolean {
    return this.stopped || typeof this.message['stop_reason'] === 'string';
  }

  reply(): ChatReply {
    const content = [...this.content.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
    return replyOfBlocks(this.message, content, this.usage);
  }
}

function contentBlocks(reply: ChatReply): Array<Record<string, unknown>> {
  return [
    ...(reply.reasoning ? [{ type: 'thinking', thinking: reply.reasoning, signature: '' }] : []),
    ...(reply.content !== null ? [{ type: 'text', text: reply.content }] : []),
    ...reply.toolCalls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: argumentsObject(c.arguments) })),
  ];
}

function messageObject(reply: ChatReply, request: NormalizedRequest, step: number, content: Array<Record<string, unknown>>, stop: string | null, output: number): Record<string, unknown> {
  return {
    id: `msg_tracegate_${step}`,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? request.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: reply.usage?.input_tokens ?? 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output },
  };
}

const stopOut = (reply: ChatReply): string => {
  const reason = reply.finishReason ?? (reply.toolCalls.length ? 'tool_calls' : 'stop');
  return STOP_OUT[reason] ?? reason;
};

function streamOf(reply: ChatReply, request: NormalizedRequest, step: number): string {
  const events: Array<[string, Record<string, unknown>]> = [];
  const emit = (type: string, fields: Record<string, unknown>) => events.push([type, { type, ...fields }]);
  emit('message_start', { message: messageObject(reply, request, step, [], null, 1) });
  contentBlocks(reply).forEach((block, index) => {
    if (block['type'] === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      emit('content_block_delta', { index, delta: { type: 'text_delta', text: block['text'] } });
    } else if (block['type'] === 'thinking') {
      emit('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      emit('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: block['thinking'] } });
      emit('content_block_delta', { index, delta: { type: 'signature_delta', signature: '' } });
    } else {
      emit('content_block_start', { index, content_block: { ...block, input: {} } });
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block['input']) } });
    }
    emit('content_block_stop', { index });
  });
  emit('message_delta', { delta: { stop_reason: stopOut(reply), stop_sequence: null }, usage: { output_tokens: reply.usage?.output_tokens ?? 0 } });
  emit('message_stop', {});
  return sseEvents(events);
}

export const anthropicMessages: Protocol = {
  id: 'anthropic-messages',
  label: 'the Anthropic Messages API',
  keyHeader: 'x-api-key',
  upstream: 'anthropic',
  forwardedHeaders: ['anthropic-version', 'anthropic-beta', 'anthropic-dangerous-direct-browser-access'],
  match(method, route, query) {
    const q = query.size ? `?${query.toString()}` : '';
    if (method === 'HEAD' && (route === '' || route === '/')) return { kind: 'probe', upstreamPath: '/' };
    if (method === 'POST' && route.endsWith('/messages/count_tokens')) return { kind: 'count-tokens', upstreamPath: `${route}${q}` };
    if (method === 'POST' && route.endsWith('/messages')) return { kind: 'generate', upstreamPath: `${route}${q}` };
    return null;
  },
  read(raw) {
    const body = obj(raw);
    if (typeof body['model'] !== 'string' || !body['model']) return 'not a Messages request: model: a model name is required';
    if (!Array.isArray(body['messages'])) return 'not a Messages request: messages: a list is expected';
    if (body['tools'] !== undefined && !Array.isArray(body['tools'])) return 'not a Messages request: tools: a list is expected';
    const tools = arr(body['tools']).map(obj);
    const messages = messagesOfRequest(body['system'], body['messages']);
    return {
      model: body['model'],
      messages,
      toolNames: tools.map((t) => str(t['name']) ?? str(t['type']) ?? 'tool'),
      streamed: body['stream'] === true,
      keyed: {
        model: body['model'],
        temperature: typeof body['temperature'] === 'number' ? body['temperature'] : null,
        // A custom tool's schema where a function's parameters are; a server tool (web_search_…) whole.
        tools: tools.map((t) => ({ function: { name: str(t['name']) ?? str(t['type']) ?? 'tool', description: str(t['description']) ?? undefined, parameters: t['input_schema'] ?? t } })),
        messages,
        tool_choice: body['tool_choice'],
        max_tokens: body['max_tokens'],
        top_p: body['top_p'],
        stop: body['stop_sequences'],
        reasoning_effort: body['thinking'],
      },
      hints: {},
    };
  },
  fold: replyFromMessage,
  errorOf: (body) => (obj(body)['type'] === 'error' ? (providerErrorOf(body) ?? 'error') : null),
  folder: () => new MessagesFolder(),
  write(reply, request, step) {
    return request.streamed
      ? { contentType: 'text/event-stream', body: streamOf(reply, request, step) }
      : { contentType: 'application/json', body: JSON.stringify(messageObject(reply, request, step, contentBlocks(reply), stopOut(reply), reply.usage?.output_tokens ?? 0)) };
  },
  countTokens: (body) => ({ input_tokens: estimateTokens({ system: obj(body)['system'], messages: obj(body)['messages'], tools: obj(body)['tools'] }) }),
};
