import { describe, expect, it } from 'vitest';
import { changedFiles, checkFault, file, globMatches, jsonPathValue } from '../../src/judging/checks/outcomeChecks.js';
import { checkKey } from '../../src/schema/outcomeFacts.js';
import type { CheckSpec } from '../../src/schema/task.js';
import type { Trace } from '../../src/schema/trace.js';

/** A trace with one check span carrying `facts` (or `error`) for `spec`, as the runner's probe writes it. */
function traceWith(spec: CheckSpec, facts: object | null, error?: string): Trace {
  const attributes: Record<string, string> = { 'tracegate.check.type': spec.type, 'tracegate.check.key': checkKey(spec) };
  if (facts) attributes['tracegate.check.facts'] = JSON.stringify(facts);
  if (error) attributes['tracegate.check.error'] = error;
  return {
    spans: [{ span_id: 'check-1', parent_id: null, kind: 'check', name: 'check', start: '', end: '', status: error ? 'error' : 'ok', attributes, events: [] }],
  } as unknown as Trace;
}

describe('outcome checks judge the evidence on check spans', () => {
  it('file: contains, matches, json_path/value, exists false', () => {
    const spec = { type: 'file', path: 'out.json', contains: ['"n"'], json_path: '$.a.b[1]', value: 3 } as const;
    const facts = { exists: true, is_file: true, text: '{"n": 1, "a": {"b": [1, 3]}}', truncated: false, equals_fixture: null };
    expect(file(traceWith(spec, facts), spec).passed).toBe(true);
    const wrong = { ...spec, value: 4 };
    expect(file(traceWith(wrong, facts), wrong).reason).toBe('out.json has 3 at $.a.b[1], expected 4');
    const absent = { type: 'file', path: 'x', exists: false } as const;
    expect(file(traceWith(absent, { ...facts, exists: false }), absent).passed).toBe(true);
    expect(file(traceWith(absent, facts), absent).passed).toBe(false);
    expect(jsonPathValue({ a: [{ b: 2 }] }, 'a[0].b')).toBe(2);
  });

  it('changed_files: only, unchanged and max, with globs', () => {
    const spec = { type: 'changed_files', only: ['src/**'], unchanged: ['src/tests/**'], max: 2 } as const;
    expect(changedFiles(traceWith(spec, { changed: ['src/a.py', 'src/deep/b.py'] }), spec).passed).toBe(true);
    expect(changedFiles(traceWith(spec, { changed: ['README.md'] }), spec).reason).toMatch(/outside src\/\*\*: README\.md/);
    expect(changedFiles(traceWith(spec, { changed: ['src/tests/t.py'] }), spec).reason).toMatch(/must stay unchanged/);
    expect(changedFiles(traceWith(spec, { changed: ['src/a', 'src/b', 'src/c'] }), spec).reason).toMatch(/more than 2/);
    expect(globMatches('a/b/c.py', '*.py')).toBe(true);
    expect(globMatches('a/b/c.py', 'a/*.py')).toBe(false);
  });

  it('a check that could not run, or has no evidence, is a fault of the check (the trial errors)', () => {
    const spec = { type: 'command', run: 'make test' } as const;
    expect(checkFault(traceWith(spec, null, 'the command timed out after 5 ms'), [spec])).toBe('command check `make test`: the command timed out after 5 ms');
    expect(checkFault({ spans: [] } as unknown as Trace, [spec])).toMatch(/no evidence/);
    expect(checkFault(traceWith(spec, { exit_code: 1, timed_out: false, output: '', truncated: false }), [spec])).toBeNull();
  });
});
