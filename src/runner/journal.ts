import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { TrialSchema, type Trial } from '../schema/report.js';

/**
 * results.jsonl in the output folder: one line per finished trial, appended as it finishes. It is
 * what an interrupted run keeps, what `--resume` reads to skip work already done, and what the
 * report is built from (so finished trials need not stay in memory).
 */
export interface JournalEntry {
  task_id: string;
  fingerprint: string;
  trial: Trial;
}

/** One journal line: the entry as JSON and a newline, written in one write(2) in append mode. */
export function journalLine(entry: JournalEntry): string {
  return JSON.stringify(entry) + '\n';
}

/**
 * A run killed mid-append leaves a last line without its newline; the next append would glue onto
 * it and both entries would be lost. Cut the file back to its last complete line before appending.
 * Returns the number of bytes dropped.
 */
export function repairJournal(file: string): number {
  if (!existsSync(file)) return 0;
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const read = readSync(fd, chunk, 0, end - start, start);
      const at = chunk.subarray(0, read).lastIndexOf(0x0a);
      if (at >= 0) {
        const keep = start + at + 1;
        if (keep < size) ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    if (size > 0) ftruncateSync(fd, 0);
    return size;
  } finally {
    closeSync(fd);
  }
}

/** The lines of a file, read in chunks so a journal of 100k trials is never one string. */
export function* fileLines(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    let rest = '';
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      const text = rest + chunk.toString('utf8', 0, read);
      const lines = text.split('\n');
      rest = lines.pop()!;
      yield* lines;
    }
    if (rest) yield rest;
  } finally {
    closeSync(fd);
  }
}

/** Every entry that parses, in file order; a torn line (a write cut short) is skipped, never fatal. */
export function* journalEntries(file: string, reviver?: (key: string, value: unknown) => unknown): Generator<JournalEntry> {
  if (!existsSync(file)) return;
  for (const line of fileLines(file)) {
    if (!line.trim()) continue;
    try {
      const raw = JSON.parse(line, reviver) as JournalEntry;
      yield { task_id: String(raw.task_id), fingerprint: String(raw.fingerprint), trial: TrialSchema.parse(raw.trial) };
    } catch {
      // a partial line from an interrupted write
    }
  }
}

/**
 * What `--resume` may skip: the `task_id#epoch` keys of trials judged for these very task
 * definitions, the last entry winning. Errored trials and changed definitions are run again.
 */
export function finishedTrialKeys(file: string, tasks: ReadonlyArray<{ id: string; fingerprint: string }>, epochs: number): Set<string> {
  const fingerprints = new Map(tasks.map((t) => [t.id, t.fingerprint]));
  const done = new Set<string>();
  for (const entry of journalEntries(file)) {
    const key = `${entry.task_id}#${entry.trial.epoch}`;
    const current = fingerprints.get(entry.task_id) === entry.fingerprint;
    if (entry.trial.status === 'errored' || !current) done.delete(key);
    else if (entry.trial.epoch < epochs) done.add(key);
  }
  return done;
}
