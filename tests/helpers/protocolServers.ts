import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Scripted loopback upstreams for the capture proxy's protocols: OpenAI Responses, Anthropic
 * Messages and Gemini, each answering JSON or a stream (as the request asks) in the shapes the
 * real endpoints send, written here independently of the proxy's own writers. `reply` sees each
 * request body and says what the "model" answers: text, or tool calls.
 */
export type WireProtocol = 'responses' | 'anthropic' | 'gemini';

export interface ScriptedTurn {
  text?: string;
  calls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  /** Responses only: calls of custom (freeform) tools, whose input is text (Codex's `exec`, `apply_patch`). */
  customCalls?: Array<{ id: string; name: string; input: string }>;
}

export interface SeenRequest {
  url: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

const sse = (events: Array<[string | null, unknown]>) => events.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join('');

function responsesReply(turn: ScriptedTurn, n: number, model: string, stream: boolean): { type: string; body: string } {
  const output: Array<Record<string, unknown>> = [];
  if (turn.text !== undefined) output.push({ type: 'message', id: `msg_${n}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: turn.text, annotations: [] }] });
  for (const c of turn.calls ?? []) output.push({ type: 'function_call', id: `fc_${n}_${c.id}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' });
  for (const c of turn.customCalls ?? []) output.push({ type: 'custom_tool_call', id: `ctc_${n}_${c.id}`, call_id: c.id, name: c.name, input: c.input, status: 'completed' });
  const response = (status: string, out: unknown[]) => ({
    id: `resp_${n}`, object: 'response', created_at: 1, status, model, output: out, error: null, incomplete_details: null, tools: [], parallel_tool_calls: true, tool_choice: 'auto',
    usage: status === 'completed' ? { input_tokens: 11 * n, input_tokens_details: { cached_tokens: 0 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 * n + 7 } : null,
  });
  if (!stream) return { type: 'application/json', body: JSON.stringify(response('completed', output)) };
  const events: Array<[string, Record<string, unknown>]> = [];
  const emit = (type: string, f: Record<string, unknown>) => events.push([type, { type, sequence_number: events.length, ...f }]);
  emit('response.created', { response: response('in_progress', []) });
  output.forEach((item, output_index) => {
    if (item['type'] === 'message') {
      const text = turn.text!;
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      emit('response.content_part.added', { item_id: item['id'], output_index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      // The text in two deltas, as a real stream splits it.
      const half = Math.ceil(text.length / 2);
      for (const delta of [text.slice(0, half), text.slice(half)]) emit('response.output_text.delta', { item_id: item['id'], output_index, content_index: 0, delta, logprobs: [] });
      emit('response.output_text.done', { item_id: item['id'], output_index, content_index: 0, text, logprobs: [] });
      emit('response.content_part.done', { item_id: item['id'], output_index, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
    } else if (item['type'] === 'custom_tool_call') {
      const input = String(item['input']);
      emit('response.output_item.added', { output_index, item: { ...item, input: '', status: 'in_progress' } });
      for (const delta of [input.slice(0, 3), input.slice(3)]) emit('response.custom_tool_call_input.delta', { item_id: item['id'], output_index, delta });
      emit('response.custom_tool_call_input.done', { item_id: item['id'], output_index, input });
    } else {
      const args = String(item['arguments']);
      emit('response.output_item.added', { output_index, item: { ...item, arguments: '', status: 'in_progress' } });
      for (const delta of [args.slice(0, 3), args.slice(3)]) emit('response.function_call_arguments.delta', { item_id: item['id'], output_index, delta });
      emit('response.function_call_arguments.done', { item_id: item['id'], output_index, arguments: args });
    }
    emit('response.output_item.done', { output_index, item });
  });
  emit('response.completed', { response: response('completed', output) });
  return { type: 'text/event-stream', body: sse(events) };
}

function anthropicReply(turn: ScriptedTurn, n: number, model: string, stream: boolean): { type: string; body: string } {
  const content: Array<Record<string, unknown>> = [];
  if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
  for (const c of turn.calls ?? []) content.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args });
  const stop = turn.calls?.length ? 'tool_use' : 'end_turn';
  const message = (blocks: unknown[], stopReason: string | null, output: number) => ({
    id: `msg_${n}`, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null,
    usage: { input_tokens: 11 * n, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output },
  });
  if (!stream) return { type: 'application/json', body: JSON.stringify(message(content, stop, 7)) };
  const events: Array<[string, Record<string, unknown>]> = [];
  const emit = (type: string, f: Record<string, unknown>) => events.push([type, { type, ...f }]);
  emit('message_start', { message: message([], null, 1) });
  emit('ping', {});
  content.forEach((block, index) => {
    if (block['type'] === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      const text = String(block['text']);
      const half = Math.ceil(text.length / 2);
      for (const piece of [text.slice(0, half), text.slice(half)]) emit('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    } else {
      emit('content_block_start', { index, content_block: { ...block, input: {} } });
      // Fragments of the input's JSON with the spacing a real model streams.
      const json = JSON.stringify(block['input'], null, 1);
      for (const piece of [json.slice(0, 4), json.slice(4)]) emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    emit('content_block_stop', { index });
  });
  emit('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 7 } });
  emit('message_stop', {});
  return { type: 'text/event-stream', body: sse(events) };
}

function geminiReply(turn: ScriptedTurn, n: number, model: string, stream: boolean, alt: boolean): { type: string; body: string } {
  const chunk = (parts: unknown[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
    usageMetadata: { promptTokenCount: 11 * n, candidatesTokenCount: last ? 7 : 2, totalTokenCount: 11 * n + (last ? 7 : 2) },
    modelVersion: model,
    responseId: `r${n}`,
  });
  const parts: unknown[] = [];
  if (turn.text !== undefined) parts.push({ text: turn.text });
  for (const c of turn.calls ?? []) parts.push({ functionCall: { name: c.name, args: c.args } });
  if (!stream) return { type: 'application/json', body: JSON.stringify(chunk(parts, true)) };
  const chunks = turn.text !== undefined && !turn.calls?.length
    ? [chunk([{ text: turn.text.slice(0, 3) }], false), chunk([{ text: turn.text.slice(3) }], true)]
    : [chunk(parts, true)];
  return alt ? { type: 'text/event-stream', body: sse(chunks.map((c) => [null, c])) } : { type: 'application/json', body: JSON.stringify(chunks) };
}

export class ProtocolServer {
  readonly requests: SeenRequest[] = [];
  private server: Server | null = null;

  constructor(
    readonly protocol: WireProtocol,
    private readonly reply: (body: Record<string, unknown>, index: number) => ScriptedTurn,
    private readonly model = 'loopback-model',
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = req.url ?? '';
        const path = url.split('?')[0]!;
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
        this.requests.push({ url, method: req.method ?? '', headers: req.headers, body });
        const n = this.requests.filter((r) => r.method === 'POST').length;
        let answer: { type: string; body: string } | null = null;
        if (this.protocol === 'responses' && path.endsWith('/responses')) answer = responsesReply(this.reply(body, n - 1), n, this.model, body['stream'] === true);
        if (this.protocol === 'anthropic' && path.endsWith('/v1/messages')) answer = anthropicReply(this.reply(body, n - 1), n, this.model, body['stream'] === true);
        const gem = /:(generateContent|streamGenerateContent)$/.exec(path);
        if (this.protocol === 'gemini' && gem) answer = geminiReply(this.reply(body, n - 1), n, this.model, gem[1] === 'streamGenerateContent', url.includes('alt=sse'));
        if (!answer) return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
        res.writeHead(200, { 'content-type': answer.type }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
