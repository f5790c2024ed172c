import { describe, expect, it } from 'vitest';
import { checkedTrace } from '../../src/adapters/checkedTrace.js';
import { judgeTrial } from '../../src/judging/judgeTrial.js';
import type { Trace } from '../../src/schema/trace.js';
import { makeTask, TraceBuilder } from '../helpers/traceBuilder.js';

/** A trace as an agent might hand one over: well-formed JSON, not trace/v1 underneath. */
function corrupted(mutate: (trace: Trace) => void): Trace {
  const trace = structuredClone(new TraceBuilder().llm().final('4').build());
  mutate(trace);
  return trace;
}

describe('checkedTrace: an external agent trace is checked once, where it comes in', () => {
  it('passes a valid trace through unchanged (the same object)', () => {
    const trace = new TraceBuilder().llm().final('4').build();
    expect(checkedTrace(trace)).toBe(trace);
  });

  it('marks an invalid trace TRACE_INVALID, naming the field, and keeps its content for the reader', () => {
    const trace = corrupted((t) => {
      (t.spans[1]!.attributes as Record<string, unknown>)['latency'] = Number.NaN;
    });
    const checked = checkedTrace(trace);
    expect(checked.error).toMatchObject({ code: 'TRACE_INVALID' });
    expect(checked.error!.message).toContain('spans.1.attributes.latency');
    expect(checked.spans).toEqual(trace.spans);
    expect(trace.error).toBeNull();
  });

  it('keeps an error the trace already carries (the agent reported its own fault first)', () => {
    const trace = corrupted((t) => {
      (t.spans[0] as { kind: string }).kind = 'banana';
      t.error = { code: 'PROVIDER_ERROR', message: 'upstream 503' };
    });
    expect(checkedTrace(trace).error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream 503' });
  });

  it('the judge errors a marked trial instead of scoring it', () => {
    const checked = checkedTrace(corrupted((t) => ((t.spans[0] as { kind: string }).kind = 'banana')));
    const trial = judgeTrial(makeTask({ checks: [{ type: 'contains', values: ['4'] }] }), 0, checked, null, 5, 'traces/t.e0.json');
    expect(trial.status).toBe('errored');
    expect(trial.error).toMatchObject({ code: 'TRACE_INVALID' });
    expect(trial.checks).toEqual([]);
  });
});
