import type { CheckResult, Evidence, FailureReason, Layer } from '../../schema/report.js';
import type { AgentOutcome } from '../../schema/agentIo.js';
import { dropCutToken } from '../../schema/redact.js';
import type { Task } from '../../schema/task.js';
import { ERROR_TYPE_FAMILIES, SPAN_KIND, attr, compressionAttr, stepOf, toolAttr, toolSpans, type Span, type Trace } from '../../schema/trace.js';
import { canonicalEventType } from '../../schema/eventTypes.js';

export interface RuleInput {
  trace: Trace;
  checks: CheckResult[];
  task: Task;
}

/** A rule returns its evidence when it applies, or null. Rules are tried in table order. */
export interface ClassifierRule {
  reason: FailureReason;
  layer: Layer;
  summary: string;
  match(input: RuleInput): Evidence[] | null;
}

/** Every refusal: the PERMISSION_DENIED family (the shell policy, the approver, the workspace boundary). */
const DENIAL_TYPES = new Set<string>(ERROR_TYPE_FAMILIES.PERMISSION_DENIED);

function evidenceOf(span: Span, detail: string): Evidence {
  return { span_id: span.span_id, step: stepOf(span), detail };
}

function failed(checks: CheckResult[], ...types: string[]): CheckResult[] {
  return checks.filter((c) => !c.passed && types.includes(c.type));
}

function spanById(trace: Trace, id: string): Span | undefined {
  return trace.spans.find((s) => s.span_id === id);
}

function describeTool(span: Span): string {
  const a = toolAttr(span);
  return `${a.name}(${a.arguments.slice(0, 120)})`;
}

/** The first tool span of `type` with no successful tool span after it. */
function unrecovered(trace: Trace, isFault: (s: Span) => boolean, isRecovery: (later: Span, fault: Span) => boolean): Span | null {
  const spans = toolSpans(trace);
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    if (isFault(span) && !spans.slice(i + 1).some((later) => isRecovery(later, span))) return span;
  }
  return null;
}

const succeeded = (s: Span) => toolAttr(s).ok;

const TRAJECTORY_CHECKS = ['tool_sequence', 'tool_args', 'tool_not_called', 'tool_count', 'no_tool_errors', 'exit_reason'];
const ANSWER_CHECKS = ['answer_matches', 'answer_equals', 'answer_number', 'answer_json'];
/** A failed outcome check's evidence: its check span (command output, file facts) and its reason. */
function outcomeEvidence(checks: CheckResult[]): Evidence[] | null {
  return checks.length === 0 ? null : checks.map((c) => ({ span_id: c.evidence[0] ?? null, step: null, detail: `${c.type}: ${c.reason}` }));
}

const TAIL_CHARS = 300;
const shortTail = (text: string) => (text.length <= TAIL_CHARS ? text : `…${dropCutToken(text.slice(-TAIL_CHARS), 'start')}`);

/** An external agent that crashed, hung or printed an unreadable answer: the system under test failed. */
function agentEnded(outcome: AgentOutcome, what: string) {
  return ({ trace }: RuleInput): Evidence[] | null => {
    const root = trace.spans.find((s) => s.kind === SPAN_KIND.agent && attr(s, 'agentOutcome') === outcome);
    if (!root) return null;
    const problemText = attr(root, 'agentProblem');
    const errorLine = attr(root, 'agentErrorLine');
    const stderrTail = attr(root, 'agentStderrTail');
    const body = attr(root, 'agentHttpBody');
    const problem = problemText ? `: ${problemText}` : '';
    // The error line whole (it says why), then a short tail for context, cut at a token.
    const said = errorLine ? `; ${errorLine}` : '';
    const tail = stderrTail ? `; stderr tail: ${shortTail(stderrTail)}` : body ? `; body: ${shortTail(body)}` : '';
    return [{ span_id: root.span_id, step: null, detail: `${what}${problem}${said}${tail}` }];
  };
}

/** The task names INVALID_ARGUMENTS as an error its tool call must meet (error_types or event_type). */
function expectsInvalidArguments(task: Task): boolean {
  return task.checks.some(
    (c) => (c.type === 'error_types' && c.types.includes('INVALID_ARGUMENTS')) || (c.type === 'event_type' && canonicalEventType(c.value) === 'INVALID_ARGUMENTS'),
  );
}

const fold = (text: string, caseSensitive: boolean | undefined) => (caseSensitive ? text : text.toLowerCase());

/**
 * CONTEXT_LOSS needs evidence that something was lost: a value a `contains` check found missing from
 * the answer was in the recorded result of a tool call whose result a compression span summarized
 * (`compressed_call_ids`), and no tool result after that compression showed it again.
 */
function contextLoss({ trace, task }: RuleInput): Evidence[] | null {
  const answer = trace.final_answer.text ?? '';
  const missing = task.checks.flatMap((c) => (c.type === 'contains' ? c.values.filter((v) => !fold(answer, c.case_sensitive).includes(fold(v, c.case_sensitive))).map((v) => ({ value: v, caseSensitive: c.case_sensitive })) : []));
  if (missing.length === 0) return null;
  const holds = (span: Span, m: (typeof missing)[number]) => fold(toolAttr(span).result ?? '', m.caseSensitive).includes(fold(m.value, m.caseSensitive));
  const evidence: Evidence[] = [];
  trace.spans.forEach((compression, at) => {
    if (compression.kind !== SPAN_KIND.compression) return;
    const ids = new Set(compressionAttr(compression).compressedCallIds);
    const summarized = trace.spans.slice(0, at).filter((s) => s.kind === SPAN_KIND.tool && ids.has(toolAttr(s).callId ?? ''));
    const after = trace.spans.slice(at + 1).filter((s) => s.kind === SPAN_KIND.tool);
    for (const m of missing) {
      const source = summarized.find((s) => holds(s, m));
      if (!source || after.some((s) => holds(s, m))) continue;
      evidence.push(evidenceOf(compression, `compression summarized the result of ${describeTool(source)} (step ${stepOf(source) ?? '?'}), which held ${JSON.stringify(m.value)}; the answer lacks it`));
    }
  });
  return evidence.length > 0 ? evidence : null;
}

export const RULES: readonly ClassifierRule[] = [
  {
    reason: 'POLICY_VIOLATION',
    layer: 'harness',
    summary: 'a tool call the task marks forbidden was allowed or executed',
    match: ({ trace, checks }) => {
      const violations = checks.filter((c) => !c.passed && c.violation);
      if (violations.length === 0) return null;
      return violations.flatMap((c) =>
        c.evidence.map((id) => {
          const span = spanById(trace, id);
          return span ? evidenceOf(span, `${describeTool(span)} was ${toolAttr(span).decision}${toolAttr(span).executed ? ' and executed' : ''}`) : { span_id: id, step: null, detail: c.reason };
        }),
      );
    },
  },
  {
    reason: 'AGENT_CRASH',
    layer: 'harness',
    summary: 'the agent under test exited with a non-zero code or a signal (for an external agent its own program is the harness layer)',
    match: agentEnded('crash', 'the agent crashed'),
  },
  {
    reason: 'AGENT_TIMEOUT',
    layer: 'harness',
    summary: 'the agent under test did not finish within its time limit and was killed',
    match: agentEnded('timeout', 'the agent hung'),
  },
  {
    reason: 'AGENT_OUTPUT_INVALID',
    layer: 'harness',
    summary: 'the agent printed agent-output/v1 JSON or wrote a trace file that is not valid',
    match: agentEnded('output_invalid', 'the agent output is invalid'),
  },
  {
    reason: 'NO_MODEL_REQUEST',
    layer: 'harness',
    summary: 'an external agent ended normally, but no model request reached tracegate (proxy or OTLP) and it reported no tool call',
    match: ({ trace, checks }) => {
      // A task judged by the workspace the agent left is judged by that, model or no model.
      if (failed(checks, 'command', 'file', 'changed_files', 'custom').length > 0) return null;
      const root = trace.spans.find((s) => s.kind === SPAN_KIND.agent && attr(s, 'agentOutcome') === 'exited');
      if (!root || trace.spans.some((s) => s.kind === SPAN_KIND.llm || s.kind === SPAN_KIND.tool)) return null;
      return [
        {
          span_id: root.span_id,
          step: null,
          detail:
            'no model request reached tracegate: the agent ignored the capture proxy (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL) or called its model elsewhere (its own config file, a hard-coded URL, a protocol without a base-URL variable); point it at the proxy, or have it export spans over OTLP',
        },
      ];
    },
  },
  {
    reason: 'POLICY_MISMATCH',
    layer: 'harness',
    summary: 'the harness decided otherwise than the task expects (for example a benign command was refused)',
    match: ({ trace, checks }) => {
      const mismatches = failed(checks, 'policy');
      if (mismatches.length === 0) return null;
      return mismatches.flatMap((c) => {
        const spans = c.evidence.map((id) => spanById(trace, id)).filter((s): s is Span => s !== undefined);
        return spans.length > 0
          ? spans.map((s) => evidenceOf(s, `${describeTool(s)}: ${toolAttr(s).riskReason ?? c.reason}`))
          : [{ span_id: null, step: null, detail: c.reason }];
      });
    },
  },
  {
    reason: 'MAX_STEPS_EXCEEDED',
    layer: 'harness',
    summary: 'cut off at the step limit, or no final answer',
    match: ({ trace }) => {
      const exit = trace.final_answer.exit_reason;
      if (exit !== 'max_steps' && !(exit === 'completed' && trace.final_answer.text === null)) return null;
      const last = trace.spans.filter((s) => s.kind === SPAN_KIND.llm).at(-1);
      return [last ? evidenceOf(last, `exit reason ${exit} after this model call`) : { span_id: null, step: null, detail: `exit reason ${exit}` }];
    },
  },
  {
    reason: 'COMPRESSION_INEFFECTIVE',
    layer: 'harness',
    summary: 'a compression did not make the context smaller',
    match: ({ trace }) => {
      const bad = trace.spans.filter((s) => {
        const c = compressionAttr(s);
        return s.kind === SPAN_KIND.compression && c.charsBefore !== null && c.charsAfter !== null && c.charsAfter >= c.charsBefore;
      });
      return bad.length > 0
        ? bad.map((s) => evidenceOf(s, `chars ${compressionAttr(s).charsBefore} -> ${compressionAttr(s).charsAfter}`))
        : null;
    },
  },
  {
    reason: 'CONTEXT_LOSS',
    layer: 'harness',
    summary: 'the answer lacks a fact that was in a tool result the context compression summarized, and no later tool result showed it again',
    match: contextLoss,
  },
  {
    reason: 'INVALID_ARGUMENTS',
    layer: 'tool',
    summary: 'a tool call had invalid arguments (wrong type or shape for the tool\'s schema) and no valid call of that tool followed',
    match: ({ trace }) => {
      const span = unrecovered(
        trace,
        (s) => toolAttr(s).errorType === 'INVALID_ARGUMENTS',
        (later, fault) => toolAttr(later).name === toolAttr(fault).name && toolAttr(later).errorType !== 'INVALID_ARGUMENTS',
      );
      return span ? [evidenceOf(span, `${describeTool(span)}: ${toolAttr(span).message ?? 'invalid arguments'}`)] : null;
    },
  },
  {
    reason: 'TOOL_ARGUMENT_ERROR',
    layer: 'tool',
    summary: 'the task expects its call to be rejected as INVALID_ARGUMENTS, but the model sent other arguments (e.g. turned an integer into a string) and the call failed otherwise',
    match: ({ trace, task }) => {
      if (!expectsInvalidArguments(task) || toolSpans(trace).some((s) => toolAttr(s).errorType === 'INVALID_ARGUMENTS')) return null;
      const wrong = toolSpans(trace).filter((s) => !toolAttr(s).ok);
      return wrong.length > 0
        ? wrong.map((s) => evidenceOf(s, `${describeTool(s)}: ${toolAttr(s).errorType ?? 'failed'}, where the task expects INVALID_ARGUMENTS: the arguments the model produced are wrong`))
        : null;
    },
  },
  {
    reason: 'COMMAND_TIMEOUT',
    layer: 'environment',
    summary: 'a command ran out of time',
    match: ({ trace }) => {
      const timeouts = toolSpans(trace).filter((s) => toolAttr(s).errorType === 'COMMAND_TIMEOUT');
      return timeouts.length > 0 ? timeouts.map((s) => evidenceOf(s, `${describeTool(s)} timed out`)) : null;
    },
  },
  {
    reason: 'FILE_NOT_FOUND_UNRECOVERED',
    layer: 'environment',
    summary: 'a file was missing and no later tool call succeeded',
    match: ({ trace }) => {
      const span = unrecovered(trace, (s) => toolAttr(s).errorType === 'FILE_NOT_FOUND', succeeded);
      return span ? [evidenceOf(span, `${describeTool(span)}: FILE_NOT_FOUND, never recovered`)] : null;
    },
  },
  {
    reason: 'PERMISSION_DENIED_UNRECOVERED',
    layer: 'environment',
    summary: 'a call was refused and the agent did not find another way',
    match: ({ trace }) => {
      const span = unrecovered(trace, (s) => DENIAL_TYPES.has(toolAttr(s).errorType ?? ''), succeeded);
      return span ? [evidenceOf(span, `${describeTool(span)}: ${toolAttr(span).errorType} (${toolAttr(span).riskReason ?? ''})`)] : null;
    },
  },
  {
    reason: 'OUTCOME_UNMET',
    layer: 'model',
    summary: 'the final workspace is not what the task asks for (a command check or file check failed)',
    match: ({ checks }) => outcomeEvidence(failed(checks, 'command', 'file')),
  },
  {
    reason: 'CHANGED_FILES_OUT_OF_SCOPE',
    layer: 'model',
    summary: 'the agent changed files outside the allowed scope, or too many',
    match: ({ checks }) => outcomeEvidence(failed(checks, 'changed_files')),
  },
  {
    reason: 'CUSTOM_CHECK_FAILED',
    layer: 'model',
    summary: "a check of the suite's own (custom) failed; its layer is the one it names, else model",
    match: ({ checks }) => outcomeEvidence(failed(checks, 'custom')),
  },
  {
    reason: 'TOOL_SELECTION_ERROR',
    layer: 'tool',
    summary: 'the expected tool or error path was never taken',
    match: ({ trace, checks }) => {
      const unknown = toolSpans(trace).filter((s) => toolAttr(s).errorType === 'UNKNOWN_TOOL');
      const missed = failed(checks, 'tool_called', 'error_types', 'event_type');
      if (unknown.length === 0 && missed.length === 0) return null;
      const used = toolSpans(trace).map((s) => toolAttr(s).name);
      return [
        ...unknown.map((s) => evidenceOf(s, `called unknown tool ${toolAttr(s).name}`)),
        ...missed.map((c) => ({ span_id: null, step: null, detail: `${c.reason}; tools used: ${used.join(', ') || 'none'}` })),
      ];
    },
  },
  {
    reason: 'MODEL_UNDERSTANDING_ERROR',
    layer: 'model',
    summary: 'finished without using the tools the task needs',
    match: ({ trace, task }) => {
      const needsTools = task.workspace !== null || task.checks.some((c) => c.type === 'tool_called' || c.type === 'error_types');
      if (!needsTools || toolSpans(trace).length > 0 || trace.final_answer.exit_reason !== 'completed') return null;
      const last = trace.spans.filter((s) => s.kind === SPAN_KIND.llm).at(-1);
      return [{ span_id: last?.span_id ?? null, step: last ? stepOf(last) : null, detail: 'answered without a single tool call' }];
    },
  },
  {
    reason: 'TRAJECTORY_MISMATCH',
    layer: 'model',
    summary: 'the tool calls (which, how many, in what order, with which arguments) or the way the run ended differ from what the task expects',
    match: ({ trace, checks }) => {
      const off = failed(checks, ...TRAJECTORY_CHECKS);
      if (off.length === 0) return null;
      return off.map((c) => {
        const span = c.evidence.map((id) => spanById(trace, id)).find((s) => s !== undefined);
        return { span_id: span?.span_id ?? null, step: span ? stepOf(span) : null, detail: `${c.type}: ${c.reason}` };
      });
    },
  },
  {
    reason: 'FINAL_ANSWER_INCOMPLETE',
    layer: 'model',
    summary: 'finished, but the answer lacks what the task expects',
    match: ({ trace, checks }) => {
      const missing = failed(checks, 'contains', 'not_contains', ...ANSWER_CHECKS);
      if (missing.length === 0 || trace.final_answer.exit_reason === 'max_steps') return null;
      const last = trace.spans.filter((s) => s.kind === SPAN_KIND.llm).at(-1);
      return missing.map((c) => ({ span_id: last?.span_id ?? null, step: last ? stepOf(last) : null, detail: c.reason }));
    },
  },
  {
    reason: 'BUDGET_EXCEEDED',
    layer: 'model',
    summary: 'the run used more tokens, dollars, time, tool calls or steps than the task allows',
    match: ({ checks }) => {
      const over = failed(checks, 'budget');
      return over.length === 0 ? null : over.map((c) => ({ span_id: null, step: null, detail: c.reason }));
    },
  },
  {
    // Last: a rule check that failed names the cause more precisely than a judge's opinion.
    reason: 'RUBRIC_FAILED',
    layer: 'model',
    summary: "the judge model graded the work below the task's rubric (its reasoning is the evidence)",
    match: ({ checks }) => outcomeEvidence(failed(checks, 'rubric')),
  },
];

export const UNKNOWN_RULE: ClassifierRule = {
  reason: 'UNKNOWN',
  layer: 'unknown',
  summary: 'no rule explains the failure',
  match: ({ checks }) => failed(checks, ...new Set(checks.map((c) => c.type))).map((c) => ({ span_id: null, step: null, detail: `${c.type}: ${c.reason}` })),
};
