/**
 * One copy of the short strings a large import repeats on every span (trace and parent ids, span
 * names, model, tool and operation names): a JSON parser makes a new string for each value it reads,
 * so 100,000 spans would hold 100,000 copies of "gpt-4o" (a third of a long trace's strings). The
 * table is bounded and starts over when full, so a long stream of distinct values (span ids, times)
 * never grows it, and a live receiver that reads spans all run long keeps it small.
 */
const MAX_LENGTH = 64;
const MAX_ENTRIES = 8192;
const table = new Map<string, string>();

export function interned(text: string): string {
  if (text.length > MAX_LENGTH) return text;
  const seen = table.get(text);
  if (seen !== undefined) return seen;
  if (table.size >= MAX_ENTRIES) table.clear();
  table.set(text, text);
  return text;
}
