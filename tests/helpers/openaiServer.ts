import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  content?: string | null;
  tool_calls?: Array<{ id?: string; name: string; arguments: string }>;
  status?: number;
  /** Extra response headers (e.g. Retry-After on a 429). */
  headers?: Record<string, string>;
}

export interface ChatRequestBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown; strict?: boolean } }>;
}

/**
 * Lets a test answer a request itself (a fault: 429, hang, reset, malformed body) before the script
 * does; returns true when it handled the response.
 */
export type FaultHook = (req: IncomingMessage, res: ServerResponse, index: number) => boolean;

/**
 * A small OpenAI-compatible chat-completions server on 127.0.0.1, for tests of the real client.
 * `reply` sees each request body and returns what the "model" says.
 */
export class FakeOpenAIServer {
  readonly requests: Array<{ body: ChatRequestBody; headers: IncomingMessage['headers']; url: string }> = [];
  private server: Server | null = null;

  constructor(
    private readonly reply: (body: ChatRequestBody, index: number) => ScriptedReply,
    private readonly options: { fault?: FaultHook; latencyMs?: number } = {},
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        if (req.method === 'GET' && req.url?.endsWith('/models')) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'loopback-model', object: 'model', created: 0, owned_by: 'test' }] }));
          return;
        }
        if (req.method !== 'POST' || !req.url?.split('?')[0]!.endsWith('/chat/completions')) {
          res.writeHead(404).end();
          return;
        }
        const body = JSON.parse(raw) as ChatRequestBody;
        this.requests.push({ body, headers: req.headers, url: req.url });
        if (this.options.fault?.(req, res, this.requests.length - 1)) return;
        const reply = this.reply(body, this.requests.length - 1);
        if (reply.status && reply.status >= 400) {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }));
          return;
        }
        const toolCalls = (reply.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `call_${this.requests.length}_${i}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
        const send = (text: string, contentType = 'application/json') => {
          const write = () => res.writeHead(200, { 'content-type': contentType }).end(text);
          if (this.options.latencyMs) setTimeout(write, this.options.latencyMs);
          else write();
        };
        if (body.stream) {
          send(streamChunks(`chatcmpl-${this.requests.length}`, body, reply.content ?? null, toolCalls), 'text/event-stream');
          return;
        }
        send(
          JSON.stringify({
            id: `chatcmpl-${this.requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: reply.content ?? null, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
                finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
              },
            ],
            usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  async stop(): Promise<void> {
    // Hung requests keep their sockets open; a stopped server drops them.
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * The reply as an SSE stream the way OpenAI sends it: a role chunk, the content in pieces, each tool
 * call's id and name first and its arguments in fragments (keyed by index), a finish chunk, the
 * usage chunk when asked for, then `data: [DONE]`.
 */
function streamChunks(id: string, body: ChatRequestBody, content: string | null, toolCalls: Array<{ id: string; function: { name: string; arguments: string } }>): string {
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
  const chunk = (delta: unknown, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of (content ?? '').match(/[\s\S]{1,7}/g) ?? []) out.push(chunk({ content: piece }));
  toolCalls.forEach((c, index) => {
    out.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
    for (const piece of c.function.arguments.match(/[\s\S]{1,5}/g) ?? []) out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, toolCalls.length ? 'tool_calls' : 'stop'));
  if (body.stream_options?.include_usage) out.push({ ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } });
  return out.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}
