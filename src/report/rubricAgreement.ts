import type { RubricAgreement, Trial } from '../schema/report.js';
import { ratio } from '../statistics/distribution.js';

/**
 * How often a judge's rubric verdict matches the rule checks of the same trial, on the judged
 * (passed or failed) trials of tasks that carry both: the rubric side passes when every rubric
 * check passed, the rule side when every other check did. Undefined when no trial has both, so a
 * report without rubric checks has no such field.
 */
export function rubricAgreement(trials: readonly Trial[]): RubricAgreement | undefined {
  let compared = 0;
  let agree = 0;
  let rubricOnly = 0;
  let rulesOnly = 0;
  for (const trial of trials) {
    if (trial.status === 'errored') continue;
    const rubric = trial.checks.filter((c) => c.type === 'rubric');
    const rules = trial.checks.filter((c) => c.type !== 'rubric');
    if (rubric.length === 0 || rules.length === 0) continue;
    const rubricPassed = rubric.every((c) => c.passed);
    const rulesPassed = rules.every((c) => c.passed);
    compared += 1;
    if (rubricPassed === rulesPassed) agree += 1;
    else if (rubricPassed) rubricOnly += 1;
    else rulesOnly += 1;
  }
  if (compared === 0) return undefined;
  return { trials: compared, agree, rate: ratio(agree, compared), rubric_only_passed: rubricOnly, rules_only_passed: rulesOnly };
}
