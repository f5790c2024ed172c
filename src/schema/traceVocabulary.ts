import type { AttributeValue, ErrorType, PolicyDecision, RiskLevel, Span, SpanKind } from './trace.js';

/**
 * The trace contract's words: span kinds and attribute keys, with one typed reader. Keys follow
 * the OpenTelemetry GenAI conventions where one exists; tracegate keeps its own keys for policy,
 * sandbox and compression facts. `legacy` keys are what older trace/v1 files (and the reference
 * harness) wrote: readers accept them, writers (importers, exporters) use `key`.
 */
export const SPAN_KIND = { agent: 'agent', llm: 'llm', tool: 'tool', compression: 'compression', check: 'check' } as const satisfies Record<SpanKind, SpanKind>;

type ValueType = 'string' | 'number' | 'boolean' | 'string[]';
interface AttrDef<T extends ValueType = ValueType, K extends string = string> {
  key: K;
  legacy: readonly string[];
  type: T;
  /** The span kinds that carry it. */
  on: readonly SpanKind[];
  doc: string;
}
const def = <K extends string, T extends ValueType>(key: K, type: T, on: readonly SpanKind[], doc: string, legacy: readonly string[] = []): AttrDef<T, K> => ({ key, legacy, type, on, doc });

export const ATTR = {
  // the root span: which trial, how it ended, how the run was set up
  taskId: def('task.id', 'string', ['agent'], 'the task the trial ran'),
  epoch: def('epoch', 'number', ['agent'], 'the epoch of the trial (1-based)'),
  exitReason: def('exit_reason', 'string', ['agent'], 'how the trial ended: completed, max_steps, refused, error, ...'),
  sandboxReason: def('sandbox.reason', 'string', ['agent'], 'why the harness chose its sandbox mode'),
  toolChoice: def('tracegate.request.tool_choice', 'string', ['agent', 'llm'], 'the tool_choice sent: auto, required, none or a tool name', ['gen_ai.request.tool_choice']),
  parallelToolCalls: def('tracegate.request.parallel_tool_calls', 'boolean', ['agent'], 'the parallel_tool_calls option sent (absent/null: not sent)', ['gen_ai.request.parallel_tool_calls']),
  mcpServers: def('mcp.servers', 'string[]', ['agent'], 'the MCP servers the run offered tools from'),
  mcpToolsDropped: def('mcp.tools_dropped', 'string[]', ['agent'], 'MCP tools left out (a name clash, a name the model API refuses)'),
  recordContentLevel: def('llm.record_content', 'string', ['agent'], 'how much model content llm spans keep: none, summary or full'),
  shellTimeoutMs: def('tool.shell_timeout_ms', 'number', ['agent'], "a shell command's time limit"),
  outputCap: def('tool.output_cap', 'number', ['agent'], "the characters of a tool's output the model sees"),
  step: def('step', 'number', ['llm', 'tool', 'compression'], 'model turn the span belongs to (1-based)'),
  operation: def('gen_ai.operation.name', 'string', ['llm', 'tool', 'agent'], 'chat, execute_tool, invoke_agent'),
  // tool spans
  toolName: def('gen_ai.tool.name', 'string', ['tool'], 'the tool called', ['tool.name']),
  toolCallId: def('gen_ai.tool.call.id', 'string', ['tool'], 'the model-assigned call id', ['tool.call_id']),
  toolArguments: def('gen_ai.tool.call.arguments', 'string', ['tool'], 'the arguments, as JSON text', ['tool.arguments']),
  toolResult: def('gen_ai.tool.call.result', 'string', ['tool'], 'the result (a preview)', ['result.preview']),
  toolCallIndex: def('tool.call_index', 'number', ['tool'], 'position of the call among the calls of one model reply (0-based)'),
  toolOrigin: def('tool.origin', 'string', ['tool'], 'mcp for a tool of an MCP server (absent: built in)'),
  mcpServer: def('mcp.server', 'string', ['tool'], 'the MCP server the tool belongs to'),
  toolSideRequest: def('tool.side_request', 'boolean', ['tool'], 'asked for in a side request (a title, a summary), not the conversation'),
  resultSeen: def('result.seen', 'boolean', ['tool'], 'false: the capture proxy never saw the result the agent sent back'),
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
  sandboxMode: def('sandbox.mode', 'string', ['tool', 'agent'], 'process or bwrap'),
  // check spans: what an outcome or custom check found after the trial (src/runner/outcomeProbe.ts)
  checkType: def('tracegate.check.type', 'string', ['check'], 'the check the span is evidence for: command, file, changed_files, custom'),
  checkKey: def('tracegate.check.key', 'string', ['check'], "the check's spec as JSON text (which check of the task it is)"),
  checkCommand: def('tracegate.check.command', 'string', ['check'], 'the command a command or custom check ran'),
  checkExitCode: def('tracegate.check.exit_code', 'number', ['check'], "the command's exit code (absent: it did not exit on its own)"),
  checkOutput: def('tracegate.check.output', 'string', ['check'], "the command's output (redacted, capped)"),
  checkFacts: def('tracegate.check.facts', 'string', ['check'], 'what the check is judged from, as JSON text'),
  checkError: def('tracegate.check.error', 'string', ['check'], 'why the check itself could not run (a timeout, a crash, bad output): an error of the trial, not a failure'),
  // llm spans
  requestModel: def('gen_ai.request.model', 'string', ['llm'], 'model asked'),
  responseModel: def('gen_ai.response.model', 'string', ['llm'], 'model that answered, as the reply names it'),
  temperature: def('gen_ai.request.temperature', 'number', ['llm'], 'the temperature sent'),
  system: def('gen_ai.system', 'string', ['llm'], 'provider'),
  inputTokens: def('gen_ai.usage.input_tokens', 'number', ['llm'], 'prompt tokens'),
  outputTokens: def('gen_ai.usage.output_tokens', 'number', ['llm'], 'completion tokens'),
  finishReasons: def('gen_ai.response.finish_reasons', 'string[]', ['llm'], 'why the model stopped'),
  llmToolCalls: def('llm.tool_calls', 'number', ['llm'], 'tool calls in the reply'),
  llmContent: def('llm.content_preview', 'string', ['llm'], 'the reply text (a preview)'),
  llmInputMessages: def('llm.input_messages', 'string', ['llm'], 'every input message, as JSON text (--record-content full)'),
  llmOutputContent: def('llm.output_content', 'string', ['llm'], 'the whole reply text (--record-content full)'),
  llmMode: def('llm.mode', 'string', ['llm'], 'live, record or replay (a cassette)'),
  llmMessages: def('llm.messages', 'number', ['llm'], 'messages sent'),
  llmTools: def('llm.tools', 'string[]', ['llm'], 'the tools offered'),
  llmStreamed: def('llm.streamed', 'boolean', ['llm'], 'the reply was streamed'),
  llmThread: def('llm.thread', 'number', ['llm'], 'which conversation of the trial the call belongs to (0-based)'),
  llmSideRequest: def('llm.side_request', 'boolean', ['llm'], 'a call outside the main conversation (a title, a summary)'),
  llmThinkStripped: def('llm.think_stripped', 'boolean', ['llm'], 'reasoning blocks were removed from the reply'),
  llmError: def('llm.error', 'string', ['llm'], 'why the model call failed'),
  llmProviderFault: def('llm.provider_fault', 'string', ['llm'], 'the provider fault class (rate_limited, server_error, ...)'),
  llmProviderRetries: def('llm.provider_retries', 'number', ['llm'], 'times the call was retried after a provider fault'),
  httpStatus: def('http.response.status_code', 'number', ['llm'], "the provider's HTTP status of a failed call"),
  // compression spans
  charsBefore: def('chars_before', 'number', ['compression'], 'context size before'),
  charsAfter: def('chars_after', 'number', ['compression'], 'context size after'),
  compressedResults: def('compressed_results', 'number', ['compression'], 'tool results summarized'),
  compressedCallIds: def('compressed_call_ids', 'string[]', ['compression'], 'the tool call ids whose results were summarized'),
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
  // provenance of imported traces
  importFormat: def('tracegate.import.format', 'string', ['agent'], 'the format a trace was imported from'),
  importUnknown: def('tracegate.import.unknown', 'string[]', ['agent'], 'what the source format cannot tell'),
  importTaskIdFrom: def('tracegate.import.task_id_from', 'string', ['agent'], 'where the imported trace\'s task id came from'),
} as const;
export type AttrName = keyof typeof ATTR;

type ValueOf<T extends ValueType> = T extends 'string' ? string : T extends 'number' ? number : T extends 'boolean' ? boolean : string[];
export type AttrValue<N extends AttrName> = ValueOf<(typeof ATTR)[N]['type']>;
/** A canonical key of the vocabulary (what writers write). */
export type AttrKey = (typeof ATTR)[AttrName]['key'];
/**
 * Span attributes as a producer writes them: canonical keys only, each with its type. An unknown
 * key or a legacy spelling does not compile; `null` is written (known to be absent), `undefined`
 * is left out.
 */
export type SpanAttributes = { [N in AttrName as (typeof ATTR)[N]['key']]?: AttrValue<N> | null | undefined };

/** Every canonical key, and every key a reader still accepts (canonical or legacy). */
export const VOCABULARY_KEYS: ReadonlySet<string> = new Set(Object.values(ATTR).map((d: AttrDef) => d.key));
export const READABLE_KEYS: ReadonlySet<string> = new Set(Object.values(ATTR).flatMap((d: AttrDef) => [d.key, ...d.legacy]));

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
