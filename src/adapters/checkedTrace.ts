import { TraceSchema, type Trace } from '../schema/trace.js';

/**
 * An external agent's trial trace is built from what the agent said (its output, its trace file,
 * the OTLP spans it exported), so it is checked against trace/v1 here, once, where untrusted input
 * becomes a trace. An invalid one is kept for the reader and marked TRACE_INVALID, which the judge
 * reads as the trial's error instead of scoring it. (The harness builds its traces in typed code;
 * imported traces are checked as they are read.)
 */
export function checkedTrace(trace: Trace): Trace {
  const result = TraceSchema.safeParse(trace);
  if (result.success || trace.error) return trace;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  return { ...trace, error: { code: 'TRACE_INVALID', message: `the agent's trace does not match trace/v1${where}: ${issue?.message ?? 'invalid'}` } };
}
