import { lastAnswer, messagesToTurns } from './chatMessages.js';
import type { Conversation } from './conversation.js';
import { isRecord } from './jsonText.js';
import { stem } from './otlpJson.js';
import type { TraceFormat } from './traceFormat.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

function messagesOf(json: unknown): unknown[] | null {
  if (Array.isArray(json)) return json;
  if (isRecord(json) && Array.isArray(json['messages']) && !('info' in json)) return json['messages'];
  return null;
}

/** An OpenAI chat messages array (or `{messages: [...]}`): assistant `tool_calls` paired with `role: "tool"` results. */
export const openaiMessages: TraceFormat = {
  label: 'OpenAI chat messages array',
  extensions: ['.json'],
  sniff: ({ json }) => {
    const m = messagesOf(json);
    return m !== null && m.length > 0 && m.every((x) => isRecord(x) && typeof x['role'] === 'string' && ROLES.has(x['role']));
  },
  parse: ({ json, fileName }) => {
    const turns = messagesToTurns(messagesOf(json)!);
    const finalAnswer = lastAnswer(turns);
    const unknown = ['timing', 'tokens'];
    if (finalAnswer === null) unknown.push('final answer', 'exit reason');
    if (turns.some((t) => t.tools.some((x) => x.ok === null))) unknown.push('tool results');
    return [{
      format: 'openai-messages',
      taskId: stem(fileName),
      taskIdFrom: 'file',
      epoch: 0,
      traceId: null,
      model: null,
      startedAt: null,
      endedAt: null,
      finalAnswer,
      exitReason: finalAnswer === null ? 'unknown' : turns.at(-1)?.model?.refused ? 'refused' : 'completed',
      turns,
      usage: null,
      unknown,
      runError: null,
    } satisfies Conversation];
  },
};
