import { llmSpans, toolAttr, toolSpans, type Trace } from '../schema/trace.js';
import { attr } from '../schema/traceVocabulary.js';
import type { ImportedFile } from './registry.js';

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
  const t = imported.traces;
  const sum = (f: (x: Trace) => number) => t.reduce((s, x) => s + f(x), 0);
  return {
    file: imported.file,
    format: imported.format,
    traces: t.length,
    model_calls: sum((x) => llmSpans(x).length),
    tool_calls: sum((x) => toolSpans(x).length),
    errors: sum((x) => toolSpans(x).filter((s) => !toolAttr(s).ok).length),
    final_answers: t.filter((x) => x.final_answer.text !== null).length,
    unknown: [...new Set(t.flatMap((x) => (x.spans[0] ? (attr(x.spans[0], 'importUnknown') ?? []) : [])))],
  };
}

export function finalAnswerCell(row: ImportRow): string {
  if (row.final_answers === row.traces) return 'yes';
  return row.final_answers === 0 ? 'no' : `${row.final_answers} of ${row.traces}`;
}
