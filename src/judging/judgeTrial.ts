import { traceCost } from './checks/priceTable.js';
import { runChecks } from './checks/checkRegistry.js';
import { checkFault } from './checks/outcomeChecks.js';
import { rubricFault } from './checks/rubricChecks.js';
import { classify } from './classify/classify.js';
import type { Trial } from '../schema/report.js';
import { asRunError, type RunError } from '../schema/runError.js';
import type { Task } from '../schema/task.js';
import { SPAN_KIND, stepCount, toolAttr, toolSpans, type Trace } from '../schema/trace.js';

const PREVIEW_CHARS = 300;

/**
 * Judges one trial from its trace: checks, then (if any failed) the classifier. A trace that is
 * missing or records a run fault (TRACE_INVALID among them, see adapters/checkedTrace.ts) makes the
 * trial `errored`: it is not judged at all. The trace is valid trace/v1: the harness builds it in
 * typed code, and traces from outside are checked where they come in.
 */
export function judgeTrial(
  task: Task,
  epoch: number,
  trace: Trace | null,
  runError: RunError | null,
  durationMs: number,
  traceFile: string | null,
): Trial {
  const base = {
    epoch,
    duration_ms: Math.round(durationMs),
    trace_file: traceFile,
    failure_reason: null,
    failure_layer: null,
    evidence: [],
    checks: [],
  };
  const tokens = trace
    ? { input: trace.usage.input_tokens, output: trace.usage.output_tokens, total: trace.usage.total_tokens }
    : { input: 0, output: 0, total: 0 };
  const tools = trace ? toolSpans(trace) : [];
  const toolStats = {
    tool_calls: tools.length,
    tool_errors: tools.filter((s) => !toolAttr(s).ok).length,
  };
  const cost = trace ? traceCost(trace) : null;
  const shared = {
    ...base,
    ...toolStats,
    tokens,
    ...(cost ? { cost_usd: cost.usd } : {}),
    steps: trace ? stepCount(trace) : 0,
    exit_reason: trace?.final_answer.exit_reason ?? null,
    answer_preview: trace?.final_answer.text?.slice(0, PREVIEW_CHARS) ?? null,
    compressed: trace?.spans.some((s) => s.kind === SPAN_KIND.compression) ?? false,
  };

  const error: RunError | null = runError ?? (trace?.error ? asRunError(trace.error) : null);
  if (error || !trace) {
    return { ...shared, status: 'errored', recovered: false, error: error ?? { code: 'NO_TRACE', message: 'no trace' } };
  }

  // An outcome or custom check that could not run or judge is the check's fault, not the agent's.
  const fault = checkFault(trace, task.checks);
  if (fault) return { ...shared, status: 'errored', recovered: false, error: { code: 'CHECK_ERROR', message: fault } };
  // So is a rubric check whose judge failed or gave no verdict.
  const judgeFault = rubricFault(trace, task.checks);
  if (judgeFault) return { ...shared, status: 'errored', recovered: false, error: { code: 'JUDGE_ERROR', message: judgeFault } };

  const checks = runChecks(trace, task.checks);
  const passed = checks.every((c) => c.passed);
  const recovered = passed && tools.some((s) => !toolAttr(s).ok && toolAttr(s).recoverable);
  if (passed) return { ...shared, checks, status: 'passed', recovered, error: null };
  const verdict = classify(trace, checks, task);
  return {
    ...shared,
    checks,
    status: 'failed',
    recovered: false,
    failure_reason: verdict.reason,
    failure_layer: verdict.layer,
    evidence: verdict.evidence,
    error: null,
  };
}
