import { closeSync, existsSync, lstatSync, openSync, readdirSync, readSync, rmSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { TEMP_FILE } from '../files/atomicWrite.js';
import { TracegateError } from '../schema/runError.js';
import { RUN_SETTINGS_FILE } from './runSettings.js';

/**
 * What a run leaves in its output folder, and how the next run clears it: only tracegate's own
 * files go (the journal, the report files, traces named `<task>.e<N>.json`); anything else a user
 * keeps there stays, and a results.jsonl that is not a tracegate journal stops the run.
 */
export const REPORT_FILES = ['report.json', 'report.html', 'junit.xml', 'summary.md'] as const;
const JOURNAL = 'results.jsonl';
const TRACES = 'traces';
/** A trace file as the runner names it: a task id (see TaskSchema) and its epoch. */
const TRACE_FILE = /^[A-Za-z0-9][A-Za-z0-9_.:-]*\.e\d+\.json$/;
/** Every journal line is JSON.stringify({ task_id, fingerprint, trial }). */
const JOURNAL_START = '{"task_id":';

function firstBytes(file: string, n: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(n);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

/** Refuses (bad input) an output folder whose journal or traces/ tracegate did not write; nothing is touched. */
export function checkOutputFolder(outDir: string): void {
  const journal = path.join(outDir, JOURNAL);
  if (existsSync(journal)) {
    if (!statSync(journal).isFile()) throw new TracegateError('BAD_INPUT', `--out ${outDir}: ${JOURNAL} is not a file; choose another output folder`);
    const head = firstBytes(journal, JOURNAL_START.length);
    if (head.length > 0 && head !== JOURNAL_START) {
      throw new TracegateError('BAD_INPUT', `--out ${outDir}: ${JOURNAL} is not a tracegate journal, and a run would replace it; move it away or choose another output folder`);
    }
  }
  const traces = path.join(outDir, TRACES);
  // lstat: a traces/ that links elsewhere would have the run clear and fill the folder it points to.
  const kind = lstatOrNull(traces);
  if (kind?.isSymbolicLink()) {
    throw new TracegateError('BAD_INPUT', `--out ${outDir}: ${TRACES} is a symbolic link; tracegate clears and writes that folder, so it must be a folder of its own: remove the link or choose another output folder`);
  }
  if (kind && !kind.isDirectory()) {
    throw new TracegateError('BAD_INPUT', `--out ${outDir}: ${TRACES} is not a folder; move it away or choose another output folder`);
  }
}

function lstatOrNull(file: string): Stats | null {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

/** The report files of the previous run: they describe traces that are about to change. */
export function removeReports(outDir: string): void {
  for (const name of REPORT_FILES) rmSync(path.join(outDir, name), { force: true });
}

/**
 * A fresh run's start: the previous run's journal, settings, reports and trace files go; other files
 * stay. The journal and reports go first: a run killed while the traces are being removed then
 * leaves no report or journal naming a trace that is gone.
 */
export function clearPreviousRun(outDir: string): void {
  rmSync(path.join(outDir, JOURNAL), { force: true });
  rmSync(path.join(outDir, RUN_SETTINGS_FILE), { force: true });
  removeReports(outDir);
  // Every trace a journal lists is named this way (task ids are checked against the same pattern),
  // so the journal need not be read: a 100k-trial one would cost seconds before the first trial.
  const traces = path.join(outDir, TRACES);
  if (lstatOrNull(traces)?.isDirectory()) {
    for (const entry of readdirSync(traces, { withFileTypes: true })) {
      if (entry.isFile() && (TRACE_FILE.test(entry.name) || TEMP_FILE.test(entry.name))) rmSync(path.join(traces, entry.name), { force: true });
    }
  }
}
