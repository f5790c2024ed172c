import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CassetteModel,
  DEFAULT_SETTINGS,
  loadPolicy,
  MAX_TOOL_CALLS_PER_REPLY,
  nonInteractiveApprover,
  OpenAIModel,
  RecordingModel,
  runAgent,
  type Model,
} from '../../harness/index.js';
import { createRedactor } from '../../src/schema/redact.js';
import { toolAttr, toolSpans, type Trace } from '../../src/schema/trace.js';
import { tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer, type ChatRequestBody, type ScriptedReply } from '../helpers/openaiServer.js';

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function serve(reply: (body: ChatRequestBody, index: number) => ScriptedReply) {
  const server = new FakeOpenAIServer(reply);
  servers.push(server);
  return { server, baseURL: await server.start() };
}

/** A server that answers every request with this 200 body, closed after the test. */
async function hostileServer(body: string): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ stop: () => new Promise<void>((resolve) => server.close(() => resolve())) } as FakeOpenAIServer);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function workspace(): string {
  const dir = realpathSync(tempDir('tracegate-ws-'));
  writeFileSync(path.join(dir, 'README.md'), '# demo\nThis project counts widgets.\n');
  return dir;
}

function run(model: Model, prompt: string, ws: string, maxSteps = 5): Promise<Trace> {
  return runAgent(
    { id: 'task_live', prompt, workspace: ws, maxSteps, epoch: 0 },
    { model, modelName: 'test-model', policy: loadPolicy(), approver: nonInteractiveApprover, settings: DEFAULT_SETTINGS },
    new AbortController().signal,
  );
}

const lastTool = (body: ChatRequestBody) => [...body.messages].reverse().find((m) => m.role === 'tool');

describe("the harness's OpenAI-compatible client on loopback", () => {
  it('round-trips a tool call and sends strict tool schemas', async () => {
    const { server, baseURL } = await serve((body, i) =>
      i === 0
        ? { tool_calls: [{ id: 'call_a', name: 'read_file', arguments: '{"path":"README.md"}' }] }
        : { content: `It counts widgets (${lastTool(body)?.content?.includes('widgets') ? 'read' : 'unread'}).` },
    );
    const model = new OpenAIModel({ model: 'test-model', baseURL, apiKey: 'sk-test-not-real-000000000000' });
    const trace = await run(model, 'What does the project do?', workspace());

    expect(trace.final_answer).toEqual({ text: 'It counts widgets (read).', exit_reason: 'completed' });
    expect(trace.model).toMatchObject({ provider: 'openai', mode: 'live', base_url: baseURL });
    expect(trace.usage.total_tokens).toBe(220);
    const [first, second] = server.requests;
    expect(first!.headers['authorization']).toBe('Bearer sk-test-not-real-000000000000');
    const readFile = first!.body.tools!.find((t) => t.function.name === 'read_file')!;
    expect(readFile.function.strict).toBe(true);
    expect(readFile.function.parameters).toMatchObject({ type: 'object', required: ['path'], additionalProperties: false });
    const toolMessage = second!.body.messages.find((m) => m.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_a');
    expect(JSON.parse(toolMessage.content!)).toMatchObject({ ok: true });
    const span = toolSpans(trace)[0]!;
    const firstCall = trace.spans.find((s) => s.kind === 'llm')!;
    expect(span.parent_id).toBe(firstCall.span_id);
    expect(firstCall.parent_id).toBe(trace.spans[0]!.span_id);
    expect(span.attributes).toMatchObject({ 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call.id': 'call_a', policy_decision: 'allow', executed: true, 'result.ok': true });
  });

  it('strips <think> blocks from the final answer and keeps going on an empty reply', async () => {
    const { baseURL } = await serve((_b, i) =>
      i === 0 ? { content: '<think>nothing to say yet</think>' } : { content: '<think>The answer is 4.</think>\nFour.' },
    );
    const trace = await run(new OpenAIModel({ model: 'm', baseURL }), '2+2?', workspace());
    expect(trace.final_answer).toEqual({ text: 'Four.', exit_reason: 'completed' });
    const llm = trace.spans.filter((s) => s.kind === 'llm');
    expect(llm).toHaveLength(2);
    expect(llm[0]!.events.map((e) => e.name)).toContain('empty_reply');
    expect(llm[1]!.attributes['llm.think_stripped']).toBe(true);
  });

  it('answers a malformed argument string with INVALID_ARGUMENTS and lets the model recover', async () => {
    const { server, baseURL } = await serve((_b, i) =>
      i === 0
        ? { tool_calls: [{ name: 'calculator', arguments: '{"operation": "add", "a": 2, "b": ' }] }
        : i === 1
          ? { tool_calls: [{ name: 'calculator', arguments: '{"operation":"add","a":"2","b":3}' }] }
          : i === 2
            ? { tool_calls: [{ name: 'calculator', arguments: '{"operation":"add","a":2,"b":3}' }] }
            : { content: '5' },
    );
    const trace = await run(new OpenAIModel({ model: 'm', baseURL }), 'add 2 and 3', workspace());
    const tools = toolSpans(trace).map(toolAttr);
    expect(tools.map((t) => t.errorType)).toEqual(['INVALID_ARGUMENTS', 'INVALID_ARGUMENTS', null]);
    expect(JSON.parse(lastTool(server.requests[1]!.body)!.content!)).toMatchObject({ ok: false, error_type: 'INVALID_ARGUMENTS', message: expect.stringContaining('not valid JSON') });
    // A string where a number is due is refused, never coerced.
    expect(JSON.parse(lastTool(server.requests[2]!.body)!.content!).message).toMatch(/a: /);
    expect(trace.final_answer.text).toBe('5');
  });

  it('pairs results with calls when the server sends no tool-call ids', async () => {
    const { server, baseURL } = await serve((_b, i) => (i === 0 ? { tool_calls: [{ id: '', name: 'list_files', arguments: '{"path":"."}' }] } : { content: 'done' }));
    const trace = await run(new OpenAIModel({ model: 'm', baseURL }), 'list', workspace());
    expect(trace.final_answer.text).toBe('done');
    const sent = server.requests[1]!.body.messages;
    const call = sent.find((m) => m.role === 'assistant')!.tool_calls![0] as { id: string };
    expect(call.id).toBe('call_1_1');
    expect(sent.find((m) => m.role === 'tool')!.tool_call_id).toBe('call_1_1');
  });

  it('a long loop adds no abort listeners to the task signal (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const { baseURL } = await serve(() => ({ tool_calls: [{ name: 'list_files', arguments: '{"path":"."}' }] }));
    const trace = await run(new OpenAIModel({ model: 'm', baseURL }), 'loop', workspace(), 15);
    await new Promise((r) => setTimeout(r, 20));
    process.off('warning', onWarning);
    expect(trace.spans.filter((s) => s.kind === 'llm')).toHaveLength(15);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('runs at most 64 tool calls of one reply and says so on the model span; the next request pairs every call it kept', async () => {
    const calls = Array.from({ length: 200 }, () => ({ name: 'calculator', arguments: '{"operation":"add","a":1,"b":1}' }));
    const { server, baseURL } = await serve((_body, i) => (i === 0 ? { tool_calls: calls } : { content: 'done' }));
    const trace = await run(new OpenAIModel({ model: 'm', baseURL }), 'add', workspace());
    expect(trace.final_answer).toEqual({ text: 'done', exit_reason: 'completed' });
    expect(toolSpans(trace)).toHaveLength(MAX_TOOL_CALLS_PER_REPLY);
    const firstLlm = trace.spans.find((s) => s.kind === 'llm')!;
    expect(firstLlm.attributes['llm.tool_calls']).toBe(MAX_TOOL_CALLS_PER_REPLY);
    expect(firstLlm.events).toContainEqual(expect.objectContaining({ name: 'tool_calls_capped', attributes: { received: 200, run: MAX_TOOL_CALLS_PER_REPLY } }));
    const second = server.requests[1]!.body.messages as Array<{ role: string; tool_calls?: unknown[] }>;
    expect(second.find((m) => m.role === 'assistant')!.tool_calls).toHaveLength(MAX_TOOL_CALLS_PER_REPLY);
    expect(second.filter((m) => m.role === 'tool')).toHaveLength(MAX_TOOL_CALLS_PER_REPLY);
  });

  it('stops at max_steps', async () => {
    const { baseURL } = await serve(() => ({ tool_calls: [{ name: 'list_files', arguments: '{"path":"."}' }] }));
    const trace = await run(new OpenAIModel({ model: 'm', baseURL }), 'loop', workspace(), 3);
    expect(trace.final_answer).toEqual({ text: null, exit_reason: 'max_steps' });
    expect(trace.spans.filter((s) => s.kind === 'llm')).toHaveLength(3);
  });

  it('records a provider outage that outlasts the budget as a run error naming the fault and the retries', async () => {
    const { server, baseURL } = await serve(() => ({ status: 500 }));
    // No deadline from an orchestrator here: the model's own budget applies.
    const trace = await run(new OpenAIModel({ model: 'm', baseURL, timeoutMs: 3000 }), 'hi', workspace());
    expect(trace.final_answer.exit_reason).toBe('error');
    expect(trace.error).toMatchObject({ code: 'PROVIDER_ERROR', message: expect.stringContaining('task task_live, step 1') });
    expect(trace.error!.message).toMatch(/(server_error \(HTTP 500: .*scripted failure.*\)|timeout \(no response: .*\)) and the time budget ran out; \d+ retr(y|ies) \(.*\d+×server_error/);
    expect(server.requests.length).toBeGreaterThan(2);
    // The failed call is an error span with the fault and its retries, not an ok call of no time.
    const [llm] = trace.spans.filter((s) => s.kind === 'llm');
    expect(llm!.status).toBe('error');
    expect(llm!.attributes['llm.error']).toBe(trace.error!.message);
    expect(llm!.attributes['llm.provider_fault']).toMatch(/^(server_error|timeout)$/);
    expect(llm!.attributes['llm.provider_retries']).toBeGreaterThan(1);
  });

  it('a refused request (401) is a run error with the status and the API message, sent once; the key rides as a bearer token', async () => {
    const { server, baseURL } = await serve(() => ({ status: 401 }));
    const trace = await run(new OpenAIModel({ model: 'm', baseURL: `${baseURL}/`, apiKey: 'sk-test-key' }), 'hi', workspace());
    expect(trace.error).toMatchObject({ code: 'PROVIDER_ERROR', message: 'task task_live, step 1: 401 scripted failure' });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['authorization']).toBe('Bearer sk-test-key');
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('reads a hostile 200 answer defensively: wrong types become nothing, not a crash', async () => {
    const hostile = { choices: [{ message: { content: 42, refusal: ['x'], tool_calls: [null, { type: 'function', function: { name: 7 } }, 'call'] }, finish_reason: {} }], usage: { prompt_tokens: 'many', completion_tokens: -5 } };
    const model = new OpenAIModel({ model: 'm', baseURL: await hostileServer(JSON.stringify(hostile)) });
    const reply = await model.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [], temperature: 0 }, { taskId: 't', step: 1, signal: new AbortController().signal });
    expect(reply).toMatchObject({ content: null, refusal: null, toolCalls: [], finishReason: null, usage: { input_tokens: 0, output_tokens: 0 } });
    const huge = new OpenAIModel({ model: 'm', baseURL: await hostileServer('{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":1e308,"completion_tokens":12.7}}') });
    const counted = await huge.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [], temperature: 0 }, { taskId: 't', step: 1, signal: new AbortController().signal });
    expect(counted.usage).toEqual({ input_tokens: 0, output_tokens: 12 });
  });

  it('absorbs a 429 and a 500 within the budget and records the retries on the model span', async () => {
    const { server, baseURL } = await serve((_body, i) => (i === 0 ? { status: 429 } : i === 1 ? { status: 500 } : { content: 'fine' }));
    const trace = await run(new OpenAIModel({ model: 'm', baseURL, timeoutMs: 10_000 }), 'hi', workspace());
    expect(trace.final_answer).toEqual({ text: 'fine', exit_reason: 'completed' });
    expect(server.requests).toHaveLength(3);
    expect(trace.spans.find((s) => s.kind === 'llm')!.attributes['llm.provider_retries']).toBe(2);
  });

  it('records a live run as a cassette and replays it without the network', async () => {
    const { server, baseURL } = await serve((_b, i) =>
      i === 0 ? { tool_calls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }] } : { content: 'widgets' },
    );
    const dir = tempDir('tracegate-cassettes-');
    const recorder = new RecordingModel(new OpenAIModel({ model: 'm', baseURL }), dir, createRedactor({}));
    const ws = workspace();
    const live = await run(recorder, 'what?', ws);
    expect(live.model.mode).toBe('recording');
    const cassette = JSON.parse(readFileSync(path.join(dir, 'task_live.json'), 'utf8'));
    expect(cassette).toMatchObject({ kind: 'recording', task_id: 'task_live' });
    expect(cassette.interactions).toHaveLength(2);
    await server.stop();

    const replay = new CassetteModel(dir);
    expect(replay.info.mode).toBe('replayed');
    const replayed = await run(replay, 'what?', ws);
    expect(replayed.final_answer.text).toBe('widgets');

    const changed = await run(replay, 'a different prompt', ws);
    expect(changed.error).toMatchObject({ code: 'CASSETTE_MISS', message: expect.stringContaining('task task_live, step 1') });
  });

  it('a scripted cassette that runs out is an error naming task and step', async () => {
    const dir = tempDir('tracegate-cassettes-');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'task_live.json'),
      JSON.stringify({ schema_version: 'cassette/v1', kind: 'script', task_id: 'task_live', model: 'script', interactions: [{ response: { tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] } }] }),
    );
    const model = new CassetteModel(dir);
    expect(model.info.mode).toBe('scripted');
    const trace = await run(model, 'go', workspace());
    expect(trace.error).toMatchObject({ code: 'CASSETTE_MISS', message: 'task task_live, step 2: the script has only 1 responses' });
  });
});
