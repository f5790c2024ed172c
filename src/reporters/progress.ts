import type { Trial } from '../schema/report.js';
import { judgeLabel, modelLabel } from './modelLabel.js';
import { terminalSafe } from './terminalSafe.js';
import type { Reporter, RunStartEvent, TrialEndEvent } from './reporter.js';

/** Where progress goes (stderr): only what the reporters need of a stream. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** The header every progress reporter prints before the first trial: what is about to run. */
export function headerLines(e: RunStartEvent): string[] {
  const epochs = e.epochs === 'auto' ? `epochs auto (up to ${e.maxEpochs})` : `${e.epochs} epoch${e.epochs === 1 ? '' : 's'}`;
  const trials = e.epochs === 'auto' ? '' : ` = ${e.tasks * e.epochs} trials`;
  return [
    `tracegate run: ${e.tasks} task${e.tasks === 1 ? '' : 's'} × ${epochs}${trials}, concurrency ${e.concurrency}`,
    `  model:   ${modelLabel(e.model)}`,
    ...(e.judge ? [`  judge:   ${judgeLabel(e.judge)}`] : []),
    `  agent:   ${e.agent} (policy ${e.policy}; sandbox ${e.sandbox})`,
    `  suites:  ${e.suites.join(', ')}`,
    `  gate:    ${e.gate}`,
    `  output:  ${e.outDir}`,
  ].map(terminalSafe);
}

function trialDetail(trial: Trial): string {
  if (trial.status === 'failed') return ` ${trial.failure_reason} (${trial.failure_layer})`;
  // Whole: the actionable part of an error is often at its end ("…pass --base-url URL").
  if (trial.status === 'errored') return ` ${trial.error?.code}: ${trial.error?.message}`;
  return '';
}

/** `[3/10] failed  task_id #1 REASON (layer)`: one finished trial, the way `line` prints it. */
export function trialLine(e: TrialEndEvent, showEpoch: boolean): string {
  return terminalSafe(`[${e.done}/${e.total}] ${e.trial.status.padEnd(7)} ${e.taskId}${showEpoch ? ` #${e.epoch}` : ''}${trialDetail(e.trial)}`);
}

/** The counts a status line shows, kept from the events. */
export class RunTally {
  done = 0;
  total = 0;
  passed = 0;
  failed = 0;
  errored = 0;
  inFlight = 0;
  waiting = 0;
  private started = 0;
  private endedHere = 0;
  private readonly startedAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  start(total: number): void {
    this.total = total;
  }

  trialStarted(): void {
    this.started++;
    this.inFlight = this.started - this.endedHere;
  }

  trialEnded(e: TrialEndEvent): void {
    this.endedHere++;
    this.inFlight = Math.max(0, this.started - this.endedHere);
    this.done = e.done;
    this.total = e.total;
    this[e.trial.status]++;
  }

  /** Seconds left at the pace of the trials this process finished, or null before the first. */
  etaSeconds(): number | null {
    if (this.endedHere === 0) return null;
    const perTrial = (this.now() - this.startedAt) / 1000 / this.endedHere;
    return Math.max(0, Math.round(perTrial * (this.total - this.done)));
  }

  statusLine(): string {
    const eta = this.etaSeconds();
    const parts = [`${this.done}/${this.total} done`, `${this.passed} passed`, `${this.failed} failed`, `${this.errored} errored`, `${this.inFlight} in flight`];
    if (this.waiting > 0) parts.push(`${this.waiting} waiting on Retry-After`);
    parts.push(`ETA ${eta === null ? '…' : formatSeconds(eta)}`);
    return parts.join(' · ');
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

const CLEAR_LINE = '\r\u001b[2K';
/** The status line is redrawn at least this often, so the ETA and in-flight count move during long trials. */
const REDRAW_MS = 1000;

/** A terminal: the header, then finished trials scrolling above one live status line. */
function liveReporter(out: ProgressStream): Reporter {
  const tally = new RunTally();
  let showEpoch = false;
  let timer: NodeJS.Timeout | null = null;
  const status = () => {
    // One screen line: a wrapped status line could not be cleared by the next redraw.
    const width = Math.max(20, (out.columns || 80) - 1);
    const line = tally.statusLine();
    out.write(CLEAR_LINE + (line.length > width ? `${line.slice(0, width - 1)}…` : line));
  };
  return {
    name: 'live',
    onRunStart(e) {
      showEpoch = e.epochs !== 1;
      tally.start(e.epochs === 'auto' ? e.tasks : e.tasks * e.epochs);
      out.write(headerLines(e).join('\n') + '\n');
      status();
      timer = setInterval(status, REDRAW_MS);
      timer.unref();
    },
    onTrialStart() {
      tally.trialStarted();
      status();
    },
    onTrialEnd(e) {
      tally.trialEnded(e);
      out.write(CLEAR_LINE + trialLine(e, showEpoch) + '\n');
      status();
    },
    onWaiting(waiting) {
      tally.waiting = waiting;
      status();
    },
    onTrialsDone() {
      if (timer) clearInterval(timer);
      timer = null;
      tally.inFlight = 0;
      tally.waiting = 0;
      // The last status stays as a plain line: the run's final counts, above the summary.
      status();
      out.write('\n');
    },
  };
}

/** Plain lines for logs and pipes: the header, then one line per finished trial. */
function lineReporter(out: ProgressStream): Reporter {
  let showEpoch = false;
  return {
    name: 'line',
    onRunStart(e) {
      showEpoch = e.epochs !== 1;
      out.write(headerLines(e).join('\n') + '\n');
    },
    onTrialEnd(e) {
      out.write(trialLine(e, showEpoch) + '\n');
    },
  };
}

const DOTS_PER_LINE = 80;
const DOT: Record<Trial['status'], string> = { passed: '.', failed: 'F', errored: 'E' };

/** Vitest's and Playwright's `dot`: the header, one character per trial, then the trials that did not pass. */
function dotReporter(out: ProgressStream): Reporter {
  let count = 0;
  let showEpoch = false;
  const notPassed: string[] = [];
  return {
    name: 'dot',
    onRunStart(e) {
      showEpoch = e.epochs !== 1;
      out.write(headerLines(e).join('\n') + '\n');
    },
    onTrialEnd(e) {
      out.write(DOT[e.trial.status] + (++count % DOTS_PER_LINE === 0 ? '\n' : ''));
      if (e.trial.status !== 'passed') notPassed.push(trialLine(e, showEpoch));
    },
    onTrialsDone() {
      if (count % DOTS_PER_LINE !== 0) out.write('\n');
      if (notPassed.length) out.write(notPassed.join('\n') + '\n');
    },
  };
}

/** One JSON object per event and line, for a wrapper that shows progress its own way. */
function jsonLinesReporter(out: ProgressStream): Reporter {
  const emit = (event: string, data: object) => out.write(JSON.stringify({ event, ...data }) + '\n');
  return {
    name: 'json',
    onRunStart: (e) => emit('run_start', e),
    onTrialStart: (e) => emit('trial_start', { task_id: e.taskId, epoch: e.epoch }),
    onTrialEnd: (e) => emit('trial_end', { task_id: e.taskId, epoch: e.epoch, done: e.done, total: e.total, status: e.trial.status, failure_reason: e.trial.failure_reason, error: e.trial.error }),
    onWaiting: (waiting) => emit('waiting', { waiting }),
    onTrialsDone: () => emit('trials_done', {}),
  };
}

/** The progress reporters `--reporter` names: a typed map, so an unknown name does not compile. */
export const PROGRESS_REPORTERS = {
  live: liveReporter,
  line: lineReporter,
  dot: dotReporter,
  json: jsonLinesReporter,
  quiet: (): Reporter => ({ name: 'quiet' }),
} as const satisfies Record<string, (out: ProgressStream) => Reporter>;
export type ProgressReporterName = keyof typeof PROGRESS_REPORTERS;
export const PROGRESS_REPORTER_NAMES = Object.keys(PROGRESS_REPORTERS) as ProgressReporterName[];

/** `live` on a terminal, plain `line`s when stderr is a pipe or a file, or under CI (as Vitest and Playwright do). */
export function defaultProgressReporter(out: ProgressStream, env: NodeJS.ProcessEnv): ProgressReporterName {
  const ci = env['CI'] !== undefined && env['CI'] !== '' && env['CI'] !== 'false' && env['CI'] !== '0';
  return out.isTTY && !ci ? 'live' : 'line';
}
