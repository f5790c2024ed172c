import { contentText } from './chatMessages.js';
import { emptyModel, emptyTool, type Conversation, type ToolCallRecord, type Turn } from './conversation.js';
import { errorTypeFrom } from './errorTypes.js';
import { asText, isRecord, num, str } from './jsonText.js';
import { stem } from './otlpJson.js';
import type { SniffInput, TraceFormat } from './traceFormat.js';

type Rec = Record<string, unknown>;

const isoOf = (v: unknown) => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/** A line of a Claude Code session: `{type: "user"|"assistant", message: {role, content}, uuid, sessionId, timestamp}`. */
const isEntry = (v: unknown) => isRecord(v) && (v['type'] === 'user' || v['type'] === 'assistant') && isRecord(v['message']) && typeof v['sessionId'] === 'string';
/** Lines a session also holds: summaries, system notes, snapshots, queue operations… (skipped). */
const isOther = (v: unknown) => isRecord(v) && !isRecord(v['message']);

const blocks = (message: Rec): Rec[] => (Array.isArray(message['content']) ? message['content'].filter(isRecord) : []);

/**
 * Claude Code's session log (`~/.claude/projects/<project>/<session>.jsonl`). Claude Code writes
 * one line per content block of a reply, all with the reply's `message.id`: lines sharing it are one
 * model call. `tool_use` blocks are the calls; the `tool_result` blocks of later user lines answer
 * them by `tool_use_id`, `is_error` saying it failed. Sub-agent lines (`isSidechain`) are the same
 * session's calls and are kept in order.
 */
function sessionConversation(entries: Rec[], fileName: string): Conversation {
  const turns: Turn[] = [];
  const byMessage = new Map<string, Turn>();
  const open = new Map<string, ToolCallRecord>();
  let model: string | null = null;
  let lastStop: string | null = null;
  for (const e of entries) {
    const message = e['message'] as Rec;
    const time = isoOf(e['timestamp']);
    if (e['type'] === 'assistant') {
      const id = str(message['id']) ?? str(e['requestId']) ?? str(e['uuid']) ?? String(turns.length);
      let turn = byMessage.get(id);
      if (!turn) {
        const usage = isRecord(message['usage']) ? message['usage'] : {};
        turn = { model: { ...emptyModel(), model: str(message['model']), inputTokens: num(usage['input_tokens']), outputTokens: num(usage['output_tokens']), start: time, end: time }, tools: [] };
        byMessage.set(id, turn);
        turns.push(turn);
      }
      const m = turn.model!;
      m.end = time ?? m.end;
      model = m.model ?? model;
      // The API error Claude Code shows as an assistant line (`isApiErrorMessage`) is a failed call.
      if (e['isApiErrorMessage'] === true) m.error = contentText(message['content']) ?? 'API error';
      for (const b of typeof message['content'] === 'string' ? [{ type: 'text', text: message['content'] }] : blocks(message)) {
        if (b['type'] === 'text' && typeof b['text'] === 'string') m.content = m.content === null ? b['text'] : `${m.content}\n${b['text']}`;
        else if (b['type'] === 'tool_use') {
          const tool: ToolCallRecord = { ...emptyTool(str(b['name']) ?? '(unnamed)'), id: str(b['id']), arguments: asText(b['input']), start: time };
          turn.tools.push(tool);
          m.toolCalls++;
          if (tool.id) open.set(tool.id, tool);
        }
      }
      lastStop = str(message['stop_reason']) ?? lastStop;
    } else {
      for (const b of blocks(message)) {
        if (b['type'] !== 'tool_result') continue;
        const tool = open.get(str(b['tool_use_id']) ?? '');
        if (!tool) continue;
        open.delete(tool.id!);
        const failed = b['is_error'] === true;
        tool.result = contentText(b['content']) ?? asText(b['content']) ?? '';
        tool.ok = !failed;
        tool.end = time;
        if (failed) {
          tool.message = tool.result;
          tool.errorType = errorTypeFrom(tool.result);
        }
      }
    }
  }
  const last = turns.at(-1);
  // An interactive session has no exit of its own: its answer is the last reply that asked for no tool.
  const finalAnswer = last && last.tools.length === 0 && !last.model?.error ? last.model?.content ?? null : null;
  const unknown = ['exit reason (an interactive session does not record why it ended)'];
  if (finalAnswer === null) unknown.push('final answer');
  if (open.size > 0) unknown.push('tool results');
  const first = entries[0]!;
  const times = entries.map((e) => isoOf(e['timestamp'])).filter((t): t is string => t !== null);
  return {
    format: 'claude-code',
    taskId: str(first['sessionId']) ?? stem(fileName),
    taskIdFrom: 'trace',
    epoch: 0,
    traceId: null,
    model,
    startedAt: times[0] ?? null,
    endedAt: times.at(-1) ?? null,
    finalAnswer,
    exitReason: last?.model?.error ? 'error' : finalAnswer !== null ? 'completed' : 'unknown',
    turns,
    usage: null,
    unknown,
    runError: null,
    rootExtra: {
      ...(str(first['cwd']) ? { 'claude_code.cwd': str(first['cwd'])! } : {}),
      ...(str(first['version']) ? { 'claude_code.version': str(first['version'])! } : {}),
      ...(lastStop ? { 'claude_code.last_stop_reason': lastStop } : {}),
    },
  };
}

const lines = (input: SniffInput) => input.jsonLines ?? (isRecord(input.json) ? [input.json] : []);

export const claudeCode: TraceFormat = {
  label: 'Claude Code session log (~/.claude/projects/*/*.jsonl)',
  extensions: ['.jsonl'],
  sniff: (input) => {
    const l = lines(input);
    // Lines that are no record at all (a cut-off write) are skipped and counted, as Claude Code itself skips them.
    return l.some(isEntry) && l.every((v) => isEntry(v) || isOther(v) || !isRecord(v));
  },
  // One file is one session (a resumed session's file starts with the lines it continues): one trace.
  parse: (input) => {
    const all = lines(input);
    const c = sessionConversation(all.filter(isEntry) as Rec[], input.fileName);
    const unread = all.filter((v) => !isRecord(v) || (!isEntry(v) && (v['type'] === 'user' || v['type'] === 'assistant'))).length;
    if (unread > 0) c.unknown.push(`${unread} line${unread > 1 ? 's' : ''} of no readable message skipped`);
    return [c];
  },
};
