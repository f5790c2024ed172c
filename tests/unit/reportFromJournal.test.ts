import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalLine, type JournalEntry } from '../../src/runner/journal.js';

const appendJournal = (file: string, entry: JournalEntry) => appendFileSync(file, journalLine(entry));
import { JournalRows, reportRows, taskRowsFromJournal } from '../../src/runner/reportFromJournal.js';
import { evaluateGate } from '../../src/gate/evaluateGate.js';
import { completeness } from '../../src/report/completeness.js';
import { tempDir } from '../helpers/cli.js';
import { makeReport } from '../helpers/reportBuilder.js';
import { makeTask } from '../helpers/traceBuilder.js';

const trial = (letter: string, epoch: number) => ({ ...makeReport([{ id: 'x', trials: letter }]).tasks[0]!.trials[0]!, epoch });

describe('the report is built from the journal', () => {
  it('one row per task in suite order; the last entry of a trial wins; other tasks, epochs and definitions are left out', () => {
    const file = path.join(tempDir(), 'results.jsonl');
    const tasks = [makeTask({ id: 'b', fingerprint: 'fb', source: { file: 's', line: 1 } }), makeTask({ id: 'a', fingerprint: 'fa', source: { file: 's', line: 2 } }), makeTask({ id: 'never', fingerprint: 'fn' })];
    appendJournal(file, { task_id: 'a', fingerprint: 'fa', trial: trial('e', 0) });
    appendJournal(file, { task_id: 'b', fingerprint: 'fb', trial: trial('p', 1) });
    appendJournal(file, { task_id: 'b', fingerprint: 'fb', trial: trial('f', 0) });
    appendJournal(file, { task_id: 'a', fingerprint: 'fa', trial: trial('p', 0) }); // resumed: replaces the errored try
    appendJournal(file, { task_id: 'a', fingerprint: 'fa', trial: trial('p', 1) });
    appendJournal(file, { task_id: 'a', fingerprint: 'old', trial: trial('f', 1) }); // a changed definition
    appendJournal(file, { task_id: 'a', fingerprint: 'fa', trial: trial('f', 5) }); // an epoch not asked for
    appendJournal(file, { task_id: 'gone', fingerprint: 'fg', trial: trial('p', 0) }); // not selected now
    const rows = taskRowsFromJournal(file, tasks, 2);
    expect(rows.map((r) => [r.id, r.status, r.trials.map((t) => `${t.epoch}${t.status[0]}`)])).toEqual([
      ['b', 'failed', ['0f', '1p']],
      ['a', 'passed', ['0p', '1p']],
    ]);

    // The same rows whether the index pass keeps the trials it parsed (held, read once), gives them
    // up halfway through the file (more than it may keep), or keeps none (streamed, read per pass).
    const held = reportRows(file, tasks, 2);
    expect(Array.isArray(held)).toBe(true);
    expect(held).toEqual(rows);
    expect([...new JournalRows(file, tasks, 2, undefined, 2)]).toEqual(rows);
    const streamed = reportRows(file, tasks, 2, 0);
    expect(Array.isArray(streamed)).toBe(false);
    expect([...streamed]).toEqual(rows);
  });
});

describe('a partial run', () => {
  it('is named in one notice and fails the gate whatever the rules', () => {
    const report = makeReport([{ id: 'a', trials: 'p' }]);
    expect(completeness(report)).toMatchObject({ complete: true, notice: null });
    const interrupted = { ...report, run: { ...report.run, interrupted: true, trials_planned: 4 } };
    expect(completeness(interrupted).notice).toBe('INTERRUPTED: 1 of 4 trials ran; this report is partial and cannot pass the gate (finish it with --resume)');
    const gate = evaluateGate(interrupted, { min_pass_rate: 0 }, 'flags');
    expect(gate.passed).toBe(false);
    expect(gate.results).toContainEqual(expect.objectContaining({ rule: 'run_complete', passed: false }));
    const short = { ...report, run: { ...report.run, trials_planned: 2 } };
    expect(completeness(short).notice).toMatch(/^INCOMPLETE: 1 of 2 trials ran/);
    expect(evaluateGate(short, {}, 'flags').passed).toBe(false);
  });
});
