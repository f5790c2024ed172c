import type { CheckResult } from '../../schema/report.js';
import type { CheckSpec, CheckType } from '../../schema/task.js';
import type { Trace } from '../../schema/trace.js';
import { contains, notContains } from './answerChecks.js';
import { completed, errorTypes, eventType, maxSteps, policy, toolCalled } from './traceChecks.js';
import { changedFiles, command, custom, file } from './outcomeChecks.js';
import type { Check } from './checkResult.js';
import { JUDGED_CHECKS } from './judgedChecks.js';
import { rubric } from './rubricChecks.js';

/** Every check by its type name; a new CheckSpec type without a check here does not compile. */
export const CHECKS: { [K in CheckType]: Check<K> } = {
  contains,
  not_contains: notContains,
  error_types: errorTypes,
  policy,
  max_steps: maxSteps,
  tool_called: toolCalled,
  event_type: eventType,
  completed,
  ...JUDGED_CHECKS,
  command,
  file,
  changed_files: changedFiles,
  custom,
  rubric,
};

export function runCheck(trace: Trace, spec: CheckSpec): CheckResult {
  return (CHECKS[spec.type] as Check<CheckType>)(trace, spec as never);
}

export function runChecks(trace: Trace, specs: CheckSpec[]): CheckResult[] {
  return specs.map((spec) => runCheck(trace, spec));
}
