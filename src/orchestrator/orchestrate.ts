import { setMaxListeners } from 'node:events';
import { rm } from 'node:fs/promises';
import type { Adapter } from '../adapters/types.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import { cleanOrphanedWorkspaces, createRunDir, freshWorkspace } from './workspaces.js';

/** One run of one task in one epoch, as the orchestrator saw it; it never looks inside the trace. */
export interface TrialOutcome {
  task: Task;
  epoch: number;
  trace: Trace | null;
  /** An infrastructure fault: adapter crash, timeout, interruption. */
  error: { code: string; message: string } | null;
  durationMs: number;
}

export interface OrchestrateOptions {
  concurrency: number;
  epochs: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Trials already done (from --resume): skipped. */
  skip?: (task: Task, epoch: number) => boolean;
  /** Called as each trial finishes, so finished work is kept even if the run is cut short. */
  onTrial: (outcome: TrialOutcome) => Promise<void> | void;
}

class TaskTimeout extends Error {}

async function runTrial(adapter: Adapter, task: Task, epoch: number, options: OrchestrateOptions, runDir: string): Promise<TrialOutcome> {
  const started = performance.now();
  const timeoutMs = task.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  const abortFromRun = () => controller.abort(options.signal.reason);
  options.signal.addEventListener('abort', abortFromRun, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let workspace: string | null = null;
  try {
    workspace = await freshWorkspace(runDir, task);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new TaskTimeout());
        reject(new TaskTimeout());
      }, timeoutMs);
    });
    const trace = await Promise.race([adapter.run(task, { workspace, epoch, signal: controller.signal }), timeout]);
    return { task, epoch, trace, error: null, durationMs: performance.now() - started };
  } catch (error) {
    const code = error instanceof TaskTimeout ? 'TASK_TIMEOUT' : options.signal.aborted ? 'INTERRUPTED' : 'ADAPTER_CRASH';
    const message =
      code === 'TASK_TIMEOUT' ? `task did not finish within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
    return { task, epoch, trace: null, error: { code, message }, durationMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', abortFromRun);
    if (workspace) await rm(workspace, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Runs every task for every epoch at bounded concurrency. One task's crash is that trial's error,
 * never the run's end; after an interruption no new trial starts.
 */
export async function orchestrate(adapter: Adapter, tasks: Task[], options: OrchestrateOptions): Promise<void> {
  // Each running trial listens on the run's signal: -j 50 means 50 listeners, not a leak.
  setMaxListeners(Math.max(10, options.concurrency + 10), options.signal);
  // Orphans of killed runs are removed alongside the trials, never delaying the first one.
  const cleaning = cleanOrphanedWorkspaces().catch(() => []);
  const runDir = await createRunDir();
  // A fixed pool of workers pulling from one lazy queue: nothing is allocated per waiting trial,
  // so 100k tasks cost no more memory up front than 10.
  function* queue(): Generator<[Task, number]> {
    for (let epoch = 0; epoch < options.epochs; epoch++) {
      for (const task of tasks) if (!options.skip?.(task, epoch)) yield [task, epoch];
    }
  }
  const pending = queue();
  const worker = async () => {
    for (const [task, epoch] of pending) {
      if (options.signal.aborted) return;
      const outcome = await runTrial(adapter, task, epoch, options, runDir);
      if (outcome.error?.code === 'INTERRUPTED') return;
      await options.onTrial(outcome);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    await rm(runDir, { recursive: true, force: true }).catch(() => undefined);
    await cleaning;
  }
}
