import type { Task } from '../schema/task.js';
import type { ModelInfo, Trace } from '../schema/trace.js';

export interface AdapterRunContext {
  /** Real path of the task's fresh workspace copy (removed after the run). */
  workspace: string;
  epoch: number;
  signal: AbortSignal;
}

/** Turns a task into a trace; never scores. The harness is one adapter; external agents are others. */
export interface Adapter {
  readonly name: string;
  readonly model: ModelInfo;
  /** Short descriptions for the report: which policy and sandbox the agent ran under. */
  readonly policy: string;
  readonly sandbox: string;
  run(task: Task, ctx: AdapterRunContext): Promise<Trace>;
  /** Releases what the adapter holds for the run (the capture proxy); called once after the last trial. */
  close?(): Promise<void>;
}

/** A configuration that cannot run: bad input (exit 2), found before any trial starts. */
export class AdapterConfigError extends Error {
  readonly code = 'ADAPTER_CONFIG';
}
