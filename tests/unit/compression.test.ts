import { describe, expect, it } from 'vitest';
import { compressConversation, conversationChars, summarizeResult } from '../../harness/compression/compress.js';
import type { ChatMessage } from '../../harness/model/types.js';

function conversation(results: string[]): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are careful.' },
    { role: 'user', content: 'GOAL: find the codename in part 1.' },
  ];
  results.forEach((content, i) => {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read_file', arguments: `{"path":"part${i}.md"}` } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: JSON.stringify({ ok: true, result: content }) });
  });
  return messages;
}

const big = (marker: string, lines = 300) =>
  [`# ${marker}`, 'import os', ...Array.from({ length: lines }, (_, i) => (i % 50 === 0 ? `def handler_${i}():` : `    value = ${i} * 2  # padding text`)), 'END'].join('\n');

describe('context compression', () => {
  it('does nothing under the threshold', () => {
    const messages = conversation([big('A')]);
    expect(compressConversation(messages, conversationChars(messages) + 1)).toBeNull();
  });

  it('keeps system, task and protocol; summarizes old large results; never grows', () => {
    const messages = conversation([big('A'), big('B'), big('C'), big('D')]);
    const outcome = compressConversation(messages, 1000)!;
    expect(outcome.charsAfter).toBeLessThan(outcome.charsBefore);
    expect(outcome.compressedResults).toBe(2);
    expect(outcome.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(outcome.messages.map((m) => m.role)).toEqual(messages.map((m) => m.role));
    outcome.messages.forEach((m, i) => {
      if (m.role === 'tool') expect(m.tool_call_id).toBe((messages[i] as { tool_call_id: string }).tool_call_id);
    });
    const summary = outcome.messages[3]!.content!;
    expect(summary).toMatch(/^\[compressed tool result\] read_file \{"path":"part0.md"\}/);
    expect(summary).toContain('# A');
    expect(summary).toContain('def handler_50():');
    expect(summary).toContain('END');
    expect(outcome.messages[9]).toEqual(messages[9]);
  });

  it('never makes a conversation larger, whatever its results', () => {
    let seed = 1;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let round = 0; round < 200; round++) {
      const results = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Array.from({ length: Math.floor(random() * 400) }, () => 'x'.repeat(Math.floor(random() * 120))).join('\n'),
      );
      const messages = conversation(results);
      const outcome = compressConversation(messages, Math.floor(random() * 20000));
      if (outcome) {
        expect(outcome.charsAfter).toBeLessThan(outcome.charsBefore);
        expect(conversationChars(outcome.messages)).toBe(outcome.charsAfter);
      }
    }
  });

  it('summaries name the source and size', () => {
    expect(summarizeResult('read_file x', 'line\n'.repeat(100))).toMatch(/read_file x: 500 characters, 101 lines/);
  });
});
