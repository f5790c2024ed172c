import type { CheckResult } from '../../schema/report.js';
import type { CheckSpec, CheckType } from '../../schema/task.js';
import type { Trace } from '../../schema/trace.js';

/** A check is a pure function of a trace and its parameters: no clock, no I/O. */
export type Check<K extends CheckType> = (trace: Trace, spec: Extract<CheckSpec, { type: K }>) => CheckResult;

export function result(type: string, passed: boolean, reason: string, evidence: string[] = [], violation?: boolean): CheckResult {
  return { type, passed, reason, evidence, ...(violation ? { violation } : {}) };
}
