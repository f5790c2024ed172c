import { readSync } from 'node:fs';
import { JSONParser } from '@streamparser/json';
import type { Trace } from '../schema/trace.js';
import { buildTraceConsuming } from './buildTrace.js';
import { ImportError } from './importError.js';
import { fallbackTaskId, otelTraceConversation, type OtelSpan } from './otelSpans.js';
import { otlpSpans, stem } from './otlpJson.js';
import { dropSpilled, spill, SPILL_FROM_CHARS, SPILLED_KEYS } from './spilledText.js';

/** Bytes handed to the streaming parser per step. */
const CHUNK = 1 << 20;

/** Where the spans of one OTLP/JSON request sit (camelCase per the spec, the proto's snake_case, OTLP 0.x, Jaeger v3's `{result}`). */
const SPAN_PATHS = [
  '$.resourceSpans.*.scopeSpans.*.spans.*',
  '$.resourceSpans.*.instrumentationLibrarySpans.*.spans.*',
  '$.resource_spans.*.scope_spans.*.spans.*',
  '$.result.resourceSpans.*.scopeSpans.*.spans.*',
];

/**
 * A large single OTLP/JSON document (one request holding a very long trace, or many traces) read by a
 * streaming JSON parser: the file's text and its parsed tree are never in memory, only each span as it
 * is converted (its attributes as plain values) and, per trace id, the spans converted so far, their
 * long input messages spilled to a temporary file (spilledText.ts) until the trace is written.
 */
export interface OtlpDocument {
  file: string;
  traceIds: string[];
  /** Each trace, in the order its first span came; the spans of a trace are let go once it is built. */
  eachTrace(visit: (trace: Trace) => void): void;
  /** Removes the temporary file of spilled text (call once the traces are written). */
  close(): void;
}

/** Whether a file's head opens an OTLP request: `{` then `resourceSpans` (or its snake case, or Jaeger v3's `result`) before any other value. */
export function opensOtlpRequest(head: string): boolean {
  return /^\s*\{\s*"(resourceSpans|resource_spans)"\s*:\s*\[/.test(head) || /^\s*\{\s*"result"\s*:\s*\{\s*"resourceSpans"\s*:\s*\[/.test(head);
}

/** Streams `fd` to its end; throws an ImportError naming the file and byte offset when it is not JSON. */
export function streamOtlpDocument(fd: number, file: string): OtlpDocument {
  const byTrace = new Map<string, OtelSpan[]>();
  let count = 0;
  let problem: ImportError | null = null;
  const parser = new JSONParser({ paths: SPAN_PATHS, keepStack: false });
  parser.onValue = ({ value }) => {
    if (problem) return;
    try {
      // One span at a time through the same conversion as a whole request.
      for (const span of otlpSpans({ resourceSpans: [{ scopeSpans: [{ spans: [value] }] }] }, `${file}: span ${count + 1}`)) {
        for (const key of SPILLED_KEYS) {
          const text = span.attributes[key];
          if (typeof text === 'string' && text.length >= SPILL_FROM_CHARS) span.attributes[key] = spill(text);
        }
        const list = byTrace.get(span.traceId);
        if (list) list.push(span);
        else byTrace.set(span.traceId, [span]);
      }
      count++;
    } catch (error) {
      problem = error instanceof ImportError ? error : new ImportError('BAD_FORMAT', file, (error as Error).message);
    }
  };
  const chunk = Buffer.allocUnsafe(CHUNK);
  let position = 0;
  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, CHUNK, position);
      if (n === 0) break;
      // A byte order mark is not JSON.
      const bytes = position === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3, n) : chunk.subarray(0, n);
      position += n;
      parser.write(bytes);
      if (problem) throw problem;
    }
    if (!parser.isEnded) parser.end();
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError('BAD_JSON', file, `not valid JSON near byte ${position} (${(error as Error).message.split('\n')[0]})`);
  }
  if (problem) throw problem;
  if (byTrace.size === 0) throw new ImportError('EMPTY', file, 'otlp-json: no trace in the file');
  const many = byTrace.size > 1;
  const fileStem = stem(file);
  return {
    file,
    traceIds: [...byTrace.keys()],
    eachTrace(visit) {
      for (const id of [...byTrace.keys()]) {
        const spans = byTrace.get(id)!;
        byTrace.delete(id);
        const conversation = otelTraceConversation(id, spans, 'otlp-json', fallbackTaskId(fileStem, id, many));
        spans.length = 0; // the spans as read go before the trace is built from its conversation
        visit(buildTraceConsuming(conversation));
      }
    },
    close: dropSpilled,
  };
}
