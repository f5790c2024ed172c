import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/schema/adapter.js';
import { orchestrate, type TrialOutcome } from '../../src/orchestrator/orchestrate.js';
import { selectShard } from '../../src/orchestrator/shard.js';
import { tempDir } from '../helpers/cli.js';
import { makeTask, TraceBuilder } from '../helpers/traceBuilder.js';

/** An adapter whose behaviour per task is given: it exercises the orchestrator, not an agent. */
function adapter(behave: (id: string, workspace: string, signal: AbortSignal) => Promise<void>, seen: { inFlight: number; max: number }): Adapter {
  return {
    name: 'test',
    model: { provider: 'none', mode: 'none', model: 'none', base_url: null },
    policy: 'none',
    sandbox: 'none',
    async run(task, ctx) {
      seen.inFlight++;
      seen.max = Math.max(seen.max, seen.inFlight);
      try {
        await behave(task.id, ctx.workspace, ctx.signal);
        return new TraceBuilder(task.id).final('ok').build();
      } finally {
        seen.inFlight--;
      }
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('orchestrator', () => {
  it('a trial that cannot be stored ends the run: nothing starts after it, trials in flight are stopped, the error comes out', async () => {
    const seen = { inFlight: 0, max: 0 };
    const tasks = Array.from({ length: 40 }, (_, i) => makeTask({ id: `t${i}`, workspace: null }));
    let started = 0;
    let stored = 0;
    const failure = new Error('ENOSPC: no space left on device');
    const run = orchestrate(
      adapter(async (_id, _ws, signal) => {
        started++;
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 30);
          signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
        });
      }, seen),
      tasks,
      {
        concurrency: 4,
        epochs: 2,
        timeoutMs: 10_000,
        signal: new AbortController().signal,
        onTrial: () => {
          if (++stored === 3) throw failure;
        },
      },
    );
    await expect(run).rejects.toBe(failure);
    expect(stored).toBeLessThanOrEqual(4);
    expect(started).toBeLessThanOrEqual(3 + 4);
    expect(seen.inFlight).toBe(0);
  });

  it('keeps a crash and a timeout to their own tasks, bounds concurrency and runs every epoch', async () => {
    const seen = { inFlight: 0, max: 0 };
    const tasks = ['crash', 'hang', 'a', 'b', 'c', 'd'].map((id) => makeTask({ id, workspace: null, timeoutMs: id === 'hang' ? 300 : null }));
    const outcomes: TrialOutcome[] = [];
    await orchestrate(
      adapter(async (id, _ws, signal) => {
        if (id === 'crash') throw new Error('adapter blew up');
        if (id === 'hang') await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
        await sleep(50);
      }, seen),
      tasks,
      { concurrency: 2, epochs: 2, timeoutMs: 10_000, signal: new AbortController().signal, onTrial: (o) => void outcomes.push(o) },
    );
    expect(outcomes).toHaveLength(12);
    expect(seen.max).toBe(2);
    const of = (id: string) => outcomes.filter((o) => o.task.id === id);
    expect(of('crash').map((o) => o.error)).toEqual([
      { code: 'ADAPTER_CRASH', message: 'adapter blew up' },
      { code: 'ADAPTER_CRASH', message: 'adapter blew up' },
    ]);
    expect(of('hang').every((o) => o.error?.code === 'TASK_TIMEOUT' && o.trace === null)).toBe(true);
    expect(of('a').map((o) => o.epoch).sort()).toEqual([0, 1]);
    expect(of('a').every((o) => o.trace !== null && o.error === null)).toBe(true);
  });

  it('gives every trial a fresh copy of its workspace, symlinks kept as links, removed afterwards', async () => {
    const fixture = tempDir();
    mkdirSync(path.join(fixture, 'src'));
    writeFileSync(path.join(fixture, 'src/a.txt'), 'original');
    symlinkSync('/etc', path.join(fixture, 'etc-link'));
    const used: string[] = [];
    const seen = { inFlight: 0, max: 0 };
    await orchestrate(
      adapter(async (_id, ws) => {
        used.push(ws);
        expect(readFileSync(path.join(ws, 'src/a.txt'), 'utf8')).toBe('original');
        expect(lstatSync(path.join(ws, 'etc-link')).isSymbolicLink()).toBe(true);
        writeFileSync(path.join(ws, 'src/a.txt'), 'changed by the agent');
      }, seen),
      [makeTask({ id: 'w', workspace: fixture })],
      { concurrency: 1, epochs: 3, timeoutMs: 5000, signal: new AbortController().signal, onTrial: () => undefined },
    );
    expect(new Set(used).size).toBe(3);
    expect(used.every((ws) => !existsSync(ws))).toBe(true);
    expect(readFileSync(path.join(fixture, 'src/a.txt'), 'utf8')).toBe('original');
  });

  it('starts nothing new after an interruption and reports nothing it cut short', async () => {
    const controller = new AbortController();
    const outcomes: TrialOutcome[] = [];
    const seen = { inFlight: 0, max: 0 };
    // Interrupted once t0 is reported and t2 has taken its slot: t1 and t2 are cut short, t3 never starts.
    let t0Reported!: () => void;
    let t2Started!: () => void;
    const ready = Promise.all([new Promise<void>((r) => (t0Reported = r)), new Promise<void>((r) => (t2Started = r))]);
    const run = orchestrate(
      adapter(async (id, _ws, signal) => {
        if (id === 't0') return;
        if (id === 't2') t2Started();
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 5000);
          signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))));
        });
      }, seen),
      ['t0', 't1', 't2', 't3'].map((id) => makeTask({ id, workspace: null })),
      { concurrency: 2, epochs: 1, timeoutMs: 60_000, signal: controller.signal, onTrial: (o) => (outcomes.push(o), o.task.id === 't0' && t0Reported()) },
    );
    await ready;
    controller.abort();
    await run;
    expect(outcomes.map((o) => o.task.id)).toEqual(['t0']);
  });

  it('an interruption ends a run of a billion epochs at once: the event loop stays free for a second Ctrl-C', async () => {
    const controller = new AbortController();
    const seen = { inFlight: 0, max: 0 };
    let trials = 0;
    const run = orchestrate(
      adapter(async () => void trials++, seen),
      [makeTask({ id: 't0', workspace: null })],
      { concurrency: 1, epochs: 1_000_000_000, timeoutMs: 10_000, signal: controller.signal, onTrial: () => (trials === 3 ? controller.abort() : undefined) },
    );
    // A timer that fires only if the loop yields; the run must also end well before a spin through 10^9 epochs could.
    let ticked = false;
    setTimeout(() => (ticked = true), 0);
    const started = Date.now();
    await run;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(trials).toBeLessThanOrEqual(4);
    await sleep(0);
    expect(ticked).toBe(true);
  }, 60_000);

  it('gives each trial its deadline, lends a slot while a trial is parked, and adds one listener to the run signal at any -j', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    const controller = new AbortController();
    const before = Date.now();
    const deadlines: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const parking: Adapter = {
      name: 'test',
      model: { provider: 'none', mode: 'none', model: 'none', base_url: null },
      policy: 'none',
      sandbox: 'none',
      async run(task, ctx) {
        deadlines.push(ctx.deadline);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // The first trials wait out a "Retry-After" parked; the others fill the slots they lend.
        if (task.id < 't03') await ctx.park(sleep(150));
        else await sleep(20);
        inFlight--;
        return new TraceBuilder(task.id).final('ok').build();
      },
    };
    const tasks = Array.from({ length: 30 }, (_, i) => makeTask({ id: `t${String(i).padStart(2, '0')}`, workspace: null }));
    let done = 0;
    await orchestrate(parking, tasks, { concurrency: 3, epochs: 1, timeoutMs: 60_000, signal: controller.signal, onTrial: () => void done++ });
    process.off('warning', onWarning);
    expect(done).toBe(30);
    for (const d of deadlines) expect(d).toBeGreaterThanOrEqual(before + 60_000);
    expect(maxInFlight).toBeGreaterThan(3);
    expect(maxInFlight).toBeLessThanOrEqual(6);

    // Twenty trials at once, each with an abort listener: one listener on the run's signal, no warning.
    const wide = Array.from({ length: 40 }, (_, i) => makeTask({ id: `w${i}`, workspace: null }));
    const seen = { inFlight: 0, max: 0 };
    process.on('warning', onWarning);
    // Each trial waits until twenty are in flight together (or 10 s pass, and the count below fails).
    let waiting: Array<() => void> = [];
    const together = () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length < 20) return void setTimeout(resolve, 10_000).unref();
        const batch = waiting;
        waiting = [];
        for (const release of batch) release();
      });
    await orchestrate(adapter(together, seen), wide, { concurrency: 20, epochs: 1, timeoutMs: 60_000, signal: controller.signal, onTrial: () => undefined });
    await sleep(10);
    process.off('warning', onWarning);
    expect(seen.max).toBe(20);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('shards without overlap or loss', () => {
    const items = Array.from({ length: 11 }, (_, i) => i);
    const shards = [1, 2, 3].map((i) => selectShard(items, i, 3));
    expect(shards.flat().sort((a, b) => a - b)).toEqual(items);
    expect(() => selectShard(items, 0, 3)).toThrow(RangeError);
  });
});
