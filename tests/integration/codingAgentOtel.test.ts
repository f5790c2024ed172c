import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { newTraceContext, startOtlpReceiver, type OtlpReceiver } from '../../src/capture/otlpReceiver.js';
import { toolAttr } from '../../src/schema/trace.js';

/** The coding CLIs' span vocabularies, as their exporters send them (OTLP/JSON over loopback HTTP). */
type Attr = string | number | boolean;
const kv = (attrs: Record<string, Attr>) =>
  Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : { intValue: String(v) } }));
let clock = BigInt(Date.now()) * 1_000_000n;
interface SpanSpec {
  name: string;
  attrs?: Record<string, Attr>;
  parent?: string;
  id?: string;
  error?: string;
}
function span(traceId: string, s: SpanSpec) {
  const start = (clock += 1_000_000n);
  return {
    traceId,
    spanId: s.id ?? randomBytes(8).toString('hex'),
    ...(s.parent ? { parentSpanId: s.parent } : {}),
    name: s.name,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500_000n),
    attributes: kv(s.attrs ?? {}),
    status: s.error ? { code: 2, message: s.error } : { code: 1 },
  };
}
async function send(receiver: OtlpReceiver, traceId: string, spans: SpanSpec[], resource: Record<string, Attr> = {}) {
  const body = { resourceSpans: [{ resource: { attributes: kv({ 'service.name': 'agent', ...resource }) }, scopeSpans: [{ spans: spans.map((s) => span(traceId, s)) }] }] };
  const res = await fetch(`${receiver.endpoint}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
}

let receiver: OtlpReceiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

describe('coding CLIs over OTLP', () => {
  it("Claude Code's claude_code.llm_request and claude_code.tool spans (under the trial's TRACEPARENT) are model and tool calls", async () => {
    receiver = await startOtlpReceiver({ openTracesOnly: true });
    const trial = newTraceContext();
    receiver.open(trial.traceId);
    const root = randomBytes(8).toString('hex');
    await send(receiver, trial.traceId, [
      { name: 'claude_code.interaction', id: root, parent: trial.spanId, attrs: { 'span.type': 'interaction', user_prompt: '<REDACTED>' } },
      { name: 'claude_code.llm_request', parent: root, attrs: { model: 'claude-sonnet-4-5', 'gen_ai.system': 'anthropic', input_tokens: 120, output_tokens: 30, stop_reason: 'tool_use', success: true } },
      { name: 'claude_code.tool', parent: root, attrs: { tool_name: 'Read', tool_use_id: 'toolu_1', 'gen_ai.tool.call.id': 'toolu_1', success: false, error: 'File does not exist.' } },
      { name: 'claude_code.llm_request', parent: root, attrs: { model: 'claude-sonnet-4-5', input_tokens: 160, output_tokens: 12, stop_reason: 'end_turn', success: true } },
    ]);
    const spans = await receiver.settle(trial.traceId, 200);
    const llm = spans.filter((s) => s.kind === 'llm');
    expect(llm.map((s) => [s.attributes['llm.model'] ?? s.attributes['gen_ai.request.model'], s.attributes['gen_ai.usage.input_tokens']])).toEqual([
      ['claude-sonnet-4-5', 120],
      ['claude-sonnet-4-5', 160],
    ]);
    const tools = spans.filter((s) => s.kind === 'tool');
    expect(tools.map((s) => [toolAttr(s).name, toolAttr(s).ok])).toEqual([['Read', false]]);
    expect(tools[0]!.status).toBe('error');
  });

  it("Codex's handle_responses span with the turn's usage is the model call, its exec_command the tool call; the stream-event spans stay out", async () => {
    receiver = await startOtlpReceiver({ openTracesOnly: true });
    const trial = newTraceContext();
    receiver.open(trial.traceId);
    await send(receiver, trial.traceId, [
      { name: 'handle_responses', attrs: { 'otel.name': 'output_item_added', from: 'output_item_added', tool_name: 'exec_command' } },
      { name: 'handle_responses', attrs: { 'otel.name': 'completed', 'gen_ai.usage.input_tokens': 900, 'gen_ai.usage.output_tokens': 40 } },
      { name: 'exec_command', attrs: { call_id: 'call_1', command: 'cat notes.txt' } },
    ]);
    const spans = await receiver.settle(trial.traceId, 200);
    expect(spans.filter((s) => s.kind === 'llm').map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([900]);
    expect(spans.filter((s) => s.kind === 'tool').map((s) => [toolAttr(s).name, toolAttr(s).arguments])).toEqual([['exec_command', 'cat notes.txt']]);
  });

  it("Gemini CLI's spans under a trace id of its own are tied to their trial by resource attribute, or as the only trial open; with several open and none named they are dropped and counted", async () => {
    receiver = await startOtlpReceiver({ openTracesOnly: true });
    const [a, b] = [newTraceContext(), newTraceContext()];
    receiver.open(a.traceId);
    receiver.open(b.traceId);
    const gemini = (id: string): SpanSpec[] => [
      { name: 'llm_call', attrs: { 'gen_ai.operation.name': 'llm_call', 'gen_ai.request.model': 'gemini-2.5-pro', 'gen_ai.usage.input_tokens': 70, 'gen_ai.conversation.id': id } },
      { name: 'tool_call', attrs: { 'gen_ai.operation.name': 'tool_call', 'gen_ai.tool.name': 'read_file', 'gen_ai.tool.call_id': 'read_file-1', 'gen_ai.input.messages': JSON.stringify({ callId: 'read_file-1', name: 'read_file', args: { absolute_path: '/w/notes.txt' } }), 'gen_ai.output.messages': 'The launch code is AZURE-7.' } },
    ];
    const own = randomBytes(16).toString('hex');
    await send(receiver, own, gemini('s1'), { 'tracegate.trace_id': a.traceId });
    await send(receiver, randomBytes(16).toString('hex'), gemini('s2'));
    const spans = await receiver.settle(a.traceId, 200);
    expect(spans.filter((s) => s.kind === 'llm').map((s) => s.attributes['gen_ai.usage.input_tokens'])).toEqual([70]);
    expect(spans.filter((s) => s.kind === 'tool').map((s) => [toolAttr(s).name, toolAttr(s).arguments, s.attributes['result.preview'] ?? toolAttr(s).result])).toEqual([['read_file', '{"absolute_path":"/w/notes.txt"}', 'The launch code is AZURE-7.']]);
    expect(receiver.foreign(a.traceId)).toEqual({ adopted: 2, ambiguous: 2 });
    expect(receiver.foreign(b.traceId)).toEqual({ adopted: 0, ambiguous: 2 });
    expect(receiver.droppedReasons()).toEqual({ ambiguous: 2 });

    // B settles and is released: with A the only trial open, an unnamed span is A's; a late span of B is not.
    receiver.release(b.traceId);
    await send(receiver, randomBytes(16).toString('hex'), gemini('s3').slice(0, 1));
    await send(receiver, b.traceId, gemini('late').slice(0, 1));
    expect(receiver.foreign(a.traceId)).toEqual({ adopted: 3, ambiguous: 2 });
    expect(receiver.droppedReasons()).toEqual({ ambiguous: 2, late: 1 });
    receiver.release(a.traceId);
    await send(receiver, randomBytes(16).toString('hex'), gemini('none').slice(0, 1));
    expect(receiver.droppedReasons()).toEqual({ ambiguous: 2, late: 1, 'unknown trace': 1 });
  });
});
