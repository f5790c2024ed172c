import { TracegateError } from './runError.js';
import type { Task } from './task.js';
import type { ModelInfo, Trace } from './trace.js';

export interface AdapterRunContext {
  /** Real path of the task's fresh workspace copy (removed after the run). */
  workspace: string;
  epoch: number;
  signal: AbortSignal;
  /** Epoch ms (Date.now scale) when the task's time limit ends: retries of provider faults stay within it. */
  deadline: number;
  /** Awaits `wait` (a provider's Retry-After or backoff) without holding one of the run's -j work slots. */
  park: <T>(wait: Promise<T>) => Promise<T>;
}

/** Turns a task into a trace; never scores. The harness is one adapter; external agents are others. */
export interface Adapter {
  readonly name: string;
  readonly model: ModelInfo;
  /** Short descriptions for the report: which policy and sandbox the agent ran under. */
  readonly policy: string;
  readonly sandbox: string;
  /** Why that sandbox runs, when the adapter chose it. */
  readonly sandboxReason?: string;
  /** The sandbox kind outcome and custom checks run under on the final workspace (default: process). */
  readonly checkSandbox?: 'process' | 'bwrap';
  run(task: Task, ctx: AdapterRunContext): Promise<Trace>;
  /** Releases what the adapter holds for the run (the capture proxy); called once after the last trial. */
  close?(): Promise<void>;
}

/** A configuration that cannot run: bad input (exit 2), found before any trial starts. */
/** A configuration that cannot run (bad input, exit 2). */
export class AdapterConfigError extends TracegateError {
  constructor(message: string) {
    super('ADAPTER_CONFIG', message);
  }
}
