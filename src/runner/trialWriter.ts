import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { packageFile } from '../files/packageFiles.js';
import { TracegateError } from '../schema/runError.js';

/**
 * One finished trial as stored: its trace file (absolute path and JSON text) and its journal line;
 * `viewer`, when report.html is to embed the trace: the compact JSON the thread packs for the page
 * (packJson) and the key it is handed back under.
 */
export interface StoredTrial {
  traceFile: string | null;
  trace: string | null;
  line: string;
  viewer?: { key: string; json: string } | undefined;
}

/** What the writer thread answers a batch with: how many it stored, and the viewer traces it packed. */
export type WriterReply = { stored: number; packed: Array<[key: string, packed: string]> } | { error: string; code?: string | undefined };

/** The thread's compiled file, in dist/ (also when the caller runs from the sources or the bundle). */
function workerFile(): string {
  const built = packageFile('dist', 'src', 'runner', 'trialWriterWorker.js');
  if (!existsSync(built)) throw new Error(`${built} not found: run \`npm run build\``);
  return built;
}

/**
 * Stores finished trials on a thread of its own. Creating, writing and renaming a file per trial is
 * kernel work that, done on the main thread, held up every trial in flight (a fifth of a 10k-task
 * run's main-thread time; docs/performance.md). The order of the guarantee is unchanged: a trial's
 * trace file is complete before its journal line is written, so a journaled trial always has its
 * trace and a kill loses at most trials not yet journaled, which --resume runs again.
 */
export class TrialWriter {
  private readonly worker: Worker;
  private readonly exited: Promise<unknown>;
  private queued: StoredTrial[] = [];
  private sent = 0;
  private stored = 0;
  private failure: Error | null = null;
  private waiters: Array<() => void> = [];
  private scheduled = false;
  private closed = false;

  /** `onPacked` receives each viewer trace the thread packed (see StoredTrial), as batches come back. */
  constructor(
    readonly journalFile: string,
    private readonly onPacked: (key: string, packed: string) => void = () => undefined,
  ) {
    this.worker = new Worker(workerFile(), { workerData: { journalFile } });
    // Not events.once: it would reject on the thread's 'error' and, unawaited until close, crash the run.
    this.exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.on('message', (reply: WriterReply) => {
      if ('error' in reply) this.fail(new TracegateError('COULD_NOT_RUN', `could not store a finished trial: ${reply.error}`));
      else {
        this.stored += reply.stored;
        for (const [key, packed] of reply.packed) this.onPacked(key, packed);
      }
      this.wake();
    });
    this.worker.on('error', (error) => this.fail(new TracegateError('COULD_NOT_RUN', `could not store finished trials: ${error.message}`, { cause: error })));
    this.worker.on('exit', () => {
      if (this.stored < this.sent) this.fail(new TracegateError('COULD_NOT_RUN', 'the thread storing finished trials stopped'));
      this.wake();
    });
  }

  /** Queues a trial; batches go to the thread once per turn of the event loop. Throws once a store failed. */
  write(trial: StoredTrial): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('the trial writer is closed');
    this.queued.push(trial);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.send());
    }
  }

  /** Resolves when every trial queued so far is stored (trace renamed, journal line written). */
  async flush(): Promise<void> {
    this.send();
    while (this.stored < this.sent && !this.failure) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (this.failure) throw this.failure;
  }

  /** Flushes, then ends the thread (also after a failure, which it then rethrows). */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      this.worker.postMessage('close');
      await this.exited;
    }
  }

  private send(): void {
    this.scheduled = false;
    if (this.queued.length === 0 || this.failure) return;
    const batch = this.queued;
    this.queued = [];
    this.sent += batch.length;
    this.worker.postMessage(batch);
  }

  private fail(error: Error): void {
    this.failure ??= error;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
