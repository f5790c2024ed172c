import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/capture/exchange.js';
import { messagesOfRequest } from '../../src/capture/protocols/anthropicMessages.js';
import { messagesOfContents } from '../../src/capture/protocols/gemini.js';
import { spansFromTraffic, type ErrorPattern } from '../../src/capture/trafficSpans.js';
import type { ChatMessage } from '../../src/schema/agentIo.js';

/** Two calls: the model asks for a tool, the agent sends `result` back. */
function exchanges(resultMessages: ChatMessage[], id = 'c1'): Exchange[] {
  const first: Exchange = {
    index: 1, started: '2025-01-01T00:00:00.000Z', ended: '2025-01-01T00:00:01.000Z', model: 'm', messages: [{ role: 'user', content: 'go' }], toolNames: ['t'], streamed: false, source: 'live', error: null,
    reply: { model: 'm', content: null, refusal: null, toolCalls: [{ id, name: 't', arguments: '{}' }], usage: null, finishReason: 'tool_calls' },
  };
  const second: Exchange = {
    ...first, index: 2, messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 't', arguments: '{}' } }] }, ...resultMessages],
    reply: { model: 'm', content: 'done', refusal: null, toolCalls: [], usage: null, finishReason: 'stop' },
  };
  return [first, second];
}

const toolSpan = (ex: Exchange[], patterns: ErrorPattern[] = []) => spansFromTraffic(ex, 'root', patterns).spans.find((s) => s.kind === 'tool')!;
const result = (text: string): ChatMessage[] => [{ role: 'tool', tool_call_id: 'c1', content: text }];

describe('tool errors of the major frameworks, recognized by default', () => {
  it.each([
    ['An error occurred while running the tool. Please try again. Error: ENOENT: no such file', 'TOOL_ERROR'],
    ['Error: ValueError("bad path")\n Please fix your mistakes.', 'TOOL_ERROR'],
    ['Error: Tool "rm" not found.\n Please fix your mistakes.', 'UNKNOWN_TOOL'],
    ["Model tried to call unavailable tool 'rm'. Available tools: read.", 'UNKNOWN_TOOL'],
    ['Invalid input for tool read: Type validation failed', 'INVALID_ARGUMENTS'],
  ])('%s → %s', (text, type) => {
    expect(toolSpan(exchanges(result(text))).attributes).toMatchObject({ 'result.ok': false, error_type: type });
  });

  it('a result that only mentions an error is a success; a suite pattern wins over the defaults', () => {
    expect(toolSpan(exchanges(result('grep found: "An error occurred while running the tool" in log.txt'))).attributes).toMatchObject({ 'result.ok': true, error_type: null });
    const suite: ErrorPattern[] = [{ pattern: { test: (t) => t.includes('ENOENT') }, error_type: 'FILE_NOT_FOUND' }];
    expect(toolSpan(exchanges(result('An error occurred while running the tool. Please try again. Error: ENOENT')), suite).attributes).toMatchObject({ error_type: 'FILE_NOT_FOUND' });
  });

  it("Anthropic's is_error and Gemini's error response are errors, paired by id or by position", () => {
    const anthropic = messagesOfRequest(undefined, [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', is_error: true, content: [{ type: 'text', text: 'exit 1' }] }] }]);
    expect(toolSpan(exchanges(anthropic)).attributes).toMatchObject({ 'result.ok': false, error_type: 'TOOL_ERROR', 'gen_ai.tool.call.result': 'exit 1' });
    const gemini = messagesOfContents(undefined, [{ role: 'user', parts: [{ functionResponse: { name: 't', response: { error: 'no such file' } } }] }]);
    expect(toolSpan(exchanges(gemini, 'call_1')).attributes).toMatchObject({ 'result.ok': false, error_type: 'TOOL_ERROR' });
  });
});
