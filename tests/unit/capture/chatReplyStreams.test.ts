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

  it('at the end of the stream a held \r is a line ending: the last CR-only event is not lost', () => {
    const parser = new SseParser();
    const out: string[] = [];
    parser.push('data: a\r\rdata: [DONE]\r\r', (data) => out.push(data));
    expect(out).toEqual(['a']);
    parser.end((data) => out.push(data));
    expect(out).toEqual(['a', '[DONE]']);
  });
});

const toolChunk = (calls: object[], finish: string | null = null) => ({ choices: [{ index: 0, delta: { tool_calls: calls }, finish_reason: finish }] });

describe('ChunkAccumulator tool calls', () => {
  it('a name repeated whole in every fragment is kept once; a name streamed in pieces or growing is joined', () => {
    const repeated = new ChunkAccumulator();
    repeated.add(toolChunk([{ index: 0, id: 'call_abc', type: 'function', function: { name: 'read_file', arguments: '{"path": ' } }]));
    repeated.add(toolChunk([{ index: 0, id: 'call_abc', type: 'function', function: { name: 'read_file', arguments: '"README.md"}' } }]));
    expect(repeated.reply().toolCalls).toEqual([{ id: 'call_abc', name: 'read_file', arguments: '{"path": "README.md"}' }]);
    const pieces = new ChunkAccumulator();
    for (const name of ['read', '_', 'file']) pieces.add(toolChunk([{ index: 0, function: { name, arguments: '' } }]));
    expect(pieces.reply().toolCalls[0]!.name).toBe('read_file');
    const growing = new ChunkAccumulator();
    for (const name of ['read', 'read_fi', 'read_file']) growing.add(toolChunk([{ index: 0, function: { name } }]));
    expect(growing.reply().toolCalls[0]!.name).toBe('read_file');
  });

  it('parallel calls without an index are told apart by their ids (in separate chunks or one), and an unindexed fragment with no id continues the last call', () => {
    const separate = new ChunkAccumulator();
    separate.add(toolChunk([{ id: 'call_A', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.md"}' } }]));
    separate.add(toolChunk([{ id: 'call_B', type: 'function', function: { name: 'list_files', arguments: '{"path":' } }]));
    separate.add(toolChunk([{ function: { arguments: '"docs"}' } }], 'tool_calls'));
    expect(separate.reply().toolCalls).toEqual([
      { id: 'call_A', name: 'read_file', arguments: '{"path":"a.md"}' },
      { id: 'call_B', name: 'list_files', arguments: '{"path":"docs"}' },
    ]);
    const together = new ChunkAccumulator();
    together.add(toolChunk([{ id: 'call_A', function: { name: 'read_file', arguments: '{}' } }, { id: 'call_B', function: { name: 'list_files', arguments: '{}' } }]));
    expect(together.reply().toolCalls.map((c) => c.id)).toEqual(['call_A', 'call_B']);
  });
});
