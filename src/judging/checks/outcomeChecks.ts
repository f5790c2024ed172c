import { checkKey, type ChangedFilesFacts, type CommandFacts, type CustomFacts, type FileFacts, type OutcomeSpec } from '../../schema/outcomeFacts.js';
import { safeRegex } from '../../schema/safeRegex.js';
import type { CheckSpec } from '../../schema/task.js';
import { SPAN_KIND, attr, type Span, type Trace } from '../../schema/trace.js';
import { result, type Check } from './checkResult.js';

/**
 * Outcome and custom checks judge the evidence the runner recorded on the trace's `check` spans
 * after the trial ended (src/runner/outcomeProbe.ts): the final workspace is read there, never here.
 */
export function checkSpan(trace: Trace, spec: CheckSpec): Span | undefined {
  const key = checkKey(spec);
  return trace.spans.find((s) => s.kind === SPAN_KIND.check && attr(s, 'checkKey') === key);
}

function factsOf<T>(span: Span): T | null {
  const text = attr(span, 'checkFacts');
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/**
 * Why an outcome or custom check of the task could not judge (no evidence, its command timed out or
 * crashed, bad output), or null. Such a trial errors: a fault of the check is not the agent's failure.
 */
export function checkFault(trace: Trace, specs: CheckSpec[]): string | null {
  for (const spec of specs) {
    if (spec.type !== 'command' && spec.type !== 'file' && spec.type !== 'changed_files' && spec.type !== 'custom') continue;
    const span = checkSpan(trace, spec);
    const what = describe(spec);
    if (!span) return `${what}: the trace has no evidence for it (outcome checks run on the final workspace during \`run\`)`;
    const error = attr(span, 'checkError');
    if (error !== null) return `${what}: ${error}`;
    if (factsOf(span) === null) return `${what}: its evidence is unreadable`;
  }
  return null;
}

function describe(spec: OutcomeSpec): string {
  switch (spec.type) {
    case 'command':
      return `command check \`${spec.run}\``;
    case 'file':
      return `file check ${spec.path}`;
    case 'changed_files':
      return 'changed_files check';
    case 'custom':
      return `custom check ${spec.run ? `\`${spec.run}\`` : spec.module}`;
  }
}

function withFacts<T>(type: string, trace: Trace, spec: CheckSpec, judge: (facts: T, span: Span) => ReturnType<Check<'completed'>>) {
  const span = checkSpan(trace, spec);
  const facts = span && attr(span, 'checkError') === null ? factsOf<T>(span) : null;
  // checkFault makes such a trial errored before it is judged; a lone call still gets an honest answer.
  if (!span || !facts) return result(type, false, 'no evidence from the final workspace');
  return judge(facts, span);
}

const tail = (text: string, n = 200) => (text.length <= n ? text : `…${text.slice(-n)}`).trim();

export const command: Check<'command'> = (trace, spec) =>
  withFacts<CommandFacts>('command', trace, spec, (f, span) => {
    const want = spec.exit_code ?? 0;
    const ev = [span.span_id];
    if (f.exit_code !== want) {
      return result('command', false, `\`${spec.run}\` exited ${f.exit_code ?? 'on a signal'}, expected ${want}${f.output ? `: ${tail(f.output)}` : ''}`, ev);
    }
    if (spec.output_matches !== undefined && !safeRegex(spec.output_matches).test(f.output)) {
      return result('command', false, `\`${spec.run}\` output does not match /${spec.output_matches}/${f.truncated ? ' (output was capped)' : ''}`, ev);
    }
    return result('command', true, `\`${spec.run}\` exited ${want}${spec.output_matches ? ` and its output matches /${spec.output_matches}/` : ''}`, ev);
  });

/** `a.b[0].c` or `$.a.b.0.c`: the value at that path of parsed JSON, or undefined. */
export function jsonPathValue(json: unknown, path: string): unknown {
  const parts = path.replace(/^\$\.?/, '').replace(/\[(\d+)\]/g, '.$1').split('.').filter((p) => p !== '');
  let v: unknown = json;
  for (const p of parts) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export const file: Check<'file'> = (trace, spec) =>
  withFacts<FileFacts>('file', trace, spec, (f, span) => {
    const ev = [span.span_id];
    const fail = (why: string) => result('file', false, `${spec.path} ${why}`, ev);
    const wantExists = spec.exists ?? true;
    if (!wantExists) return f.exists ? fail('exists, expected it absent') : result('file', true, `${spec.path} is absent as expected`, ev);
    if (!f.exists) return fail('does not exist');
    const needsText = spec.contains || spec.matches || spec.json_path || spec.equals;
    if (needsText && (!f.is_file || f.text === null)) return fail('is not a regular file');
    const text = f.text ?? '';
    const cut = f.truncated ? ' (only its first part was read)' : '';
    const missing = (spec.contains ?? []).filter((v) => !text.includes(v));
    if (missing.length > 0) return fail(`lacks ${missing.map((v) => JSON.stringify(v)).join(', ')}${cut}`);
    if (spec.matches !== undefined && !safeRegex(spec.matches).test(text)) return fail(`does not match /${spec.matches}/${cut}`);
    if (spec.equals !== undefined && f.equals_fixture !== true) return fail(`differs from ${spec.equals}`);
    if (spec.json_path !== undefined) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return fail(`is not valid JSON${cut}`);
      }
      const got = jsonPathValue(json, spec.json_path);
      if (got === undefined) return fail(`has nothing at ${spec.json_path}`);
      if ('value' in spec && !deepEqual(got, spec.value)) return fail(`has ${JSON.stringify(got)} at ${spec.json_path}, expected ${JSON.stringify(spec.value)}`);
    }
    return result('file', true, `${spec.path} is as expected`, ev);
  });

/** A workspace glob (`src/**`, `*.py`, `tests/test_?.py`); a glob without `/` matches a name in any folder. */
export function globMatches(relativePath: string, glob: string): boolean {
  const pattern = glob
    .split('/')
    .map((segment) => (segment === '**' ? '(?:.*)' : segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
    .join('/')
    .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
  return safeRegex(glob.includes('/') ? `^${pattern}$` : `(?:^|/)${pattern}$`).test(relativePath);
}

export const changedFiles: Check<'changed_files'> = (trace, spec) =>
  withFacts<ChangedFilesFacts>('changed_files', trace, spec, (f, span) => {
    const ev = [span.span_id];
    const list = (xs: string[]) => xs.slice(0, 10).join(', ') + (xs.length > 10 ? `, … (${xs.length})` : '');
    const outside = spec.only ? f.changed.filter((p) => !spec.only!.some((g) => globMatches(p, g))) : [];
    if (outside.length > 0) return result('changed_files', false, `changed files outside ${spec.only!.join(', ')}: ${list(outside)}`, ev);
    const touched = spec.unchanged ? f.changed.filter((p) => spec.unchanged!.some((g) => globMatches(p, g))) : [];
    if (touched.length > 0) return result('changed_files', false, `changed files that must stay unchanged (${spec.unchanged!.join(', ')}): ${list(touched)}`, ev);
    if (spec.max !== undefined && f.changed.length > spec.max) return result('changed_files', false, `changed ${f.changed.length} files, more than ${spec.max}: ${list(f.changed)}`, ev);
    return result('changed_files', true, f.changed.length === 0 ? 'changed no files' : `changed ${list(f.changed)}, within scope`, ev);
  });

export const custom: Check<'custom'> = (trace, spec) =>
  withFacts<CustomFacts>('custom', trace, spec, (f, span) =>
    result('custom', f.pass, `${describe(spec)}: ${f.reason}${f.score !== undefined ? ` (score ${f.score})` : ''}`, [span.span_id]),
  );

/** The layer a failed custom check named in its check-output/v1, if any. */
export function customLayer(trace: Trace, spec: CheckSpec): string | null {
  const span = checkSpan(trace, spec);
  return (span && factsOf<CustomFacts>(span)?.layer) ?? null;
}
