import type { ChatMessage } from '../../schema/agentIo.js';
import { tokenCount } from '../../schema/trace.js';
import type { ChatReply } from '../chatReply.js';
import { providerErrorOf } from '../chatReply.js';
import { arr, obj, str, sseEvents, type NormalizedRequest, type Protocol, type StreamFolder } from './protocol.js';

/**
 * OpenAI Responses: `POST …/responses`, JSON or SSE (`response.created`, `response.output_item.*`,
 * `response.output_text.*`, `response.function_call_arguments.*`, `response.completed`). `input` is
 * a string or a list of items: messages, `function_call` / `custom_tool_call` (the model's calls)
 * and `function_call_output` / `custom_tool_call_output` (the agent's results, paired by
 * `call_id`). Tools of other types (`web_search`, `namespace`, `mcp`, …) are passed through and
 * keyed whole, as are the tools an `additional_tools` input item carries; items the conversation
 * does not need (reasoning) are passed through unkeyed.
 */

/** Text of a message's content: a string, or parts with `text` (input_text, output_text). */
function partsText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  const texts = arr(content).flatMap((p) => (typeof obj(p)['text'] === 'string' ? [obj(p)['text'] as string] : []));
  return texts.length ? texts.join('') : null;
}

/** A tool output: a string, or content parts. */
const outputText = (output: unknown): string => (typeof output === 'string' ? output : partsText(output) ?? JSON.stringify(output ?? ''));

/** The input items as chat messages: an assistant's text and the calls after it are one assistant turn. */
export function messagesOfInput(instructions: unknown, input: unknown): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (typeof instructions === 'string' && instructions) messages.push({ role: 'system', content: instructions });
  if (typeof input === 'string') return [...messages, { role: 'user', content: input }];
  const lastAssistant = (): ChatMessage => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last;
    const fresh: ChatMessage = { role: 'assistant', content: null };
    messages.push(fresh);
    return fresh;
  };
  for (const raw of arr(input)) {
    const item = obj(raw);
    const type = str(item['type']) ?? (item['role'] ? 'message' : '');
    if (type === 'message') {
      const role = str(item['role']) ?? 'user';
      const text = partsText(item['content']);
      if (role === 'assistant') {
        const turn = lastAssistant();
        if (turn.tool_calls?.length) messages.push({ role: 'assistant', content: text });
        else turn.content = (typeof turn.content === 'string' ? turn.content : '') + (text ?? '');
      } else {
        messages.push({ role: role === 'developer' || role === 'system' ? role : 'user', content: typeof item['content'] === 'string' ? item['content'] : arr(item['content']).map((p) => obj(p)) });
      }
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      const turn = lastAssistant();
      const args = type === 'function_call' ? str(item['arguments']) ?? '' : str(item['input']) ?? '';
      turn.tool_calls = [...(turn.tool_calls ?? []), { id: str(item['call_id']) ?? undefined, type: 'function', function: { name: str(item['name']) ?? '', arguments: args } }];
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      messages.push({ role: 'tool', tool_call_id: str(item['call_id']) ?? undefined, content: outputText(item['output']) });
    }
  }
  return messages;
}

const toolName = (tool: unknown): string => {
  const t = obj(tool);
  return str(t['name']) ?? str(t['type']) ?? 'tool';
};

/**
 * The tools a request offers: `tools`, and those an `additional_tools` input item carries (Codex's
 * code-mode models get theirs that way, in namespaces, with no `tools` field at all).
 */
function toolsOf(body: Record<string, unknown>): unknown[] {
  const extra = arr(body['input']).flatMap((item) => (obj(item)['type'] === 'additional_tools' ? arr(obj(item)['tools']) : []));
  return [...arr(body['tools']), ...extra];
}

/** Custom (freeform) tools, also inside namespaces: their calls are written back as `custom_tool_call`. */
function customToolNames(tools: unknown[]): string[] {
  return tools.flatMap((tool) => {
    const t = obj(tool);
    if (t['type'] === 'custom') return [toolName(t)];
    return t['type'] === 'namespace' ? customToolNames(arr(t['tools'])) : [];
  });
}

/** A tool as the key sees it: a function's parameters, a custom tool's format, any other tool whole. */
function keyedTool(tool: unknown) {
  const t = obj(tool);
  const type = str(t['type']);
  if (type === 'function') return { function: { name: toolName(t), description: str(t['description']) ?? undefined, parameters: t['parameters'] } };
  if (type === 'custom') return { function: { name: toolName(t), description: str(t['description']) ?? undefined, parameters: t['format'] } };
  return { function: { name: toolName(t), parameters: t } };
}

/** Settings that change the answer, under the chat names the key already knows where there is one. */
function generation(body: Record<string, unknown>): Record<string, unknown> {
  const reasoning = obj(body['reasoning']);
  return {
    tool_choice: body['tool_choice'],
    top_p: body['top_p'],
    max_completion_tokens: body['max_output_tokens'],
    parallel_tool_calls: body['parallel_tool_calls'],
    reasoning_effort: reasoning['effort'],
    response_format: body['text'] && obj(body['text'])['format'] ? obj(body['text'])['format'] : undefined,
  };
}

/** Chat's stop reasons from a response's status: a call, the end, or why it is incomplete. */
function finishOf(response: Record<string, unknown>, calls: number): string | null {
  const status = str(response['status']);
  if (status === 'incomplete') {
    const reason = str(obj(response['incomplete_details'])['reason']);
    return reason === 'max_output_tokens' ? 'length' : reason ?? 'incomplete';
  }
  if (status === 'completed') return calls ? 'tool_calls' : 'stop';
  if (status === 'failed') return 'error';
  return null;
}

function usageOf(value: unknown): ChatReply['usage'] {
  if (!value || typeof value !== 'object') return null;
  const u = obj(value);
  return { input_tokens: tokenCount(u['input_tokens']), output_tokens: tokenCount(u['output_tokens']) };
}

/** Output items into one reply. */
function replyOfItems(items: unknown[], response: Record<string, unknown>): ChatReply {
  let content: string | null = null;
  let refusal: string | null = null;
  let reasoning: string | null = null;
  const toolCalls: ChatReply['toolCalls'] = [];
  for (const raw of items) {
    const item = obj(raw);
    const type = str(item['type']);
    if (type === 'message') {
      for (const part of arr(item['content']).map(obj)) {
        if (part['type'] === 'output_text') content = (content ?? '') + (str(part['text']) ?? '');
        if (part['type'] === 'refusal') refusal = (refusal ?? '') + (str(part['refusal']) ?? '');
      }
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      toolCalls.push({
        id: str(item['call_id']) ?? str(item['id']) ?? `call_${toolCalls.length + 1}`,
        name: str(item['name']) ?? '',
        arguments: (type === 'function_call' ? str(item['arguments']) : str(item['input'])) ?? '',
      });
    } else if (type === 'reasoning') {
      const text = arr(item['summary']).map((p) => str(obj(p)['text']) ?? '').join('');
      if (text) reasoning = (reasoning ?? '') + text;
    }
  }
  return {
    model: str(response['model']),
    content,
    refusal,
    toolCalls,
    usage: usageOf(response['usage']),
    finishReason: finishOf(response, toolCalls.length),
    ...(reasoning !== null ? { reasoning } : {}),
  };
}

export function replyFromResponse(body: unknown): ChatReply {
  const response = obj(body);
  return replyOfItems(arr(response['output']), response);
}

/** The error a response event or body carries: an `error` event, `response.failed`, or an error body. */
function errorOfEvent(event: Record<string, unknown>): string | null {
  if (event['type'] === 'error') {
    const message = str(event['message']) ?? str(obj(event['error'])['message']) ?? JSON.stringify(event).slice(0, 300);
    const code = str(event['code']) ?? str(obj(event['error'])['code']);
    return code ? `${message} (${code})` : message;
  }
  if (event['type'] === 'response.failed') {
    const error = obj(obj(event['response'])['error']);
    return str(error['message']) ?? 'the response failed';
  }
  return null;
}

/**
 * Folds Responses stream events: items by output_index from `response.output_item.added/done`, text
 * and argument deltas in between; `response.completed` (or `incomplete`) ends it, its `output` the
 * final word when it carries one.
 */
class ResponsesFolder implements StreamFolder {
  private readonly items = new Map<number, Record<string, unknown>>();
  private final: Record<string, unknown> | null = null;
  private last: Record<string, unknown> = {};

  add(data: string): string | null {
    let event: Record<string, unknown>;
    try {
      event = obj(JSON.parse(data));
    } catch {
      return null;
    }
    const problem = errorOfEvent(event);
    if (problem !== null) return problem;
    const type = str(event['type']) ?? '';
    const index = typeof event['output_index'] === 'number' ? event['output_index'] : -1;
    if (event['response'] && typeof event['response'] === 'object') this.last = obj(event['response']);
    if (type === 'response.output_item.added' || type === 'response.output_item.done') {
      const item = { ...obj(event['item']) };
      if (type === 'response.output_item.added' && item['type'] === 'message' && !Array.isArray(item['content'])) item['content'] = [];
      this.items.set(index, type === 'response.output_item.added' ? { ...item, ...(this.items.get(index) ?? {}) } : item);
    } else if (type === 'response.output_text.delta' || type === 'response.refusal.delta') {
      const item = this.items.get(index) ?? { type: 'message', content: [] };
      const parts = arr(item['content']).map(obj);
      const kind = type === 'response.output_text.delta' ? 'output_text' : 'refusal';
      const field = kind === 'output_text' ? 'text' : 'refusal';
      const contentIndex = typeof event['content_index'] === 'number' ? event['content_index'] : parts.length;
      const part = parts[contentIndex] ?? { type: kind, [field]: '' };
      part[field] = (str(part[field]) ?? '') + (str(event['delta']) ?? '');
      parts[contentIndex] = part;
      this.items.set(index, { ...item, content: parts });
    } else if (type === 'response.function_call_arguments.delta' || type === 'response.custom_tool_call_input.delta') {
      const item = this.items.get(index) ?? { type: 'function_call' };
      const field = type === 'response.function_call_arguments.delta' ? 'arguments' : 'input';
      this.items.set(index, { ...item, [field]: (str(item[field]) ?? '') + (str(event['delta']) ?? '') });
    } else if (type === 'response.function_call_arguments.done') {
      const item = this.items.get(index) ?? { type: 'function_call' };
      if (typeof event['arguments'] === 'string') this.items.set(index, { ...item, arguments: event['arguments'] });
    } else if (type === 'response.reasoning_summary_text.delta') {
      const item = this.items.get(index) ?? { type: 'reasoning' };
      const summary = arr(item['summary']).map(obj);
      const at = typeof event['summary_index'] === 'number' ? event['summary_index'] : 0;
      summary[at] = { type: 'summary_text', text: (str(summary[at]?.['text']) ?? '') + (str(event['delta']) ?? '') };
      this.items.set(index, { ...item, summary });
    } else if (type === 'response.completed' || type === 'response.incomplete') {
      this.final = obj(event['response']);
    }
    return null;
  }

  complete(): boolean {
    return this.final !== null;
  }

  reply(): ChatReply {
    const response = this.final ?? this.last;
    const output = arr(response['output']);
    const streamed = [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    return replyOfItems(output.length ? output : streamed, { ...response, status: this.final ? response['status'] : null });
  }
}

/** A normalized reply as a Responses `response` object. */
function responseObject(reply: ChatReply, request: NormalizedRequest, step: number, status: 'in_progress' | 'completed'): Record<string, unknown> {
  const custom = new Set((request.hints['customTools'] as string[] | undefined) ?? []);
  const output = status === 'completed' ? outputItems(reply, step, custom) : [];
  const incomplete = reply.finishReason === 'length';
  return {
    id: `resp_tracegate_${step}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: status === 'completed' && incomplete ? 'incomplete' : status,
    error: null,
    incomplete_details: status === 'completed' && incomplete ? { reason: 'max_output_tokens' } : null,
    model: reply.model ?? request.model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: status === 'completed' && reply.usage
      ? { input_tokens: reply.usage.input_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: reply.usage.output_tokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: reply.usage.input_tokens + reply.usage.output_tokens }
      : null,
  };
}

function outputItems(reply: ChatReply, step: number, custom: Set<string>): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  if (reply.reasoning) items.push({ type: 'reasoning', id: `rs_tracegate_${step}`, summary: [{ type: 'summary_text', text: reply.reasoning }] });
  if (reply.content !== null || reply.refusal !== null) {
    const content = [
      ...(reply.content !== null ? [{ type: 'output_text', text: reply.content, annotations: [] }] : []),
      ...(reply.refusal !== null ? [{ type: 'refusal', refusal: reply.refusal }] : []),
    ];
    items.push({ type: 'message', id: `msg_tracegate_${step}`, status: 'completed', role: 'assistant', content });
  }
  reply.toolCalls.forEach((call, n) => {
    items.push(
      custom.has(call.name)
        ? { type: 'custom_tool_call', id: `ctc_tracegate_${step}_${n}`, call_id: call.id, name: call.name, input: call.arguments, status: 'completed' }
        : { type: 'function_call', id: `fc_tracegate_${step}_${n}`, call_id: call.id, name: call.name, arguments: call.arguments, status: 'completed' },
    );
  });
  return items;
}

/** The SSE events an endpoint would have sent for `reply`. */
function streamOf(reply: ChatReply, request: NormalizedRequest, step: number): string {
  const events: Array<[string, Record<string, unknown>]> = [];
  const emit = (type: string, fields: Record<string, unknown>) => events.push([type, { type, sequence_number: events.length, ...fields }]);
  emit('response.created', { response: responseObject(reply, request, step, 'in_progress') });
  emit('response.in_progress', { response: responseObject(reply, request, step, 'in_progress') });
  const custom = new Set((request.hints['customTools'] as string[] | undefined) ?? []);
  outputItems(reply, step, custom).forEach((item, output_index) => {
    const itemId = item['id'];
    if (item['type'] === 'message') {
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      arr(item['content']).map(obj).forEach((part, content_index) => {
        const text = part['type'] === 'output_text';
        emit('response.content_part.added', { item_id: itemId, output_index, content_index, part: text ? { ...part, text: '' } : { ...part, refusal: '' } });
        if (text) {
          emit('response.output_text.delta', { item_id: itemId, output_index, content_index, delta: part['text'], logprobs: [] });
          emit('response.output_text.done', { item_id: itemId, output_index, content_index, text: part['text'], logprobs: [] });
        } else {
          emit('response.refusal.delta', { item_id: itemId, output_index, content_index, delta: part['refusal'] });
          emit('response.refusal.done', { item_id: itemId, output_index, content_index, refusal: part['refusal'] });
        }
        emit('response.content_part.done', { item_id: itemId, output_index, content_index, part });
      });
    } else if (item['type'] === 'function_call') {
      emit('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      emit('response.function_call_arguments.delta', { item_id: itemId, output_index, delta: item['arguments'] });
      emit('response.function_call_arguments.done', { item_id: itemId, output_index, arguments: item['arguments'] });
    } else if (item['type'] === 'custom_tool_call') {
      emit('response.output_item.added', { output_index, item: { ...item, input: '', status: 'in_progress' } });
      emit('response.custom_tool_call_input.delta', { item_id: itemId, output_index, delta: item['input'] });
      emit('response.custom_tool_call_input.done', { item_id: itemId, output_index, input: item['input'] });
    } else {
      emit('response.output_item.added', { output_index, item });
    }
    emit('response.output_item.done', { output_index, item });
  });
  const final = responseObject(reply, request, step, 'completed');
  emit(final['status'] === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
  return sseEvents(events);
}

export const responses: Protocol = {
  id: 'responses',
  label: 'the OpenAI Responses API',
  keyHeader: 'authorization',
  upstream: 'openai',
  forwardedHeaders: ['openai-organization', 'openai-project', 'openai-beta', 'chatgpt-account-id', 'session_id', 'originator', 'version'],
  match(method, route, query) {
    const q = query.size ? `?${query.toString()}` : '';
    if (method === 'POST' && route.endsWith('/responses')) return { kind: 'generate', upstreamPath: `/responses${q}` };
    if (method === 'POST' && route.endsWith('/responses/input_tokens')) return { kind: 'count-tokens', upstreamPath: `/responses/input_tokens${q}` };
    return null;
  },
  read(raw) {
    const body = obj(raw);
    if (typeof body['model'] !== 'string' || !body['model']) return 'not a Responses request: model: a model name is required';
    if (body['input'] !== undefined && typeof body['input'] !== 'string' && !Array.isArray(body['input'])) return 'not a Responses request: input: a string or a list of items is expected';
    if (body['tools'] !== undefined && !Array.isArray(body['tools'])) return 'not a Responses request: tools: a list is expected';
    const tools = toolsOf(body);
    const messages = messagesOfInput(body['instructions'], body['input'] ?? []);
    return {
      model: body['model'],
      messages,
      toolNames: tools.map(toolName),
      streamed: body['stream'] === true,
      keyed: {
        model: body['model'],
        temperature: typeof body['temperature'] === 'number' ? body['temperature'] : null,
        tools: tools.map(keyedTool),
        messages,
        ...generation(body),
      },
      hints: { customTools: customToolNames(tools) },
    };
  },
  fold: replyFromResponse,
  errorOf(body) {
    const b = obj(body);
    if (b['object'] === 'response') return b['status'] === 'failed' ? (str(obj(b['error'])['message']) ?? 'the response failed') : null;
    return providerErrorOf(body);
  },
  folder: () => new ResponsesFolder(),
  write(reply, request, step) {
    return request.streamed
      ? { contentType: 'text/event-stream', body: streamOf(reply, request, step) }
      : { contentType: 'application/json', body: JSON.stringify(responseObject(reply, request, step, 'completed')) };
  },
  countTokens: (body) => ({ object: 'response.input_tokens', input_tokens: Math.max(1, Math.ceil(JSON.stringify(obj(body)['input'] ?? '').length / 4)) }),
};
