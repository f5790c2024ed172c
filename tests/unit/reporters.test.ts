import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactReporters } from '../../src/cli/finishReport.js';
import { Reporters } from '../../src/reporters/runAll.js';
import type { Reporter, RunStartEvent } from '../../src/reporters/reporter.js';
import { makeReport } from '../helpers/reportBuilder.js';

const start: RunStartEvent = {
  model: { provider: 'none', mode: 'none', model: 'none', base_url: null },
  judge: null,
  agent: 'the reference harness',
  policy: 'default',
  sandbox: 'process',
  suites: ['s.jsonl'],
  tasks: 2,
  epochs: 1,
  maxEpochs: 1,
  concurrency: 1,
  gate: 'defaults',
  outDir: 'out',
};

/** A reporter broken in every hook, the way a third-party one might be. */
const broken: Reporter = {
  name: 'broken',
  onRunStart: () => {
    throw new Error('no header today');
  },
  onTrialEnd: () => {
    throw new TypeError("cannot read properties of undefined (reading 'x')");
  },
  onRunEnd: async () => {
    throw new Error('disk full');
  },
};

describe('the reporter multiplexer', () => {
  it('a reporter that throws is reported once per hook (with how often) and costs the others nothing', async () => {
    const heard: string[] = [];
    const listener: Reporter = {
      name: 'listener',
      onRunStart: (e) => heard.push(`start ${e.tasks}`),
      onTrialStart: (e) => heard.push(`trial ${e.taskId}`),
      onTrialEnd: (e) => heard.push(`end ${e.taskId} ${e.done}/${e.total}`),
      onTrialsDone: () => heard.push('done'),
    };
    const report = makeReport([{ id: 'a', trials: 'p' }, { id: 'b', trials: 'f' }]);
    // The broken reporter first: its failures must not stop the event reaching those after it.
    const reporters = new Reporters([broken, listener, ...artifactReporters(false)]);
    reporters.emit('onRunStart', start);
    report.tasks.forEach((task, i) => {
      reporters.emit('onTrialStart', { taskId: task.id, epoch: 1 });
      reporters.emit('onTrialEnd', { taskId: task.id, epoch: 1, trial: task.trials[0]!, done: i + 1, total: 2 });
    });
    reporters.emit('onTrialsDone');
    const outDir = mkdtempSync(path.join(tmpdir(), 'tracegate-reporters-'));
    const written = await reporters.runEnd(report, outDir);

    expect(heard).toEqual(['start 2', 'trial a', 'end a 1/2', 'trial b', 'end b 2/2', 'done']);
    expect(written.map((f) => path.basename(f)).sort()).toEqual(['junit.xml', 'report.json', 'summary.md']);
    for (const file of written) expect(existsSync(file)).toBe(true);
    expect(reporters.failures()).toEqual([
      'broken (onRunStart): no header today',
      "broken (onTrialEnd): cannot read properties of undefined (reading 'x') (2 times)",
      'broken (onRunEnd): disk full',
    ]);
  });
  it('a stored trace goes to the first reporter that asks for a copy, and its packed text comes back to that one only', () => {
    const packed: string[] = [];
    const broken: Reporter = { name: 'broken', onTraceStored: () => { throw new Error('no room'); } };
    const page: Reporter = { name: 'page', onTraceStored: ({ file }) => `{"file":"${file}"}`, onTracePacked: (file, text) => packed.push(`${file}=${text}`) };
    const late: Reporter = { name: 'late', onTraceStored: () => 'never asked', onTracePacked: () => packed.push('late') };
    const reporters = new Reporters([broken, page, late]);
    const trace = {} as Parameters<NonNullable<Reporter['onTraceStored']>>[0]['trace'];
    expect(reporters.traceStored({ file: 'traces/a.e0.json', trace })).toBe('{"file":"traces/a.e0.json"}');
    reporters.tracePacked('traces/a.e0.json', 'H4sI');
    reporters.tracePacked('traces/unknown.json', 'x');
    expect(packed).toEqual(['traces/a.e0.json=H4sI']);
    expect(reporters.failures()).toEqual(['broken (onTraceStored): no room']);
  });
});
