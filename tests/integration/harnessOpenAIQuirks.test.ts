import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { CassetteModel, DEFAULT_SETTINGS, loadPolicy, nonInteractiveApprover, OpenAIModel, RecordingModel, runAgent, type Model } from '../../harness/index.js';
import { createRedactor } from '../../src/schema/redact.js';
import { toolSpans, type Trace } from '../../src/schema/trace.js';
import { tempDir } from '../helpers/cli.js';

/**
 * How real OpenAI-compatible servers answer when they differ from OpenAI: each body below is the
 * shape a known server sends (llama.cpp, Mistral, OpenRouter …), served raw on loopback.
 */

interface Served {
  baseURL: string;
  requests: Array<{ messages: Array<{ role: string; content: unknown; tool_calls?: Array<{ id: string; function: { arguments: unknown } }>; tool_call_id?: string }> }>;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** Answers the i-th chat request with the i-th message (the last one repeats). */
async function serve(
  messages: Array<Record<string, unknown>>,
  respond?: (req: IncomingMessage, res: ServerResponse, index: number) => boolean,
): Promise<Served> {
  const requests: Served['requests'] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      requests.push(JSON.parse(raw));
      const index = requests.length - 1;
      if (respond?.(req, res, index)) return;
      const { finish_reason, ...message } = messages[Math.min(index, messages.length - 1)]!;
      const body = {
        id: `chatcmpl-${index}`,
        object: 'chat.completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish_reason ?? 'stop' }],
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

function workspace(): string {
  const dir = realpathSync(tempDir('tracegate-ws-'));
  writeFileSync(path.join(dir, 'README.md'), '# demo\nThis project counts widgets.\n');
  return dir;
}

function run(model: Model, ws = workspace()): Promise<Trace> {
  return runAgent(
    { id: 'task_quirk', prompt: 'What does README.md say?', workspace: ws, maxSteps: 4, epoch: 0 },
    { model, modelName: 'm', policy: loadPolicy(), approver: nonInteractiveApprover, settings: DEFAULT_SETTINGS },
    new AbortController().signal,
  );
}

const FINAL = { content: 'It counts widgets.' };

describe('OpenAI-compatible servers that answer unlike OpenAI', () => {
  it('runs a tool call whose arguments arrive as a JSON object (llama.cpp server) with those arguments, and sends them back as a string', async () => {
    const server = await serve([
      { content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_file', arguments: { path: 'README.md' } } }], finish_reason: 'tool_calls' },
      FINAL,
    ]);
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL }));
    const [tool] = toolSpans(trace);
    expect(tool!.status).toBe('ok');
    expect(tool!.attributes['gen_ai.tool.call.arguments']).toBe('{"path":"README.md"}');
    expect(tool!.attributes['gen_ai.tool.call.result']).toContain('counts widgets');
    const sentBack = server.requests[1]!.messages.find((m) => m.role === 'assistant')!;
    expect(sentBack.tool_calls![0]!.function.arguments).toBe('{"path":"README.md"}');
    expect(trace.final_answer).toEqual({ text: 'It counts widgets.', exit_reason: 'completed' });
  });

  it('runs a tool call that has no `type` (Mistral API) instead of dropping it as an empty reply', async () => {
    const server = await serve([
      { content: '', tool_calls: [{ id: 'QxJ1', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }], finish_reason: 'tool_calls' },
      FINAL,
    ]);
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL }));
    expect(toolSpans(trace).map((s) => [s.attributes['gen_ai.tool.name'], s.status])).toEqual([['read_file', 'ok']]);
    expect(trace.spans.some((s) => s.events?.some((e) => e.name === 'empty_reply'))).toBe(false);
    expect(server.requests[1]!.messages.find((m) => m.role === 'tool')!.tool_call_id).toBe('QxJ1');
  });

  it('gives tool calls that repeat one id (OpenRouter) distinct ids, so every result pairs with its own call', async () => {
    const call = (file: string) => ({ id: 'call_0', type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: file }) } });
    const server = await serve([{ content: null, tool_calls: [call('README.md'), call('MISSING.md')], finish_reason: 'tool_calls' }, FINAL]);
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL }));
    const ids = toolSpans(trace).map((s) => s.attributes['gen_ai.tool.call.id']);
    expect(ids).toEqual(['call_0', 'call_0_2']);
    const second = server.requests[1]!.messages;
    expect(second.find((m) => m.role === 'assistant')!.tool_calls!.map((c) => c.id)).toEqual(ids);
    expect(second.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(ids);
  });

  it('reads `content` sent as an array of parts (Mistral reasoning models) as its text', async () => {
    const server = await serve([{ content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hmm' }] }, { type: 'text', text: 'It counts ' }, { type: 'text', text: 'widgets.' }] }]);
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL }));
    expect(trace.final_answer).toEqual({ text: 'It counts widgets.', exit_reason: 'completed' });
  });

  it('record then replay keeps how the model ended (finish_reason length), and the replay says it was replayed', async () => {
    const server = await serve([{ content: 'It counts widg', finish_reason: 'length' }]);
    const dir = tempDir('tracegate-cassettes-');
    const ws = workspace();
    const live = await run(new RecordingModel(new OpenAIModel({ model: 'm', baseURL: server.baseURL }), dir, createRedactor({})), ws);
    const replay = new CassetteModel(dir);
    const replayed = await run(replay, ws);
    const reasons = (t: Trace) => t.spans.filter((s) => s.kind === 'llm').map((s) => s.attributes['gen_ai.response.finish_reasons']);
    expect(reasons(live)).toEqual([['length']]);
    expect(reasons(replayed)).toEqual([['length']]);
    expect(replayed.model.mode).toBe('replayed');
    expect(replayed.final_answer).toEqual(live.final_answer);
    expect(replayed.usage).toEqual(live.usage);
  });

  it('a reply with a nameless tool call records a cassette that replays (the call is not one the loop can run)', async () => {
    const server = await serve([
      { content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: '', arguments: '{}' } }, { id: 'y', type: 'function', function: { name: 'read_file', arguments: { path: 'README.md' } } }], finish_reason: 'tool_calls' },
      FINAL,
    ]);
    const dir = tempDir('tracegate-cassettes-');
    const ws = workspace();
    const live = await run(new RecordingModel(new OpenAIModel({ model: 'm', baseURL: server.baseURL }), dir, createRedactor({})), ws);
    expect(JSON.parse(readFileSync(path.join(dir, 'task_quirk.json'), 'utf8')).interactions[0].response.tool_calls).toEqual([
      { id: 'y', name: 'read_file', arguments: '{"path":"README.md"}' },
    ]);
    const replayed = await run(new CassetteModel(dir), ws);
    expect(replayed.error).toBeNull();
    expect(toolSpans(replayed).map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['gen_ai.tool.call.arguments'], s.status])).toEqual(
      toolSpans(live).map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['gen_ai.tool.call.arguments'], s.status]),
    );
    expect(replayed.final_answer).toEqual(live.final_answer);
  });
  it('a proxy that answers 200 with an HTML error page is a provider fault: retried, then errored naming the fault and what came instead', async () => {
    const html = '<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>';
    const server = await serve([FINAL], (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
      return true;
    });
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL, timeoutMs: 3000 }));
    expect(trace.final_answer.exit_reason).toBe('error');
    expect(trace.error!.code).toBe('PROVIDER_ERROR');
    expect(trace.error!.message).toContain('malformed_body (HTTP 200: unreadable body (76 bytes): <html> <head><title>502 Bad Gateway</title></head> <body>nginx</body></html>)');
    expect(server.requests.length).toBeGreaterThan(1);
  });
  it('a reply the redactor takes part of (password: … in prose) still replays: a recording is keyed by the request as redacted', async () => {
    const server = await serve([
      { content: 'First I set password = hunter22 in the config.', tool_calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }], finish_reason: 'tool_calls' },
      FINAL,
    ]);
    const dir = tempDir('tracegate-cassettes-');
    const ws = workspace();
    const redactor = createRedactor({});
    const live = await run(new RecordingModel(new OpenAIModel({ model: 'm', baseURL: server.baseURL }), dir, redactor), ws);
    const cassette = JSON.parse(readFileSync(path.join(dir, 'task_quirk.json'), 'utf8'));
    expect(cassette.interactions[0].response.content).toBe('First I set password = [REDACTED:assigned] in the config.');
    const replayed = await run(new CassetteModel(dir, redactor), ws);
    expect(replayed.error).toBeNull();
    expect(replayed.final_answer).toEqual(live.final_answer);
  });

  it('a recording replays on another machine: a tool result holding a value of the recording machine\'s environment (DESKTOP_SESSION=widgets) keys the same where it is unset', async () => {
    const server = await serve([
      { content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }], finish_reason: 'tool_calls' },
      FINAL,
    ]);
    const dir = tempDir('tracegate-cassettes-');
    const ws = workspace();
    const live = await run(new RecordingModel(new OpenAIModel({ model: 'm', baseURL: server.baseURL }), dir, createRedactor({ DESKTOP_SESSION: 'widgets' })), ws);
    expect(live.error).toBeNull();
    const replayed = await run(new CassetteModel(dir, createRedactor({})), ws);
    expect(replayed.error).toBeNull();
    // The stored answer is the recording machine's, redacted as it was stored.
    expect(replayed.final_answer).toEqual({ text: 'It counts [REDACTED:env].', exit_reason: 'completed' });
  });

  it('redacted tool arguments stay valid JSON, and a replay that then differs says the redaction is why', async () => {
    const args = JSON.stringify({ path: 'cfg.py', content: 'api_key = os.environ["KEY"]\n' });
    const server = await serve([
      { content: null, tool_calls: [{ id: 'w', type: 'function', function: { name: 'write_file', arguments: args } }], finish_reason: 'tool_calls' },
      FINAL,
    ]);
    const dir = tempDir('tracegate-cassettes-');
    const redactor = createRedactor({});
    await run(new RecordingModel(new OpenAIModel({ model: 'm', baseURL: server.baseURL }), dir, redactor));
    const stored = JSON.parse(readFileSync(path.join(dir, 'task_quirk.json'), 'utf8')).interactions[0].response.tool_calls[0].arguments;
    expect(JSON.parse(stored)).toEqual({ path: 'cfg.py', content: 'api_key = [REDACTED:assigned]"KEY"]\n' });
    const replayed = await run(new CassetteModel(dir, redactor));
    expect(toolSpans(replayed).map((s) => [s.attributes['gen_ai.tool.name'], s.status])).toEqual([['write_file', 'ok']]);
    expect(replayed.error).toMatchObject({ code: 'CASSETTE_MISS', message: expect.stringContaining('step 2') });
    expect(replayed.error!.message).toContain('the recording redacted tool arguments');
  });
  it('a 404 names the URL it posted to, so a base URL without its /v1 (Ollama, vLLM) shows', async () => {
    const server = await serve([FINAL], (req, res) => {
      if (req.url === '/v1/chat/completions') return false;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      return true;
    });
    const origin = server.baseURL.replace(/\/v1$/, '');
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: origin }));
    expect(trace.error).toEqual({ code: 'PROVIDER_ERROR', message: `task task_quirk, step 1: 404 404 page not found (POST ${origin}/chat/completions)` });
    expect(server.requests).toHaveLength(1);
    expect((await run(new OpenAIModel({ model: 'm', baseURL: `${server.baseURL}/` }))).final_answer.exit_reason).toBe('completed');
  });
  it.each([
    ['retry-after', '0'],
    ['retry-after-ms', '0'],
    ['retry-after', 'Thu, 01 Jan 1970 00:00:00 GMT'],
    ['retry-after', '-5'],
  ])('a 429 with %s: %s (now, or in the past) is retried with backoff, not at once until the budget ends', async (header, value) => {
    const server = await serve([FINAL], (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', [header]: value }).end('{"error":{"message":"Rate limit reached"}}');
      return true;
    });
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL, timeoutMs: 3000 }));
    expect(trace.error!.message).toMatch(/rate_limited \(HTTP 429: .*Rate limit reached.*\) and the time budget ran out/);
    // Exponential backoff from 250 ms leaves room for a handful of attempts in 3 s; at once, it was hundreds.
    expect(server.requests.length).toBeLessThan(20);
  });
  it('reads a body in raw deflate (no zlib header); a body its content-encoding does not fit is a malformed body of an answer, not a lost connection', async () => {
    const completion = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'It counts widgets.' }, finish_reason: 'stop' }] });
    const raw = await serve([FINAL], (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' }).end(deflateRawSync(completion));
      return true;
    });
    expect((await run(new OpenAIModel({ model: 'm', baseURL: raw.baseURL, timeoutMs: 10_000 }))).final_answer).toEqual({ text: 'It counts widgets.', exit_reason: 'completed' });
    const mislabelled = await serve([FINAL], (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(completion);
      return true;
    });
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: mislabelled.baseURL, timeoutMs: 3000 }));
    expect(trace.error!.message).toContain('malformed_body (HTTP 200: fetch failed: could not decode the response body: Z_DATA_ERROR) and the time budget ran out');
    expect(trace.error!.message).not.toContain('connection_reset');
  });
  it('reads a body that starts with a UTF-8 byte order mark, as fetch does', async () => {
    const completion = JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'It counts widgets. ✓' }, finish_reason: 'stop' }] });
    const server = await serve([FINAL], (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(completion)]));
      return true;
    });
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL, timeoutMs: 10_000 }));
    expect(trace.final_answer).toEqual({ text: 'It counts widgets. ✓', exit_reason: 'completed' });
  });
  it.each([
    ['vLLM', { object: 'error', message: "This model's maximum context length is 4096 tokens.", type: 'BadRequestError', param: null, code: 400 }],
    ['FastAPI', { detail: "This model's maximum context length is 4096 tokens." }],
  ])('a refused request answered in %s\'s error shape is a run error with the server\'s own message', async (_server, error) => {
    const server = await serve([FINAL], (_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(error));
      return true;
    });
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: server.baseURL }));
    expect(trace.error).toEqual({ code: 'PROVIDER_ERROR', message: "task task_quirk, step 1: 400 This model's maximum context length is 4096 tokens." });
  });
});
