import { taskResult } from '../report/buildReport.js';
import type { TaskResult, Trial } from '../schema/report.js';
import type { Task } from '../schema/task.js';
import { journalEntries } from './journal.js';

/** Values that repeat across thousands of trials (check reasons, statuses, codes): kept once each. */
const REPEATED_KEYS = new Set(['type', 'reason', 'status', 'exit_reason', 'failure_reason', 'failure_layer', 'code', 'detail', 'message']);
const MAX_INTERNED = 50_000;

function interner(): (key: string, value: unknown) => unknown {
  const seen = new Map<string, string>();
  return (key, value) => {
    if (typeof value !== 'string' || !REPEATED_KEYS.has(key) || value.length > 500) return value;
    const known = seen.get(value);
    if (known !== undefined) return known;
    if (seen.size < MAX_INTERNED) seen.set(value, value);
    return value;
  };
}

/**
 * The report's task rows, built from the journal rather than from memory: the run keeps no trial
 * while it works. The last entry of each trial wins (a resumed trial replaces its errored try);
 * entries of other tasks, other epochs or a changed task definition are left out. Rows come in
 * suite order, one task's trials at a time.
 */
export function taskRowsFromJournal(journalFile: string, tasks: readonly Task[], epochs: number): TaskResult[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const trials = new Map<string, Trial[]>();
  for (const entry of journalEntries(journalFile, interner())) {
    const task = byId.get(entry.task_id);
    if (!task || entry.fingerprint !== task.fingerprint || entry.trial.epoch >= epochs) continue;
    const list = trials.get(task.id) ?? [];
    const at = list.findIndex((t) => t.epoch === entry.trial.epoch);
    if (at >= 0) list[at] = entry.trial;
    else list.push(entry.trial);
    trials.set(task.id, list);
  }
  const rows: TaskResult[] = [];
  for (const task of tasks) {
    const list = trials.get(task.id);
    if (!list?.length) continue;
    rows.push(taskResult(task, list));
    trials.delete(task.id);
  }
  return rows;
}
