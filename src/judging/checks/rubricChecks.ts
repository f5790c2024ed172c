import type { RubricFacts } from '../../schema/rubric.js';
import type { CheckSpec } from '../../schema/task.js';
import { attr, type Trace } from '../../schema/trace.js';
import { checkSpan } from './outcomeChecks.js';
import { result, type Check } from './checkResult.js';

/**
 * The rubric check judges the verdict the runner recorded on the trace's `check` span (asked of the
 * judge model, or replayed from its cassette: src/runner/rubricJudge.ts); no model is called here.
 */
function factsOf(trace: Trace, spec: CheckSpec): { facts: RubricFacts; spanId: string } | null {
  const span = checkSpan(trace, spec);
  const text = span && attr(span, 'checkError') === null ? attr(span, 'checkFacts') : null;
  if (!span || text === null) return null;
  try {
    const facts = JSON.parse(text) as RubricFacts;
    return typeof facts.pass === 'boolean' && typeof facts.score === 'number' ? { facts, spanId: span.span_id } : null;
  } catch {
    return null;
  }
}

/**
 * Why a rubric check of the task has no verdict to judge (the judge failed, its reply was no verdict,
 * a cassette had no answer), or null. Such a trial errors: a fault of the judge is not the agent's failure.
 */
export function rubricFault(trace: Trace, specs: readonly CheckSpec[]): string | null {
  for (const spec of specs) {
    if (spec.type !== 'rubric') continue;
    const span = checkSpan(trace, spec);
    if (!span) return 'rubric check: the trace has no verdict for it (the judge runs during `run`, with --judge-model or --judge-cassettes)';
    const error = attr(span, 'checkError');
    if (error !== null) return `rubric check: ${error}`;
    if (factsOf(trace, spec) === null) return 'rubric check: its verdict is unreadable';
  }
  return null;
}

const HOW: Record<RubricFacts['mode'], string> = { live: 'asked live', replayed: 'replayed from its cassette', scripted: 'scripted in its cassette' };

export const rubric: Check<'rubric'> = (trace, spec) => {
  const found = factsOf(trace, spec);
  if (!found) return result('rubric', false, 'no verdict from the judge');
  const { facts, spanId } = found;
  const passed = spec.min_score !== undefined ? facts.score >= spec.min_score : facts.pass;
  const bar = spec.min_score !== undefined ? `, needs ${spec.min_score}` : '';
  const reason = `judge ${facts.judge_model} (${HOW[facts.mode]}): ${facts.pass ? 'pass' : 'fail'}, score ${facts.score}${bar}: ${facts.reasoning}`;
  return { ...result('rubric', passed, reason, [spanId]), judge_mode: facts.mode };
};
