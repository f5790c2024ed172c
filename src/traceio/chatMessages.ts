import { emptyModel, emptyTool, type ToolCallRecord, type Turn } from './conversation.js';
import { errorTypeFrom, succeededDespite } from './errorTypes.js';
import { asText, isRecord, num, str } from './jsonText.js';

/** The text of a chat message's content: a string, or a list of parts with `text`. */
export function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.map((p) => (typeof p === 'string' ? p : isRecord(p) ? (str(p['text']) ?? (p['type'] === 'text' ? str(p['content']) : null)) : null)).filter((t): t is string => t !== null);
    return texts.length ? texts.join('\n') : null;
  }
  return null;
}

interface CallRef {
  id: string | null;
  name: string;
  arguments: string | null;
}

/** Tool calls of an assistant message: OpenAI's `{id, function: {name, arguments}}` or Inspect's `{id, function: "name", arguments: {}}`. */
export function toolCallsOf(message: Record<string, unknown>): CallRef[] {
  let calls = message['tool_calls'];
  if (typeof calls === 'string') {
    try {
      calls = JSON.parse(calls);
    } catch {
      calls = undefined;
    }
  }
  if (!Array.isArray(calls)) {
    // The older `function_call` of the chat API: one call, no id (its result is a `role: "function"` message).
    const fc = message['function_call'];
    return isRecord(fc) ? [{ id: null, name: str(fc['name']) ?? '(unnamed)', arguments: asText(fc['arguments']) }] : [];
  }
  return calls.filter(isRecord).map((c) => {
    const fn = c['function'];
    const name = isRecord(fn) ? str(fn['name']) : str(fn) ?? str(c['name']);
    const args = isRecord(fn) ? fn['arguments'] : (c['arguments'] ?? c['input']);
    return { id: str(c['id']), name: name ?? '(unnamed)', arguments: asText(args) };
  });
}

export interface MessageOptions {
  /** How a tool message says it failed (Inspect's `error`, a mini-swe-agent return code). */
  toolOutcome?: (message: Record<string, unknown>) => Partial<ToolCallRecord>;
}

/**
 * An OpenAI-style message list as turns: each assistant message is a model call, its `tool_calls`
 * are paired by id with the `role: "tool"` messages that follow. A call with no result message
 * keeps a null result (the format then cannot say what happened).
 */
export function messagesToTurns(messages: unknown[], options: MessageOptions = {}): Turn[] {
  const turns: Turn[] = [];
  const open = new Map<string, ToolCallRecord>();
  for (const raw of messages) {
    if (!isRecord(raw)) continue;
    const role = raw['role'];
    if (role === 'assistant') {
      const calls = toolCallsOf(raw);
      const usage = isRecord(raw['usage']) ? raw['usage'] : {};
      const turn: Turn = {
        // A refusal (OpenAI's `refusal` field) is the reply when there is no content.
        model: { ...emptyModel(), content: contentText(raw['content']) ?? str(raw['refusal']), refused: typeof raw['refusal'] === 'string' && raw['refusal'] !== '', toolCalls: calls.length, model: str(raw['model']), inputTokens: num(usage['prompt_tokens'] ?? usage['input_tokens']), outputTokens: num(usage['completion_tokens'] ?? usage['output_tokens']) },
        tools: calls.map((c) => ({ ...emptyTool(c.name), id: c.id, arguments: c.arguments })),
      };
      turn.tools.forEach((t, i) => open.set(t.id ?? `#${turns.length}.${i}`, t));
      turns.push(turn);
    } else if (role === 'tool' || role === 'function') {
      const id = str(raw['tool_call_id']) ?? (Array.isArray(raw['tool_call_ids']) ? str(raw['tool_call_ids'][0]) : null);
      const name = str(raw['name']) ?? str(raw['function']);
      // Without an id, a result answers the oldest open call of the same name.
      let target = id !== null ? open.get(id) : [...open.entries()].find(([, t]) => t.id === null && t.name === name)?.[1];
      if (id === null && target) open.delete([...open.entries()].find(([, t]) => t === target)![0]);
      if (!target) {
        // A result with no matching call: it still happened, so it is kept under its own turn.
        target = { ...emptyTool(str(raw['function']) ?? str(raw['name']) ?? '(unknown)'), id };
        if (turns.length === 0) turns.push({ model: null, tools: [] });
        turns.at(-1)!.tools.push(target);
      }
      if (id !== null) open.delete(id);
      target.result = contentText(raw['content']);
      const outcome = options.toolOutcome?.(raw) ?? {};
      const err = raw['error'];
      if (isRecord(err) || typeof err === 'string') {
        const type = isRecord(err) ? str(err['type']) : null;
        const errorType = errorTypeFrom(type, isRecord(err) ? str(err['message']) : err);
        Object.assign(target, { ok: succeededDespite(errorType), truncated: succeededDespite(errorType), sourceErrorType: type, errorType, message: isRecord(err) ? str(err['message']) : err });
      } else target.ok = true;
      Object.assign(target, outcome);
    }
  }
  return turns;
}

/** The final answer of a message list: the last assistant message that asked for no tool. */
export function lastAnswer(turns: Turn[]): string | null {
  const last = turns.at(-1);
  return last?.model && last.tools.length === 0 ? last.model.content : null;
}
