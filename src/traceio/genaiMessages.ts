import { contentText, toolCallsOf } from './chatMessages.js';
import { unspill } from './spilledText.js';
import { asText, isRecord, str } from './jsonText.js';

/** A tool call a model asked for, as a message says it (no span of its own needed). */
export interface RequestedCall {
  id: string | null;
  name: string;
  arguments: string | null;
}

/** What a model span's messages tell: the reply text and the calls it asked for (output side), or the tool results it was given, by call id (input side). */
export interface SpanMessages {
  content: string | null;
  calls: RequestedCall[];
  results: Map<string, string | null>;
}

type Rec = Record<string, unknown>;
type SpanEventLike = { name: string; attributes: Record<string, unknown> };

const parsed = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
};
const list = (v: unknown): unknown[] => {
  const p = parsed(unspill(v));
  return Array.isArray(p) ? p : isRecord(p) ? [p] : [];
};

/** One message in either shape: GenAI `{role, parts: [{type: text|tool_call|tool_call_response}]}` or OpenAI `{role, content, tool_calls}`. */
function readMessage(m: Rec, into: SpanMessages, output: boolean): void {
  if (Array.isArray(m['parts'])) {
    for (const p of m['parts'].filter(isRecord)) {
      if (p['type'] === 'text' && typeof p['content'] === 'string' && output) into.content = (into.content ?? '') + p['content'];
      else if (p['type'] === 'tool_call' && output) into.calls.push({ id: str(p['id']), name: str(p['name']) ?? '(unnamed)', arguments: asText(p['arguments']) });
      else if (p['type'] === 'tool_call_response' && str(p['id'])) into.results.set(str(p['id'])!, asText(p['response'] ?? p['result']));
    }
    return;
  }
  const role = m['role'];
  if ((role === 'tool' || role === 'function') && str(m['tool_call_id'] ?? m['id'])) into.results.set(str(m['tool_call_id'] ?? m['id'])!, contentText(m['content']) ?? asText(m['content']));
  else if (output) {
    const text = contentText(m['content']);
    if (text !== null) into.content = (into.content ?? '') + text;
    into.calls.push(...toolCallsOf({ ...m, tool_calls: parsed(m['tool_calls']) }));
  }
}

/** A span event's body: one JSON attribute (`gen_ai.event.content`, `body`) or the attributes themselves. */
function eventBody(attributes: Record<string, unknown>): Rec {
  const whole = parsed(attributes['gen_ai.event.content'] ?? attributes['body']);
  return isRecord(whole) ? whole : attributes;
}

/**
 * The messages of a model span from every GenAI convention: `gen_ai.input/output.messages` attributes,
 * the `gen_ai.client.inference.operation.details` event, per-message events (`gen_ai.choice`,
 * `gen_ai.tool.message`, …) and the older `gen_ai.content.prompt/completion` events.
 */
export function spanMessages(attributes: Record<string, unknown>, events: SpanEventLike[], side: 'output' | 'input'): SpanMessages {
  const out: SpanMessages = { content: null, calls: [], results: new Map() };
  // Input messages repeat the whole conversation on every call: they are parsed only when asked for.
  const wantIn = side === 'input';
  const wantOut = side === 'output';
  const inputs: unknown[] = wantIn ? [...list(attributes['gen_ai.input.messages'])] : [];
  const outputs: unknown[] = wantOut ? [...list(attributes['gen_ai.output.messages'])] : [];
  for (const e of events) {
    const a = e.attributes;
    if (e.name === 'gen_ai.client.inference.operation.details') {
      if (wantIn) inputs.push(...list(a['gen_ai.input.messages']));
      if (wantOut) outputs.push(...list(a['gen_ai.output.messages']));
    } else if (e.name === 'gen_ai.content.prompt') {
      if (wantIn) inputs.push(...list(a['gen_ai.prompt']));
    } else if (e.name === 'gen_ai.tool.message') {
      const body = eventBody(a);
      if (wantIn) inputs.push({ role: 'tool', tool_call_id: str(body['id']) ?? str(body['tool_call_id']), content: body['content'] });
    } else if (!wantOut) continue;
    else if (e.name === 'gen_ai.content.completion') {
      const c = parsed(a['gen_ai.completion']);
      if (typeof c === 'string') outputs.push({ role: 'assistant', content: c });
      else outputs.push(...list(c));
    } else if (e.name === 'gen_ai.choice') {
      const body = eventBody(a);
      const message = parsed(body['message']);
      const m: Rec = isRecord(message) ? { ...message } : { content: str(body['message.content']) ?? str(body['content']) };
      // tool_calls sit in the message (OpenAI instrumentation) or beside it (the event's body as specified).
      if (m['tool_calls'] === undefined && body['tool_calls'] !== undefined) m['tool_calls'] = parsed(body['tool_calls']);
      outputs.push({ role: 'assistant', ...m });
    }
  }
  for (const m of inputs) if (isRecord(m)) readMessage(m, out, false);
  for (const m of outputs) if (isRecord(m)) readMessage(m, out, true);
  return out;
}
