import type { ChatMessage } from '../model/types.js';

/**
 * Context compression as the seeds learned it: keep the system message, the user's task and the
 * tool-call protocol (every assistant tool call keeps its matching tool message), and replace large
 * old tool results by a compact summary. It never makes the context larger.
 */
export interface CompressionOutcome {
  messages: ChatMessage[];
  charsBefore: number;
  charsAfter: number;
  compressedResults: number;
  /** The tool call ids whose results were summarized: the trace names them so a loss can be shown. */
  compressedCallIds: string[];
}

const KEEP_RECENT_RESULTS = 2;
const MIN_RESULT_CHARS = 600;
const STRUCTURE = /^\s*(#{1,6}\s|import\s|from\s+\S+\s+import|export\s|(async\s+)?function\s|def\s|class\s|interface\s|type\s+\w+\s*=|struct\s|enum\s|fn\s|pub\s|package\s|func\s|const\s+\w+\s*=|module\s)/;

export function conversationChars(messages: ChatMessage[]): number {
  let total = 0;
  for (const m of messages) {
    total += m.content?.length ?? 0;
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) total += c.function.arguments.length + c.function.name.length;
  }
  return total;
}

/** A summary of one tool result: what it was, its size, head, structure lines and tail. */
export function summarizeResult(source: string, content: string): string {
  let text = content;
  try {
    const parsed = JSON.parse(content) as { result?: unknown };
    if (typeof parsed.result === 'string') text = parsed.result;
  } catch {
    // not JSON: summarize the raw text
  }
  const lines = text.split('\n');
  const head = lines.slice(0, 5).map((l) => l.slice(0, 120));
  const tail = lines.length > 8 ? lines.slice(-3).map((l) => l.slice(0, 120)) : [];
  const structure = lines
    .slice(5, lines.length - 3)
    .filter((l) => STRUCTURE.test(l))
    .slice(0, 12)
    .map((l) => l.trim().slice(0, 100));
  return [
    `[compressed tool result] ${source}: ${text.length} characters, ${lines.length} lines.`,
    'head:', ...head,
    ...(structure.length ? ['structure:', ...structure] : []),
    ...(tail.length ? ['tail:', ...tail] : []),
    '(call the tool again for the full content)',
  ].join('\n');
}

export function compressConversation(messages: ChatMessage[], threshold: number): CompressionOutcome | null {
  const charsBefore = conversationChars(messages);
  if (charsBefore <= threshold) return null;

  const sources = new Map<string, string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) sources.set(c.id, `${c.function.name} ${c.function.arguments.slice(0, 200)}`);
  }
  const toolIndexes = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  const compressible = new Set(toolIndexes.slice(0, Math.max(0, toolIndexes.length - KEEP_RECENT_RESULTS)));

  const compressedCallIds: string[] = [];
  const out = messages.map((m, i) => {
    if (m.role !== 'tool' || !compressible.has(i) || m.content.length < MIN_RESULT_CHARS) return m;
    if (m.content.startsWith('[compressed tool result]')) return m;
    const summary = summarizeResult(sources.get(m.tool_call_id) ?? 'tool result', m.content);
    if (summary.length >= m.content.length) return m;
    compressedCallIds.push(m.tool_call_id);
    return { ...m, content: summary };
  });
  const charsAfter = conversationChars(out);
  if (compressedCallIds.length === 0 || charsAfter >= charsBefore) return null;
  return { messages: out, charsBefore, charsAfter, compressedResults: compressedCallIds.length, compressedCallIds };
}
