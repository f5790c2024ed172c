import type { CheckType } from './task.js';
import type { FailureReason } from './taxonomy.js';
import { ATTR, type AttrName } from './traceVocabulary.js';

/**
 * What each check and each classifier rule reads from a trace: the contract an adapter or an
 * importer must meet for it to work. docs/traces.md prints these tables (a test keeps them equal).
 */
interface Need {
  /** Trace-level fields read. */
  fields: readonly string[];
  /** Span kinds looked at. */
  kinds: readonly string[];
  attrs: readonly AttrName[];
}
const need = (fields: string[], kinds: string[], attrs: AttrName[]): Need => ({ fields, kinds, attrs });

export const CHECK_NEEDS: { [K in CheckType]: Need } = {
  contains: need(['final_answer.text'], [], []),
  not_contains: need(['final_answer.text'], [], []),
  error_types: need([], ['tool'], ['errorType']),
  policy: need([], ['tool'], ['toolName', 'toolArguments', 'policyDecision', 'approved', 'executed']),
  max_steps: need(['final_answer.exit_reason'], ['llm', 'tool'], []),
  tool_called: need([], ['tool'], ['toolName']),
  event_type: need([], ['any'], ['errorType', 'policyDecision']),
  completed: need(['final_answer.exit_reason'], [], []),
  tool_sequence: need([], ['tool'], ['toolName']),
  tool_args: need([], ['tool'], ['toolName', 'toolArguments']),
  tool_not_called: need([], ['tool'], ['toolName']),
  tool_count: need([], ['tool'], ['toolName']),
  no_tool_errors: need([], ['tool'], ['toolName', 'resultOk', 'errorType']),
  answer_matches: need(['final_answer.text'], [], []),
  answer_equals: need(['final_answer.text'], [], []),
  answer_number: need(['final_answer.text'], [], []),
  answer_json: need(['final_answer.text'], [], []),
  exit_reason: need(['final_answer.exit_reason'], [], []),
  budget: need(['usage', 'started_at', 'ended_at', 'model.model'], ['llm', 'tool'], ['inputTokens', 'outputTokens']),
  command: need([], ['check'], ['checkKey', 'checkExitCode', 'checkOutput', 'checkFacts', 'checkError']),
  file: need([], ['check'], ['checkKey', 'checkFacts', 'checkError']),
  changed_files: need([], ['check'], ['checkKey', 'checkFacts', 'checkError']),
  custom: need([], ['check'], ['checkKey', 'checkFacts', 'checkError']),
  rubric: need([], ['check'], ['checkKey', 'checkFacts', 'checkError']),
};

export const RULE_NEEDS: { [R in FailureReason]: Need } = {
  POLICY_VIOLATION: need([], ['tool'], ['toolName', 'toolArguments', 'policyDecision', 'executed', 'step']),
  AGENT_CRASH: need([], ['agent'], ['agentOutcome', 'agentProblem', 'agentErrorLine', 'agentStderrTail', 'agentHttpBody']),
  AGENT_TIMEOUT: need([], ['agent'], ['agentOutcome', 'agentProblem', 'agentErrorLine', 'agentStderrTail', 'agentHttpBody']),
  AGENT_OUTPUT_INVALID: need([], ['agent'], ['agentOutcome', 'agentProblem', 'agentErrorLine', 'agentStderrTail', 'agentHttpBody']),
  NO_MODEL_REQUEST: need([], ['agent', 'llm', 'tool'], ['agentOutcome']),
  POLICY_MISMATCH: need([], ['tool'], ['toolName', 'toolArguments', 'riskReason', 'step']),
  MAX_STEPS_EXCEEDED: need(['final_answer.exit_reason', 'final_answer.text'], ['llm'], ['step']),
  COMPRESSION_INEFFECTIVE: need([], ['compression'], ['charsBefore', 'charsAfter', 'step']),
  CONTEXT_LOSS: need(['final_answer.text'], ['compression', 'tool'], ['compressedCallIds', 'toolCallId', 'toolResult', 'toolName', 'step']),
  INVALID_ARGUMENTS: need([], ['tool'], ['errorType', 'toolName', 'message', 'step']),
  TOOL_ARGUMENT_ERROR: need([], ['tool'], ['errorType', 'resultOk', 'toolName', 'toolArguments', 'step']),
  COMMAND_TIMEOUT: need([], ['tool'], ['errorType', 'toolName', 'toolArguments', 'step']),
  FILE_NOT_FOUND_UNRECOVERED: need([], ['tool'], ['errorType', 'resultOk', 'toolName', 'step']),
  PERMISSION_DENIED_UNRECOVERED: need([], ['tool'], ['errorType', 'resultOk', 'riskReason', 'toolName', 'step']),
  TOOL_SELECTION_ERROR: need([], ['tool'], ['errorType', 'toolName']),
  MODEL_UNDERSTANDING_ERROR: need(['final_answer.exit_reason'], ['tool', 'llm'], ['step']),
  TRAJECTORY_MISMATCH: need(['final_answer.exit_reason'], ['tool'], ['toolName', 'step']),
  FINAL_ANSWER_INCOMPLETE: need(['final_answer.exit_reason'], ['llm'], ['step']),
  BUDGET_EXCEEDED: need(['usage', 'started_at', 'ended_at', 'model.model'], ['llm', 'tool'], ['inputTokens', 'outputTokens']),
  OUTCOME_UNMET: need([], ['check'], ['checkType', 'checkKey']),
  CHANGED_FILES_OUT_OF_SCOPE: need([], ['check'], ['checkType', 'checkKey']),
  CUSTOM_CHECK_FAILED: need([], ['check'], ['checkType', 'checkKey', 'checkFacts']),
  RUBRIC_FAILED: need([], ['check'], ['checkType', 'checkKey', 'checkFacts']),
  UNKNOWN: need([], [], []),
};

const keys = (attrs: readonly AttrName[]) => attrs.map((a) => `\`${ATTR[a].key}\``).join(', ') || '—';
const list = (xs: readonly string[]) => xs.map((x) => `\`${x}\``).join(', ') || '—';

/** The two contract tables and the attribute table, as Markdown (docs/traces.md embeds them). */
export function contractMarkdown(): string {
  const rows = (needs: Record<string, Need>, head: string) =>
    [`| ${head} | trace fields | span kinds | attributes |`, '| --- | --- | --- | --- |', ...Object.entries(needs).map(([n, d]) => `| \`${n}\` | ${list(d.fields)} | ${list(d.kinds)} | ${keys(d.attrs)} |`)].join('\n');
  const attrs = [
    '| name | key | older keys read | type | on | meaning |',
    '| --- | --- | --- | --- | --- | --- |',
    ...Object.entries(ATTR).map(([n, d]) => `| ${n} | \`${d.key}\` | ${list(d.legacy)} | ${d.type} | ${d.on.join(', ')} | ${d.doc} |`),
  ].join('\n');
  return `### Attributes\n\n${attrs}\n\n### What each check reads\n\n${rows(CHECK_NEEDS, 'check')}\n\n### What each classifier rule reads\n\n${rows(RULE_NEEDS, 'rule')}\n`;
}
