import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileLines, finishedTrialKeys, journalEntries, journalLine, repairJournal, type JournalEntry } from '../../src/runner/journal.js';

const appendJournal = (file: string, entry: JournalEntry) => appendFileSync(file, journalLine(entry));
import { tempDir } from '../helpers/cli.js';
import { makeReport } from '../helpers/reportBuilder.js';

const trialOf = (id: string, letters: string) => makeReport([{ id, trials: letters }]).tasks[0]!.trials;
const entry = (id: string, letter = 'p', epoch = 0): JournalEntry => ({ task_id: id, fingerprint: 'same', trial: { ...trialOf(id, letter)[0]!, epoch } });

describe('journal', () => {
  it('a torn last line is cut off before appending, so the next entry is not swallowed', () => {
    const file = path.join(tempDir(), 'results.jsonl');
    appendJournal(file, entry('a'));
    const whole = JSON.stringify(entry('b'));
    appendFileSync(file, whole.slice(0, whole.length / 2)); // killed mid-append
    // Without repair the next line glues onto the torn one and is lost too.
    expect(repairJournal(file)).toBe(Math.floor(whole.length / 2));
    appendJournal(file, entry('c'));
    expect([...finishedTrialKeys(file, [{ id: 'a', fingerprint: 'same' }, { id: 'b', fingerprint: 'same' }, { id: 'c', fingerprint: 'same' }], 1)]).toEqual(['a#0', 'c#0']);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('repair leaves a clean journal alone and empties one with no complete line', () => {
    const file = path.join(tempDir(), 'results.jsonl');
    appendJournal(file, entry('a'));
    expect(repairJournal(file)).toBe(0);
    const cut = path.join(tempDir(), 'results.jsonl');
    writeFileSync(cut, '{"task_id": "a", "tri');
    expect(repairJournal(cut)).toBe(21);
    expect(readFileSync(cut, 'utf8')).toBe('');
    expect(repairJournal(path.join(tempDir(), 'missing.jsonl'))).toBe(0);
  });

  it('reads a journal larger than its read buffer line by line; resume skips judged trials of unchanged tasks only', () => {
    const file = path.join(tempDir(), 'results.jsonl');
    for (let i = 0; i < 3000; i++) appendJournal(file, entry(`task_${i}`, 'p'));
    appendJournal(file, entry('task_7', 'e'));
    appendJournal(file, entry('task_8', 'f'));
    appendJournal(file, entry('task_9', 'p', 3));
    expect([...journalEntries(file)]).toHaveLength(3003);
    const tasks = Array.from({ length: 3000 }, (_, i) => ({ id: `task_${i}`, fingerprint: i === 10 ? 'changed' : 'same' }));
    const done = finishedTrialKeys(file, tasks, 2);
    expect(done.size).toBe(2998);
    expect(done.has('task_7#0')).toBe(false); // errored last: run again
    expect(done.has('task_8#0')).toBe(true); // failed is judged: kept
    expect(done.has('task_9#3')).toBe(false); // an epoch not asked for
    expect(done.has('task_10#0')).toBe(false); // its definition changed
  });
});

describe('the journal reader', () => {
  it('decodes a character whose bytes straddle two read chunks whole', () => {
    const file = path.join(tempDir(), 'lines.txt');
    // "é" is two bytes in UTF-8; the first line puts it across the 1 MiB read boundary.
    const first = 'a'.repeat((1 << 20) - 1) + 'é';
    writeFileSync(file, `${first}\nsecond ✓\n`);
    expect([...fileLines(file)]).toEqual([first, 'second ✓']);
  });
});
