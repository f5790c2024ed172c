import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { writeFileAtomicSync } from '../files/atomicWrite.js';
import path from 'node:path';
import { TraceSchema, type Trace } from '../schema/trace.js';
import { zodProblem } from '../files/jsonFile.js';
import { ImportError } from './importError.js';
import { unspillJson } from './spilledText.js';

/** Writes a file whole or not at all (its folder is made when missing). */
export function writeAtomic(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileAtomicSync(file, text);
}

const safe = (id: string) => id.replace(/[^A-Za-z0-9_.:-]/g, '_');

/** `<task>.e<epoch>.json`, with `-2`, `-3`… when two traces would share a name. */
export function traceFileNames(traces: Trace[], taken: Set<string> = new Set()): string[] {
  return traces.map((t) => {
    const base = `${safe(t.task_id)}.e${t.epoch}`;
    let name = `${base}.json`;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}.json`;
    taken.add(name);
    return name;
  });
}

export interface StoredTrace {
  file: string;
  trace: Trace;
}

/**
 * The traces of a folder: its `*.json` files, or its `traces/` folder when it is a report folder.
 * A file that is not a trace/v1 is bad input, named with its field.
 */
export function readTraceDir(dir: string): StoredTrace[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ImportError('BAD_FORMAT', dir, 'not a folder');
  const folder = existsSync(path.join(dir, 'report.json')) && existsSync(path.join(dir, 'traces')) ? path.join(dir, 'traces') : dir;
  const entries = readdirSync(folder, { withFileTypes: true }).filter((e) => e.name.endsWith('.json') && e.name !== 'report.json');
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const inside = realpathSync(folder) + path.sep;
  if (folder !== dir && !inside.startsWith(realpathSync(dir) + path.sep)) throw new ImportError('BAD_FORMAT', folder, 'a link to a folder outside the report folder; traces are read only from inside it');
  return entries.map((entry) => {
    const file = path.join(folder, entry.name);
    // A folder from someone else may hold links: a trace is read only from inside it (a link to
    // ~/.ssh/… or /etc/passwd would otherwise be read, and quoted in the JSON error). A plain file
    // is inside by its listing; anything else (a link, or a type the listing does not say) is
    // resolved first.
    if (!entry.isFile() && !realPath(file).startsWith(inside)) throw new ImportError('BAD_FORMAT', file, 'a link to a file outside the folder; traces are read only from inside it');
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ImportError('BAD_JSON', file, `not valid JSON (${(error as Error).message})`);
    }
    const parsed = TraceSchema.safeParse(raw);
    if (!parsed.success) throw new ImportError('BAD_FORMAT', file, `not a trace/v1 (${zodProblem(parsed.error)}); run \`tracegate import\` on it first`);
    return { file, trace: parsed.data };
  });
}

function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch (error) {
    throw new ImportError('BAD_FORMAT', file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Writes traces (redacted) as `<task>.e<epoch>.json` into `dir`; returns the file names. */
export function writeTraces(traces: Trace[], dir: string, redact: <T>(value: T) => T): string[] {
  const write = traceWriter(dir, redact);
  return traces.map(write);
}

/** Writes one trace at a time (a streamed import never holds them all), names unique across the calls. */
export function traceWriter(dir: string, redact: <T>(value: T) => T): (trace: Trace) => string {
  const taken = new Set<string>();
  return (trace) => {
    const [name] = traceFileNames([trace], taken);
    writeTraceFile(path.join(dir, name!), trace, redact);
    return name!;
  };
}

const SPANS_PLACE = '\u0000spans\u0000';

/**
 * `JSON.stringify(redact(trace), null, 1)` and a newline, written span by span: a very long trace
 * (a 200 MB import) is never one string, nor redacted whole. Whole or not at all, as writeAtomic.
 */
export function writeTraceFile(file: string, trace: Trace, redact: <T>(value: T) => T): void {
  if (trace.spans.length === 0) return writeAtomic(file, JSON.stringify(redact(trace), null, 1) + '\n');
  mkdirSync(path.dirname(file), { recursive: true });
  const frame = JSON.stringify(redact({ ...trace, spans: [SPANS_PLACE] }), null, 1);
  const place = frame.indexOf(JSON.stringify(SPANS_PLACE));
  function* chunks(): Generator<string> {
    // Spans sit two levels deep: each line of a span's own text is indented by two more spaces.
    yield frame.slice(0, place);
    for (let i = 0; i < trace.spans.length; i++) yield (i === 0 ? '' : ',\n  ') + unspillJson(JSON.stringify(redact(trace.spans[i]), null, 1), redact).replaceAll('\n', '\n  ');
    yield frame.slice(place + JSON.stringify(SPANS_PLACE).length) + '\n';
  }
  writeFileAtomicSync(file, chunks());
}
