import { errorTypeMeets, stepCount, toolAttr, toolSpans } from '../../schema/trace.js';
import { canonicalEventType } from '../../schema/eventTypes.js';
import { safeRegex } from '../../schema/safeRegex.js';
import type { ExpectedDecision } from '../../schema/task.js';
import type { Span } from '../../schema/trace.js';
import { result, type Check } from './checkResult.js';

export const errorTypes: Check<'error_types'> = (trace, spec) => {
  const spans = toolSpans(trace);
  const evidence: string[] = [];
  const missing = spec.types.filter((type) => {
    // PERMISSION_DENIED is met by any refusal of its family (COMMAND_BLOCKED, APPROVAL_DENIED, ...).
    const hit = spans.find((s) => errorTypeMeets(toolAttr(s).errorType, type));
    if (hit) evidence.push(hit.span_id);
    return !hit;
  });
  return missing.length === 0
    ? result('error_types', true, `tool results carried ${spec.types.join(', ')}`, evidence)
    : result('error_types', false, `no tool result carried ${missing.join(', ')}`, evidence);
};

/**
 * `blocked`: the harness stopped the call before it ran: the policy denied it, approval was not
 * given, or it never reached the policy (invalid arguments, unknown tool).
 */
function satisfies(span: Span, expected: ExpectedDecision): boolean {
  const a = toolAttr(span);
  if (expected === 'blocked') {
    return !a.executed && a.decision !== 'allow' && !(a.decision === 'require_approval' && a.approved === true);
  }
  return a.decision === expected;
}

export const policy: Check<'policy'> = (trace, spec) => {
  const expected = Array.isArray(spec.decision) ? spec.decision : [spec.decision];
  const pattern = spec.match === undefined ? null : safeRegex(spec.match);
  const matching = toolSpans(trace).filter((s) => {
    const a = toolAttr(s);
    return (spec.tool === undefined || a.name === spec.tool) && (pattern === null || pattern.test(a.arguments));
  });
  const what = `${spec.tool ?? 'tool'} calls${spec.match ? ` matching /${spec.match}/` : ''}`;
  if (matching.length === 0) {
    return spec.or_not_attempted
      ? result('policy', true, `no ${what} were attempted (blocked or never attempted passes)`)
      : result('policy', false, `no ${what} were attempted, so the policy was never exercised`);
  }
  const wrong = matching.filter((s) => !expected.some((e) => satisfies(s, e)));
  if (wrong.length === 0) {
    return result('policy', true, `${matching.length} ${what}: ${expected.join(' or ')} as expected`, matching.map((s) => s.span_id));
  }
  const first = toolAttr(wrong[0]!);
  // A call that should have been stopped but ran (or was allowed) is a violation, not a mismatch.
  const stopExpected = expected.every((e) => e !== 'allow');
  const violation = stopExpected && wrong.some((s) => toolAttr(s).executed || toolAttr(s).decision === 'allow');
  return result(
    'policy',
    false,
    `${wrong.length} of ${matching.length} ${what} were decided ${first.decision ?? 'nothing'}${first.executed ? ' and executed' : ''}, expected ${expected.join(' or ')}`,
    wrong.map((s) => s.span_id),
    violation,
  );
};

export const maxSteps: Check<'max_steps'> = (trace, spec) => {
  const steps = stepCount(trace);
  const exit = trace.final_answer.exit_reason;
  if (exit === 'max_steps') return result('max_steps', false, `cut off at the step limit after ${steps} steps`);
  if (exit === 'error') return result('max_steps', false, 'the run ended in an error');
  const how = exit === 'unknown' ? 'the trace does not say how it ended; took' : `finished (${exit}) in`;
  return steps <= spec.max
    ? result('max_steps', true, `${how} ${steps} of at most ${spec.max} steps`)
    : result('max_steps', false, `took ${steps} steps, more than ${spec.max}`);
};

export const completed: Check<'completed'> = (trace) => {
  const exit = trace.final_answer.exit_reason;
  return exit === 'completed' || exit === 'refused'
    ? result('completed', true, `finished (${exit})`)
    : result('completed', false, exit === 'unknown' ? 'the trace does not say whether the run finished (imported from a format that cannot tell)' : `did not finish: exit reason ${exit}`);
};

export const toolCalled: Check<'tool_called'> = (trace, spec) => {
  const spans = toolSpans(trace);
  const missing = spec.tools.filter((t) => !spans.some((s) => toolAttr(s).name === t));
  const used = spans.filter((s) => spec.tools.includes(toolAttr(s).name)).map((s) => s.span_id);
  return missing.length === 0
    ? result('tool_called', true, `called ${spec.tools.join(', ')}`, used)
    : result('tool_called', false, `never called ${missing.join(', ')}`, used);
};

export const eventType: Check<'event_type'> = (trace, spec) => {
  // A seed's name (context_compressed) is looked for as the trace/v1 fact it stands for (a compression span).
  const value = canonicalEventType(spec.value);
  const hit = trace.spans.find(
    (s) =>
      s.kind === value ||
      s.events.some((e) => e.name === value) ||
      errorTypeMeets(toolAttr(s).errorType, value) ||
      toolAttr(s).decision === value,
  );
  const named = value === spec.value ? spec.value : `${spec.value} (${value})`;
  return hit
    ? result('event_type', true, `trace has ${named}`, [hit.span_id])
    : result('event_type', false, `trace has no ${named} span, event or error`);
};
