import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Adapter } from '../schema/adapter.js';
import { orchestrate, type TrialOutcome } from '../orchestrator/orchestrate.js';
import { buildReport } from '../report/buildReport.js';
import { judgeTrial } from '../judging/judgeTrial.js';
import { removeOrphanedTempFiles } from '../files/atomicWrite.js';
import { isAlive } from '../orchestrator/workspaces.js';
import type { Redactor } from '../schema/redact.js';
import type { RunInfo, Trial } from '../schema/report.js';
import type { StreamedReport } from '../report/taskRows.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import type { LoadedSuite } from '../suite/loadSuite.js';
import { runHeader } from '../report/runHeader.js';
import { finishedTrialKeys, journalLine, repairJournal } from './journal.js';
import { checkOutputFolder, clearPreviousRun, removeReports } from './previousRun.js';
import { RUN_SETTINGS_FILE, writeRunSettings, type RunSettings } from './runSettings.js';
import { TrialWriter } from './trialWriter.js';
import { probeOutcomes } from './outcomeProbe.js';
import type { RubricJudge } from './rubricJudge.js';
import { reportRows } from './reportFromJournal.js';

export interface ExecuteOptions {
  suites: LoadedSuite[];
  tasks: Task[];
  adapter: Adapter;
  outDir: string;
  concurrency: number;
  epochs: number;
  timeoutMs: number;
  shard: { index: number; total: number } | null;
  variant: { name: string; file: string | null } | null;
  resume: boolean;
  redactor: Redactor;
  signal: AbortSignal;
  /** Told as each trial starts and ends, and as trials wait on a provider (the CLI fans these out to its reporters). */
  onTrialStart?: (event: { taskId: string; epoch: number }) => void;
  onTrialEnd?: (event: { taskId: string; epoch: number; trial: Trial; done: number; total: number }) => void;
  onWaiting?: (waiting: number) => void;
  /** Per-task trial count, at most `epochs` (--epochs auto runs stages through this). Default: epochs. */
  trialsWanted?: (task: Task) => number;
  /**
   * Told of each stored trace the judge found valid: answers with JSON text to have packed by the
   * writer's thread (report.html's copy), handed back through onTracePacked, or null.
   */
  onTraceStored?: (event: { file: string; trace: Trace }) => string | null;
  onTracePacked?: (file: string, packed: string) => void;
  /** The settings that decide a trial's outcome, recorded in run-settings.json when a run starts (checked by --resume). */
  settings?: RunSettings;
  /** Which tasks were selected and the limits they ran under (merge compares them across shards). */
  selection?: RunInfo['selection'];
  /** Grades the rubric checks after each trial (absent: no task has one). */
  judge?: RubricJudge | null;
}

export const TRACES_DIR = 'traces';
export const JOURNAL_FILE = 'results.jsonl';

export function traceFileName(taskId: string, epoch: number): string {
  return `${TRACES_DIR}/${taskId}.e${epoch}.json`;
}

/**
 * One run: orchestrate the trials, judge each as it finishes, write its (redacted) trace and a
 * journal line at once, then build the report from the journal. Finished work survives
 * interruption, and no trial stays in memory while the run works.
 */
export async function executeRun(options: ExecuteOptions): Promise<StreamedReport> {
  const { outDir, redactor } = options;
  const journalFile = path.join(outDir, JOURNAL_FILE);
  mkdirSync(outDir, { recursive: true });
  checkOutputFolder(outDir);
  if (options.resume) {
    repairJournal(journalFile);
    // The previous report describes fewer trials than the folder is about to hold.
    removeReports(outDir);
  } else clearPreviousRun(outDir);
  // A journal from before run-settings.json existed gets one now, so the next --resume is checked.
  if (options.settings && !existsSync(path.join(outDir, RUN_SETTINGS_FILE))) writeRunSettings(outDir, options.settings);
  mkdirSync(path.join(outDir, TRACES_DIR), { recursive: true });
  // Half-written files of a run killed with -9 (the real files beside them are intact).
  for (const dir of [outDir, path.join(outDir, TRACES_DIR)]) removeOrphanedTempFiles(dir, isAlive);

  // On resume: only the keys of the trials already judged, never the trials themselves.
  const done = options.resume ? finishedTrialKeys(journalFile, options.tasks, options.epochs) : new Set<string>();
  const wanted = (task: Task) => Math.min(options.epochs, options.trialsWanted?.(task) ?? options.epochs);
  const isDone = (task: Task, epoch: number) => epoch >= wanted(task) || done.has(`${task.id}#${epoch}`);
  const total = options.tasks.reduce((s, t) => s + wanted(t), 0);
  let finished = done.size;

  const startedAt = new Date();
  const writer = new TrialWriter(journalFile, options.onTracePacked);
  const onTrial = (outcome: TrialOutcome) => {
    // Judged as stored: redacted first, so no preview the judge cuts can split a secret, and a
    // re-scored trace file gives the same verdict.
    const trace = outcome.trace ? redactor.deep(outcome.trace) : null;
    const traceFile = trace ? traceFileName(outcome.task.id, outcome.epoch) : null;
    const trial = redactor.deep(judgeTrial(outcome.task, outcome.epoch, trace, outcome.error, outcome.durationMs, traceFile));
    // A trace the judge found valid is packed for whoever asks for a copy now, by the writer's thread.
    const viewerJson = trace && traceFile && trial.error?.code !== 'TRACE_INVALID' ? (options.onTraceStored?.({ file: traceFile, trace }) ?? null) : null;
    writer.write({
      traceFile: traceFile && path.join(outDir, traceFile),
      trace: trace && JSON.stringify(trace) + '\n',
      line: journalLine({ task_id: outcome.task.id, fingerprint: outcome.task.fingerprint, trial }),
      viewer: traceFile && viewerJson !== null ? { key: traceFile, json: viewerJson } : undefined,
    });
    finished++;
    options.onTrialEnd?.({ taskId: outcome.task.id, epoch: outcome.epoch, trial, done: finished, total });
  };

  try {
    await orchestrate(options.adapter, options.tasks, {
      concurrency: options.concurrency,
      epochs: options.epochs,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      skip: isDone,
      onTrial,
      afterRun: async (task, trace, workspace) => {
        const probed = await probeOutcomes(task, trace, workspace, { mode: options.adapter.checkSandbox ?? 'process', signal: options.signal });
        return options.judge ? options.judge.judge(task, probed, workspace, options.signal) : probed;
      },
      ...(options.onTrialStart ? { onTrialStart: (task: Task, epoch: number) => options.onTrialStart!({ taskId: task.id, epoch }) } : {}),
      ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
    });
  } finally {
    // Every finished trial is stored before the report is built from the journal (or the run fails).
    await writer.close();
  }

  const endedAt = new Date();
  const run: RunInfo = {
    ...runHeader(startedAt, endedAt, options.suites),
    adapter: options.adapter.name,
    model: options.adapter.model,
    scripted: options.adapter.model.mode === 'scripted',
    variant: options.variant,
    policy: options.adapter.policy,
    sandbox: options.adapter.sandbox,
    ...(options.adapter.sandboxReason ? { sandbox_reason: options.adapter.sandboxReason } : {}),
    epochs: options.epochs,
    concurrency: options.concurrency,
    shard: options.shard,
    ...(options.selection ? { selection: options.selection } : {}),
    ...(options.judge?.info ? { judge: options.judge.info } : {}),
    interrupted: options.signal.aborted,
    trials_planned: total,
  };
  // Traces and trials are redacted as they are written; the report is redacted where it is written.
  // Many rows stay in the journal, each artifact reading them again, so no pass holds them all.
  return buildReport(run, reportRows(journalFile, options.tasks, options.epochs));
}
