import { describe, expect, it } from 'vitest';
import { mergeSpans } from '../../../src/capture/mergeSpans.js';
import type { Span } from '../../../src/schema/trace.js';
import { TraceBuilder } from '../../helpers/traceBuilder.js';

const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
function span(id: string, kind: Span['kind'], start: number, end: number, attributes: Span['attributes'] = {}, parent: string | null = 'otel-root'): Span {
  return { span_id: id, parent_id: parent, kind, name: `${kind} ${id}`, start: at(start), end: at(end), status: 'ok', attributes, events: [] };
}

describe('mergeSpans', () => {
  // The trial's trace: root s1, one model call (0–1 s) and one tool call c3 as the proxy saw them.
  const trial = new TraceBuilder('t').llm().tool('read_file', { path: 'a' }).build();

  it('adds new spans under the trace root with the step of the model call before them, skipping the sender\'s agent span', () => {
    const merged = mergeSpans(trial, [span('otel-root', 'agent', 0, 9, {}, null), span('m2', 'llm', 5, 6), span('t2', 'tool', 7, 8, { 'gen_ai.tool.name': 'write_file', 'gen_ai.tool.call.id': 'new' })]);
    expect(merged.spans.map((s) => s.span_id)).toEqual([...trial.spans.map((s) => s.span_id), 'm2', 't2']);
    expect(merged.spans.find((s) => s.span_id === 't2')).toMatchObject({ parent_id: 's1', attributes: { step: 2 } });
    expect(merged.spans.find((s) => s.span_id === 'm2')!.attributes['step']).toBe(2);
  });

  it('a span with a known id, a tool call with a known call id, or a model call overlapping a recorded one is not added twice; it fills missing attributes', () => {
    const callId = trial.spans.find((s) => s.kind === 'tool')!.attributes['tool.call_id'] as string;
    const merged = mergeSpans(trial, [
      span('s2', 'llm', 0, 1, { 'gen_ai.usage.input_tokens': 99 }),
      span('x', 'llm', 0, 1, { 'gen_ai.request.model': 'm' }),
      span('y', 'tool', 1, 1, { 'gen_ai.tool.call.id': callId, 'gen_ai.tool.call.result': 'text', 'result.ok': false }),
    ]);
    expect(merged.spans).toHaveLength(trial.spans.length);
    expect(merged.spans.find((s) => s.span_id === 's2')!.attributes).toMatchObject({ step: 1, 'gen_ai.usage.input_tokens': 99, 'gen_ai.request.model': 'm' });
    // What the trace already says wins: the proxy's result.ok stays.
    expect(merged.spans.find((s) => s.kind === 'tool')!.attributes).toMatchObject({ 'result.ok': true, 'gen_ai.tool.call.result': 'text' });
  });

  it('is pure: the input trace is not changed', () => {
    const before = JSON.stringify(trial);
    mergeSpans(trial, [span('s2', 'llm', 0, 1, { extra: 1 }), span('z', 'tool', 3, 4)]);
    expect(JSON.stringify(trial)).toBe(before);
  });
});
