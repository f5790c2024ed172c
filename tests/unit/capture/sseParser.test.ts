import { describe, expect, it } from 'vitest';
import { ChunkAccumulator, SseParser } from '../../../src/capture/chatReply.js';

const frames = [
  { choices: [{ index: 0, delta: { role: 'assistant', content: null } }] },
  { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'read_file', arguments: '' } }] } }] },
  { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"path": ' } }] } }] },
  { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"README.md"}' } }] } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
].map((f) => JSON.stringify(f));

function parse(parts: string[]): Array<[string, string | null]> {
  const parser = new SseParser();
  const out: Array<[string, string | null]> = [];
  for (const part of parts) parser.push(part, (data, event) => out.push([data, event]));
  return out;
}

describe('SseParser', () => {
  it('CRLF line endings with every network chunk cut between \\r and \\n, and a JSON object over two data: lines, give the same events as one piece', () => {
    const text =
      frames.map((f) => { const k = f.indexOf(',"delta"'); return `data: ${f.slice(0, k + 1)}\r\ndata: ${f.slice(k + 1)}\r\n\r\n`; }).join('') + 'event: done\r\ndata: [DONE]\r\n\r\n';
    const whole = parse([text]);
    const split = parse(text.split(/(?<=\r)/));
    expect(split).toEqual(whole);
    expect(split).toHaveLength(frames.length + 1);
    expect(split.at(-1)).toEqual(['[DONE]', 'done']);
    const accumulator = new ChunkAccumulator();
    for (const [data] of split.slice(0, -1)) accumulator.add(JSON.parse(data));
    expect(accumulator.reply().toolCalls).toEqual([{ id: 'call_abc', name: 'read_file', arguments: '{"path": "README.md"}' }]);
  });

  it('a bare \\r line ending at a chunk’s end still ends its line', () => {
    expect(parse(['data: a\r', '\rdata: b\r\r'])).toEqual([['a', null]]);
    expect(parse(['data: a\r', '\rdata: b\r\r', 'data: c\r\r'])).toEqual([['a', null], ['b', null]]);
  });
});
