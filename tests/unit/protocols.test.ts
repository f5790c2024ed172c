import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../src/capture/protocols/anthropicMessages.js';
import { chatCompletions } from '../../src/capture/protocols/chatCompletions.js';
import { gemini } from '../../src/capture/protocols/gemini.js';
import { describeCall, matchProtocol } from '../../src/capture/protocols/index.js';
import { responses } from '../../src/capture/protocols/responses.js';
import type { NormalizedRequest, Protocol, ProtocolRoute } from '../../src/capture/protocols/protocol.js';
import { SseParser } from '../../src/capture/chatReply.js';

const read = (protocol: Protocol, body: unknown, route: ProtocolRoute = { kind: 'generate', upstreamPath: '/' }) => {
  const request = protocol.read(body, route);
  if (typeof request === 'string') throw new Error(request);
  return request;
};

/** A written reply read back through the protocol's own folder (or fold): what a recording replays as. */
function roundTrip(protocol: Protocol, request: NormalizedRequest, reply: Parameters<Protocol['write']>[0]) {
  const written = protocol.write(reply, request, 1);
  if (written.contentType !== 'text/event-stream') return protocol.fold(JSON.parse(written.body));
  const folder = protocol.folder();
  const parser = new SseParser();
  parser.push(written.body, (data, event) => void folder.add(data, event));
  expect(folder.complete()).toBe(true);
  return folder.reply();
}

describe('protocol front-ends: requests read into the normalized conversation', () => {
  it('Chat Completions: a function tool without parameters is accepted', () => {
    const request = read(chatCompletions, { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'now' } }] });
    expect(request.toolNames).toEqual(['now']);
  });

  it('Responses: instructions, messages, calls with the text before them as one turn, function and custom outputs, other tool types passed through', () => {
    const request = read(responses, {
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}' },
        { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
        { type: 'custom_tool_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'Done!' }] },
      ],
      tools: [{ type: 'function', name: 'shell', parameters: {} }, { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } }, { type: 'web_search' }, { type: 'namespace', name: 'mcp__fs', tools: [] }],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } }, { id: 'call_2', type: 'function', function: { name: 'apply_patch', arguments: '*** Begin Patch' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Done!' },
    ]);
    expect(request.toolNames).toEqual(['shell', 'apply_patch', 'web_search', 'mcp__fs']);
    // A custom tool's call is written back as a custom_tool_call.
    const written = JSON.parse(responses.write({ model: 'gpt-5', content: null, refusal: null, toolCalls: [{ id: 'c9', name: 'apply_patch', arguments: 'patch' }], usage: null, finishReason: 'tool_calls' }, request, 3).body) as { output: Array<Record<string, unknown>> };
    expect(written.output[0]).toMatchObject({ type: 'custom_tool_call', call_id: 'c9', input: 'patch' });
  });

  it('Responses: the tools of an additional_tools input item (Codex 0.171 code mode) are the request’s tools, and a custom tool inside a namespace is written back as a custom_tool_call', () => {
    // The shape Codex 0.171 sends for its default model: no `tools` field; a developer item with namespaces.
    const exec = { type: 'custom', name: 'exec', description: 'Run JavaScript code to orchestrate/compose tool calls', format: { type: 'grammar', syntax: 'lark', definition: 'start: SOURCE\nSOURCE: /[\\s\\S]+/\n' } };
    const body = (description: string) => ({
      model: 'gpt-6.2-sol',
      stream: true,
      input: [
        { type: 'additional_tools', id: 'at_01a23b3b', role: 'developer', tools: [{ type: 'namespace', name: 'functions', description: '', tools: [{ ...exec, description }, { type: 'function', name: 'wait', parameters: { type: 'object', properties: {} } }] }, { type: 'namespace', name: 'clock', tools: [{ type: 'function', name: 'sleep', parameters: {} }] }] },
        { type: 'message', id: 'msg_1', role: 'user', content: [{ type: 'input_text', text: 'What is the launch code in notes.txt?' }] },
      ],
    });
    const request = read(responses, body(exec.description));
    expect(request.toolNames).toEqual(['functions', 'clock']);
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'input_text', text: 'What is the launch code in notes.txt?' }] }]);
    // The tools key the request: a changed tool is another request.
    expect(read(responses, body('Run TypeScript')).keyed.tools).not.toEqual(request.keyed.tools);
    const written = responses.write({ model: 'gpt-6.2-sol', content: null, refusal: null, toolCalls: [{ id: 'call_1', name: 'exec', arguments: 'text(1)' }], usage: null, finishReason: 'tool_calls' }, request, 1).body;
    expect(written).toContain('"type":"response.custom_tool_call_input.done"');
    expect(roundTrip(responses, request, { model: 'gpt-6.2-sol', content: null, refusal: null, toolCalls: [{ id: 'call_1', name: 'exec', arguments: 'text(1)' }], usage: null, finishReason: 'tool_calls' }).toolCalls).toEqual([{ id: 'call_1', name: 'exec', arguments: 'text(1)' }]);
  });

  it('Anthropic: top-level system blocks and role system, tool results first with string or block content', () => {
    const request = read(anthropicMessages, {
      model: 'claude',
      max_tokens: 10,
      system: [{ type: 'text', text: 'You are Claude Code.' }],
      messages: [
        { role: 'system', content: 'Extra rule.' },
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }, { type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x = 1' }, { type: 'text', text: 'go on' }] },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'You are Claude Code.' },
      { role: 'system', content: 'Extra rule.' },
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: 'Reading.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'x = 1' },
      { role: 'user', content: [{ type: 'text', text: 'go on' }] },
    ]);
  });

  it('routes: ?beta=true kept upstream, the Gemini path prefix kept and its ?key= dropped, an unknown API named', () => {
    expect(matchProtocol('POST', '/v1/messages', new URLSearchParams('beta=true'))).toMatchObject({ protocol: { id: 'anthropic-messages' }, route: { kind: 'generate', upstreamPath: '/v1/messages?beta=true' } });
    expect(matchProtocol('POST', '/v1/messages/count_tokens', new URLSearchParams())?.route.kind).toBe('count-tokens');
    expect(matchProtocol('HEAD', '', new URLSearchParams())?.route.kind).toBe('probe');
    expect(matchProtocol('POST', '/v1/responses', new URLSearchParams())?.protocol.id).toBe('responses');
    const g = matchProtocol('POST', '/gw/v1beta/models/gemini-2.5-flash:streamGenerateContent', new URLSearchParams('alt=sse&key=trial'));
    expect(g).toMatchObject({ protocol: { id: 'gemini' }, route: { kind: 'generate', model: 'gemini-2.5-flash', streamed: true, sse: true, upstreamPath: '/gw/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse' } });
    expect(matchProtocol('POST', '/v1/embeddings', new URLSearchParams())).toBeNull();
    expect(describeCall('POST', '/api/chat')).toBe('POST /api/chat — the Ollama API —');
    expect(describeCall('POST', '/v1/foo')).toBe('POST /v1/foo');
  });
});

describe('protocol front-ends: a recorded reply written back reads as the same reply, streamed or not', () => {
  const reply = { model: 'm', content: 'Here.', refusal: null, toolCalls: [{ id: 'toolu_7', name: 'Read', arguments: '{"file_path":"a"}' }], usage: { input_tokens: 12, output_tokens: 3 }, finishReason: 'tool_calls' };
  const cases: Array<[Protocol, unknown, ProtocolRoute]> = [
    // A chat stream carries usage only when the client asks for it (include_usage).
    [chatCompletions, { model: 'm', messages: [], stream_options: { include_usage: true } }, { kind: 'generate', upstreamPath: '/' }],
    [responses, { model: 'm', input: 'hi' }, { kind: 'generate', upstreamPath: '/' }],
    [anthropicMessages, { model: 'm', messages: [] }, { kind: 'generate', upstreamPath: '/' }],
    [gemini, { contents: [] }, { kind: 'generate', upstreamPath: '/', model: 'm' }],
  ];
  for (const [protocol, body, route] of cases) {
    for (const stream of [false, true]) {
      it(`${protocol.id}, ${stream ? 'streamed' : 'whole'}`, () => {
        const request = read(protocol, { ...(body as object), stream }, { ...route, streamed: stream, sse: stream });
        const back = roundTrip(protocol, request, reply);
        expect(back).toMatchObject({ content: 'Here.', toolCalls: [{ name: 'Read', arguments: '{"file_path":"a"}' }], usage: reply.usage, finishReason: 'tool_calls' });
        if (protocol !== gemini) expect(back.toolCalls[0]!.id).toBe('toolu_7');
      });
    }
  }

  it('a stream cut before its end is not complete (so it is never recorded)', () => {
    for (const protocol of [responses, anthropicMessages, gemini]) {
      const request = read(protocol, protocol === gemini ? { contents: [] } : protocol === responses ? { model: 'm', input: 'x', stream: true } : { model: 'm', messages: [], stream: true }, { kind: 'generate', upstreamPath: '/', model: 'm', streamed: true, sse: true });
      const body = protocol.write({ ...reply, toolCalls: [], finishReason: 'stop', content: 'a long answer' }, request, 1).body;
      const frames = body.split('\n\n').filter(Boolean);
      const folder = protocol.folder();
      const parser = new SseParser();
      parser.push(frames.slice(0, protocol === gemini ? 0 : -2).map((f) => f + '\n\n').join(''), (data, event) => void folder.add(data, event));
      expect(folder.complete(), protocol.id).toBe(false);
    }
  });
});
