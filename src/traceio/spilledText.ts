import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Long text a streamed import need not hold while a trace is built: a model call's input messages
 * (the whole conversation again on every call, most of a long trace's bytes) are written to a
 * temporary file as they are read and stand in the span as a short token; the trace writer puts the
 * text back (redacted) as it writes each span, and the message readers and the trace builder (a result's length
 * and preview) read it back when they need it.
 */
const TOKEN = /\u0000tg-spill:(\d+)\u0000/;
const TOKEN_IN_JSON = /"\\u0000tg-spill:(\d+)\\u0000"/g;

let store: { dir: string; fd: number; size: number; starts: number[]; lengths: number[] } | null = null;

/**
 * The attributes whose long values are spilled: input messages (read back only when a call's tool
 * results must be found in them) and a tool call's arguments and result (passed through as text).
 */
export const SPILLED_KEYS = new Set(['gen_ai.input.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']);
/** Shorter text is kept in memory (a token and its bookkeeping cost about as much). */
export const SPILL_FROM_CHARS = 1024;

/** `text` written to the spill file; the token that stands for it. */
export function spill(text: string): string {
  if (!store) {
    const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-spill-'));
    store = { dir, fd: openSync(path.join(dir, 'text'), 'w+'), size: 0, starts: [], lengths: [] };
  }
  const bytes = Buffer.from(text, 'utf8');
  writeSync(store.fd, bytes, 0, bytes.length, store.size);
  store.starts.push(store.size);
  store.lengths.push(bytes.length);
  store.size += bytes.length;
  return `\u0000tg-spill:${store.starts.length - 1}\u0000`;
}

function read(index: number): string {
  if (!store || index >= store.starts.length) throw new Error(`spilled text ${index} is gone`);
  const bytes = Buffer.allocUnsafe(store.lengths[index]!);
  readSync(store.fd, bytes, 0, bytes.length, store.starts[index]!);
  return bytes.toString('utf8');
}

/** Whether a value is a token standing for spilled text. */
export const isSpilled = (value: unknown): boolean => typeof value === 'string' && value.length <= 40 && TOKEN.exec(value)?.index === 0;

/** The text a value stands for: itself, or the spilled text when it is a token. */
export function unspill<T>(value: T): T | string {
  if (typeof value !== 'string' || value.length > 40) return value;
  const m = TOKEN.exec(value);
  return m && m.index === 0 ? read(Number(m[1])) : value;
}

/** A span's JSON text with every token put back as the JSON of its text, passed through `redact`. */
export function unspillJson(json: string, redact: <T>(value: T) => T): string {
  if (!store || !json.includes('tg-spill:')) return json;
  return json.replace(TOKEN_IN_JSON, (_, index: string) => JSON.stringify(redact(read(Number(index)))));
}

/** Removes the spill file (after the import has written its traces). */
export function dropSpilled(): void {
  if (!store) return;
  closeSync(store.fd);
  rmSync(store.dir, { recursive: true, force: true });
  store = null;
}
