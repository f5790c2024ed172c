import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { taskResult } from '../report/buildReport.js';
import type { TaskRows } from '../report/taskRows.js';
import type { TaskResult, Trial } from '../schema/report.js';
import type { Task } from '../schema/task.js';
import { lineRanges, parseJournalLine, type JournalEntry } from './journal.js';

const CHUNK = 1 << 20;

/** Reads byte ranges of one file through a window, so ranges that come nearly in file order cost one read a megabyte. */
class RangeReader {
  private window = Buffer.alloc(0);
  private start = 0;

  constructor(private readonly fd: number) {}

  text(offset: number, bytes: number): string {
    if (offset < this.start || offset + bytes > this.start + this.window.length) {
      // A little before the range too: trials finish out of suite order by up to the concurrency.
      this.start = Math.max(0, offset - (CHUNK >> 3));
      const window = Buffer.alloc(Math.max(CHUNK, offset + bytes - this.start));
      this.window = window.subarray(0, readSync(this.fd, window, 0, window.length, this.start));
    }
    return this.window.toString('utf8', offset - this.start, offset - this.start + bytes);
  }
}

/**
 * The report's task rows, read from the journal rather than held in memory: the run keeps no trial
 * while it works, and the report phase keeps no row. Built once, it holds where each trial's
 * winning line is (the last entry of each trial wins: a resumed trial replaces its errored try;
 * entries of other tasks, other epochs or a changed task definition are left out); each pass over
 * it reads those lines again and yields the rows in suite order, one task's trials at a time,
 * each through `finish` (validation and redaction). The journal must not change while it is read.
 */
export class JournalRows implements TaskRows {
  readonly length: number;
  /** Per task in suite order with a row: its index, and the first and last of its trials in `ranges`. */
  private readonly rowTasks: Array<{ task: Task; from: number; to: number }> = [];
  /** Byte offset and length of each winning line, grouped by task in suite order. */
  private readonly ranges: number[] = [];

  /**
   * The winning trials themselves, parsed by the index pass, while there are at most `keepUpTo`:
   * then a pass reads none again (null once the journal holds more).
   */
  private kept: Trial[] | null = null;

  constructor(
    private readonly file: string,
    tasks: readonly Task[],
    epochs: number,
    private readonly finish: (row: TaskResult) => TaskResult = (row) => row,
    keepUpTo = 0,
  ) {
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const winners = new Map<string, Map<number, { offset: number; bytes: number; trial: Trial | null }>>();
    let keeping = keepUpTo > 0;
    let count = 0;
    if (existsSync(file)) {
      for (const { text, offset, bytes } of lineRanges(file)) {
        const entry = parseJournalLine(text);
        if (!entry) continue;
        const task = byId.get(entry.task_id);
        if (!task || entry.fingerprint !== task.fingerprint || entry.trial.epoch >= epochs) continue;
        const trials = winners.get(task.id) ?? new Map<number, { offset: number; bytes: number; trial: Trial | null }>();
        if (!trials.has(entry.trial.epoch)) count++;
        if (keeping && count > keepUpTo) {
          // Too many to hold: every pass reads its lines again, so none is kept.
          keeping = false;
          for (const taskWinners of winners.values()) for (const winner of taskWinners.values()) winner.trial = null;
        }
        trials.set(entry.trial.epoch, { offset, bytes, trial: keeping ? entry.trial : null });
        winners.set(task.id, trials);
      }
    }
    if (keeping) this.kept = [];
    for (const task of tasks) {
      const trials = winners.get(task.id);
      if (!trials) continue;
      const from = this.ranges.length / 2;
      for (const { offset, bytes, trial } of trials.values()) {
        this.ranges.push(offset, bytes);
        this.kept?.push(trial!);
      }
      this.rowTasks.push({ task, from, to: this.ranges.length / 2 });
      winners.delete(task.id);
    }
    this.length = this.rowTasks.length;
  }

  *[Symbol.iterator](): Iterator<TaskResult> {
    if (this.length === 0) return;
    if (this.kept) {
      const kept = this.kept;
      for (const { task, from, to } of this.rowTasks) yield this.finish(taskResult(task, kept.slice(from, to)));
      return;
    }
    const fd = openSync(this.file, 'r');
    try {
      const reader = new RangeReader(fd);
      for (const { task, from, to } of this.rowTasks) {
        const trials: Trial[] = [];
        for (let i = from; i < to; i++) {
          const entry: JournalEntry | null = parseJournalLine(reader.text(this.ranges[2 * i]!, this.ranges[2 * i + 1]!));
          if (!entry) throw new Error(`${this.file}: a journal line changed while the report was written`);
          trials.push(entry.trial);
        }
        yield this.finish(taskResult(task, trials));
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** Every row at once, held (for small reports and tests; a run streams JournalRows). */
export function taskRowsFromJournal(journalFile: string, tasks: readonly Task[], epochs: number): TaskResult[] {
  return [...new JournalRows(journalFile, tasks, epochs)];
}

/**
 * Up to this many rows a report holds them (about 1 KB each, 20 MB here): a pass over held rows is
 * free, while a pass over streamed ones parses every row again, and the artifacts take about eight.
 * Above it the rows stay in the journal, so the report phase of 100,000 tasks keeps no row.
 */
export const HELD_ROWS = 20_000;

/** The report's rows from the journal: held when few, streamed (JournalRows) when many. */
export function reportRows(journalFile: string, tasks: readonly Task[], epochs: number, heldRows = HELD_ROWS): TaskRows {
  // Held rows are built from the trials the index pass parsed: the journal is read once.
  const rows = new JournalRows(journalFile, tasks, epochs, undefined, heldRows * Math.max(1, epochs));
  return rows.length <= heldRows ? [...rows] : rows;
}
