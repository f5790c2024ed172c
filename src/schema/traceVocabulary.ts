import type { AttributeValue, ErrorType, PolicyDecision, RiskLevel, Span, SpanKind } from './trace.js';

/**
 * The trace contract's words: span kinds and attribute keys, with one typed reader. Keys follow
 * the OpenTelemetry GenAI conventions where one exists; tracegate keeps its own keys for policy,
 * sandbox and compression facts. `legacy` keys are what older trace/v1 files (and the reference
 * harness) wrote: readers accept them, writers (importers, exporters) use `key`.
 */
export const SPAN_KIND = { agent: 'agent', llm: 'llm', tool: 'tool', compression: 'compression' } as const satisfies Record<SpanKind, SpanKind>;

type ValueType = 'string' | 'number' | 'boolean' | 'string[]';
interface AttrDef<T extends ValueType = ValueType> {
  key: string;
  legacy: readonly string[];
  type: T;
  /** The span kinds that carry it. */
  on: readonly SpanKind[];
  doc: string;
}
const def = <T extends ValueType>(key: string, type: T, on: readonly SpanKind[], doc: string, legacy: readonly string[] = []): AttrDef<T> => ({ key, legacy, type, on, doc });

export const ATTR = {
  step: def('step', 'number', ['llm', 'tool', 'compression'], 'model turn the span belongs to (1-based)'),
  operation: def('gen_ai.operation.name', 'string', ['llm', 'tool', 'agent'], 'chat, execute_tool, invoke_agent'),
  // tool spans
  toolName: def('gen_ai.tool.name', 'string', ['tool'], 'the tool called', ['tool.name']),
  toolCallId: def('gen_ai.tool.call.id', 'string', ['tool'], 'the model-assigned call id', ['tool.call_id']),
  toolArguments: def('gen_ai.tool.call.arguments', 'string', ['tool'], 'the arguments, as JSON text', ['tool.arguments']),
  toolResult: def('gen_ai.tool.call.result', 'string', ['tool'], 'the result (a preview)', ['result.preview']),
  resultOk: def('result.ok', 'boolean', ['tool'], 'true when the tool succeeded'),
  errorType: def('error_type', 'string', ['tool'], 'one of ERROR_TYPES when the call failed'),
  message: def('message', 'string', ['tool'], 'what went wrong, as the model saw it'),
  recoverable: def('recoverable', 'boolean', ['tool'], 'the agent could continue another way'),
  suggestion: def('suggestion', 'string', ['tool'], 'hint given to the model'),
  executed: def('executed', 'boolean', ['tool'], 'the tool really ran (not just judged)'),
  exitCode: def('exit_code', 'number', ['tool'], 'a shell command\'s exit code'),
  outputChars: def('output_chars', 'number', ['tool'], 'full output length'),
  truncated: def('truncated', 'boolean', ['tool'], 'the output was cut'),
  // policy and sandbox (tracegate's own)
  policyDecision: def('policy_decision', 'string', ['tool'], 'allow, deny or require_approval'),
  riskLevel: def('risk_level', 'string', ['tool'], 'low, medium or high'),
  riskReason: def('risk_reason', 'string', ['tool'], 'the policy rule and why'),
  approvalRequired: def('approval_required', 'boolean', ['tool'], 'the policy asked for approval'),
  approved: def('approved', 'boolean', ['tool'], 'the approval answer (absent/null: not asked)'),
  approvalVia: def('approval.via', 'string', ['tool'], 'who approved'),
  sandboxMode: def('sandbox.mode', 'string', ['tool'], 'process or bwrap'),
  // llm spans
  requestModel: def('gen_ai.request.model', 'string', ['llm'], 'model asked'),
  system: def('gen_ai.system', 'string', ['llm'], 'provider'),
  inputTokens: def('gen_ai.usage.input_tokens', 'number', ['llm'], 'prompt tokens'),
  outputTokens: def('gen_ai.usage.output_tokens', 'number', ['llm'], 'completion tokens'),
  finishReasons: def('gen_ai.response.finish_reasons', 'string[]', ['llm'], 'why the model stopped'),
  llmToolCalls: def('llm.tool_calls', 'number', ['llm'], 'tool calls in the reply'),
  llmContent: def('llm.content_preview', 'string', ['llm'], 'the reply text (a preview)'),
  // compression spans
  charsBefore: def('chars_before', 'number', ['compression'], 'context size before'),
  charsAfter: def('chars_after', 'number', ['compression'], 'context size after'),
  compressedResults: def('compressed_results', 'number', ['compression'], 'tool results summarized'),
  compressedCallIds: def('compressed_call_ids', 'string[]', ['compression'], 'the tool call ids whose results were summarized'),
  // provenance of imported traces
  // an external agent's process (command and http adapters), on the root span
  agentOutcome: def('agent.outcome', 'string', ['agent'], 'how the agent under test ended: exited, crash, timeout, output_invalid'),
  agentExitCode: def('agent.exit_code', 'number', ['agent'], "the agent process's exit code"),
  agentSignal: def('agent.signal', 'string', ['agent'], 'the signal that ended the agent process'),
  agentStderrTail: def('agent.stderr_tail', 'string', ['agent'], "the end of the agent's stderr (capped, redacted)"),
  agentErrorLine: def('agent.error_line', 'string', ['agent'], "the line that says why the agent died: the head of its last stack trace, or its last line that reads as an error (whole, redacted)"),
  agentHttpStatus: def('agent.http_status', 'number', ['agent'], "the HTTP agent's answer status"),
  agentHttpBody: def('agent.http_body', 'string', ['agent'], "the start of an HTTP agent's non-2xx answer body (capped, redacted)"),
  agentStdoutBytes: def('agent.stdout_bytes', 'number', ['agent'], 'bytes the agent printed on stdout'),
  agentStdoutTruncated: def('agent.stdout_truncated', 'boolean', ['agent'], 'stdout was longer than the cap'),
  agentProblem: def('agent.problem', 'string', ['agent'], 'what was wrong with the agent or its output'),
  agentOtlpDropped: def('agent.otlp_spans_dropped', 'number', ['agent'], 'spans the agent exported over OTLP past the per-trial cap, dropped'),
  agentOtlpAdopted: def('agent.otlp_spans_adopted', 'number', ['agent'], 'spans the agent exported under another trace id (it ignored TRACEPARENT), tied to this trial by resource attribute or as the only trial running'),
  agentOtlpAmbiguous: def('agent.otlp_spans_unattributed', 'number', ['agent'], 'spans under another trace id that arrived while this and other trials ran and named none of them, dropped'),
  importFormat: def('tracegate.import.format', 'string', ['agent'], 'the format a trace was imported from'),
  importUnknown: def('tracegate.import.unknown', 'string[]', ['agent'], 'what the source format cannot tell'),
} as const;
export type AttrName = keyof typeof ATTR;

type ValueOf<T extends ValueType> = T extends 'string' ? string : T extends 'number' ? number : T extends 'boolean' ? boolean : string[];
export type AttrValue<N extends AttrName> = ValueOf<(typeof ATTR)[N]['type']>;

function matches(value: AttributeValue | undefined, type: ValueType): boolean {
  if (type === 'string[]') return Array.isArray(value);
  return typeof value === type;
}

/** The one typed reader: the canonical key first, then older keys; a value of the wrong type reads as absent. */
export function attr<N extends AttrName>(span: Pick<Span, 'attributes'>, name: N): AttrValue<N> | null {
  const d: AttrDef = ATTR[name];
  const a = span.attributes;
  let v = a[d.key];
  if (!matches(v, d.type)) for (const k of d.legacy) if (matches((v = a[k]), d.type)) break;
  return matches(v, d.type) ? (v as AttrValue<N>) : null;
}

/** Builds an attribute record with canonical keys; null and undefined values are left out. */
export function attributes(values: { [N in AttrName]?: AttrValue<N> | null }): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(values)) if (value !== null && value !== undefined) out[ATTR[name as AttrName].key] = value;
  return out;
}

/** Every attribute's canonical key and the older keys still read, for the plain-JS viewer. */
export function vocabularyForViewer(): Record<AttrName, string[]> {
  return Object.fromEntries(Object.entries(ATTR).map(([n, d]) => [n, [d.key, ...d.legacy]])) as Record<AttrName, string[]>;
}

export const stepOf = (span: Pick<Span, 'attributes'>): number | null => attr(span, 'step');

/** Typed view of a tool span (see docs/traces.md for what each check and rule reads). */
export function toolAttr(span: Pick<Span, 'attributes'>) {
  return {
    step: attr(span, 'step') ?? 0,
    name: attr(span, 'toolName') ?? '',
    arguments: attr(span, 'toolArguments') ?? '',
    decision: attr(span, 'policyDecision') as PolicyDecision | null,
    approved: attr(span, 'approved'),
    approvalRequired: attr(span, 'approvalRequired') === true,
    approvalVia: attr(span, 'approvalVia'),
    riskLevel: attr(span, 'riskLevel') as RiskLevel | null,
    riskReason: attr(span, 'riskReason'),
    ok: attr(span, 'resultOk') === true,
    executed: attr(span, 'executed') === true,
    errorType: attr(span, 'errorType') as ErrorType | null,
    recoverable: attr(span, 'recoverable') === true,
    message: attr(span, 'message'),
    suggestion: attr(span, 'suggestion'),
    callId: attr(span, 'toolCallId'),
    result: attr(span, 'toolResult'),
    truncated: attr(span, 'truncated') === true,
  };
}

export function llmAttr(span: Pick<Span, 'attributes'>) {
  return {
    step: attr(span, 'step') ?? 0,
    toolCalls: attr(span, 'llmToolCalls') ?? 0,
    content: attr(span, 'llmContent'),
    inputTokens: attr(span, 'inputTokens') ?? 0,
    outputTokens: attr(span, 'outputTokens') ?? 0,
  };
}

export function compressionAttr(span: Pick<Span, 'attributes'>) {
  return {
    charsBefore: attr(span, 'charsBefore'),
    charsAfter: attr(span, 'charsAfter'),
    compressedResults: attr(span, 'compressedResults'),
    compressedCallIds: attr(span, 'compressedCallIds') ?? [],
  };
}
