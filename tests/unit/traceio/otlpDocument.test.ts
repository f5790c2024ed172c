import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/schema/redact.js';
import type { Trace } from '../../../src/schema/trace.js';
import { ImportError } from '../../../src/traceio/importError.js';
import { streamOtlpDocument } from '../../../src/traceio/otlpDocument.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { writeTraceFile } from '../../../src/traceio/traceFiles.js';
import { openTraceInput, STREAM_FROM_BYTES } from '../../../src/traceio/traceInput.js';
import { tempDir } from '../../helpers/cli.js';

const kv = (key: string, value: string) => ({ key, value: { stringValue: value } });
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

/** One OTLP request: per trace an agent span, then chat / tool pairs, the last chat answering. */
function request(traces: number, pairs: number, pad = ''): string {
  const spans: unknown[] = [];
  for (let t = 1; t <= traces; t++) {
    const span = (n: number, name: string, attributes: unknown[]) => ({
      traceId: hex(t, 32),
      spanId: hex(t * 100_000 + n, 16),
      ...(n === 0 ? {} : { parentSpanId: hex(t * 100_000, 16) }),
      name,
      startTimeUnixNano: `${1_700_000_000 + n}000000000`,
      endTimeUnixNano: `${1_700_000_000 + n}500000000`,
      attributes,
    });
    spans.push(span(0, 'invoke_agent', [kv('gen_ai.operation.name', 'invoke_agent')]));
    for (let i = 0; i < pairs; i++) {
      spans.push(span(2 * i + 1, 'chat', [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.input.messages', JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `read file ${i} ${pad}` }] }])), kv('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'tool_call', name: 'read_file', id: `c${i}` }] }]))]));
      spans.push(span(2 * i + 2, 'execute_tool read_file', [kv('gen_ai.operation.name', 'execute_tool'), kv('gen_ai.tool.name', 'read_file'), kv('gen_ai.tool.call.id', `c${i}`), kv('gen_ai.tool.call.result', `contents é ${i} sk-abcdefghijklmnopqrstuvwxyz012345`)]));
    }
    spans.push(span(2 * pairs + 1, 'chat', [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `done ${t}` }] }]))]));
  }
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv('service.name', 'x')] }, scopeSpans: [{ scope: { name: 's' }, spans }] }] }, null, 1);
}

function streamed(file: string): Trace[] {
  const fd = openSync(file, 'r');
  try {
    const out: Trace[] = [];
    streamOtlpDocument(fd, file).eachTrace((t) => out.push(t));
    return out;
  } finally {
    closeSync(fd);
  }
}

describe('one OTLP/JSON request streamed span by span', () => {
  it('reads the same traces as the whole-file reader (two traces in one pretty-printed request, a BOM)', () => {
    const file = path.join(tempDir(), 'request.json');
    writeFileSync(file, '\ufeff' + request(2, 30));
    const whole = parseTraces(readFileSync(file), file).traces;
    const got = streamed(file);
    expect(got).toEqual(whole);
    expect(got.map((t) => [t.spans.length, t.final_answer.text])).toEqual([[62, 'done 1'], [62, 'done 2']]);
  });

  it('a request of 8 MB or more is opened as streamed, and reads as the whole-file reader does', () => {
    const file = path.join(tempDir(), 'big.json');
    writeFileSync(file, request(1, 2500, 'x'.repeat(3000)));
    expect(readFileSync(file).length).toBeGreaterThanOrEqual(STREAM_FROM_BYTES);
    const input = openTraceInput(file, 'auto');
    expect(input.kind).toBe('streamed');
    if (input.kind !== 'streamed') return;
    // Long input messages and tool results are spilled while the trace is built: the written file is the same.
    const redact = createRedactor().deep;
    const dir = tempDir();
    let n = 0;
    input.lines.eachTrace((t) => writeTraceFile(path.join(dir, `streamed-${n++}.json`), t, redact));
    input.close();
    expect(input.lines.traceIds).toEqual([hex(1, 32)]);
    const [whole] = parseTraces(readFileSync(file), file).traces;
    writeTraceFile(path.join(dir, 'whole.json'), whole!, redact);
    expect(n).toBe(1);
    expect(readFileSync(path.join(dir, 'streamed-0.json'), 'utf8')).toBe(readFileSync(path.join(dir, 'whole.json'), 'utf8'));
  });

  it('broken JSON is bad input naming the file and the byte near the break', () => {
    const file = path.join(tempDir(), 'broken.json');
    writeFileSync(file, request(1, 3).slice(0, -40) + '}}}');
    expect(() => streamed(file)).toThrow(ImportError);
    expect(() => streamed(file)).toThrow(/broken\.json.*not valid JSON near byte \d+/);
  });
});

describe('a trace written span by span', () => {
  it('is byte for byte JSON.stringify of the redacted trace (secrets redacted inside spans)', () => {
    const dir = tempDir();
    const source = path.join(dir, 'request.json');
    writeFileSync(source, request(1, 3));
    const [trace] = parseTraces(readFileSync(source), source).traces;
    const redact = createRedactor().deep;
    const file = path.join(dir, 'out', 'trace.json');
    writeTraceFile(file, trace!, redact);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(JSON.stringify(redact(trace!), null, 1) + '\n');
    expect(text).not.toContain('sk-abcdefghijklmnopqrstuvwxyz012345');
    writeTraceFile(file, { ...trace!, spans: [] }, redact);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(redact({ ...trace!, spans: [] }), null, 1) + '\n');
  });
});
