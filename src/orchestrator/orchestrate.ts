import pLimit from 'p-limit';
import type { Adapter } from '../adapters/types.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import { TrialWorkspaces } from './trialWorkspaces.js';

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

async function runTrial(adapter: Adapter, task: Task, epoch: number, options: OrchestrateOptions, workspaces: TrialWorkspaces): Promise<TrialOutcome> {
  const started = performance.now();
  const timeoutMs = task.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  const abortFromRun = () => controller.abort(options.signal.reason);
  options.signal.addEventListener('abort', abortFromRun, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let workspace: string | null = null;
  let finished = false;
  try {
    workspace = await workspaces.create(task);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new TaskTimeout());
        reject(new TaskTimeout());
      }, timeoutMs);
    });
    const trace = await Promise.race([adapter.run(task, { workspace, epoch, signal: controller.signal }), timeout]);
    finished = true;
    return { task, epoch, trace, error: null, durationMs: performance.now() - started };
  } catch (error) {
    const code = error instanceof TaskTimeout ? 'TASK_TIMEOUT' : options.signal.aborted ? 'INTERRUPTED' : 'ADAPTER_CRASH';
    const message =
      code === 'TASK_TIMEOUT' ? `task did not finish within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
    return { task, epoch, trace: null, error: { code, message }, durationMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', abortFromRun);
    if (workspace) await workspaces.release(workspace, finished);
  }
}

/**
 * Runs every task for every epoch at bounded concurrency. One task's crash is that trial's error,
 * never the run's end; after an interruption no new trial starts.
 */
export async function orchestrate(adapter: Adapter, tasks: Task[], options: OrchestrateOptions): Promise<void> {
  const limit = pLimit(options.concurrency);
  const workspaces = new TrialWorkspaces();
  const jobs: Array<Promise<void>> = [];
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    for (const task of tasks) {
      if (options.skip?.(task, epoch)) continue;
      jobs.push(
        limit(async () => {
          if (options.signal.aborted) return;
          const outcome = await runTrial(adapter, task, epoch, options, workspaces);
          if (outcome.error?.code === 'INTERRUPTED') return;
          await options.onTrial(outcome);
        }),
      );
    }
  }
  try {
    await Promise.all(jobs);
  } finally {
    await workspaces.dispose();
  }
}
