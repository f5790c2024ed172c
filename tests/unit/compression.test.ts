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

  it('keeps system, task and protocol; summarizes every large result; never grows', () => {
    const messages = conversation([big('A'), big('B'), big('C'), big('D'), 'a short result']);
    const outcome = compressConversation(messages, 1000)!;
    expect(outcome.charsAfter).toBeLessThan(outcome.charsBefore);
    expect(outcome.compressedResults).toBe(4);
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
    expect(outcome.messages[9]!.content).toMatch(/^\[compressed tool result\] read_file \{"path":"part3.md"\}/);
    // Under the size worth summarizing: kept as it was.
    expect(outcome.messages[11]).toEqual(messages[11]);
  });

  it('compresses all three large reads of one round, the latest included', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'You are careful.' },
      { role: 'user', content: 'Read the three parts.' },
      { role: 'assistant', content: null, tool_calls: ['a', 'b', 'c'].map((p) => ({ id: p, type: 'function' as const, function: { name: 'read_file', arguments: `{"path":"${p}.md"}` } })) },
      ...['a', 'b', 'c'].map((p): ChatMessage => ({ role: 'tool', tool_call_id: p, content: JSON.stringify({ ok: true, result: big(p.toUpperCase()) }) })),
    ];
    const outcome = compressConversation(messages, 1000)!;
    expect(outcome.compressedResults).toBe(3);
    expect(outcome.messages.slice(3).every((m) => m.content!.startsWith('[compressed tool result]'))).toBe(true);
  });

  it('a summary starts with the first non-empty lines and outlines C, C++, C#, JavaScript and Go alike', () => {
    const source = [
      '', '', '   ', '#include <stdio.h>', '', '#include "calc.h"', 'namespace calc {', '', 'let total = 0;', 'var legacy = 1;',
      ...Array.from({ length: 40 }, (_, i) => `  x${i} += ${i};`),
      'namespace detail {', '#include <string.h>', 'let cached: number = 0;', 'var seen = {};', 'int main(void) {', 'static int *main (int argc) {', '  return 0;',
      ...Array.from({ length: 10 }, (_, i) => `  y${i} = ${i};`),
      '}', '', '// end of file',
    ].join('\n');
    const summary = summarizeResult('read_file calc.c', source);
    const section = (name: string, next: string) => summary.slice(summary.indexOf(`${name}:\n`) + name.length + 2, summary.indexOf(`\n${next}:`)).split('\n');
    expect(section('head', 'structure')).toEqual(['#include <stdio.h>', '#include "calc.h"', 'namespace calc {', 'let total = 0;', 'var legacy = 1;']);
    expect(section('structure', 'tail')).toEqual(['namespace detail {', '#include <string.h>', 'let cached: number = 0;', 'var seen = {};', 'int main(void) {', 'static int *main (int argc) {']);
    expect(summary).not.toMatch(/x1 \+= 1|return 0/);
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
