import { ImportError } from './importError.js';

/** Integers with more digits than a double holds exactly are kept as their decimal text. */
const SAFE_DIGITS = 15;

/**
 * Quotes every integer literal too long for a double (outside strings), so JSON.parse keeps its
 * digits: span ids that SDK exporters print as big integers survive as decimal strings.
 */
export function quoteBigIntegers(text: string): string {
  // A number literal follows `:`, `[` or `,`; most files have no long one and skip the scan.
  if (!/[:[,]\s*-?\d{16}/.test(text)) return text;
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i += 2;
        else if (d === 34) break;
        else i++;
      }
      i++;
    } else if ((c >= 48 && c <= 57) || c === 45 /* - */) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) i++;
        else break;
      }
      const literal = text.slice(start, i);
      if (/^-?\d+$/.test(literal) && literal.replace('-', '').length > SAFE_DIGITS) {
        out += text.slice(last, start) + `"${literal}"`;
        last = i;
      }
    } else i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Parses JSON text without losing the digits of big integers; a syntax error names the file. */
export function parseJson(text: string, fileName: string, line?: number): unknown {
  const quoted = quoteBigIntegers(text);
  try {
    return JSON.parse(quoted);
  } catch (error) {
    // A bad line of a JSON Lines file is named as file:line; in a whole file, V8's character position becomes line and column.
    const message = (error as Error).message;
    const at = line === undefined ? /at position (\d+)/.exec(message) : null;
    const where = at ? ` at line ${lineColumn(quoted, Number(at[1]))}` : '';
    throw new ImportError('BAD_JSON', line !== undefined ? `${fileName}:${line}` : fileName, `not valid JSON${where} (${message})`);
  }
}

/** `line, column` (both from 1) of a character offset. */
function lineColumn(text: string, offset: number): string {
  let lineNo = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    lineNo++;
    start = i + 1;
  }
  return `${lineNo}, column ${offset - start + 1}`;
}

/** JSON Lines: one value per non-empty line. */
export function parseJsonLines(text: string, fileName: string): unknown[] {
  const out: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line) out.push(parseJson(line, fileName, i + 1));
  }
  return out;
}

/**
 * The file's text: UTF-8, or UTF-16 as Windows tools save JSON (PowerShell's `Out-File`, Notepad's
 * "Unicode"), told by its byte order mark or, without one, by the zero byte beside the first `{`/`[`.
 * A BOM is dropped.
 */
export function textOf(bytes: Uint8Array): string {
  const text = new TextDecoder(encodingOf(bytes)).decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function encodingOf(b: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' {
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b.length >= 2 && b[1] === 0 && b[0] !== 0) return 'utf-16le';
  if (b.length >= 2 && b[0] === 0 && b[1] !== 0) return 'utf-16be';
  return 'utf-8';
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
/** Any value as text for an attribute: strings as they are, the rest as JSON. */
export const asText = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));

/** Several JSON values one after another (what a console exporter prints): each parsed, in order. */
export function parseJsonStream(text: string, fileName: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0 && start >= 0) {
        out.push(parseJson(text.slice(start, i + 1), fileName));
        start = -1;
      }
      if (depth < 0) throw new ImportError('BAD_JSON', fileName, 'unbalanced brackets');
    } else if (depth === 0 && !/\s|,/.test(c!)) {
      throw new ImportError('BAD_JSON', fileName, `not JSON: unexpected ${JSON.stringify(c)} at offset ${i}`);
    }
  }
  if (depth !== 0) throw new ImportError('BAD_JSON', fileName, 'the JSON ends in the middle of a value');
  return out;
}
