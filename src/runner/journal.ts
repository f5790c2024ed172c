import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { TrialSchema, type Trial } from '../schema/report.js';

const CHUNK = 1 << 20;

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

/**
 * Each line of a file with where it starts and how many bytes it has, read in chunks and cut at
 * newline bytes (so a character whose bytes straddle two chunks is decoded whole).
 */
export function* lineRanges(file: string): Generator<{ text: string; offset: number; bytes: number }> {
  const fd = openSync(file, 'r');
  try {
    let buffer = Buffer.alloc(0);
    let base = 0;
    for (;;) {
      const chunk = Buffer.alloc(CHUNK);
      const read = readSync(fd, chunk, 0, CHUNK, null);
      if (read === 0) break;
      buffer = buffer.length ? Buffer.concat([buffer, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      let start = 0;
      for (let at = buffer.indexOf(0x0a); at >= 0; at = buffer.indexOf(0x0a, start)) {
        yield { text: buffer.toString('utf8', start, at), offset: base + start, bytes: at - start };
        start = at + 1;
      }
      base += start;
      buffer = buffer.subarray(start);
    }
    if (buffer.length) yield { text: buffer.toString('utf8'), offset: base, bytes: buffer.length };
  } finally {
    closeSync(fd);
  }
}

/** The lines of a file, read in chunks so a journal of 100k trials is never one string. */
export function* fileLines(file: string): Generator<string> {
  for (const { text } of lineRanges(file)) yield text;
}

/** One journal line as its entry, or null for a blank or torn line (a write cut short). */
export function parseJournalLine(line: string): JournalEntry | null {
  if (!line.trim()) return null;
  try {
    const raw = JSON.parse(line) as JournalEntry;
    return { task_id: String(raw.task_id), fingerprint: String(raw.fingerprint), trial: TrialSchema.parse(raw.trial) };
  } catch {
    return null;
  }
}

/** Every entry that parses, in file order; a torn line is skipped, never fatal. */
export function* journalEntries(file: string): Generator<JournalEntry> {
  if (!existsSync(file)) return;
  for (const line of fileLines(file)) {
    const entry = parseJournalLine(line);
    if (entry) yield entry;
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
