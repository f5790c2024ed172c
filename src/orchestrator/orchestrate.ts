import pLimit from 'p-limit';
import type { Adapter } from '../schema/adapter.js';
import { TracegateError, type RunErrorCode } from '../schema/runError.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import { TrialWorkspaces } from './trialWorkspaces.js';
import { cleanOrphanedWorkspaces } from './workspaces.js';

/** One run of one task in one epoch, as the orchestrator saw it; it never looks inside the trace. */
export interface TrialOutcome {
  task: Task;
  epoch: number;
  trace: Trace | null;
  /** An infrastructure fault: adapter crash, timeout, interruption. */
  error: { code: RunErrorCode; message: string } | null;
  durationMs: number;
}

export interface OrchestrateOptions {
  concurrency: number;
  epochs: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Trials already done (from --resume): skipped. */
  skip?: (task: Task, epoch: number) => boolean;
  /**
   * Called as each trial finishes, so finished work is kept even if the run is cut short. If it
   * throws (the trial could not be stored), no trial starts after it, those in flight are stopped
   * and not stored, and orchestrate rethrows that error once they have ended.
   */
  onTrial: (outcome: TrialOutcome) => Promise<void> | void;
  /** Called as a trial starts (after its slot was given, before its workspace is made). */
  onTrialStart?: (task: Task, epoch: number) => void;
  /** Called with the number of trials waiting out a provider's Retry-After or backoff, as it changes. */
  onWaiting?: (waiting: number) => void;
  /**
   * Called when the agent finished, with its trace and its final workspace (before that is
   * removed): the outcome checks' evidence is added here. Its time is not the agent's.
   */
  afterRun?: (task: Task, trace: Trace, workspace: string) => Promise<Trace>;
}

class TaskTimeout extends TracegateError {
  constructor(timeoutMs: number) {
    super('TASK_TIMEOUT', `task did not finish within ${timeoutMs} ms`);
  }
}

/** What the trials of one run share: the run's signal, fanned out by one listener, and the slot lender. */
interface TrialShared {
  active: Set<AbortController>;
  park: <T>(wait: Promise<T>) => Promise<T>;
  /** Every trial's workspace, under one temp folder of the run's own. */
  workspaces: TrialWorkspaces;
}

async function runTrial(adapter: Adapter, task: Task, epoch: number, options: OrchestrateOptions, shared: TrialShared): Promise<TrialOutcome> {
  const started = performance.now();
  const timeoutMs = task.timeoutMs ?? options.timeoutMs;
  const deadline = Date.now() + timeoutMs;
  const controller = new AbortController();
  if (options.signal.aborted) controller.abort(options.signal.reason);
  shared.active.add(controller);
  let timer: NodeJS.Timeout | undefined;
  let workspace: string | null = null;
  let finished = false;
  try {
    workspace = await shared.workspaces.create(task);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new TaskTimeout(timeoutMs));
        reject(new TaskTimeout(timeoutMs));
      }, timeoutMs);
    });
    let trace = await Promise.race([adapter.run(task, { workspace, epoch, signal: controller.signal, deadline, park: shared.park }), timeout]);
    clearTimeout(timer);
    finished = true;
    if (options.afterRun) trace = await options.afterRun(task, trace, workspace);
    return { task, epoch, trace, error: null, durationMs: performance.now() - started };
  } catch (error) {
    // An adapter's own TracegateError keeps its code (AGENT_UNREACHABLE, AGENT_SPAWN_FAILED, ...);
    // anything else it throws is a crash of the adapter.
    const code: RunErrorCode =
      error instanceof TaskTimeout ? 'TASK_TIMEOUT' : options.signal.aborted ? 'INTERRUPTED' : error instanceof TracegateError ? error.code : 'ADAPTER_CRASH';
    const message = error instanceof Error ? error.message : String(error);
    return { task, epoch, trace: null, error: { code, message }, durationMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
    shared.active.delete(controller);
    if (workspace) await shared.workspaces.release(workspace, finished);
  }
}

/**
 * Runs every task for every epoch at bounded concurrency. One task's crash is that trial's error,
 * never the run's end; after an interruption no new trial starts.
 */
export async function orchestrate(adapter: Adapter, tasks: Task[], options: OrchestrateOptions): Promise<void> {
  // Orphans of killed runs are removed alongside the trials, never delaying the first one.
  const cleaning = cleanOrphanedWorkspaces().catch(() => []);
  const workspaces = new TrialWorkspaces();
  const limit = pLimit(options.concurrency);
  // One listener on the run's signal for every trial (a listener per trial warns above ten).
  const active = new Set<AbortController>();
  const abortAll = () => {
    for (const controller of active) controller.abort(options.signal.reason);
  };
  options.signal.addEventListener('abort', abortAll, { once: true });
  // Trials are taken from a lazy queue only as slots free up, so nothing is allocated per waiting
  // trial: 100k tasks cost no more memory up front than 10.
  let slotFreed: (() => void) | null = null;
  const wakeProducer = () => {
    slotFreed?.();
    slotFreed = null;
  };
  // A trial waiting out a provider's Retry-After lends its slot to the next trial; at most -j are lent.
  let parked = 0;
  const park = async <T>(wait: Promise<T>): Promise<T> => {
    if (parked >= options.concurrency) return wait;
    parked++;
    limit.concurrency++;
    options.onWaiting?.(parked);
    wakeProducer();
    try {
      return await wait;
    } finally {
      parked--;
      limit.concurrency--;
      options.onWaiting?.(parked);
    }
  };
  const shared: TrialShared = { active, park, workspaces };
  const inFlight = new Set<Promise<void>>();
  // A trial that cannot be stored ends the run: results nobody keeps must not be paid for.
  let storeFailure = null as { error: unknown } | null;
  const stopped = () => options.signal.aborted || storeFailure !== null;
  try {
    // Stopped: out of both loops at once (a stop that left only the inner one spun through every
    // remaining epoch without yielding, and a second Ctrl-C could not be heard).
    queue: for (let epoch = 0; epoch < options.epochs; epoch++) {
      for (const task of tasks) {
        if (options.skip?.(task, epoch)) continue;
        while (limit.activeCount + limit.pendingCount >= limit.concurrency) await new Promise<void>((resolve) => (slotFreed = resolve));
        if (stopped()) break queue;
        const job: Promise<void> = limit(async () => {
          if (stopped()) return;
          options.onTrialStart?.(task, epoch);
          const outcome = await runTrial(adapter, task, epoch, options, shared);
          if (outcome.error?.code === 'INTERRUPTED' || stopped()) return;
          try {
            await options.onTrial(outcome);
          } catch (error) {
            if (storeFailure) return;
            storeFailure = { error };
            for (const controller of active) controller.abort(error);
          }
        }).finally(() => {
          inFlight.delete(job);
          wakeProducer();
        });
        inFlight.add(job);
      }
    }
    await Promise.all(inFlight);
    if (storeFailure) throw storeFailure.error;
  } finally {
    options.signal.removeEventListener('abort', abortAll);
    await workspaces.dispose();
    await cleaning;
  }
}
