import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { ImportError } from './importError.js';
import { parseJson } from './jsonText.js';
import { requestsIn } from './otlpJson.js';
import { opensOtlpRequest, streamOtlpDocument, type OtlpDocument } from './otlpDocument.js';
import { indexOtlpLines, type OtlpLineFile } from './otlpLines.js';
import type { FormatName } from './formatNames.js';
import { MAX_FILE_BYTES, parseTraces, type ImportedFile } from './formats.js';

/**
 * From this size OTLP/JSON is streamed: JSON Lines in two passes (one line and one trace in memory),
 * a single request by a streaming parser (span by span; the file's text is never in memory).
 */
export const STREAM_FROM_BYTES = 8 * 1024 * 1024;
/** The longest first line looked at to tell a streamable file. */
const FIRST_LINE_BYTES = 4 * 1024 * 1024;

/** A file to import: read whole (its traces in memory), or streamed (its traces built one at a time). */
export type TraceInput = { kind: 'whole'; imported: ImportedFile } | { kind: 'streamed'; lines: OtlpLineFile | OtlpDocument; close: () => void };

/**
 * Opens one file for import. Its size is checked before a byte is read (a 3 GB file is refused at
 * once, never loaded); large OTLP/JSON files (JSON Lines or one request) are streamed; every other
 * file is read whole.
 */
export function openTraceInput(file: string, format: FormatName | 'auto'): TraceInput {
  // The same rule as an agent's trace file: a regular file only (a FIFO would hang the read, /dev/zero never end).
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) throw new ImportError('NOT_A_FILE', file, 'no such file');
  if (!stat.isFile()) throw new ImportError('NOT_A_FILE', file, `${stat.isDirectory() ? 'a directory' : stat.isFIFO() ? 'a FIFO' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : 'not a regular file'}, not a regular file`);
  const size = stat.size;
  if (size > MAX_FILE_BYTES) throw new ImportError('TOO_LARGE', file, `${size} bytes is more than the ${MAX_FILE_BYTES} an import reads`);
  if (size >= STREAM_FROM_BYTES && (format === 'auto' || format === 'otlp-json')) {
    const fd = openSync(file, 'r');
    let streamed = false;
    try {
      if (firstLineIsRequest(fd, file)) {
        streamed = true;
        return { kind: 'streamed', lines: indexOtlpLines(fd, file), close: () => closeSync(fd) };
      }
      if (opensOtlpRequest(headText(fd))) {
        // Read to its end here (every file is checked before anything is written); the fd is not needed after.
        const document = streamOtlpDocument(fd, file);
        return { kind: 'streamed', lines: document, close: () => document.close() };
      }
    } finally {
      if (!streamed) closeSync(fd);
    }
  }
  return { kind: 'whole', imported: parseTraces(readFileSync(file), file, format) };
}

/** The file's first bytes as text (a byte order mark dropped). */
function headText(fd: number): string {
  const head = Buffer.allocUnsafe(4096);
  const n = readSync(fd, head, 0, head.length, 0);
  return head.subarray(head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0, n).toString('utf8');
}

/** Whether the file's first line is one whole OTLP request (then the file is OTLP/JSON Lines). */
function firstLineIsRequest(fd: number, file: string): boolean {
  const head = Buffer.allocUnsafe(FIRST_LINE_BYTES);
  const n = readSync(fd, head, 0, FIRST_LINE_BYTES, 0);
  const newline = head.subarray(0, n).indexOf(10);
  if (newline === -1) return false;
  const first = head.subarray(head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0, newline).toString('utf8').trim();
  if (!first.startsWith('{')) return false;
  try {
    return requestsIn(parseJson(first, file, 1)) !== null;
  } catch {
    return false; // not a value by itself: a pretty-printed JSON file, read whole
  }
}
