import { flaggedPattern } from '../judging/checks/answerPatternChecks.js';
import { jsonSchemaProblem } from '../judging/checks/jsonSchema.js';
import { regexProblem } from '../schema/safeRegex.js';
import type { CheckSpec } from '../schema/task.js';

export interface SpecIssue {
  field: string;
  message: string;
}

/**
 * What the check schemas cannot say about a task's `checks` list: each regular expression
 * compiles in RE2 and each JSON Schema compiles, so a bad spec fails `validate`, not the run.
 */
export function judgedSpecIssues(checks: readonly CheckSpec[]): SpecIssue[] {
  return checks.flatMap((check, i): SpecIssue[] => {
    const at = (field: string) => `checks.${i}.${field}`;
    const issues: SpecIssue[] = [];
    const regex = (field: string, source: string) => {
      const problem = regexProblem(source);
      if (problem) issues.push({ field: at(field), message: problem });
    };
    const schema = (field: string, value: object | undefined) => {
      const problem = value === undefined ? null : jsonSchemaProblem(value);
      if (problem) issues.push({ field: at(field), message: problem });
    };
    if (check.type === 'answer_matches') regex('pattern', flaggedPattern(check.pattern, check.flags));
    if (check.type === 'answer_json') schema('schema', check.schema);
    if (check.type === 'tool_args') {
      for (const [name, rule] of Object.entries(check.fields ?? {})) if (rule.pattern !== undefined) regex(`fields.${name}.pattern`, rule.pattern);
      schema('schema', check.schema);
    }
    return issues;
  });
}
