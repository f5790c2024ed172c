import { readFileSync } from 'node:fs';
import path from 'node:path';
import { strToU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { llmSpans } from '../../../src/schema/trace.js';
import { ImportError } from '../../../src/traceio/importError.js';
import { parseTraces } from '../../../src/traceio/formats.js';
import { FIXTURES } from '../../helpers/samples.js';

function failure(value: unknown): ImportError {
  try {
    parseTraces(strToU8(JSON.stringify(value)), 'p.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ImportError);
    return error as ImportError;
  }
  throw new Error('imported');
}

describe('Phoenix span exports', () => {
  it('UUID trace and span ids (older Phoenix) become hex ids, the same UUID the same id', () => {
    const imported = parseTraces(readFileSync(path.join(FIXTURES, 'phoenix', 'uuid-spans.json')), 'uuid-spans.json');
    expect(imported.format).toBe('phoenix');
    const [t] = imported.traces;
    expect(t!.trace_id).toBe('409df945e0584829b240cfbdd2ff4488');
    const llm = llmSpans(t!);
    expect(llm).toHaveLength(2);
    for (const s of llm) expect(s.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(t!.final_answer.text).toBe('The product of 23 times 87 is 2001.');
  });

  it('ids that are not hex (sanitized fixtures) become stable ids that keep the tree; an absent id says "missing", a non-id value names it', () => {
    const span = (context: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'x', span_kind: 'LLM', context, attributes: {}, ...extra });
    const spans = [span({ trace_id: 'trace-abc', span_id: 'root-span' }, { span_kind: 'AGENT' }), span({ trace_id: 'trace-abc', span_id: 'llm-span' }, { parent_id: 'root-span' })];
    const once = parseTraces(strToU8(JSON.stringify(spans)), 'p.json').traces;
    const again = parseTraces(strToU8(JSON.stringify(spans)), 'p.json').traces;
    expect(once).toHaveLength(1);
    expect(once[0]!.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(once[0]!.trace_id).toBe(again[0]!.trace_id);
    const [root, llm] = once[0]!.spans;
    expect(llm!.parent_id).toBe(root!.span_id);
    expect(failure([span({ trace_id: '409df945e0584829b240cfbdd2ff4488' })]).message).toMatch(/context\.span_id missing/);
    expect(failure([span({ trace_id: true, span_id: '01fa961201b84358' })]).message).toMatch(/context\.trace_id is not an id \(true\)/);
  });
});

describe('Jaeger', () => {
  it('spans that start within one millisecond keep their microsecond order', () => {
    const span = (id: string, op: string, start: number) => ({ traceID: 'c'.repeat(32), spanID: id, operationName: op, references: [], startTime: start, duration: 10, tags: [{ key: 'gen_ai.operation.name', type: 'string', value: op.split(' ')[0] }, ...(op.startsWith('execute_tool') ? [{ key: 'gen_ai.tool.name', type: 'string', value: op.split(' ')[1] }] : [])] });
    const data = { data: [{ traceID: 'c'.repeat(32), spans: [span('0000000000000003', 'execute_tool second', 1700000000000300), span('0000000000000002', 'chat', 1700000000000200), span('0000000000000001', 'execute_tool first', 1700000000000100)] }] };
    const [t] = parseTraces(strToU8(JSON.stringify(data)), 'j.json').traces;
    expect(t!.spans.filter((s) => s.kind !== 'agent').map((s) => s.name)).toEqual(['tool first', 'chat model', 'tool second']);
  });
});
