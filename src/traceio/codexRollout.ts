import type { ExitReason } from '../schema/trace.js';
import { contentText } from './chatMessages.js';
import { emptyModel, emptyTool, type Conversation, type ToolCallRecord, type Turn } from './conversation.js';
import { isRecord, num, str } from './jsonText.js';
import { stem } from './otlpJson.js';
import type { TraceFormat } from './traceFormat.js';

type Rec = Record<string, unknown>;

const isoOf = (v: unknown) => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/** What the model wrote (a new reply starts at the first of these after any input). */
const REPLY_ITEMS = new Set(['reasoning', 'message', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
const CALL_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call']);
const OUTPUT_ITEMS = new Set(['function_call_output', 'custom_tool_call_output']);
const LINE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

interface Line {
  time: string | null;
  /** `response_item`, `event_msg`, … (older files: every item is a response item). */
  kind: string;
  payload: Rec;
}

/** Rollout lines in both layouts: `{timestamp, type, payload}` (since 0.4x) and the older bare items after a `{id, timestamp}` meta line. */
function linesOf(values: unknown[]): Line[] {
  return values.filter(isRecord).map((v, i) => {
    if (typeof v['type'] === 'string' && LINE_TYPES.has(v['type']) && isRecord(v['payload'])) return { time: isoOf(v['timestamp']), kind: v['type'], payload: v['payload'] };
    if (typeof v['type'] === 'string' && isRecord(v['payload'])) return { time: isoOf(v['timestamp']), kind: 'other', payload: v['payload'] };
    if (i === 0 && typeof v['id'] === 'string' && !('type' in v)) return { time: isoOf(v['timestamp']), kind: 'session_meta', payload: v };
    if ('record_type' in v) return { time: null, kind: 'state', payload: v };
    return { time: isoOf(v['timestamp']), kind: 'response_item', payload: v };
  });
}

const isRollout = (values: unknown[] | undefined): boolean => {
  if (!values || values.length === 0 || !isRecord(values[0])) return false;
  const first = values[0];
  if (first['type'] === 'session_meta' && isRecord(first['payload'])) return true;
  // The older layout: a bare `{id, timestamp}` first line, then Responses API items.
  return typeof first['id'] === 'string' && typeof first['timestamp'] === 'string' && !('type' in first) && values.slice(1).every((v) => isRecord(v) && (typeof v['type'] === 'string' || 'record_type' in v));
};

/** A tool output's text, and the exit code Codex put in it: `{"output", "metadata": {"exit_code"}}` (older), or an `Exit code: N` first line (newer). */
function outputOf(v: unknown): { text: string; exitCode: number | null } {
  let text = typeof v === 'string' ? v : (contentText(v) ?? JSON.stringify(v ?? ''));
  let exitCode: number | null = null;
  if (text.trimStart().startsWith('{')) {
    try {
      const o = JSON.parse(text) as unknown;
      if (isRecord(o) && typeof o['output'] === 'string') {
        text = o['output'];
        exitCode = isRecord(o['metadata']) ? num(o['metadata']['exit_code']) : null;
      }
    } catch {
      // plain text that starts with a brace
    }
  }
  exitCode ??= num(/^(?:Exit code:|Process exited with code) (-?\d+)/m.exec(text)?.[1]);
  return { text, exitCode };
}

function argumentsOf(item: Rec): string | null {
  if (item['type'] === 'local_shell_call') return JSON.stringify(isRecord(item['action']) ? item['action'] : {});
  if (item['type'] === 'web_search_call') return JSON.stringify(isRecord(item['action']) ? item['action'] : {});
  return str(item['arguments']) ?? str(item['input']);
}

/**
 * Codex CLI's rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): the Responses API items of
 * the session in order. Codex records no model request as such: a reply is the run of items the
 * model wrote (reasoning, message, tool calls) between inputs, and its `token_count` event gives
 * its tokens. Tool outputs answer calls by `call_id`; `exec_command_end` events carry exit codes.
 */
function rolloutConversation(values: unknown[], fileName: string): Conversation {
  const turns: Turn[] = [];
  const calls = new Map<string, ToolCallRecord>();
  let replying = false;
  let model: string | null = null;
  let sessionId: string | null = null;
  let exitReason: ExitReason | null = null;
  let lastAgentMessage: string | null = null;
  let error: string | null = null;
  const times: string[] = [];
  for (const { time, kind, payload } of linesOf(values)) {
    if (time) times.push(time);
    const type = str(payload['type']);
    if (kind === 'session_meta') sessionId = str(payload['id']) ?? sessionId;
    else if (kind === 'turn_context') model = str(payload['model']) ?? model;
    else if (kind === 'event_msg') {
      if (type === 'token_count' && isRecord(payload['info']) && isRecord(payload['info']['last_token_usage'])) {
        const m = turns.at(-1)?.model;
        const usage = payload['info']['last_token_usage'];
        if (m && m.inputTokens === null) Object.assign(m, { inputTokens: num(usage['input_tokens']), outputTokens: num(usage['output_tokens']) });
      } else if (type === 'exec_command_end') {
        const tool = calls.get(str(payload['call_id']) ?? '');
        const code = num(payload['exit_code']);
        if (tool && code !== null) settle(tool, code, tool.result ?? str(payload['aggregated_output']) ?? '', time);
      } else if (type === 'task_complete') {
        exitReason = 'completed';
        lastAgentMessage = str(payload['last_agent_message']) ?? lastAgentMessage;
      } else if (type === 'turn_aborted') exitReason = 'error';
      else if (type === 'error' || type === 'stream_error') error = str(payload['message']) ?? 'error';
    } else if (kind === 'response_item' && type) {
      const fromModel = REPLY_ITEMS.has(type) && (type !== 'message' || payload['role'] === 'assistant');
      if (fromModel) {
        if (!replying) turns.push({ model: { ...emptyModel(), model, start: time, end: time }, tools: [] });
        replying = true;
        const turn = turns.at(-1)!;
        const m = turn.model!;
        m.end = time ?? m.end;
        if (type === 'message') {
          const text = contentText(payload['content']);
          if (text !== null) m.content = m.content === null ? text : `${m.content}\n${text}`;
        } else if (CALL_ITEMS.has(type)) {
          const name = type === 'local_shell_call' ? 'shell' : type === 'web_search_call' ? 'web_search' : (str(payload['name']) ?? '(unnamed)');
          const tool: ToolCallRecord = { ...emptyTool(name), id: str(payload['call_id']) ?? str(payload['id']), arguments: argumentsOf(payload), start: time };
          turn.tools.push(tool);
          m.toolCalls++;
          if (tool.id) calls.set(tool.id, tool);
        }
      } else {
        replying = false;
        if (OUTPUT_ITEMS.has(type)) {
          const tool = calls.get(str(payload['call_id']) ?? '');
          if (!tool) continue;
          const { text, exitCode } = outputOf(payload['output']);
          settle(tool, exitCode, text, time);
        }
      }
    }
  }
  const last = turns.at(-1);
  const finalAnswer = last && last.tools.length === 0 ? (last.model?.content ?? lastAgentMessage) : null;
  const unknown: string[] = [];
  if (finalAnswer === null) unknown.push('final answer');
  if (exitReason === null && error === null) unknown.push('exit reason (the session has no task_complete event)');
  if ([...calls.values()].some((t) => t.ok === null)) unknown.push('tool results');
  return {
    format: 'codex',
    taskId: sessionId ?? stem(fileName),
    taskIdFrom: sessionId ? 'trace' : 'file',
    epoch: 0,
    traceId: null,
    model,
    startedAt: times[0] ?? null,
    endedAt: times.at(-1) ?? null,
    finalAnswer,
    exitReason: error !== null ? 'error' : (exitReason ?? (finalAnswer !== null ? 'completed' : 'unknown')),
    turns,
    usage: null,
    unknown,
    runError: error !== null ? { code: 'AGENT_ERROR', message: error } : null,
  };
}

/** A call's outcome: an exit code other than 0 failed it; no exit code, the output came back and the call counts as done. */
function settle(tool: ToolCallRecord, exitCode: number | null, text: string, time: string | null): void {
  Object.assign(tool, { result: text, exitCode, end: time, ok: exitCode === null || exitCode === 0 });
  if (!tool.ok) Object.assign(tool, { errorType: 'COMMAND_FAILED', message: `exit code ${exitCode}` });
}

export const codexRollout: TraceFormat = {
  label: 'Codex CLI rollout (~/.codex/sessions/…/rollout-*.jsonl)',
  extensions: ['.jsonl'],
  sniff: ({ jsonLines }) => isRollout(jsonLines),
  parse: ({ jsonLines, fileName }) => [rolloutConversation(jsonLines!, fileName)],
};
