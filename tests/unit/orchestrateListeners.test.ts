import { describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/adapters/types.js';
import { orchestrate, type TrialOutcome } from '../../src/orchestrator/orchestrate.js';
import { makeTask, TraceBuilder } from '../helpers/traceBuilder.js';

describe('orchestrator at high concurrency', () => {
  it('runs 30 trials at once without a listener leak warning, and an interruption still reaches every one', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const controller = new AbortController();
    let started = 0;
    const adapter: Adapter = {
      name: 'test',
      model: { provider: 'none', mode: 'none', model: 'none', base_url: null },
      policy: 'none',
      sandbox: 'none',
      async run(task, ctx) {
        started++;
        if (task.id.startsWith('quick')) return new TraceBuilder(task.id).final('ok').build();
        await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        throw new Error('unreachable');
      },
    };
    const tasks = [
      ...Array.from({ length: 40 }, (_, i) => makeTask({ id: `quick_${i}`, workspace: null })),
      ...Array.from({ length: 30 }, (_, i) => makeTask({ id: `slow_${i}`, workspace: null })),
      ...Array.from({ length: 10 }, (_, i) => makeTask({ id: `never_${i}`, workspace: null })),
    ];
    const outcomes: TrialOutcome[] = [];
    const run = orchestrate(adapter, tasks, { concurrency: 30, epochs: 1, timeoutMs: 60_000, signal: controller.signal, onTrial: (o) => void outcomes.push(o) });
    while (started < 70) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await run;
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(warnings.filter((w) => /MaxListeners/.test(w))).toEqual([]);
    expect(outcomes.map((o) => o.task.id).sort()).toEqual(tasks.slice(0, 40).map((t) => t.id).sort());
    expect(started).toBe(70);
  });
});
