import { buildTrace } from './buildTrace.js';
import { ImportError } from './importError.js';
import { otlpJson } from './otlpJson.js';
import { sniffInput, type ImportedFile } from './formats.js';

/** Formats whose files can be read as one: every part is an OTLP request. */
const MERGEABLE = new Set(['otlp-json']);

export interface SplitResult {
  imported: ImportedFile[];
  /** One line per trace split across files that could not be merged. */
  warnings: string[];
}

/**
 * Files of one import that share a trace id hold parts of one trace (an exporter that rotates files,
 * a collector that flushed twice). OTLP parts are read together into one trace per id; other formats
 * keep one trace per part and say so.
 */
export function mergeSplitTraces(imported: ImportedFile[], bytesOf: (file: string) => Uint8Array): SplitResult {
  // Files that share a trace id, grouped transitively.
  const group = new Map<number, number>();
  const find = (i: number): number => (group.get(i) === undefined || group.get(i) === i ? i : find(group.get(i)!));
  const owner = new Map<string, number>();
  imported.forEach((f, i) => {
    group.set(i, i);
    for (const t of f.traces) {
      const j = owner.get(t.trace_id);
      if (j === undefined) owner.set(t.trace_id, i);
      else if (find(j) !== find(i)) group.set(find(i), find(j));
    }
  });
  const groups = new Map<number, number[]>();
  imported.forEach((_, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), i]));

  const out: ImportedFile[] = [];
  const warnings: string[] = [];
  for (const members of groups.values()) {
    const files = members.map((i) => imported[i]!);
    if (files.length === 1) {
      out.push(files[0]!);
      continue;
    }
    const names = files.map((f) => f.file).join(' + ');
    if (files.every((f) => MERGEABLE.has(f.format))) {
      const requests = files.flatMap((f) => {
        const input = sniffInput(bytesOf(f.file), f.file);
        return input.jsonLines ?? [input.json];
      });
      const conversations = otlpJson.parse({ fileName: files[0]!.file, bytes: new Uint8Array(), json: undefined, jsonLines: requests });
      if (conversations.length === 0) throw new ImportError('EMPTY', names, 'no trace in the files');
      out.push({ file: names, format: files[0]!.format, traces: conversations.map(buildTrace) });
    } else {
      const shared = [...new Set(files.flatMap((f) => f.traces.map((t) => t.trace_id)).filter((id) => files.filter((f) => f.traces.some((t) => t.trace_id === id)).length > 1))];
      warnings.push(`trace ${shared.join(', ')} is split across ${names}: each part is imported as its own trace (put the parts in one file to import it whole)`);
      out.push(...files);
    }
  }
  return { imported: out, warnings };
}
