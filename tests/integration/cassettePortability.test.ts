import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureProxy } from '../../src/capture/captureProxy.js';
import { volatileMask, type TrialPlaces } from '../../src/capture/cassetteNormalize.js';
import type { CassetteMatch } from '../../src/capture/cassetteMatch.js';
import { CassetteRecorder, CassetteReplay } from '../../src/capture/cassetteStore.js';
import { createRedactor } from '../../src/schema/redact.js';
import { tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer, type ChatRequestBody } from '../helpers/openaiServer.js';

const DAY = 86_400_000;
let server: FakeOpenAIServer | null = null;
const proxies: CaptureProxy[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
  await server?.stop();
  server = null;
});

/** The "model": reads the working directory from the system prompt, asks for a file there, then answers from the tool's output. */
function brain(body: ChatRequestBody) {
  const tool = body.messages.find((m) => m.role === 'tool');
  if (tool) return { content: `The note says: ${String(tool.content).split('\n')[0]}` };
  const cwd = /Working directory: (\S+)/.exec(String(body.messages[0]!.content))![1]!;
  return { tool_calls: [{ name: 'read_file', arguments: JSON.stringify({ path: `${cwd}/notes.txt` }) }] };
}

const masks = [volatileMask('pid [0-9]+', 'pid N')];

async function proxyFor(mode: { record: string } | { replay: string; match?: CassetteMatch }): Promise<CaptureProxy> {
  const redactor = createRedactor({});
  let upstream = null;
  if ('record' in mode) {
    server = new FakeOpenAIServer(brain);
    upstream = { baseUrl: await server.start(), apiKey: 'sk-upstream-0123456789abcdefghijklmnop' };
  }
  const proxy = new CaptureProxy({
    upstream,
    replay: 'replay' in mode ? new CassetteReplay(mode.replay, mode.match) : null,
    recorder: 'record' in mode ? new CassetteRecorder(mode.record, 'test', redactor) : null,
    redactor,
    masks,
  });
  await proxy.start();
  proxies.push(proxy);
  return proxy;
}

/** A trial folder, HOME and clock of its own: what a coding CLI puts into its prompt and tool output. */
function trialPlaces(now: number): TrialPlaces & { workspace: string; home: string } {
  const root = tempDir();
  const workspace = path.join(root, 'tracegate-run-4242-Ab12Cd', String(1 + Math.floor(Math.random() * 9)));
  const home = path.join(root, 'scratch', 'home');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(home, { recursive: true });
  return { workspace, home, homes: [home], temps: [path.join(root, 'scratch')], clocks: [now] };
}

/** One agent trial: prompt with the places, date and ids; the tool's output carries a PID; returns the agent's final text and the tool call's path. */
async function agentTrial(proxy: CaptureProxy, places: ReturnType<typeof trialPlaces>, now: number, extra = '') {
  const channel = proxy.openTrial('task_p', undefined, places);
  const client = new OpenAI({ baseURL: channel.baseUrl, apiKey: channel.apiKey, maxRetries: 0 });
  const slug = places.workspace.replace(/[^A-Za-z0-9]/g, '-');
  const system = [
    `Working directory: ${places.workspace}`,
    `Project memory: ${places.home}/.claude/projects/${slug}/memory.md`,
    `Today's date is ${new Date(now).toISOString().slice(0, 10)} (${new Date(now).toDateString()}).`,
    `Session ${randomUUID()}, request gemini-${now}-1.${extra}`,
  ].join('\n');
  const tools = [{ type: 'function' as const, function: { name: 'read_file', description: 'read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: system }, { role: 'user', content: 'What does the note in this project say? It was written 2026-03-14.' }];
  const first = await client.chat.completions.create({ model: 'm', messages, tools });
  const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
  const asked = (JSON.parse(call.function.arguments) as { path: string }).path;
  messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: `remember the milk\n(read by pid ${10_000 + Math.floor(Math.random() * 50_000)} at ${new Date(now).toISOString()})` });
  const second = await client.chat.completions.create({ model: 'm', messages, tools });
  return { asked, answer: second.choices[0]!.message.content, traffic: channel.close() };
}

describe('cassettes that survive a new trial folder, HOME and day', () => {
  it('a recording made in one folder replays in another a day later: paths, slugs, dates, ids and masked PIDs do not key the request, and the model’s paths name the new folder', async () => {
    const cassettes = tempDir();
    const now = Date.now();
    const a = trialPlaces(now);
    const recorded = await agentTrial(await proxyFor({ record: cassettes }), a, now);
    expect(recorded.traffic.runError).toBeNull();
    expect(recorded.asked).toBe(`${a.workspace}/notes.txt`);
    expect(recorded.answer).toBe('The note says: remember the milk');
    const stored = readFileSync(path.join(cassettes, 'task_p.json'), 'utf8');
    expect(stored).toContain('<tracegate:workspace>/notes.txt');
    expect(stored).not.toContain(a.workspace);

    const tomorrow = now + DAY;
    const b = trialPlaces(tomorrow);
    const replayed = await agentTrial(await proxyFor({ replay: cassettes }), b, tomorrow);
    expect(replayed.traffic.runError).toBeNull();
    expect(replayed.traffic.exchanges.map((x) => x.source)).toEqual(['replayed', 'replayed']);
    expect(replayed.asked).toBe(`${b.workspace}/notes.txt`);
    expect(replayed.answer).toBe('The note says: remember the milk');
  });

  it('a request that changed misses by hash (naming the step) and replays by call order', async () => {
    const cassettes = tempDir();
    const now = Date.now();
    await agentTrial(await proxyFor({ record: cassettes }), trialPlaces(now), now);
    const byHash = await agentTrial(await proxyFor({ replay: cassettes }), trialPlaces(now), now, ' Extra instructions.').catch((error: Error) => error);
    expect(byHash).toBeInstanceOf(Error);
    expect(String((byHash as Error).message)).toMatch(/task task_p, step 1: no recorded response for request sha256:/);
    const byOrder = await agentTrial(await proxyFor({ replay: cassettes, match: 'order' }), trialPlaces(now), now, ' Extra instructions.');
    expect(byOrder.traffic.runError).toBeNull();
    expect(byOrder.answer).toBe('The note says: remember the milk');
  });
});
