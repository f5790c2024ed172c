import { describe, expect, it } from 'vitest';
import { ChunkAccumulator, SseParser, sseBody, type ChatReply } from '../../src/capture/chatReply.js';
import type { Exchange } from '../../src/capture/exchange.js';
import { spansFromTraffic } from '../../src/capture/trafficSpans.js';
import { retryDelayMs } from '../../src/capture/upstream.js';
import type { RecordContent } from '../../src/schema/recordContent.js';
import { createRedactor } from '../../src/schema/redact.js';

const reply = (content: string | null, calls: Array<[string, string, string]> = []): ChatReply => ({
  model: 'm', content, refusal: null, toolCalls: calls.map(([id, name, args]) => ({ id, name, arguments: args })), usage: { input_tokens: 10, output_tokens: 2 }, finishReason: calls.length ? 'tool_calls' : 'stop',
});
let n = 0;
const exchange = (messages: Exchange['messages'], r: ChatReply, tools = ['read_file']): Exchange => ({
  index: ++n, started: `2026-01-01T00:00:0${n}.000Z`, ended: `2026-01-01T00:00:0${n}.500Z`, model: 'm', messages, toolNames: tools, streamed: false, source: 'live', reply: r, error: null,
});

describe('spans from proxied traffic', () => {
  it('one llm span per call, one tool span per call paired with the result the agent sent back; side requests apart', () => {
    const system = { role: 'system' as const, content: 'be brief' };
    const user = { role: 'user' as const, content: 'read a' };
    const call = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } };
    const traffic = [
      exchange([{ role: 'system', content: 'title please' }, user], reply('Title'), []),
      exchange([system, user], reply(null, [['c1', 'read_file', '{"path":"a"}']])),
      exchange([system, user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'c1', content: '{"ok": false, "error_type": "FILE_NOT_FOUND", "recoverable": true}' }], reply(null, [['c2', 'read_file', '{"path":"b"}']])),
      exchange([{ role: 'user', content: 'summarize the chat so far' }], reply('a summary'), []),
      exchange(
        [system, user, { role: 'assistant', content: '', tool_calls: [call] }, { role: 'tool', tool_call_id: 'c1', content: '{"ok": false, "error_type": "FILE_NOT_FOUND", "recoverable": true}' }, { role: 'assistant', content: null, tool_calls: [{ ...call, id: 'c2', function: { name: 'read_file', arguments: '{"path":"b"}' } }] }, { role: 'tool', tool_call_id: 'c2', content: 'contents of b: Error: disk on fire' }],
        reply('b says hi'),
      ),
    ];
    const { spans, lastAnswer, usage } = spansFromTraffic(traffic, 'root', [{ pattern: /disk on fire/, error_type: 'COMMAND_FAILED' }]);
    const llm = spans.filter((s) => s.kind === 'llm');
    expect(llm.map((s) => [s.attributes['step'], s.attributes['llm.side_request']])).toEqual([[0, true], [1, false], [2, false], [2, true], [3, false]]);
    const tools = spans.filter((s) => s.kind === 'tool');
    expect(tools.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['result.ok'], s.attributes['error_type'], s.parent_id])).toEqual([
      ['c1', false, 'FILE_NOT_FOUND', llm[1]!.span_id],
      ['c2', false, 'COMMAND_FAILED', llm[2]!.span_id],
    ]);
    expect(tools[0]!.end).toBe(traffic[2]!.started);
    expect(lastAnswer).toBe('b says hi');
    expect(usage).toEqual({ input_tokens: 50, output_tokens: 10 });
  });

  it('a tool call whose result never came back is recorded as not executed', () => {
    const { spans } = spansFromTraffic([exchange([{ role: 'user', content: 'go' }], reply(null, [['c9', 'run', '{}']]))], 'root');
    expect(spans.find((s) => s.kind === 'tool')!.attributes).toMatchObject({ executed: false, 'result.seen': false });
  });

  it('--record-content: an agent\'s proxied calls record as much of their content as the harness\'s do', () => {
    const messages = [{ role: 'system' as const, content: 'be brief' }, { role: 'user' as const, content: 'token sk-proj-abcdefghijklmnopqrstuvwx' }];
    const redact = createRedactor({}).preview;
    const at = (level: RecordContent) => spansFromTraffic([exchange(messages, reply('y'.repeat(2500)), [])], 'root', [], 'live', [], redact, level).spans[0]!.attributes;
    expect(at('none')).not.toHaveProperty('llm.content_preview');
    expect(at('summary')['llm.content_preview']).toHaveLength(2000);
    expect(at('summary')).not.toHaveProperty('llm.input_messages');
    const full = at('full');
    expect(JSON.parse(String(full['llm.input_messages']))).toEqual([messages[0], { role: 'user', content: 'token [REDACTED:openai_key]' }]);
    expect(full['llm.output_content']).toHaveLength(2500);
  });
});

describe('chat-completions streaming', () => {
  it('folds SSE chunks: content pieces, tool calls by index with id and name first and argument fragments, usage last', () => {
    const original = reply('thinking', [['call_a', 'read_file', '{"path": "x.md"}'], ['call_b', 'list_files', '{}']]);
    const parser = new SseParser();
    const acc = new ChunkAccumulator();
    const body = sseBody(original, 'id', 0, true);
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    // Fed in awkward pieces, as a network would.
    for (let i = 0; i < body.length; i += 13) parser.push(body.slice(i, i + 13), (d) => d !== '[DONE]' && acc.add(JSON.parse(d)));
    expect(acc.reply()).toEqual(original);
  });

  it('Retry-After in seconds or as a date, else backoff', () => {
    expect(retryDelayMs('2', 0)).toBe(2000);
    expect(retryDelayMs(new Date(10_000).toUTCString(), 0, 7_000)).toBe(3000);
    expect(retryDelayMs(null, 2)).toBe(1000);
  });
});
