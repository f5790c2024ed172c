import { describe, expect, it } from 'vitest';
import { decodeOtlpProtobuf, encodeOtlpProtobuf } from '../../../src/traceio/otlpProto.js';
import { toOtlpRequest, toOtlpRequests } from '../../../src/traceio/otlpExport.js';
import { TraceBuilder } from '../../helpers/traceBuilder.js';

describe('OTLP export', () => {
  const trace = new TraceBuilder('task_x').llm().tool('read_file', { path: 'README2.md' }, { error_type: 'FILE_NOT_FOUND' }).final('done').build();
  const request = toOtlpRequest([trace]) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, any>> }> }> };
  const spans = request.resourceSpans[0]!.scopeSpans[0]!.spans;

  it('writes hex ids (ids that are not hex become stable hashes) and parents that point at exported ids', () => {
    expect(spans.every((s) => /^[0-9a-f]{32}$/.test(s['traceId']) && /^[0-9a-f]{16}$/.test(s['spanId']))).toBe(true);
    const ids = new Set(spans.map((s) => s['spanId']));
    expect(spans.filter((s) => s['parentSpanId']).every((s) => ids.has(s['parentSpanId']))).toBe(true);
    expect(toOtlpRequest([trace])).toEqual(request);
  });

  it('GenAI names beside tracegate keys, nulls left out, nanosecond times as text, status ERROR on a failed tool', () => {
    // Named as the GenAI conventions name a tool call.
    const tool = spans.find((s) => s['name'] === 'execute_tool read_file')!;
    const attrs = Object.fromEntries((tool['attributes'] as Array<{ key: string; value: Record<string, unknown> }>).map((a) => [a.key, a.value]));
    expect(attrs['gen_ai.operation.name']).toEqual({ stringValue: 'execute_tool' });
    expect(attrs['gen_ai.tool.name']).toEqual({ stringValue: 'read_file' });
    expect(attrs['tool.name']).toEqual({ stringValue: 'read_file' });
    expect(attrs['error.type']).toEqual({ stringValue: 'FILE_NOT_FOUND' });
    expect(attrs['step']).toEqual({ intValue: '1' });
    expect(attrs['approved']).toBeUndefined();
    expect(tool['status']).toEqual({ code: 2, message: 'FILE_NOT_FOUND' });
    expect(tool['startTimeUnixNano']).toBe('1767225600000000000');
    const root = spans.find((s) => !s['parentSpanId'])!;
    const rootKeys = (root['attributes'] as Array<{ key: string }>).map((a) => a.key);
    expect(rootKeys).toEqual(expect.arrayContaining(['tracegate.task_id', 'tracegate.final_answer', 'tracegate.exit_reason']));
  });

  it('a model call carries gen_ai.provider.name beside the older gen_ai.system', () => {
    const t = new TraceBuilder('p').llm().final('x').build();
    t.spans[1]!.attributes['gen_ai.system'] = 'openai';
    const out = toOtlpRequest([t]) as typeof request;
    const llm = out.resourceSpans[0]!.scopeSpans[0]!.spans.find((s) => s['kind'] === 3)!;
    const keys = Object.fromEntries((llm['attributes'] as Array<{ key: string; value: unknown }>).map((a) => [a.key, a.value]));
    expect(keys['gen_ai.provider.name']).toEqual({ stringValue: 'openai' });
    expect(keys['gen_ai.system']).toEqual({ stringValue: 'openai' });
  });

  it('protobuf encoding decodes back to the same request', () => {
    const back = decodeOtlpProtobuf(encodeOtlpProtobuf(request)) as typeof request;
    const span = back.resourceSpans[0]!.scopeSpans[0]!.spans[1]!;
    expect(span['traceId']).toBe(spans[1]!['traceId']);
    expect(span['spanId']).toBe(spans[1]!['spanId']);
    expect(span['startTimeUnixNano']).toBe(spans[1]!['startTimeUnixNano']);
    expect(span['attributes']).toEqual(spans[1]!['attributes']);
  });

  it('splits traces into requests of at most maxSpans spans, saying how many traces each completes', () => {
    const big = new TraceBuilder('big').llm();
    for (let i = 0; i < 5; i++) big.tool('list_files', { i });
    const small = new TraceBuilder('small').llm().build(); // 2 spans
    const batches = toOtlpRequests([big.build(), small], 4); // 7 + 2 spans
    const count = (r: Record<string, any>) => r['resourceSpans'][0].scopeSpans[0].spans.length as number;
    expect(batches.map((b) => [count(b.request), b.spans, b.traces])).toEqual([[4, 4, 0], [4, 4, 1], [1, 1, 2]]);
    expect(batches.flatMap((b) => (b.request as any).resourceSpans[0].scopeSpans[0].spans)).toEqual((toOtlpRequest([big.build(), small]) as any).resourceSpans[0].scopeSpans[0].spans);
  });
});
