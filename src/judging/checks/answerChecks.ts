import { result, type Check } from './checkResult.js';

function fold(text: string, caseSensitive: boolean | undefined): string {
  return caseSensitive ? text : text.toLowerCase();
}

export const contains: Check<'contains'> = (trace, spec) => {
  const answer = trace.final_answer.text;
  if (answer === null) return result('contains', false, 'there is no final answer');
  const haystack = fold(answer, spec.case_sensitive);
  const missing = spec.values.filter((v) => !haystack.includes(fold(v, spec.case_sensitive)));
  return missing.length === 0
    ? result('contains', true, `final answer contains ${spec.values.map((v) => JSON.stringify(v)).join(', ')}`)
    : result('contains', false, `final answer lacks ${missing.map((v) => JSON.stringify(v)).join(', ')}`);
};

export const notContains: Check<'not_contains'> = (trace, spec) => {
  const haystack = fold(trace.final_answer.text ?? '', spec.case_sensitive);
  const found = spec.values.filter((v) => haystack.includes(fold(v, spec.case_sensitive)));
  return found.length === 0
    ? result('not_contains', true, 'final answer contains none of the forbidden strings')
    : result('not_contains', false, `final answer contains ${found.map((v) => JSON.stringify(v)).join(', ')}`);
};
