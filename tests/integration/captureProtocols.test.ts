import { readdirSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type Part } from '@google/genai';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureProxy, type CaptureProxyOptions, type TrialChannel } from '../../src/capture/captureProxy.js';
import { CassetteRecorder, CassetteReplay } from '../../src/capture/cassetteStore.js';
import { spansFromTraffic } from '../../src/capture/trafficSpans.js';
import { createRedactor } from '../../src/schema/redact.js';
import { tempDir } from '../helpers/cli.js';
import { ProtocolServer, type WireProtocol } from '../helpers/protocolServers.js';

/**
 * Each protocol front-end through the official client of its API: a two-step tool loop recorded
 * live from a scripted loopback upstream, then replayed with no upstream at all, streamed where
 * it was recorded unstreamed and the reverse; the same llm and tool spans for every protocol.
 */
const servers: ProtocolServer[] = [];
const proxies: CaptureProxy[] = [];
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
  for (const s of servers.splice(0)) await s.close();
});

const NOTE = 'the note says 42';
const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

type Agent = (channel: TrialChannel, stream: boolean) => Promise<string>;

const responsesAgent: Agent = async (channel, stream) => {
  const client = new OpenAI({ baseURL: channel.baseUrl, apiKey: channel.apiKey, maxRetries: 0 });
  const tools = [{ type: 'function' as const, name: 'read_note', description: 'Reads a note', parameters: schema, strict: false }];
  let input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'What does the note say?' }];
  for (let i = 0; i < 4; i++) {
    const response = stream ? await client.responses.stream({ model: 'loopback-model', input, tools }).finalResponse() : await client.responses.create({ model: 'loopback-model', input, tools });
    const calls = response.output.filter((o) => o.type === 'function_call');
    // The text from the items: the stream helper's final response has no output_text convenience.
    if (!calls.length) return response.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');
    input = [...input, ...response.output, ...calls.map((c) => ({ type: 'function_call_output' as const, call_id: c.call_id, output: NOTE }))];
  }
  throw new Error('no answer');
};

const anthropicAgent: Agent = async (channel, stream) => {
  const client = new Anthropic({ baseURL: channel.rootUrl, apiKey: channel.apiKey, maxRetries: 0 });
  const tools = [{ name: 'read_note', description: 'Reads a note', input_schema: schema as Anthropic.Tool.InputSchema }];
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What does the note say?' }];
  for (let i = 0; i < 4; i++) {
    const params = { model: 'loopback-model', max_tokens: 256, system: 'You read notes.', messages, tools };
    const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    const uses = message.content.filter((b) => b.type === 'tool_use');
    if (!uses.length) return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    messages.push({ role: 'assistant', content: message.content });
    messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: [{ type: 'text' as const, text: NOTE }] })) });
  }
  throw new Error('no answer');
};

const geminiAgent: Agent = async (channel, stream) => {
  const ai = new GoogleGenAI({ apiKey: channel.apiKey, httpOptions: { baseUrl: channel.rootUrl } });
  const config = { systemInstruction: 'You read notes.', tools: [{ functionDeclarations: [{ name: 'read_note', description: 'Reads a note', parametersJsonSchema: schema }] }] };
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'What does the note say?' }] }];
  for (let i = 0; i < 4; i++) {
    const parts: Part[] = [];
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream({ model: 'loopback-model', contents, config })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else {
      const response = await ai.models.generateContent({ model: 'loopback-model', contents, config });
      parts.push(...(response.candidates?.[0]?.content?.parts ?? []));
    }
    const calls = parts.filter((p) => p.functionCall);
    if (!calls.length) return parts.map((p) => p.text ?? '').join('');
    contents.push({ role: 'model', parts });
    contents.push({ role: 'user', parts: calls.map((c) => ({ functionResponse: { name: c.functionCall!.name!, response: { output: NOTE } } })) });
  }
  throw new Error('no answer');
};

const CASES: Array<{ protocol: WireProtocol; agent: Agent; keyHeader: string; realKey: string }> = [
  { protocol: 'responses', agent: responsesAgent, keyHeader: 'authorization', realKey: 'sk-openai-upstream-key-0001' },
  { protocol: 'anthropic', agent: anthropicAgent, keyHeader: 'x-api-key', realKey: 'sk-ant-upstream-key-0001' },
  { protocol: 'gemini', agent: geminiAgent, keyHeader: 'x-goog-api-key', realKey: 'AIzaUpstreamKey0001' },
];

function upstreamOptions(protocol: WireProtocol, url: string, key: string): Pick<CaptureProxyOptions, 'upstream' | 'upstreams'> {
  if (protocol === 'responses') return { upstream: { baseUrl: `${url}/v1`, apiKey: key } };
  if (protocol === 'anthropic') return { upstream: null, upstreams: { anthropic: { baseUrl: url, apiKey: key, keyHeader: 'x-api-key' } } };
  return { upstream: null, upstreams: { gemini: { baseUrl: url, apiKey: key, keyHeader: 'x-goog-api-key' } } };
}

async function startProxy(options: CaptureProxyOptions): Promise<CaptureProxy> {
  const proxy = new CaptureProxy(options);
  await proxy.start();
  proxies.push(proxy);
  return proxy;
}

describe('capture proxy protocol front-ends', () => {
  for (const { protocol, agent, keyHeader, realKey } of CASES) {
    for (const recordStreamed of [false, true]) {
      it(`${protocol}: recorded ${recordStreamed ? 'streamed' : 'unstreamed'} through the official client, replayed ${recordStreamed ? 'unstreamed' : 'streamed'} with no upstream; the same spans`, async () => {
        const upstream = new ProtocolServer(protocol, (_body, i) => (i === 0 ? { calls: [{ id: 'toolu_a1', name: 'read_note', args: { path: 'note.txt' } }] } : { text: 'The note says 42.' }));
        servers.push(upstream);
        const url = await upstream.start();
        const dir = tempDir();
        const redactor = createRedactor({}, [realKey]);
        const live = await startProxy({ ...upstreamOptions(protocol, url, realKey), replay: null, recorder: new CassetteRecorder(dir, url, redactor), redactor });
        const channel = live.openTrial('note');
        expect(await agent(channel, recordStreamed)).toBe('The note says 42.');
        const traffic = channel.close();
        expect(traffic.runError).toBeNull();

        // The real key went upstream in the protocol's own header; the trial's key never did.
        const posts = upstream.requests.filter((r) => r.method === 'POST');
        expect(posts).toHaveLength(2);
        for (const r of posts) {
          expect(String(r.headers[keyHeader])).toContain(realKey);
          expect(JSON.stringify(r.headers)).not.toContain(channel.apiKey);
        }
        if (protocol === 'anthropic') expect(posts[0]!.headers['anthropic-version']).toBeTruthy();

        const { spans, usage, lastAnswer } = spansFromTraffic(traffic.exchanges, 'root');
        const llm = spans.filter((s) => s.kind === 'llm');
        expect(llm.map((s) => s.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);
        expect(llm.map((s) => s.attributes['llm.streamed'])).toEqual([recordStreamed, recordStreamed]);
        expect(llm[0]!.attributes['llm.tools']).toEqual(['read_note']);
        expect(usage).toEqual({ input_tokens: 33, output_tokens: 14 });
        const tools = spans.filter((s) => s.kind === 'tool');
        expect(tools).toHaveLength(1);
        expect(tools[0]!.attributes).toMatchObject({ 'gen_ai.tool.name': 'read_note', 'gen_ai.tool.call.arguments': '{"path":"note.txt"}', 'gen_ai.tool.call.result': NOTE, 'result.ok': true });
        if (protocol !== 'gemini') expect(tools[0]!.attributes['gen_ai.tool.call.id']).toBe('toolu_a1');
        expect(lastAnswer).toBe('The note says 42.');
        expect(readdirSync(dir)).toEqual(['note.json']);

        // Replay: no upstream, the other streaming mode, the same conversation.
        const replay = await startProxy({ upstream: null, replay: new CassetteReplay(dir), recorder: null, redactor });
        const again = replay.openTrial('note');
        expect(await agent(again, !recordStreamed)).toBe('The note says 42.');
        const replayed = again.close();
        expect(replayed.runError).toBeNull();
        expect(replayed.exchanges.map((x) => x.source)).toEqual(['replayed', 'replayed']);
        const second = spansFromTraffic(replayed.exchanges, 'root');
        expect(second.spans.filter((s) => s.kind === 'tool').map((s) => s.attributes['gen_ai.tool.call.result'])).toEqual([NOTE]);
        expect(second.usage).toEqual(usage);
      });
    }
  }

  it('a route no front-end speaks is a PROTOCOL_REFUSED run error naming the API; a body that is not the protocol names it too', async () => {
    const proxy = await startProxy({ upstream: null, replay: null, recorder: null });
    const channel = proxy.openTrial('t');
    const embeddings = await fetch(`${channel.baseUrl}/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${channel.apiKey}` }, body: '{}' });
    expect(embeddings.status).toBe(404);
    expect(await embeddings.text()).toContain('the OpenAI Embeddings API');
    const traffic = channel.close();
    expect(traffic.runError?.code).toBe('PROTOCOL_REFUSED');
    expect(traffic.runError?.message).toMatch(/task t: this agent called POST \/v1\/embeddings — the OpenAI Embeddings API — at the proxy; .*Anthropic Messages/);

    const second = proxy.openTrial('u');
    const bad = await fetch(`${second.rootUrl}/v1/messages?beta=true`, { method: 'POST', headers: { 'x-api-key': second.apiKey }, body: JSON.stringify({ model: 'm', messages: 'hi' }) });
    expect(bad.status).toBe(400);
    expect(second.close().runError).toMatchObject({ code: 'PROTOCOL_REFUSED', message: expect.stringMatching(/POST \/v1\/messages — the Anthropic Messages API — at the proxy with a body it cannot read: .*messages/) });
  });

  it('HEAD / and count_tokens answer without an upstream; a Messages call with no Anthropic upstream is NO_MODEL naming ANTHROPIC_API_KEY; a wrong x-api-key is refused', async () => {
    const proxy = await startProxy({ upstream: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' }, replay: null, recorder: null });
    const channel = proxy.openTrial('t');
    expect((await fetch(`${channel.rootUrl}/`, { method: 'HEAD' })).status).toBe(200);
    // Probes and reads that are no model call never make the trial errored.
    expect((await fetch(`${channel.rootUrl}/v1`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${channel.rootUrl}/api/hello`, { headers: { 'x-api-key': channel.apiKey } })).status).toBe(404);
    const count = await fetch(`${channel.rootUrl}/v1/messages/count_tokens?beta=true`, { method: 'POST', headers: { 'x-api-key': channel.apiKey }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello there' }] }) });
    expect(((await count.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const wrong = await fetch(`${channel.rootUrl}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'sk-ant-someone-else' }, body: '{}' });
    expect(wrong.status).toBe(401);
    const client = new Anthropic({ baseURL: channel.rootUrl, apiKey: channel.apiKey, maxRetries: 0 });
    await expect(client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/ANTHROPIC_API_KEY/);
    expect(channel.close().runError).toMatchObject({ code: 'NO_MODEL', message: expect.stringContaining('the Anthropic Messages API') });
  });

  it("the proxy's own error reaches a Gemini client in the Gemini API's shape, so the client reads its reason", async () => {
    // An empty cassette folder: the call misses, and the proxy answers 502 with why.
    const proxy = await startProxy({ upstream: null, replay: new CassetteReplay(tempDir()), recorder: null });
    const channel = proxy.openTrial('gem');
    const raw = await fetch(`${channel.rootUrl}/v1beta/models/m:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': channel.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect(raw.status).toBe(502);
    const body = (await raw.json()) as { error: { code: number; message: string; status: string } };
    expect(body.error).toMatchObject({ code: 502, status: 'UNAVAILABLE', message: expect.stringContaining('task gem, step 1') });
    const ai = new GoogleGenAI({ apiKey: channel.apiKey, httpOptions: { baseUrl: channel.rootUrl } });
    await expect(ai.models.generateContent({ model: 'm', contents: 'hi again' })).rejects.toThrow(/task gem, step 2: .*no recorded response|task gem, step 2/);
    expect(channel.close().runError?.code).toBe('CASSETTE_MISS');
    // An OpenAI client still gets the shape it reads.
    const other = proxy.openTrial('oai');
    const openai = new OpenAI({ baseURL: other.baseUrl, apiKey: other.apiKey, maxRetries: 0 });
    await expect(openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(/task oai, step 1/);
    other.close();
  });
});
