import type { StreamedReport } from '../report/taskRows.js';
import type { Trial } from '../schema/report.js';
import type { JudgeInfo } from '../schema/rubric.js';
import type { ModelInfo, Trace } from '../schema/trace.js';

/** What a run is about to do, told before its first trial (the terminal's header). */
export interface RunStartEvent {
  readonly model: ModelInfo;
  /** Who grades the rubric checks (live, replayed or scripted), or null when no task has one. */
  readonly judge: JudgeInfo | null;
  /** Which system runs: "the reference harness", an --agent-cmd command or an --agent-url. */
  readonly agent: string;
  readonly policy: string;
  readonly sandbox: string;
  readonly suites: readonly string[];
  /** Tasks selected (this shard's), and the epochs each gets (`auto`: in stages, up to maxEpochs). */
  readonly tasks: number;
  readonly epochs: number | 'auto';
  readonly maxEpochs: number;
  readonly concurrency: number;
  /** Where the gate's rules come from and what they are, e.g. "defaults: min_pass_rate 1". */
  readonly gate: string;
  readonly outDir: string;
}

export interface TrialStartEvent {
  readonly taskId: string;
  readonly epoch: number;
}

/** A trace as the run stored it (valid and redacted), at `file` below the output folder. */
export interface TraceStoredEvent {
  readonly file: string;
  readonly trace: Trace;
}

export interface TrialEndEvent {
  readonly taskId: string;
  readonly epoch: number;
  /** Judged and redacted, as the journal holds it. */
  readonly trial: Trial;
  /** Trials finished (resumed ones included) and planned, so far. */
  readonly done: number;
  readonly total: number;
}

/**
 * A reporter subscribes to the run's events; every hook is optional (Playwright's Reporter). The
 * live hooks see the run as it goes; `onRunEnd` gets the finished report and writes one artifact.
 * Reporters read and never decide: nothing they return changes the run.
 */
export interface Reporter {
  readonly name: string;
  onRunStart?(event: RunStartEvent): void;
  onTrialStart?(event: TrialStartEvent): void;
  onTrialEnd?(event: TrialEndEvent): void;
  /**
   * A stored trace, for a reporter that keeps a copy (report.html): it answers with the JSON text it
   * wants packed (gzip + base64) off the main thread, or null. The packed text comes back through
   * onTracePacked. The first reporter that answers gets it.
   */
  onTraceStored?(event: TraceStoredEvent): string | null;
  onTracePacked?(file: string, packed: string): void;
  /** How many trials now wait out a provider's Retry-After or backoff. */
  onWaiting?(waiting: number): void;
  /** The last trial ended (or the run stopped): live output is put away before the summary prints. */
  onTrialsDone?(): void;
  /**
   * Writes the artifact from the finished report; resolves to the file written, if any. Its rows
   * may be streamed from the run's journal: read them in passes (for…of), never all at once.
   */
  onRunEnd?(report: StreamedReport, outDir: string): Promise<string | null>;
}

/** The hooks a run calls as it goes (everything but onRunEnd). */
export type LiveHook = 'onRunStart' | 'onTrialStart' | 'onTrialEnd' | 'onWaiting' | 'onTrialsDone';
export type LiveEvent<K extends LiveHook> = Parameters<NonNullable<Reporter[K]>>;
