import { llmSpans, toolAttr, toolSpans, type Trace } from '../schema/trace.js';
import { attr } from '../schema/traceVocabulary.js';
import type { ImportedFile } from './formats.js';

export interface ImportRow {
  file: string;
  format: string;
  traces: number;
  model_calls: number;
  tool_calls: number;
  errors: number;
  /** How many of the file's traces have a final answer. */
  final_answers: number;
  /** What the format could not tell, across the file's traces. */
  unknown: string[];
}

export function importRow(imported: ImportedFile): ImportRow {
  const row = importRowOf(imported.file, imported.format);
  imported.traces.forEach(row.add);
  return row.row();
}

/** A file's row counted trace by trace, for a streamed file whose traces are never all in memory. */
export function importRowOf(file: string, format: string): { add: (trace: Trace) => void; row: () => ImportRow } {
  const out: ImportRow = { file, format, traces: 0, model_calls: 0, tool_calls: 0, errors: 0, final_answers: 0, unknown: [] };
  const unknown = new Set<string>();
  return {
    add: (x) => {
      const tools = toolSpans(x);
      out.traces++;
      out.model_calls += llmSpans(x).length;
      out.tool_calls += tools.length;
      out.errors += tools.filter((s) => !toolAttr(s).ok).length;
      if (x.final_answer.text !== null) out.final_answers++;
      for (const u of x.spans[0] ? (attr(x.spans[0], 'importUnknown') ?? []) : []) unknown.add(u);
    },
    row: () => ({ ...out, unknown: [...unknown] }),
  };
}

export function finalAnswerCell(row: ImportRow): string {
  if (row.final_answers === row.traces) return 'yes';
  return row.final_answers === 0 ? 'no' : `${row.final_answers} of ${row.traces}`;
}
