import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureProxy } from '../../src/capture/captureProxy.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { EndpointLimiter } from '../../src/provider/index.js';
import { faultPlan } from '../helpers/faultServer.js';
import { FakeOpenAIServer, type FaultHook, type ScriptedReply } from '../helpers/openaiServer.js';

const KEY = 'sk-upstream-0123456789abcdefghijklmnop';
let server: FakeOpenAIServer | null = null;
let proxy: CaptureProxy | null = null;
let agentServer: Server | null = null;
afterEach(async () => {
  await proxy?.close();
  await server?.stop();
  await new Promise<void>((r) => (agentServer ? agentServer.close(() => r()) : r()));
  proxy = null;
  server = null;
  agentServer = null;
});

async function live(reply: (index: number) => ScriptedReply, options: { fault?: FaultHook; budgetMs?: number } = {}) {
  server = new FakeOpenAIServer((_b, i) => reply(i), { fault: options.fault });
  const url = await server.start();
  proxy = new CaptureProxy({ upstream: { baseUrl: url, apiKey: KEY }, replay: null, recorder: null, limiter: new EndpointLimiter({ max: 4 }) });
  await proxy.start();
  return proxy.openTrial('task_a', { deadline: Date.now() + (options.budgetMs ?? 30_000) });
}

describe('capture proxy with the openai client as the agent', () => {
  it('streams tool-call fragments through unchanged and records the assembled call; the upstream gets the real key', async () => {
    const trial = await live(() => ({ tool_calls: [{ id: 'call_x', name: 'read_file', arguments: '{"path": "docs/a very long file name.md"}' }] }));
    const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true }, tools: [{ type: 'function', function: { name: 'read_file', parameters: {} } }] });
    let args = '';
    let usage: number | undefined;
    for await (const chunk of stream) {
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
      usage = chunk.usage?.prompt_tokens ?? usage;
    }
    expect(args).toBe('{"path": "docs/a very long file name.md"}');
    expect(usage).toBe(100);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['loopback-model']);
    const { exchanges, runError } = trial.close();
    expect(runError).toBeNull();
    expect(exchanges[0]!).toMatchObject({ streamed: true, source: 'live', reply: { toolCalls: [{ id: 'call_x', name: 'read_file', arguments: args }], usage: { input_tokens: 100, output_tokens: 10 } } });
    expect(server!.requests[0]!.headers['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('retries a 429 upstream; an outage that outlasts the trial budget is a PROVIDER_ERROR naming task, step and fault, and the client is told not to retry', async () => {
    const trial = await live((i) => (i === 0 ? { status: 429, headers: { 'retry-after': '0' } } : i === 1 ? { content: 'ok' } : { status: 500 }), { budgetMs: 1500 });
    const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 2 });
    const first = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'one' }] });
    expect(first.choices[0]!.message.content).toBe('ok');
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'two' }] })).rejects.toThrow(/task task_a, step 2: .*server_error \(HTTP 500.*time budget ran out/);
    // The proxy retried (src/provider's loop, within the budget); the client did not retry on top.
    expect(server!.requests.length).toBeGreaterThanOrEqual(2 + 2);
    const error = trial.close().runError;
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(error!.message).toMatch(/retries \(\d+×server_error\)/);
  });

  it('behind the fault server (429 with Retry-After, 500, resets, malformed bodies) every call of the agent still gets its answer, streamed or not', async () => {
    const plan = faultPlan({ rates: { rate_limited: 0.15, server_error: 0.15, reset: 0.1, malformed: 0.1 }, retryAfter: { header: 'retry-after-ms', value: () => '20' }, seed: 7 });
    const trial = await live((i) => ({ content: `answer ${i}` }), { fault: plan.hook });
    const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 });
    const answers: string[] = [];
    for (let n = 0; n < 12; n++) {
      if (n % 2 === 0) {
        const reply = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `q${n}` }] });
        answers.push(reply.choices[0]!.message.content ?? '');
      } else {
        const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `q${n}` }], stream: true });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        answers.push(text);
      }
    }
    expect(answers.every((a) => /^answer \d+$/.test(a))).toBe(true);
    const injected = plan.injected.rate_limited + plan.injected.server_error + plan.injected.reset + plan.injected.malformed;
    expect(injected).toBeGreaterThan(0);
    expect(server!.requests).toHaveLength(12 + injected);
    const traffic = trial.close();
    expect(traffic.runError).toBeNull();
    expect(traffic.exchanges.map((e) => [e.streamed, e.reply?.content])).toEqual(answers.map((a, n) => [n % 2 === 1, a]));
  });

  it('a hung upstream is retried within the budget, and a hang that outlasts it is a PROVIDER_ERROR naming the timeout', async () => {
    const plan = faultPlan({ rates: { hang: 1 } });
    const trial = await live(() => ({ content: 'never' }), { fault: plan.hook, budgetMs: 2500 });
    const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'q' }] })).rejects.toThrow(/step 1: .*timeout/);
    expect(plan.injected.hang).toBeGreaterThanOrEqual(2);
    expect(trial.close().runError).toMatchObject({ code: 'PROVIDER_ERROR' });
  });

  it('refuses another trial’s key and unknown paths', async () => {
    const trial = await live(() => ({ content: 'ok' }));
    const wrong = new OpenAI({ baseURL: trial.baseUrl, apiKey: 'tracegate-trial-someone-else', maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(/401/);
    const gone = trial.baseUrl.replace(/\/t\/[0-9a-f]+/, '/t/' + '0'.repeat(24));
    expect((await fetch(gone + '/models')).status).toBe(404);
  });
});

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? listFiles(path.join(dir, n)) : [path.join(dir, n)]));
}

describe('http adapter', () => {
  it('POSTs agent-input/v1, retries a 503 honouring Retry-After, sends headers from named variables without writing them anywhere, and the agent’s model calls are captured', async () => {
    const seen: Array<{ token: string | undefined; input: Record<string, string> }> = [];
    agentServer = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', async () => {
        const input = JSON.parse(raw) as Record<string, string>;
        seen.push({ token: req.headers['x-agent-token'] as string | undefined, input });
        if (seen.length === 1) return void res.writeHead(503, { 'retry-after': '0' }).end('busy');
        const client = new OpenAI({ baseURL: input['openai_base_url'], apiKey: input['openai_api_key'], maxRetries: 0 });
        const reply = await client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: input['prompt']! }] });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ schema_version: 'agent-output/v1', final_answer: reply.choices[0]!.message.content }));
      });
    });
    await new Promise<void>((r) => agentServer!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/run`;
    const dir = tempDir();
    mkdirSync(path.join(dir, 'cassettes'));
    writeFileSync(path.join(dir, 'cassettes', 'h1.json'), JSON.stringify({ schema_version: 'cassette/v1', kind: 'script', task_id: 'h1', model: 'scripted', interactions: [{ response: { content: 'the answer is 42' } }] }));
    writeFileSync(path.join(dir, 'suite.jsonl'), JSON.stringify({ id: 'h1', prompt: 'what is it?', expected_contains: ['42'] }) + '\n');
    const out = path.join(dir, 'out');
    const token = 'agent-token-abcdef123456';
    const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--agent-url', url, '--agent-header', 'X-Agent-Token=MY_AGENT_TOKEN', '--cassettes', path.join(dir, 'cassettes'), '--out', out], { env: { MY_AGENT_TOKEN: token, OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    expect(result.code).toBe(0);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.token).toBe(token);
    expect(seen[1]!.input).toMatchObject({ schema_version: 'agent-input/v1', task_id: 'h1', prompt: 'what is it?' });
    expect(seen[1]!.input['trace_id']).toMatch(/^[0-9a-f]{32}$/);
    for (const file of listFiles(out)) expect(readFileSync(file, 'utf8'), file).not.toContain(token);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { run: { adapter: string; model: { mode: string } }; tasks: Array<{ status: string; trials: Array<{ trace_file: string }> }> };
    expect(report.run).toMatchObject({ adapter: 'http', model: { mode: 'scripted' } });
    const trace = JSON.parse(readFileSync(path.join(out, report.tasks[0]!.trials[0]!.trace_file), 'utf8')) as { spans: Array<{ kind: string }> };
    expect(trace.spans.filter((s) => s.kind === 'llm')).toHaveLength(1);
  });

  it('a service that never answers is AGENT_TIMEOUT, one that keeps failing is AGENT_CRASH with its body as evidence', async () => {
    agentServer = createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        const input = JSON.parse(raw) as { task_id: string };
        if (input.task_id === 'breaks') res.writeHead(500, { 'retry-after': '0' }).end('NullPointerException in handler');
        // 'hangs': never answered
      });
    });
    await new Promise<void>((r) => agentServer!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/run`;
    const dir = tempDir();
    writeFileSync(path.join(dir, 'suite.jsonl'), [{ id: 'hangs', prompt: 'x', timeout_ms: 3000, expected_contains: ['x'] }, { id: 'breaks', prompt: 'x', expected_contains: ['x'] }].map((t) => JSON.stringify(t)).join('\n') + '\n');
    const out = path.join(dir, 'out');
    const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--agent-url', url, '--out', out, '--no-html'], { env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    agentServer.closeAllConnections();
    expect(result.code).toBe(1);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { tasks: Array<{ id: string; failure_reason: string; evidence: Array<{ detail: string }> }> };
    const byId = Object.fromEntries(report.tasks.map((t) => [t.id, t]));
    expect(byId['hangs']!.failure_reason).toBe('AGENT_TIMEOUT');
    expect(byId['breaks']!.failure_reason).toBe('AGENT_CRASH');
    expect(byId['breaks']!.evidence[0]!.detail).toMatch(/HTTP 500.*NullPointerException/);
  });
});
