import { lstat, readFile, readdir, readlink, rm, writeFile, cp } from 'node:fs/promises';
import path from 'node:path';
import { runSandboxedCommand, type SandboxMode } from '../adapters/harnessAdapter.js';
import {
  CHECK_OUTPUT_CAP,
  DEFAULT_CHECK_TIMEOUT_MS,
  FILE_TEXT_CAP,
  checkKey,
  isOutcomeSpec,
  type ChangedFilesFacts,
  type CommandFacts,
  type CustomFacts,
  type FileFacts,
  type OutcomeSpec,
} from '../schema/outcomeFacts.js';
import { LAYERS } from '../schema/taxonomy.js';
import type { Task } from '../schema/task.js';
import { SPAN_KIND, type Span, type Trace } from '../schema/trace.js';
import { attributes } from '../schema/traceVocabulary.js';

/** Most entries compared when a changed_files check lists what the trial changed. */
const MAX_COMPARED = 50_000;
/** The file a custom check's check-input/v1 is piped from (in the workspace, removed after). */
const CHECK_INPUT_FILE = '.tracegate-check-input.json';
/** A custom check's module, copied into the workspace while it runs (one file: its relative imports are not copied). */
const CHECK_MODULE_FILE = '.tracegate-check-module.mjs';

export interface ProbeOptions {
  /** The sandbox kind the trial's agent ran under: checks run under the same. */
  mode: SandboxMode;
  signal?: AbortSignal;
}

interface Finding {
  facts?: object;
  error?: string;
  command?: string;
  exitCode?: number | null;
  output?: string;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Every file and symlink under `root` (relative, `/`-separated) with a comparable fingerprint. */
async function entries(root: string | null, out: Map<string, string>, budget: { left: number }, rel = ''): Promise<void> {
  if (root === null) return;
  const dir = path.join(root, rel);
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (--budget.left < 0) throw new Error(`more than ${MAX_COMPARED} entries to compare`);
    const r = rel ? `${rel}/${name}` : name;
    const full = path.join(root, r);
    const st = await lstat(full);
    if (st.isDirectory()) await entries(root, out, budget, r);
    else if (st.isSymbolicLink()) out.set(r, `link:${await readlink(full)}`);
    else if (st.isFile()) out.set(r, `file:${st.size}`);
  }
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([readFile(a), readFile(b)]);
  return x.equals(y);
}

/** What the trial added, modified or deleted, compared with the task's fixture. */
async function changedFiles(fixture: string | null, workspace: string): Promise<string[]> {
  const before = new Map<string, string>();
  const after = new Map<string, string>();
  const budget = { left: MAX_COMPARED };
  await entries(fixture, before, budget);
  await entries(workspace, after, budget);
  const changed: string[] = [];
  for (const [p, fp] of after) {
    const old = before.get(p);
    if (old === undefined || old !== fp) changed.push(p);
    else if (fp.startsWith('file:') && !(await sameFile(path.join(fixture!, p), path.join(workspace, p)))) changed.push(p);
  }
  for (const p of before.keys()) if (!after.has(p)) changed.push(p);
  return changed.sort();
}

function inside(workspace: string, p: string): string | null {
  const full = path.resolve(workspace, p);
  return full === workspace || full.startsWith(workspace + path.sep) ? full : null;
}

async function fileFacts(spec: Extract<OutcomeSpec, { type: 'file' }>, workspace: string, suiteDir: string): Promise<Finding> {
  const full = inside(workspace, spec.path);
  if (!full) return { error: `path ${spec.path} is outside the workspace` };
  const st = await lstat(full).catch(() => null);
  const facts: FileFacts = { exists: st !== null, is_file: st?.isFile() ?? false, text: null, truncated: false, equals_fixture: null };
  if (st?.isFile()) {
    const bytes = await readFile(full);
    const text = bytes.toString('utf8');
    facts.text = text.slice(0, FILE_TEXT_CAP);
    facts.truncated = text.length > FILE_TEXT_CAP;
    if (spec.equals !== undefined) {
      const fixture = await readFile(path.resolve(suiteDir, spec.equals)).catch(() => null);
      if (fixture === null) return { error: `fixture ${spec.equals} cannot be read` };
      facts.equals_fixture = fixture.equals(bytes);
    }
  }
  return { facts };
}

/** check-output/v1 from the last line of the output that is a JSON object with a boolean `pass`. */
function checkOutput(output: string): CustomFacts | string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('{'));
  for (const line of lines.reverse()) {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue;
    }
    if (json === null || typeof json !== 'object' || !('pass' in json)) continue;
    const o = json as Record<string, unknown>;
    if (o.schema !== undefined && o.schema !== 'check-output/v1') return `schema is ${JSON.stringify(o.schema)}, expected "check-output/v1"`;
    if (typeof o.pass !== 'boolean') return 'field pass must be true or false';
    if (typeof o.reason !== 'string' || o.reason === '') return 'field reason must be a non-empty string';
    if (o.score !== undefined && (typeof o.score !== 'number' || !Number.isFinite(o.score))) return 'field score must be a number';
    if (o.layer !== undefined && !(LAYERS as readonly unknown[]).includes(o.layer)) return `field layer must be one of ${LAYERS.join(', ')}`;
    return { pass: o.pass, reason: o.reason, ...(o.score !== undefined ? { score: o.score as number } : {}), ...(o.layer !== undefined ? { layer: o.layer as string } : {}) };
  }
  return 'no check-output/v1 line ({"pass": …, "reason": …}) in its output';
}

/** A module check runs in a node child of its own, so the sandbox and the time limit hold for it too. */
const MODULE_RUNNER = [
  "import { pathToFileURL } from 'node:url';",
  'const m = await import(pathToFileURL(process.argv[1]).href);',
  "const f = typeof m.default === 'function' ? m.default : m.check;",
  "if (typeof f !== 'function') { console.error('the module exports no default function (nor check)'); process.exit(70); }",
  "let s = ''; for await (const c of process.stdin) s += c;",
  "const out = await f(JSON.parse(s));",
  "process.stdout.write('\\n' + JSON.stringify(out ?? null) + '\\n');",
].join(' ');

async function run(command: string, workspace: string, timeoutMs: number, options: ProbeOptions) {
  return runSandboxedCommand(command, { workspace, timeoutMs, outputCap: CHECK_OUTPUT_CAP, mode: options.mode, ...(options.signal ? { signal: options.signal } : {}) });
}

function commandFault(r: { timedOut: boolean; exitCode: number | null; signal: string | null }, timeoutMs: number): string | null {
  if (r.timedOut) return `timed out after ${timeoutMs} ms`;
  if (r.exitCode === null) return `was killed${r.signal ? ` by ${r.signal}` : ''}`;
  return null;
}

async function probe(spec: OutcomeSpec, task: Task, trace: Trace, workspace: string, changed: string[] | string | null, options: ProbeOptions): Promise<Finding> {
  const suiteDir = task.suiteDir ?? process.cwd();
  switch (spec.type) {
    case 'command': {
      const timeoutMs = spec.timeout_ms ?? DEFAULT_CHECK_TIMEOUT_MS;
      const r = await run(spec.run, workspace, timeoutMs, options);
      const fault = commandFault(r, timeoutMs);
      const facts: CommandFacts = { exit_code: r.exitCode, timed_out: r.timedOut, output: r.output, truncated: r.truncated };
      return { command: spec.run, exitCode: r.exitCode, output: r.output, ...(fault ? { error: `the command ${fault}` } : { facts }) };
    }
    case 'file':
      return fileFacts(spec, workspace, suiteDir);
    case 'changed_files':
      if (typeof changed === 'string') return { error: changed };
      return { facts: { changed: changed ?? [] } satisfies ChangedFilesFacts };
    case 'custom': {
      const timeoutMs = spec.timeout_ms ?? DEFAULT_CHECK_TIMEOUT_MS;
      const input = { schema: 'check-input/v1', task: { id: task.id, prompt: task.prompt, tags: task.tags, metadata: task.metadata ?? {} }, trace, workspace };
      const inputFile = path.join(workspace, CHECK_INPUT_FILE);
      await writeFile(inputFile, JSON.stringify(input));
      // The module is copied beside the input: under bubblewrap the suite's folder may be out of sight (/tmp is private).
      const moduleFile = path.join(workspace, CHECK_MODULE_FILE);
      if (spec.module !== undefined) await cp(path.resolve(suiteDir, spec.module), moduleFile);
      const body = spec.run ?? `${shellQuote(process.execPath)} --input-type=module -e ${shellQuote(MODULE_RUNNER)} ${shellQuote(moduleFile)}`;
      const shown = spec.run ?? `module ${spec.module}`;
      try {
        const r = await run(`( ${body} ) < ${CHECK_INPUT_FILE}`, workspace, timeoutMs, options);
        const fault = commandFault(r, timeoutMs) ?? (r.exitCode !== 0 ? `exited ${r.exitCode}` : null);
        const tailOf = (o: string) => (o.length > 2000 ? `…${o.slice(-2000)}` : o).trim();
        if (fault) return { command: shown, exitCode: r.exitCode, output: r.output, error: `the custom check ${fault}${r.output.trim() ? `; its output: ${tailOf(r.output)}` : ''}` };
        const out = checkOutput(r.output);
        if (typeof out === 'string') return { command: shown, exitCode: r.exitCode, output: r.output, error: `bad check-output/v1: ${out}${r.output.trim() ? `; its output: ${tailOf(r.output)}` : ''}` };
        return { command: shown, exitCode: r.exitCode, output: r.output, facts: out };
      } finally {
        await rm(inputFile, { force: true });
        await rm(moduleFile, { force: true });
      }
    }
  }
}

/**
 * Runs a task's outcome and custom checks on the trial's final workspace, after the agent finished:
 * lists what the trial changed, copies `hidden_workspace` in, then reads files and runs commands
 * under the trial's sandbox kind. Each check gets a `check` span on the trace with what was found
 * (the pure checks judge those); a check that cannot run records its error, never throws.
 */
export async function probeOutcomes(task: Task, trace: Trace, workspace: string, options: ProbeOptions): Promise<Trace> {
  const specs = task.checks.filter(isOutcomeSpec);
  if (specs.length === 0) return trace;
  const root = trace.spans.find((s) => s.kind === SPAN_KIND.agent && s.parent_id === null) ?? trace.spans[0];
  let changed: string[] | string | null = null;
  if (specs.some((s) => s.type === 'changed_files')) {
    changed = await changedFiles(task.workspace, workspace).catch((e: unknown) => `could not list the changed files: ${(e as Error).message}`);
  }
  let hiddenError: string | null = null;
  if (task.hiddenWorkspace) {
    await cp(task.hiddenWorkspace, workspace, { recursive: true, force: true, verbatimSymlinks: true }).catch((e: unknown) => {
      hiddenError = `could not copy hidden_workspace: ${(e as Error).message}`;
    });
  }
  const spans: Span[] = [];
  for (const [i, spec] of specs.entries()) {
    const start = new Date().toISOString();
    let found: Finding;
    try {
      found = hiddenError && spec.type !== 'changed_files' ? { error: hiddenError } : await probe(spec, task, trace, workspace, changed, options);
    } catch (e) {
      found = { error: `could not run: ${(e as Error).message}` };
    }
    spans.push({
      span_id: `check-${i + 1}`,
      parent_id: root?.span_id ?? null,
      kind: SPAN_KIND.check,
      name: `check ${spec.type}`,
      start,
      end: new Date().toISOString(),
      status: found.error ? 'error' : 'ok',
      attributes: attributes({
        checkType: spec.type,
        checkKey: checkKey(spec),
        checkCommand: found.command ?? null,
        checkExitCode: found.exitCode ?? null,
        checkOutput: found.output ?? null,
        checkFacts: found.facts ? JSON.stringify(found.facts) : null,
        checkError: found.error ?? null,
      }),
      events: [],
    });
  }
  return { ...trace, spans: [...trace.spans, ...spans] };
}
