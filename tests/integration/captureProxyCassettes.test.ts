import type { ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureProxy } from '../../src/capture/captureProxy.js';
import { CassetteRecorder, CassetteReplay } from '../../src/capture/cassetteStore.js';
import { EndpointLimiter } from '../../src/provider/index.js';
import { createRedactor } from '../../src/schema/redact.js';
import { tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

let server: FakeOpenAIServer | null = null;
const proxies: CaptureProxy[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
  await server?.stop();
  server = null;
});

const completion = (res: ServerResponse, message: object, finish: string) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }));
const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }] });

/** An upstream whose every answer differs: `counter` says which call it was; `thinker` thinks, then is cut at its length limit. */
async function upstream(): Promise<string> {
  let n = 0;
  server = new FakeOpenAIServer(() => ({ content: 'unused' }), {
    fault: (_req, res) => {
      const body = server!.requests.at(-1)!.body;
      n++;
      if (body.model === 'thinker') {
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end([chunk({ role: 'assistant', reasoning_content: 'Let me ' }), chunk({ reasoning_content: 'think.' }), chunk({ content: 'Truncat' }), chunk({}, 'length'), '[DONE]'].map((f) => `data: ${f}\n\n`).join(''));
        } else {
          completion(res, { content: 'Truncat', reasoning_content: 'Let me think.' }, 'length');
        }
        return true;
      }
      const args = JSON.stringify({ path: 'config.env', content: `password=hunter2222-${n}\nDB=postgres` });
      if (body.model === 'secretive' && !body.messages.some((m) => m.role === 'tool')) {
        completion(res, { content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'write_file', arguments: args } }] }, 'tool_calls');
        return true;
      }
      completion(res, { content: `candidate ${n}` }, 'stop');
      return true;
    },
  });
  return server.start();
}

async function proxyFor(options: { record?: string; replay?: string; env?: NodeJS.ProcessEnv }): Promise<CaptureProxy> {
  const url = options.record ? await upstream() : null;
  const redactor = createRedactor(options.env ?? {});
  const proxy = new CaptureProxy({
    upstream: url ? { baseUrl: url, apiKey: 'sk-upstream-0123456789abcdefghijklmnop' } : null,
    replay: options.replay ? new CassetteReplay(options.replay) : null,
    recorder: options.record ? new CassetteRecorder(options.record, 'test', redactor) : null,
    limiter: new EndpointLimiter({ max: 2 }),
    redactor,
  });
  await proxy.start();
  proxies.push(proxy);
  return proxy;
}

const ask = (content: string, extra: object = {}) => ({ model: 'counter', messages: [{ role: 'user' as const, content }], ...extra });

/** One trial's calls: the same question twice, once more with a seed, then a reasoning model cut at its limit, streamed and not. */
async function conversation(client: OpenAI) {
  const texts: string[] = [];
  for (const request of [ask('pick one'), ask('pick one'), ask('pick one', { seed: 7 }), ask('pick one', { tool_choice: 'none' })]) {
    texts.push((await client.chat.completions.create(request)).choices[0]!.message.content ?? '');
  }
  const plain = await client.chat.completions.create({ model: 'thinker', messages: [{ role: 'user', content: 'why?' }] });
  const stream = await client.chat.completions.create({ model: 'thinker', messages: [{ role: 'user', content: 'why?' }], stream: true });
  let reasoning = '';
  let finish: string | null = null;
  for await (const c of stream) {
    reasoning += (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '';
    finish = c.choices[0]?.finish_reason ?? finish;
  }
  return {
    texts,
    plain: [plain.choices[0]!.finish_reason, (plain.choices[0]!.message as { reasoning_content?: string }).reasoning_content],
    streamed: [finish, reasoning],
  };
}

describe('capture proxy cassettes', () => {
  it('record every reply of a repeated request in order and replay them in order (each trial from the first); seed and tool_choice are part of the request; finish_reason and reasoning_content replay', async () => {
    const dir = tempDir();
    const recording = (await proxyFor({ record: dir })).openTrial('task_a');
    const recorded = await conversation(new OpenAI({ baseURL: recording.baseUrl, apiKey: recording.apiKey, maxRetries: 0 }));
    expect(recording.close().runError).toBeNull();
    expect(recorded.texts).toEqual(['candidate 1', 'candidate 2', 'candidate 3', 'candidate 4']);
    expect(recorded.plain).toEqual(['length', 'Let me think.']);
    expect(recorded.streamed).toEqual(['length', 'Let me think.']);

    const replaying = await proxyFor({ replay: dir });
    for (const epoch of [1, 2]) {
      const trial = replaying.openTrial('task_a');
      const replayed = await conversation(new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 }));
      expect(trial.close().runError, `epoch ${epoch}`).toBeNull();
      expect(replayed, `epoch ${epoch}`).toEqual(recorded);
    }
    // A trial that asks once more than was recorded gets the last reply again.
    const trial = replaying.openTrial('task_a');
    const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 });
    const again: string[] = [];
    for (let i = 0; i < 3; i++) again.push((await client.chat.completions.create(ask('pick one'))).choices[0]!.message.content ?? '');
    expect(again).toEqual(['candidate 1', 'candidate 2', 'candidate 2']);
    trial.close();
    const cassette = JSON.parse(readFileSync(path.join(dir, 'task_a.json'), 'utf8')) as { interactions: Array<{ response: Record<string, unknown> }> };
    expect(cassette.interactions).toHaveLength(6);
    expect(cassette.interactions[4]!.response).toMatchObject({ content: 'Truncat', finish_reason: 'length', reasoning_content: 'Let me think.' });
  });
});

describe('capture proxy cassettes under redaction', () => {
  it('a reply whose tool arguments hold a password is stored redacted, and the run still replays: the agent sends the redacted call back and its request matches', async () => {
    const dir = tempDir();
    const run = async (proxy: CaptureProxy) => {
      const trial = proxy.openTrial('task_s');
      const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 });
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'write the config' }];
      const first = (await client.chat.completions.create({ model: 'secretive', messages })).choices[0]!.message;
      const call = first.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
      messages.push({ role: 'assistant', content: null, tool_calls: first.tool_calls! }, { role: 'tool', tool_call_id: call.id, content: 'written' });
      const second = (await client.chat.completions.create({ model: 'secretive', messages })).choices[0]!.message.content;
      return { args: call.function.arguments, second, traffic: trial.close() };
    };
    const recorded = await run(await proxyFor({ record: dir }));
    expect(recorded.args).toContain('password=hunter2222-1');
    expect(readFileSync(path.join(dir, 'task_s.json'), 'utf8')).not.toContain('hunter2222');
    const replayed = await run(await proxyFor({ replay: dir }));
    expect(replayed.traffic.runError).toBeNull();
    expect(replayed.args).toMatch(/password=\[REDACTED:assigned\]/);
    expect(replayed.second).toBe(recorded.second);
  });

  it('the key does not depend on the recording machine: a prompt holding one of its environment values (DESKTOP_SESSION=ubuntu) replays where that variable is unset', async () => {
    const dir = tempDir();
    const once = async (proxy: CaptureProxy) => {
      const trial = proxy.openTrial('task_e');
      const client = new OpenAI({ baseURL: trial.baseUrl, apiKey: trial.apiKey, maxRetries: 0 });
      const text = (await client.chat.completions.create(ask('which desktop runs on ubuntu?'))).choices[0]!.message.content;
      return { text, runError: trial.close().runError };
    };
    const recorded = await once(await proxyFor({ record: dir, env: { DESKTOP_SESSION: 'ubuntu' } }));
    const replayed = await once(await proxyFor({ replay: dir }));
    expect(replayed.runError).toBeNull();
    expect(replayed.text).toBe(recorded.text);
  });
});
