import { closeSync, openSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Trace } from '../../../src/schema/trace.js';
import { ImportError } from '../../../src/traceio/importError.js';
import { indexOtlpLines } from '../../../src/traceio/otlpLines.js';
import { MAX_FILE_BYTES, parseTraces } from '../../../src/traceio/formats.js';
import { openTraceInput } from '../../../src/traceio/traceInput.js';
import { tempDir } from '../../helpers/cli.js';

const kv = (key: string, value: string) => ({ key, value: { stringValue: value } });
/** One OTLP request line holding the given spans of the given traces. */
function line(spans: Array<{ trace: number; span: number; parent?: number; name: string; op: string; text?: string }>): string {
  const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
  return JSON.stringify({
    resourceSpans: [{ scopeSpans: [{ spans: spans.map((s) => ({
      traceId: hex(s.trace, 32),
      spanId: hex(s.trace * 100 + s.span, 16),
      ...(s.parent === undefined ? {} : { parentSpanId: hex(s.trace * 100 + s.parent, 16) }),
      name: s.name,
      startTimeUnixNano: `${1_700_000_000 + s.trace * 100 + s.span}000000000`,
      endTimeUnixNano: `${1_700_000_000 + s.trace * 100 + s.span}500000000`,
      attributes: [kv('gen_ai.operation.name', s.op), ...(s.op === 'chat' ? [kv('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: s.text ?? 'ok é' }] }]))] : [kv('gen_ai.tool.name', 'read_file')])],
    })) }] }],
  });
}

function withFile(text: string, visit: (file: string) => void): void {
  const file = path.join(tempDir(), 'spans.jsonl');
  writeFileSync(file, text);
  visit(file);
}

function streamed(file: string): Trace[] {
  const fd = openSync(file, 'r');
  try {
    const out: Trace[] = [];
    indexOtlpLines(fd, file).eachTrace((t) => out.push(t));
    return out;
  } finally {
    closeSync(fd);
  }
}

describe('OTLP/JSON Lines streamed in two passes', () => {
  it('reads the same traces as the whole-file reader: a trace flushed in two lines is one, CRLF and a BOM read, order by first line', () => {
    const lines = [
      line([{ trace: 1, span: 0, name: 'invoke_agent', op: 'invoke_agent' }, { trace: 1, span: 1, parent: 0, name: 'chat', op: 'chat' }]),
      line([{ trace: 2, span: 0, name: 'invoke_agent', op: 'invoke_agent' }, { trace: 2, span: 1, parent: 0, name: 'chat', op: 'chat', text: 'two' }]),
      '',
      line([{ trace: 1, span: 2, parent: 0, name: 'execute_tool read_file', op: 'execute_tool' }, { trace: 1, span: 3, parent: 0, name: 'chat', op: 'chat', text: 'done' }]),
    ];
    withFile('\ufeff' + lines.join('\r\n') + '\r\n', (file) => {
      const whole = parseTraces(readFileSync(file), file).traces;
      const got = streamed(file);
      expect(got).toEqual(whole);
      expect(got.map((t) => [t.spans.length, t.final_answer.text])).toEqual([[4, 'done'], [2, 'two']]);
    });
  });

  it('a line that is no request is an error naming file:line, found by the first pass before any trace is built', () => {
    withFile([line([{ trace: 1, span: 0, name: 'chat', op: 'chat' }]), '{"resourceSpans": [', line([{ trace: 2, span: 0, name: 'chat', op: 'chat' }])].join('\n'), (file) => {
      expect(() => streamed(file)).toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not valid JSON`));
    });
    withFile([line([{ trace: 1, span: 0, name: 'chat', op: 'chat' }]), '{"other": 1}'].join('\n'), (file) => {
      expect(() => streamed(file)).toThrow(/spans\.jsonl:2: not an OTLP ExportTraceServiceRequest/);
    });
  });

  it('openTraceInput: a file above the limit is refused from its size, before a byte is read (a sparse file of the limit + 1)', () => {
    const file = path.join(tempDir(), 'huge.jsonl');
    writeFileSync(file, '');
    truncateSync(file, MAX_FILE_BYTES + 1); // sparse: no disk used, and reading it would take 512 MB
    expect(statSync(file).size).toBe(MAX_FILE_BYTES + 1);
    const before = process.memoryUsage().rss;
    let error: unknown;
    try {
      openTraceInput(file, 'auto');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).problem).toBe('TOO_LARGE');
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });
});
