import { request } from 'node:http';
import type { ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureProxy } from '../../src/capture/captureProxy.js';
import { CassetteRecorder } from '../../src/capture/cassetteStore.js';
import { EndpointLimiter } from '../../src/provider/index.js';
import { createRedactor } from '../../src/schema/redact.js';
import { tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer, type FaultHook } from '../helpers/openaiServer.js';

/** A key no redaction pattern knows: only the proxy's own masking keeps it from the agent. */
const KEY = 'lmstudio-7f3a9c2e1d5b';
let server: FakeOpenAIServer | null = null;
let proxy: CaptureProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  await server?.stop();
  proxy = null;
  server = null;
});

async function live(fault: FaultHook, budgetMs = 30_000, recorder: CassetteRecorder | null = null) {
  server = new FakeOpenAIServer(() => ({ content: 'scripted' }), { fault });
  const url = await server.start();
  proxy = new CaptureProxy({ upstream: { baseUrl: url, apiKey: KEY }, replay: null, recorder, limiter: new EndpointLimiter({ max: 4 }), redactor: createRedactor({}) });
  await proxy.start();
  return proxy.openTrial('task_a', { deadline: Date.now() + budgetMs });
}

const sse = (res: ServerResponse, frames: string[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(frames.map((f) => `data: ${f}\n\n`).join(''));
};
const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

/** Everything an agent can get back from one call, raw: status and body text. */
async function call(baseUrl: string, apiKey: string, body: object): Promise<{ status: number; text: string }> {
  const response = await fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}

describe('capture proxy: the upstream key never reaches the agent', () => {
  it('error bodies echoing the key or the headers, the proxy’s own fault messages and 200 bodies that echo it are all masked', async () => {
    const echo: FaultHook = (req, res) => {
      const auth = String(req.headers['authorization']);
      // The scenario is the user's message (the server has already logged the parsed body).
      const scenario = server!.requests.at(-1)!.body.messages[0]!.content;
      if (scenario === '401') return void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect API key provided: ${auth.slice(7)}` } })), true;
      if (scenario === '400') return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `bad request; headers were ${JSON.stringify(req.headers)}` } })), true;
      if (scenario === '500') return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`Traceback: auth=${auth} failed`), true;
      if (scenario === 'echo-json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: `you sent ${auth}` }, finish_reason: 'stop' }] })), true;
      if (scenario === 'echo-stream') {
        // The key split over two network writes, so only a scrubber that holds a tail catches it.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const text = `data: ${chunk({ role: 'assistant', content: `you sent ${auth}` })}\n\ndata: ${chunk({}, 'stop')}\n\ndata: [DONE]\n\n`;
        const cut = text.indexOf(KEY) + 5;
        res.write(text.slice(0, cut));
        setTimeout(() => res.end(text.slice(cut)), 30);
        return true;
      }
      return false;
    };
    // A 500 is retried until the trial's budget runs out, so it gets a trial of its own with a short
    // budget; the others get a budget that holds on a loaded machine.
    const trial = await live(echo);
    const seen: string[] = [];
    for (const scenario of ['401', '400', 'echo-json']) {
      const { text } = await call(trial.baseUrl, trial.apiKey, { model: 'm', messages: [{ role: 'user', content: scenario }] });
      seen.push(text);
    }
    const streamed = await call(trial.baseUrl, trial.apiKey, { model: 'm', stream: true, messages: [{ role: 'user', content: 'echo-stream' }] });
    seen.push(streamed.text);
    const failing = proxy!.openTrial('task_b', { deadline: Date.now() + 1500 });
    const failed = await call(failing.baseUrl, failing.apiKey, { model: 'm', messages: [{ role: 'user', content: '500' }] });
    seen.push(failed.text);
    for (const text of seen) expect(text).not.toContain(KEY);
    expect(seen[0]).toMatch(/Incorrect API key provided: \[REDACTED/);
    expect(seen[2]).toContain('you sent Bearer [REDACTED:upstream_key]');
    expect(streamed.text).toContain('you sent Bearer [REDACTED:upstream_key]');
    expect(streamed.text).toMatch(/data: \[DONE\]\n\n$/);
    expect(failed.text).toMatch(/task task_b, step 1: .*Traceback: auth=\[REDACTED/);
    const traffic = [trial.close(), failing.close()];
    expect(JSON.stringify(traffic)).not.toContain(KEY);
    // The upstream did get the real key.
    expect(server!.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('the openai client sees a 400 echoing the headers without the key', async () => {
    const trial = await live((req, res) => (res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `bad request; headers were ${JSON.stringify(req.headers)}` } })), true));
    const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 });
    const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('bad request; headers were');
    expect((error as Error).message).not.toContain(KEY);
  });
});

describe('capture proxy: recording keeps only whole replies', () => {
  it('a stream that carried an error, was cut short or was reset is passed on but never recorded; a whole one is', async () => {
    const dir = tempDir();
    const byMessage: Record<string, (res: ServerResponse) => void> = {
      error: (res) => sse(res, [chunk({ role: 'assistant', content: 'Half' }), '{"error":{"message":"worker crashed"}}']),
      cut: (res) => sse(res, [chunk({ role: 'assistant', content: 'Half' })]),
      reset: (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${chunk({ role: 'assistant', content: 'Half' })}\n\n`);
        setTimeout(() => res.socket!.destroy(), 20);
      },
      whole: (res) => sse(res, [chunk({ role: 'assistant', content: 'All of it' }), chunk({}, 'stop'), '[DONE]']),
    };
    const trial = await live((_req, res) => (byMessage[String(server!.requests.at(-1)!.body.messages[0]!.content)]!(res), true), 30_000, new CassetteRecorder(dir, 'test', createRedactor({})));
    for (const message of ['error', 'cut', 'reset', 'whole']) {
      await fetch(`${trial.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${trial.apiKey}` }, body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: message }] }) })
        .then((r) => r.text())
        .catch(() => 'reset');
    }
    const { exchanges } = trial.close();
    expect(exchanges.map((e) => e.error === null)).toEqual([false, false, false, true]);
    expect(exchanges[1]!.error).toMatch(/cut short/);
    const cassette = JSON.parse(readFileSync(path.join(dir, 'task_a.json'), 'utf8')) as { interactions: Array<{ response: { content: string } }> };
    expect(cassette.interactions.map((i) => i.response.content)).toEqual(['All of it']);
  });
});

describe('capture proxy: what passes through as the agent sent it', () => {
  it('the query string and the OpenAI-Organization/Project/Beta headers go upstream; custom tools are accepted; a non-UTF-8 completion reaches the agent byte for byte', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Caf'), Buffer.from([0xe9, 0xff]), Buffer.from('"},"finish_reason":"stop"}]}')]);
    const trial = await live((_req, res) => {
      if (server!.requests.length === 2) return void res.writeHead(200, { 'content-type': 'application/json; charset=iso-8859-1' }).end(latin1), true;
      return false;
    });
    const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0, organization: 'org-agent', project: 'proj_agent', defaultHeaders: { 'OpenAI-Beta': 'assistants=v2', 'X-Other': 'kept-here' }, defaultQuery: { 'api-version': '2024-10-21' } });
    const reply = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'custom', custom: { name: 'apply_patch', description: 'patch', format: { type: 'text' } } }] });
    expect(reply.choices[0]!.message.content).toBe('scripted');
    const sent = server!.requests[0]!;
    expect(sent.url).toBe('/v1/chat/completions?api-version=2024-10-21');
    expect(sent.headers).toMatchObject({ 'openai-organization': 'org-agent', 'openai-project': 'proj_agent', 'openai-beta': 'assistants=v2', authorization: `Bearer ${KEY}` });
    expect(sent.headers['x-other']).toBeUndefined();
    const raw = await fetch(`${trial.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${trial.apiKey}` }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'latin' }] }) });
    expect(Buffer.from(await raw.arrayBuffer()).equals(latin1)).toBe(true);
    expect(raw.headers.get('content-type')).toBe('application/json; charset=iso-8859-1');
    const { exchanges } = trial.close();
    expect(exchanges[0]!.toolNames).toEqual(['apply_patch']);
  });
});

describe('capture proxy: an upload over the cap', () => {
  it('a chunked upload that never ends is answered 413 as its cap passes and its connection closed, not read to its end', async () => {
    const trial = await live(() => false);
    const cap = 32 * 1024 * 1024;
    const piece = Buffer.alloc(1024 * 1024, 'a');
    const url = new URL(`${trial.baseUrl}/chat/completions`);
    // An agent that would upload forever: stopped only by the proxy (or, on the old code, after 3 caps).
    const seen = await new Promise<{ status: number | null; writtenAtAnswer: number | null; ended: boolean }>((resolve) => {
      let written = 0;
      let ended = false;
      let status: number | null = null;
      let writtenAtAnswer: number | null = null;
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${trial.apiKey}`, 'content-type': 'application/json' } });
            req.on('response', (res) => {
        status = res.statusCode ?? null;
        writtenAtAnswer = written;
        res.resume();
      });
      // Resolves only once the connection is gone: the proxy closed it (the agent would have gone on).
      req.on('close', () => resolve({ status, writtenAtAnswer, ended }));
      req.on('error', () => undefined);
      const pump = () => {
        while (status === null && !req.destroyed) {
          if (written > 3 * cap) return void ((ended = true), req.end());
          written += piece.length;
          if (!req.write(piece)) return void req.once('drain', pump);
        }
      };
      req.write('{"model":"m","messages":[{"role":"user","content":"');
      pump();
    });
    // The proxy closes the connection at its cap, so the client never gets to finish. Its 413 is
    // usually read first; on a loaded machine the close (a reset, unread data pending) can win.
    expect(seen.ended).toBe(false);
    expect([413, null]).toContain(seen.status);
    // What the proxy took before answering: its cap and what the sockets' buffers held.
    if (seen.status !== null) expect(seen.writtenAtAnswer!).toBeLessThan(cap + 16 * 1024 * 1024);
    expect(trial.close().exchanges).toEqual([]);
  }, 60_000);
});
