import type { Trace } from '../schema/trace.js';
import { buildTrace } from './buildTrace.js';
import { ImportError } from './importError.js';
import { parseJson } from './jsonText.js';
import { forEachLine, readLineAt, type LineAt } from './lineReader.js';
import { fallbackTaskId, otelTraceConversation, type OtelSpan } from './otelSpans.js';
import { otlpSpans, requestsIn, stem } from './otlpJson.js';

/**
 * A large OTLP/JSON Lines file read in two passes so that memory holds one line and one trace, never
 * the file: the first pass checks every line and notes which lines hold each trace id; the second
 * reads the lines again and builds each trace when its first line comes, gathering its other lines
 * (an exporter that flushed one trace twice) by their places.
 */
export interface OtlpLineFile {
  file: string;
  traceIds: string[];
  /** Each trace, built in the order of its first line; handed over one at a time. */
  eachTrace(visit: (trace: Trace) => void): void;
}

function lineSpans(text: string, file: string, line: number): OtelSpan[] {
  const value = parseJson(text, file, line);
  const requests = requestsIn(value);
  if (!requests) throw new ImportError('BAD_FORMAT', `${file}:${line}`, 'not an OTLP ExportTraceServiceRequest (no resourceSpans), as the first line is');
  return requests.flatMap((r) => otlpSpans(r, `${file}:${line}`));
}

/** The first pass; throws an ImportError naming file:line for the first line that is not a request. */
export function indexOtlpLines(fd: number, file: string): OtlpLineFile {
  // Places as parallel number arrays (a few bytes a line), and per trace id the lines that hold it.
  const lineNos: number[] = [];
  const starts: number[] = [];
  const lengths: number[] = [];
  const linesOf = new Map<string, number | number[]>();
  forEachLine(fd, (text, at) => {
    const index = lineNos.length;
    lineNos.push(at.line);
    starts.push(at.start);
    lengths.push(at.length);
    for (const id of new Set(lineSpans(text, file, at.line).map((s) => s.traceId))) {
      const seen = linesOf.get(id);
      linesOf.set(id, seen === undefined ? index : Array.isArray(seen) ? [...seen, index] : [seen, index]);
    }
  });
  if (linesOf.size === 0) throw new ImportError('EMPTY', file, 'otlp-json: no trace in the file');
  const placeOf = (i: number): LineAt => ({ line: lineNos[i]!, start: starts[i]!, length: lengths[i]! });
  const spansAt = (i: number) => lineSpans(readLineAt(fd, placeOf(i)), file, lineNos[i]!);
  const many = linesOf.size > 1;
  const fileStem = stem(file);
  return {
    file,
    traceIds: [...linesOf.keys()],
    eachTrace(visit) {
      for (let i = 0; i < lineNos.length; i++) {
        const byTrace = new Map<string, OtelSpan[]>();
        for (const s of spansAt(i)) {
          const list = byTrace.get(s.traceId);
          if (list) list.push(s);
          else byTrace.set(s.traceId, [s]);
        }
        for (const [id, spans] of byTrace) {
          const lines = linesOf.get(id)!;
          if (Array.isArray(lines)) {
            if (lines[0] !== i) continue; // built at its first line
            for (const j of lines.slice(1)) spans.push(...spansAt(j).filter((s) => s.traceId === id));
          }
          visit(buildTrace(otelTraceConversation(id, spans, 'otlp-json', fallbackTaskId(fileStem, id, many))));
        }
      }
    },
  };
}
