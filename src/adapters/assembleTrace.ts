import { AGENT_ATTR, type AgentOutcome, type ChatMessage } from '../schema/agentIo.js';
import { writeSpan } from '../schema/spanWriter.js';
import { TRACE_SCHEMA_VERSION, type ExitReason, type ModelInfo, type Span, type Trace } from '../schema/trace.js';
import type { SpanAttributes } from '../schema/traceVocabulary.js';
import type { TrialTraffic } from '../capture/exchange.js';
import type { RecordContent } from '../schema/recordContent.js';
import { exchangesFromMessages, spansFromTraffic, type ErrorPattern, type Preview } from '../capture/trafficSpans.js';
import type { ParsedOutput, ParsedTraceFile } from './agentOutput.js';

/** Everything known about one external-agent trial once the agent has ended. */
export interface TrialEvidence {
  taskId: string;
  /** What the task asked the agent (see taskInput). */
  prompt: string | null;
  epoch: number;
  traceId: string;
  rootSpanId: string;
  model: ModelInfo;
  started: string;
  ended: string;
  outcome: AgentOutcome;
  /** Root-span attributes that say how the agent ended (exit code, stderr tail, ...). */
  ending: SpanAttributes;
  output: ParsedOutput;
  traceFile: ParsedTraceFile;
  traffic: TrialTraffic;
  errorPatterns: ErrorPattern[];
  /** Redact-then-cut for previews (the run's redactor); default: cut at a token boundary. */
  preview?: Preview;
  /** How much of the proxied model content the llm spans record; default `summary`. */
  recordContent?: RecordContent;
}

/** An agent's own trace: its spans hang under our root; its root becomes ours. */
function adoptSpans(trace: Trace, rootId: string): Span[] {
  const roots = new Set(trace.spans.filter((s) => s.kind === 'agent').map((s) => s.span_id));
  return trace.spans
    .filter((s) => s.kind !== 'agent')
    .map((s) => ({ ...s, parent_id: s.parent_id === null || roots.has(s.parent_id) ? rootId : s.parent_id }));
}

/**
 * The trial's one trace, assembled after the agent ended. Spans come from the proxy's traffic when
 * the agent called a model through it; otherwise from a trace the agent handed over (output or trace
 * file), else from the messages it handed over. The answer is what it printed, else its last
 * assistant message. A fault the proxy saw (provider outage, cassette miss) makes the trace a run error.
 */
export function assembleTrace(e: TrialEvidence): Trace {
  const rootId = e.rootSpanId;
  const json = e.output.kind === 'json' ? e.output.output : null;
  const agentTrace = json?.trace ?? (e.traceFile.kind === 'trace' ? e.traceFile.trace : null);
  const messages: ChatMessage[] | null = json?.messages ?? (e.traceFile.kind === 'messages' ? e.traceFile.messages : null);
  const mode = e.model.mode;

  let spans: Span[] = [];
  let lastAnswer: string | null = null;
  let usage = { input_tokens: 0, output_tokens: 0 };
  if (e.traffic.exchanges.length > 0) {
    ({ spans, lastAnswer, usage } = spansFromTraffic(e.traffic.exchanges, rootId, e.errorPatterns, mode, [], e.preview, e.recordContent));
  } else if (agentTrace) {
    spans = adoptSpans(agentTrace, rootId);
    lastAnswer = agentTrace.final_answer.text;
    usage = { input_tokens: agentTrace.usage.input_tokens, output_tokens: agentTrace.usage.output_tokens };
  } else if (messages) {
    ({ spans, lastAnswer, usage } = spansFromTraffic(exchangesFromMessages(messages, 'agent', e.started, e.ended), rootId, e.errorPatterns, mode, messages, e.preview, e.recordContent));
  }
  if (json?.usage && usage.input_tokens + usage.output_tokens === 0) usage = { input_tokens: json.usage.input_tokens, output_tokens: json.usage.output_tokens };

  let outcome = e.outcome;
  const problems: string[] = [];
  if (e.output.kind === 'invalid') problems.push(e.output.problem);
  if (e.traceFile.kind === 'invalid') problems.push(e.traceFile.problem);
  if (outcome === 'exited' && problems.length > 0) outcome = 'output_invalid';

  const printed = json ? json.final_answer : e.output.kind === 'text' && e.output.text !== '' ? e.output.text : null;
  const text = outcome === 'exited' ? (printed ?? lastAnswer) : null;
  let exitReason: ExitReason = outcome === 'exited' ? 'completed' : 'error';
  if (outcome === 'exited' && agentTrace && agentTrace.final_answer.exit_reason !== 'error') exitReason = agentTrace.final_answer.exit_reason;

  const root = writeSpan({
    span_id: rootId,
    parent_id: null,
    kind: 'agent',
    name: `task ${e.taskId}`,
    start: e.started,
    end: e.ended,
    status: outcome === 'exited' && !e.traffic.runError ? 'ok' : 'error',
    attributes: {
      'task.id': e.taskId,
      epoch: e.epoch,
      exit_reason: exitReason,
      [AGENT_ATTR.outcome]: outcome,
      ...e.ending,
      [AGENT_ATTR.problem]: problems.length ? problems.join('; ') : e.ending[AGENT_ATTR.problem],
    },
    events: outcome === 'exited' ? [] : [{ name: `agent_${outcome}`, time: e.ended, attributes: {} }],
  });
  return {
    schema_version: TRACE_SCHEMA_VERSION,
    trace_id: e.traceId,
    task_id: e.taskId,
    epoch: e.epoch,
    started_at: e.started,
    ended_at: e.ended,
    model: e.model,
    prompt: e.prompt,
    final_answer: { text, exit_reason: exitReason },
    error: e.traffic.runError,
    usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens },
    spans: [root, ...spans],
  };
}
