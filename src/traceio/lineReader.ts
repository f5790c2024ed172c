import { readSync } from 'node:fs';

/** Bytes read per step: memory stays at one chunk plus the longest line. */
const CHUNK = 1 << 20;

export interface LineAt {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte, and its length (newline excluded). */
  start: number;
  length: number;
}

/**
 * Every non-blank line of an open UTF-8 file, in order, read chunk by chunk: the file is never whole
 * in memory. A byte order mark on the first line is dropped. `visit` gets the line's text and place.
 */
export function forEachLine(fd: number, visit: (text: string, at: LineAt) => void): void {
  const chunk = Buffer.allocUnsafe(CHUNK);
  const decoder = new TextDecoder('utf-8');
  let carry: Buffer = Buffer.alloc(0);
  let carryStart = 0;
  let position = 0;
  let line = 0;
  const emit = (bytes: Buffer, start: number) => {
    line++;
    let text = decoder.decode(bytes);
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() !== '') visit(text.endsWith('\r') ? text.slice(0, -1) : text, { line, start, length: bytes.length });
  };
  for (;;) {
    const n = readSync(fd, chunk, 0, CHUNK, position);
    if (n === 0) break;
    let from = 0;
    for (let nl = chunk.indexOf(10, 0); nl !== -1 && nl < n; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      if (carry.length > 0) {
        emit(Buffer.concat([carry, piece]), carryStart);
        carry = Buffer.alloc(0);
      } else emit(piece, position + from);
      from = nl + 1;
    }
    if (from < n) {
      if (carry.length === 0) carryStart = position + from;
      carry = Buffer.concat([carry, chunk.subarray(from, n)]);
    }
    position += n;
  }
  if (carry.length > 0) emit(carry, carryStart);
}

/** One line again, by the place forEachLine gave it. */
export function readLineAt(fd: number, at: LineAt): string {
  const bytes = Buffer.allocUnsafe(at.length);
  readSync(fd, bytes, 0, at.length, at.start);
  const text = new TextDecoder('utf-8').decode(bytes);
  const clean = at.line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return clean.endsWith('\r') ? clean.slice(0, -1) : clean;
}
