import { safeRegex } from '../../schema/safeRegex.js';
import { jsonSchemaErrors } from './jsonSchema.js';
import { result, type Check } from './checkResult.js';

/** RE2 inline flags: the pattern a check compiles for `flags` (letters of "ims"). */
export function flaggedPattern(pattern: string, flags: string | undefined): string {
  const unique = [...new Set(flags ?? '')].join('');
  return unique ? `(?${unique})${pattern}` : pattern;
}

const quote = (text: string, max = 120) => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

export const answerMatches: Check<'answer_matches'> = (trace, spec) => {
  const answer = trace.final_answer.text;
  const shown = `/${spec.pattern}/${spec.flags ?? ''}`;
  if (answer === null) return result('answer_matches', false, 'there is no final answer');
  return safeRegex(flaggedPattern(spec.pattern, spec.flags)).test(answer)
    ? result('answer_matches', true, `final answer matches ${shown}`)
    : result('answer_matches', false, `final answer ${quote(answer)} does not match ${shown}`);
};

/** Normalized: trimmed, runs of whitespace as one space, case folded (Unicode NFKC first). */
export function normalizeAnswer(text: string): string {
  return text.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

export const answerEquals: Check<'answer_equals'> = (trace, spec) => {
  const answer = trace.final_answer.text;
  const mode = spec.mode ?? 'normalized';
  if (answer === null) return result('answer_equals', false, 'there is no final answer');
  const same = mode === 'exact' ? answer === spec.value : normalizeAnswer(answer) === normalizeAnswer(spec.value);
  return same
    ? result('answer_equals', true, `final answer equals ${quote(spec.value)} (${mode})`)
    : result('answer_equals', false, `final answer ${quote(answer)} is not ${quote(spec.value)} (${mode})`);
};

const NUMBER = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+(?:[eE][-+]?\d+)?/g;

/** The answer's number: the whole answer when it is one, else the last number in the text ("… is 42."). */
export function answerNumber(text: string): number | null {
  const whole = text.trim().replace(/,/g, '');
  if (whole !== '' && Number.isFinite(Number(whole))) return Number(whole);
  const found = text.match(NUMBER);
  if (!found) return null;
  const value = Number(found[found.length - 1]!.replace(/,/g, ''));
  return Number.isFinite(value) ? value : null;
}

export const answerNumberCheck: Check<'answer_number'> = (trace, spec) => {
  const answer = trace.final_answer.text;
  if (answer === null) return result('answer_number', false, 'there is no final answer');
  const got = answerNumber(answer);
  if (got === null) return result('answer_number', false, `final answer ${quote(answer)} has no number`);
  const tolerance = spec.tolerance ?? 0;
  const allowed = spec.relative ? tolerance * Math.abs(spec.value) : tolerance;
  const within = Math.abs(got - spec.value) <= allowed;
  const range = tolerance === 0 ? `${spec.value}` : `${spec.value} ± ${spec.relative ? `${tolerance * 100}%` : tolerance}`;
  return result('answer_number', within, within ? `answer ${got} is ${range}` : `answer ${got} is not ${range}`);
};

/** The answer's JSON text: the whole answer, or the body of the one fenced block it is. */
function jsonText(answer: string): string {
  const fenced = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n\s*```\s*$/.exec(answer);
  return fenced ? fenced[1]! : answer;
}

export const answerJson: Check<'answer_json'> = (trace, spec) => {
  const answer = trace.final_answer.text;
  if (answer === null) return result('answer_json', false, 'there is no final answer');
  let value: unknown;
  try {
    value = JSON.parse(jsonText(answer));
  } catch (error) {
    return result('answer_json', false, `final answer is not JSON (${(error as Error).message}): ${quote(answer, 80)}`);
  }
  if (spec.schema === undefined) return result('answer_json', true, 'final answer is JSON');
  const errors = jsonSchemaErrors(spec.schema, value);
  return errors === null
    ? result('answer_json', true, 'final answer is JSON that satisfies the schema')
    : result('answer_json', false, `final answer JSON fails the schema ${errors}`);
};

export const exitReason: Check<'exit_reason'> = (trace, spec) => {
  const expected = Array.isArray(spec.equals) ? spec.equals : [spec.equals];
  const exit = trace.final_answer.exit_reason;
  return expected.includes(exit)
    ? result('exit_reason', true, `exit reason ${exit}`)
    : result('exit_reason', false, `exit reason ${exit}, expected ${expected.join(' or ')}`);
};
