import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { TrialSchema, type Trial } from '../schema/report.js';

/**
 * results.jsonl in the output folder: one line per finished trial, appended as it finishes. It is
 * what an interrupted run keeps, and what `--resume` reads to skip work already done.
 */
export interface JournalEntry {
  task_id: string;
  fingerprint: string;
  trial: Trial;
}

export function appendJournal(file: string, entry: JournalEntry): void {
  appendFileSync(file, JSON.stringify(entry) + '\n');
}

/** Finished trials by `task_id#epoch`; lines that do not parse (a write cut short) are ignored. */
export function readJournal(file: string): Map<string, JournalEntry> {
  const entries = new Map<string, JournalEntry>();
  if (!existsSync(file)) return entries;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const raw = JSON.parse(line) as JournalEntry;
      const trial = TrialSchema.parse(raw.trial);
      if (trial.status === 'errored') continue; // errored trials are retried on resume
      entries.set(`${raw.task_id}#${trial.epoch}`, { task_id: raw.task_id, fingerprint: raw.fingerprint, trial });
    } catch {
      // a partial last line from an interrupted write
    }
  }
  return entries;
}
