import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

/**
 * How an upstream's misbehaviour is scored for a real agent process (the openai npm client, which
 * throws on an error frame and then crashes the agent): a provider fault is the run's error, never
 * the agent's failure. The scenario is the model name the agent asks for.
 */
const KEY = 'sk-upstream-0123456789abcdefghijklmnop';
const AGENT = `
import OpenAI from ${JSON.stringify(path.join(ROOT, 'node_modules/openai/index.mjs'))};
import fs from 'node:fs';
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const [model, mode] = input.prompt.split(' ');
const client = new OpenAI({ maxRetries: 0, timeout: 60000 });
const messages = [{ role: 'user', content: 'hi' }];
if (mode === 'retry') {
  // Calls the faulty scenario, and on its error once more with a model that answers.
  let text = '';
  try {
    const stream = await client.chat.completions.create({ model, messages, stream: true });
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  } catch {
    text = (await client.chat.completions.create({ model: 'answers', messages })).choices[0].message.content;
  }
  console.log(text);
} else if (mode === 'stream') {
  const stream = await client.chat.completions.create({ model, messages, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  console.log(text);
} else {
  const reply = await client.chat.completions.create({ model, messages });
  console.log(reply.choices[0].message.content);
}
`;

const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const json = (res: ServerResponse, status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

function scenario(server: () => FakeOpenAIServer) {
  return (_req: IncomingMessage, res: ServerResponse): boolean => {
    const model = server().requests.at(-1)!.body.model;
    const head = () => res.writeHead(200, { 'content-type': 'text/event-stream' });
    switch (model) {
      case 'error_event':
        head();
        res.end(`data: ${chunk({ role: 'assistant', content: 'Half an ans' })}\n\nevent: error\ndata: {"error":{"message":"model overloaded mid-stream","type":"server_error","code":"overloaded"}}\n\n`);
        return true;
      case 'error_frame':
        head();
        res.end(`data: ${chunk({ role: 'assistant', content: 'Half an ans' })}\n\ndata: {"error":{"message":"upstream worker crashed","type":"server_error","code":500}}\n\n`);
        return true;
      case 'error_200':
        json(res, 200, { error: { message: 'model not loaded', type: 'server_error', code: 503 } });
        return true;
      case 'refuse_401':
        json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
        return true;
      case 'refuse_403':
        json(res, 403, { error: { message: 'project has no access to this model' } });
        return true;
      case 'missing_404':
        json(res, 404, { error: { message: 'The model `missing_404` does not exist', code: 'model_not_found' } });
        return true;
      case 'bad_400':
        json(res, 400, { error: { message: "Invalid value for 'messages'", type: 'invalid_request_error' } });
        return true;
      case 'hang':
        // Headers and a first chunk, then nothing, with the connection held open.
        head();
        res.write(`data: ${chunk({ role: 'assistant', content: 'Half an ans' })}\n\n`);
        return true;
      default:
        return false;
    }
  };
}

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

interface Report {
  tasks: Array<{ id: string; status: string; failure_reason: string | null; trials: Array<{ trace_file: string | null; error: { code: string; message: string } | null }> }>;
}

async function run(tasks: Array<{ id: string; prompt: string; timeout_ms?: number }>) {
  server = new FakeOpenAIServer(() => ({ content: 'The answer is 42' }), { fault: scenario(() => server!) });
  const url = await server.start();
  const dir = tempDir();
  writeFileSync(path.join(dir, 'agent.mjs'), AGENT);
  writeFileSync(path.join(dir, 'suite.jsonl'), tasks.map((t) => JSON.stringify({ ...t, expected_contains: ['42'] })).join('\n') + '\n');
  const out = path.join(dir, 'out');
  const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--agent-cmd', `node ${path.join(dir, 'agent.mjs')}`, '--base-url', url, '--out', out, '--no-html', '-q'], {
    env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: '', OPENAI_MODEL: '' },
  });
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
  const byId = Object.fromEntries(report.tasks.map((t) => [t.id, t]));
  const trace = (id: string) =>
    JSON.parse(readFileSync(path.join(out, byId[id]!.trials[0]!.trace_file!), 'utf8')) as { spans: Array<{ kind: string; status: string; attributes: Record<string, unknown> }> };
  return { result, byId, trace };
}

describe('capture proxy: provider faults make the trial errored, not the agent failed', () => {
  it('an error frame in a 200 stream (event: error, or data: {"error"}) and a 200 error body are PROVIDER_ERROR with the provider’s message, the llm span an error', async () => {
    const { byId, trace } = await run([
      { id: 'event', prompt: 'error_event stream' },
      { id: 'frame', prompt: 'error_frame stream' },
      { id: 'body', prompt: 'error_200 json' },
      { id: 'fine', prompt: 'ok stream' },
    ]);
    expect(byId['fine']!.status).toBe('passed');
    for (const [id, message] of [
      ['event', 'model overloaded mid-stream (overloaded)'],
      ['frame', 'upstream worker crashed (500)'],
      ['body', 'model not loaded (503)'],
    ] as const) {
      expect(byId[id]!.status, id).toBe('errored');
      expect(byId[id]!.trials[0]!.error, id).toMatchObject({ code: 'PROVIDER_ERROR' });
      expect(byId[id]!.trials[0]!.error!.message, id).toBe(`task ${id}, step 1: the upstream answered with an error: ${message}`);
      const llm = trace(id).spans.find((s) => s.kind === 'llm')!;
      expect(llm.status, id).toBe('error');
      expect(llm.attributes['llm.error'], id).toContain(message);
    }
  });

  it('a provider fault the agent gets past by calling again is not the trial’s error: it is judged on its answer, the failed call kept as an error span', async () => {
    const { byId, trace } = await run([
      { id: 'recovers', prompt: 'error_event retry' },
      { id: 'recovers_cut', prompt: 'error_frame retry' },
    ]);
    for (const id of ['recovers', 'recovers_cut']) {
      expect(byId[id]!.status, id).toBe('passed');
      expect(byId[id]!.trials[0]!.error, id).toBeNull();
      expect(trace(id).spans.filter((s) => s.kind === 'llm').map((s) => s.status), id).toEqual(['error', 'ok']);
    }
  });

  it('a stream that hangs after its headers is cut by an idle timeout within the trial budget: PROVIDER_ERROR, not the agent’s timeout', async () => {
    const { byId, trace } = await run([{ id: 'hangs', prompt: 'hang stream', timeout_ms: 4000 }]);
    expect(byId['hangs']!.status).toBe('errored');
    expect(byId['hangs']!.trials[0]!.error).toMatchObject({ code: 'PROVIDER_ERROR' });
    expect(byId['hangs']!.trials[0]!.error!.message).toMatch(/^task hangs, step 1: stream broke: the upstream stream sent nothing for [\d.]+ s \(idle timeout\)$/);
    expect(trace('hangs').spans.find((s) => s.kind === 'llm')!.status).toBe('error');
  });

  it('401/403 (tracegate’s key is wrong) and 404 (no such model) are PROVIDER_ERROR naming what to check; a 400 for the agent’s own request stays the agent’s crash', async () => {
    const { byId } = await run([
      { id: 'r401', prompt: 'refuse_401 json' },
      { id: 'r403', prompt: 'refuse_403 stream' },
      { id: 'r404', prompt: 'missing_404 json' },
      { id: 'r400', prompt: 'bad_400 json' },
    ]);
    for (const id of ['r401', 'r403']) {
      expect(byId[id]!.status, id).toBe('errored');
      expect(byId[id]!.trials[0]!.error, id).toMatchObject({ code: 'PROVIDER_ERROR' });
      expect(byId[id]!.trials[0]!.error!.message, id).toMatch(/step 1: the upstream refused tracegate's key \(HTTP 40[13]: .+\); check the key variable/);
    }
    expect(byId['r401']!.trials[0]!.error!.message).toContain('Incorrect API key provided (invalid_api_key)');
    expect(byId['r404']!.trials[0]!.error).toMatchObject({ code: 'PROVIDER_ERROR', message: 'task r404, step 1: the upstream has no such model or endpoint (HTTP 404: The model `missing_404` does not exist (model_not_found)); check the model name and the base URL (--base-url or OPENAI_BASE_URL)' });
    expect(byId['r400']!.status).toBe('failed');
    expect(byId['r400']!.failure_reason).toBe('AGENT_CRASH');
  });
});
