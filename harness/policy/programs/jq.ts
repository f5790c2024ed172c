import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { allow, ask, type Decision } from '../decision.js';
import type { ShellWord } from '../shellSyntax.js';
import type { InspectContext, Inspection, ProgramCheck } from './types.js';

/**
 * jq reads files of its own choosing through module directives: `import "PATH" as NAME;` (a `.jq`
 * module, or `PATH.json` data for `as $NAME`) and `include "PATH";`, searched along `-L DIR` (which
 * replaces the built-in list `~/.jq`, `$ORIGIN/../lib/jq`, `$ORIGIN/../lib`) or a directive's own
 * `{search: …}` metadata, absolute paths included. A module read this way may import more. The
 * directives stand only at the head of a program (jq's grammar takes them nowhere else), so the
 * policy reads that head the way jq does and allows a directive only when every file it can reach
 * is inside the workspace and not a secret; what it cannot read with certainty asks.
 */

/** Options whose value is the next word (jq's own parser: exact names only, no abbreviations). */
const VALUE_OPTIONS = new Set(['--indent']);
/** Options that take a name and a value: `--arg NAME TEXT`, `--slurpfile NAME FILE`. */
const NAMED_VALUE = new Set(['--arg', '--argjson', '--slurpfile', '--rawfile', '--argfile']);
const FILE_VALUE = new Set(['--slurpfile', '--rawfile', '--argfile']);
const MAX_MODULE_DEPTH = 8;

export const inspectJq: ProgramCheck = (cmd, ctx) => {
  const decisions: Decision[] = [];
  const pathArgs: ShellWord[] = [];
  const libraryDirs: string[] = [];
  const positional: ShellWord[] = [];
  let fromFile = false;
  let restAreText = false;
  let endOfOptions = false;
  const args = cmd.args;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const v = word.value;
    if (v === null) {
      // A word with no fixed value may be an option (`-L DIR`) or the filter itself.
      decisions.push(ask('unprovable-argument', `jq ${word.text}: an argument with no fixed value`));
      continue;
    }
    if (endOfOptions || !v.startsWith('-') || v === '-') {
      positional.push(word);
      continue;
    }
    if (v === '--') {
      endOfOptions = true;
      continue;
    }
    if (v === '--args' || v === '--jsonargs') {
      restAreText = true;
      continue;
    }
    if (v === '--from-file') {
      fromFile = true;
      continue;
    }
    // `-L DIR`, `-LDIR`, `--library-path DIR`, `--library-path=DIR` (and any spelling jq might read as one).
    if (v.startsWith('-L') || v.startsWith('--library-path') || /^--l/.test(v)) {
      const inline = v.startsWith('-L') ? v.slice(2) : v.includes('=') ? v.slice(v.indexOf('=') + 1) : '';
      const dirWord = inline !== '' ? { ...word, value: inline.replace(/^=/, '') } : args[++i];
      if (dirWord === undefined || dirWord.value === null || dirWord.glob) decisions.push(ask('jq-module-path', `jq ${v}: a module folder with no fixed value`));
      else {
        libraryDirs.push(dirWord.value);
        pathArgs.push(dirWord);
      }
      continue;
    }
    if (NAMED_VALUE.has(v)) {
      const file = args[i + 2];
      if (FILE_VALUE.has(v) && file !== undefined) pathArgs.push(file);
      i += 2;
      continue;
    }
    if (VALUE_OPTIONS.has(v)) {
      i++;
      continue;
    }
    // Short flags bundle (`-nr`); `f` among them reads the filter from the first file operand.
    if (!v.startsWith('--') && v.slice(1).includes('f')) fromFile = true;
  }

  const [first, ...rest] = positional;
  if (first === undefined) return { decisions, pathArgs };
  // The filter is program text, not a path; with --args/--jsonargs the other operands are text too.
  if (fromFile) pathArgs.push(first);
  if (!restAreText) pathArgs.push(...rest);

  // jq opens the -f file and the -L folders from the folder it runs in (`cd lib && jq -L . …`):
  // the directives are followed from every folder the command may be in.
  for (const cwd of ctx.folders.length > 0 ? ctx.folders : [ctx.root]) {
    let program: string | null = null;
    let origin: string | undefined;
    if (!fromFile) program = first.value;
    else if (first.value !== null && ctx.checkPath(first.value).decision === 'allow') {
      const file = path.resolve(cwd, first.value);
      if (ctx.namedElsewhere?.(first.value)) decisions.push(ask('jq-module-path', `jq -f ${first.value}: the command may write its program before jq reads it`));
      else {
        program = readText(file);
        origin = path.dirname(file);
      }
    }
    if (program !== null) decisions.push(...moduleReads(program, { ctx, cwd, libraryDirs, base: origin, depth: 0, seen: new Set() }));
  }
  return { decisions, pathArgs } satisfies Inspection;
};

interface ModuleScope {
  ctx: InspectContext;
  /** The folder jq runs in: relative -L folders and module paths are opened from there. */
  cwd: string;
  /** `-L` folders as written (relative to the current folder); empty: jq's built-in list. */
  libraryDirs: string[];
  /** The folder of the file the text came from (a module's relative search paths start there); undefined: the command line. */
  base: string | undefined;
  depth: number;
  seen: Set<string>;
}

function readText(file: string): string | null {
  try {
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > 1_000_000) return null;
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** What the module directives at the head of a jq program may read, as decisions. */
function moduleReads(program: string, scope: ModuleScope): Decision[] {
  // Quick exit for the ordinary filter: no directive word, no module loading at run time.
  if (!/\b(import|include|modulemeta)\b/.test(program)) return [];
  const head = readDirectives(program);
  if ('unreadable' in head) return [ask('jq-module-path', `jq program: ${head.unreadable}, so the files it loads cannot be checked`)];
  // `"NAME" | modulemeta` loads a module named by data, known only when it runs.
  if (/(^|[^.$\w])modulemeta\b/.test(stripStrings(program.slice(head.end)))) {
    return [ask('jq-module-path', 'jq modulemeta loads a module whose name is known only when it runs')];
  }
  const decisions: Decision[] = [];
  for (const d of head.directives) decisions.push(...directiveReads(d, scope));
  return decisions;
}

interface Directive {
  kind: 'import' | 'include';
  path: string;
  data: boolean;
  /** `{search: …}` metadata: the folders to search instead of the default list. */
  search: string[] | undefined;
}

function directiveReads(d: Directive, scope: ModuleScope): Decision[] {
  const { ctx } = scope;
  const what = `jq ${d.kind} "${d.path}"`;
  const outside = (p: string) => ask('jq-module-path', `${what}: searches ${p}, which may be outside the workspace (give a workspace folder with -L or {search: "./DIR"})`);
  if (d.path.startsWith('~') || d.path.startsWith('$ORIGIN')) return [outside(d.path)];
  // jq searches the directive's own `search` folders first, then the -L folders (or its built-in list),
  // and loads the first match; a module's relative search paths start at its folder.
  const fromMeta = (d.search ?? []).map((dir) => (scope.base !== undefined && !path.isAbsolute(dir) && !dir.startsWith('~') && !dir.startsWith('$ORIGIN') ? path.resolve(scope.base, dir) : dir));
  const dirs = path.isAbsolute(d.path) ? ['/'] : [...fromMeta, ...(scope.libraryDirs.length > 0 ? scope.libraryDirs : ['~/.jq', '$ORIGIN/../lib/jq', '$ORIGIN/../lib'])];
  const ext = d.data ? '.json' : '.jq';
  for (const dir of dirs) {
    if (dir.startsWith('~') || dir.startsWith('$ORIGIN')) return [outside(dir)];
    const joined = path.join(dir, d.path);
    // jq reads PATH.jq, or PATH/LAST.jq for a folder (PATH.json, PATH/LAST.json for data).
    const candidates = [`${joined}${ext}`, path.join(joined, `${path.basename(joined)}${ext}`)];
    for (const candidate of [joined, ...candidates]) {
      const decided = ctx.checkPath(candidate);
      if (decided.decision !== 'allow') return [{ ...decided, reason: `${what}: ${decided.reason}` }];
      if (ctx.namedAnywhere?.(candidate)) return [ask('jq-module-path', `${what}: the command may write ${candidate} before jq loads it`)];
    }
    const found = candidates.map((c) => path.resolve(scope.cwd, c)).find((c) => lstatSync(c, { throwIfNoEntry: false })?.isFile());
    if (found === undefined) continue;
    if (d.data || scope.seen.has(found)) return [allow('jq-module-inside', `${what} loads a file inside the workspace`)];
    if (scope.depth >= MAX_MODULE_DEPTH) return [ask('jq-module-path', `${what}: modules nest deeper than ${MAX_MODULE_DEPTH}`)];
    scope.seen.add(found);
    const text = readText(found);
    if (text === null) return [ask('jq-module-path', `${what}: ${path.relative(ctx.root, found)} cannot be read to check its own directives`)];
    return [allow('jq-module-inside', `${what} loads a file inside the workspace`), ...moduleReads(text, { ...scope, base: path.dirname(found), depth: scope.depth + 1 })];
  }
  // Not found anywhere jq looks: it stops with "module not found", having read nothing.
  return [allow('jq-module-inside', `${what} is found nowhere jq looks`)];
}

/** The program text with every string literal's contents removed (so a field named "include" is no directive). */
function stripStrings(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"/gs, '""').replace(/#[^\n]*/g, '');
}

type Head = { directives: Directive[]; end: number } | { unreadable: string };

/**
 * Reads `module META;`, then `import "P" as [$]NAME [META];` / `include "P" [META];` as jq's lexer
 * and grammar do, up to the first other token. A comment ends at the newline; one ending in a
 * backslash (which newer jq continues onto the next line) is not read, nor a string with `\(`.
 */
function readDirectives(text: string): Head {
  let i = 0;
  const directives: Directive[] = [];
  const skip = (): string | null => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i]!)) i++;
      if (text[i] !== '#') return null;
      const end = text.indexOf('\n', i);
      const comment = text.slice(i, end < 0 ? text.length : end);
      if (/\\\s*$/.test(comment) || comment.includes('\r')) return 'a comment ends in a backslash or a carriage return';
      i = end < 0 ? text.length : end + 1;
    }
  };
  const word = (): string => {
    const m = /^[A-Za-z_$][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*/.exec(text.slice(i));
    return m ? m[0] : '';
  };
  const string = (): string | { unreadable: string } => {
    const m = /^"(?:[^"\\]|\\.)*"/s.exec(text.slice(i));
    if (!m) return { unreadable: 'a directive without a plain string path' };
    if (m[0].includes('\\(')) return { unreadable: 'a directive path with an interpolation' };
    i += m[0].length;
    try {
      return JSON.parse(m[0]) as string;
    } catch {
      return { unreadable: 'a directive path jq may read differently' };
    }
  };
  for (;;) {
    const problem = skip();
    if (problem) return { unreadable: problem };
    const start = i;
    const w = word();
    if (w !== 'module' && w !== 'import' && w !== 'include') {
      // Anything else ends the head; a directive word later is a syntax error to jq, or a misreading here
      // (`.include`, `$include` and `{include: 1}` are a field, a variable and a key).
      if (/(^|[^.$\w])(import|include)\b(?!\s*:)/.test(stripStrings(text.slice(start)))) return { unreadable: 'a module directive after the head of the program' };
      return { directives, end: start };
    }
    i += w.length;
    if (skip()) return { unreadable: 'a comment inside a directive' };
    let meta: Record<string, unknown> | undefined;
    if (w === 'module') {
      const m = metadata();
      if ('unreadable' in m) return m;
    } else {
      const p = string();
      if (typeof p !== 'string') return p;
      let data = false;
      if (skip()) return { unreadable: 'a comment inside a directive' };
      if (w === 'import') {
        if (word() !== 'as') return { unreadable: 'an import without "as NAME"' };
        i += 2;
        if (skip()) return { unreadable: 'a comment inside a directive' };
        const name = word();
        if (name === '') return { unreadable: 'an import without a name' };
        data = name.startsWith('$');
        i += name.length;
        if (skip()) return { unreadable: 'a comment inside a directive' };
      }
      if (text[i] === '{') {
        const m = metadata();
        if ('unreadable' in m) return m;
        meta = m.value;
      }
      const search = meta?.['search'];
      if (search !== undefined && typeof search !== 'string' && !(Array.isArray(search) && search.every((s) => typeof s === 'string'))) {
        return { unreadable: 'a search path that is not a string or a list of strings' };
      }
      directives.push({ kind: w, path: p, data, search: search === undefined ? undefined : typeof search === 'string' ? [search] : (search as string[]) });
    }
    if (skip()) return { unreadable: 'a comment inside a directive' };
    if (text[i] !== ';') return { unreadable: `a ${w} directive that does not end with ";"` };
    i++;
  }

  /** A constant object (`{search: "./lib", x: 1}`), read as JSON once its bare keys are quoted. */
  function metadata(): { value: Record<string, unknown> } | { unreadable: string } {
    let depth = 0;
    let j = i;
    for (; j < text.length; j++) {
      const c = text[j]!;
      if (c === '"') {
        const m = /^"(?:[^"\\]|\\.)*"/s.exec(text.slice(j));
        if (!m) return { unreadable: 'unreadable directive metadata' };
        j += m[0].length - 1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) break;
      } else if (c === '#' || c === '$' || c === '(' || c === '\\') return { unreadable: 'directive metadata that is not a constant' };
    }
    const raw = text.slice(i, j + 1);
    i = j + 1;
    try {
      const value: unknown = JSON.parse(raw.replace(/([{,]\s*)([A-Za-z_][A-Za-z0-9_]*)\s*:/g, '$1"$2":'));
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return { unreadable: 'directive metadata that is not an object' };
      return { value: value as Record<string, unknown> };
    } catch {
      return { unreadable: 'directive metadata that is not a constant object' };
    }
  }
}
