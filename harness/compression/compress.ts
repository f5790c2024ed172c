import type { ChatMessage } from '../model/types.js';

/**
 * Context compression as the seeds learned it: once the conversation is over the threshold, keep the
 * system message, the user's task and the tool-call protocol (every assistant tool call keeps its
 * matching tool message), and replace every large tool result, the latest round's included, by a
 * compact summary. It never makes the context larger. docs/harness.md, Context compression.
 */
export interface CompressionOutcome {
  messages: ChatMessage[];
  charsBefore: number;
  charsAfter: number;
  compressedResults: number;
  /** The tool call ids whose results were summarized: the trace names them so a loss can be shown. */
  compressedCallIds: string[];
}

const MIN_RESULT_CHARS = 600;
const HEAD_LINES = 5;
const TAIL_LINES = 3;
/** Lines that outline code or prose: headings, imports, declarations, and a C-style `main`. */
const STRUCTURE =
  /^\s*(#{1,6}\s|#include\s|import\s|from\s+\S+\s+import|export\s|(async\s+)?function\s|def\s|class\s|interface\s|namespace\s|type\s+\w+\s*=|struct\s|enum\s|fn\s|pub\s|package\s|func\s|(const|let|var)\s+\w+\s*[=:]|module\s|([\w*&]+\s+)*\**main\s*\()/;

export function conversationChars(messages: ChatMessage[]): number {
  let total = 0;
  for (const m of messages) {
    total += m.content?.length ?? 0;
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) total += c.function.arguments.length + c.function.name.length;
  }
  return total;
}

/** A summary of one tool result: what it was, its size, its first non-empty lines, structure lines and tail. */
export function summarizeResult(source: string, content: string): string {
  let text = content;
  try {
    const parsed = JSON.parse(content) as { result?: unknown };
    if (typeof parsed.result === 'string') text = parsed.result;
  } catch {
    // not JSON: summarize the raw text
  }
  const lines = text.split('\n');
  const headIndexes = lines.flatMap((l, i) => (l.trim() ? [i] : [])).slice(0, HEAD_LINES);
  const head = headIndexes.map((i) => lines[i]!.slice(0, 120));
  const bodyStart = (headIndexes.at(-1) ?? -1) + 1;
  const tailStart = Math.max(bodyStart, lines.length - TAIL_LINES);
  const tail = lines.length > HEAD_LINES + TAIL_LINES ? lines.slice(tailStart).map((l) => l.slice(0, 120)) : [];
  const structure = lines
    .slice(bodyStart, tail.length ? tailStart : lines.length)
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
  const compressedCallIds: string[] = [];
  const out = messages.map((m) => {
    if (m.role !== 'tool' || m.content.length < MIN_RESULT_CHARS) return m;
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
