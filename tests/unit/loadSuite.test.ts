import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite, loadSuites, SuiteError } from '../../src/suite/loadSuite.js';
import { tempDir } from '../helpers/cli.js';

function suite(lines: string[]): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'ws'));
  const file = path.join(dir, 'suite.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

function issuesOf(file: string) {
  try {
    loadSuite(file);
  } catch (error) {
    expect(error).toBeInstanceOf(SuiteError);
    return (error as SuiteError).issues;
  }
  throw new Error('expected the suite to be rejected');
}

describe('loadSuite', () => {
  it('turns shorthand fields, aliases and the checks list into the same checks', () => {
    const file = suite([
      JSON.stringify({ id: 'a', prompt: 'p', workspace: 'ws', expected_contains: ['x'], expected_error_types: ['FILE_NOT_FOUND'], max_steps: 4 }),
      JSON.stringify({ id: 'b', task: 'p', expected_final_contains: ['x'], expected_error_type: 'FILE_NOT_FOUND', checks: [{ type: 'max_steps', max: 4 }] }),
      JSON.stringify({ id: 'c', tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: 'allow', execute: false }),
      '# a comment line',
      '',
    ]);
    const { tasks } = loadSuite(file);
    expect(tasks.map((t) => t.id)).toEqual(['a', 'b', 'c']);
    const normalize = (t: (typeof tasks)[number]) => [...t.checks].sort((x, y) => x.type.localeCompare(y.type));
    expect(normalize(tasks[0]!)).toEqual(normalize(tasks[1]!));
    expect(tasks[0]!.workspace).toBe(path.join(path.dirname(file), 'ws'));
    expect(tasks[1]!.prompt).toBe('p');
    expect(tasks[2]!.toolCall).toEqual({ name: 'run_shell', arguments: { command: 'ls' }, execute: false });
    expect(tasks[2]!.checks).toEqual([{ type: 'policy', decision: 'allow' }]);
  });

  it('gives an agent task without max_steps an implicit completion check', () => {
    const { tasks } = loadSuite(suite([JSON.stringify({ id: 'a', prompt: 'p', expected_contains: ['x'] })]));
    expect(tasks[0]!.checks[0]).toEqual({ type: 'completed' });
  });

  it('reports every problem of a file at once, by line and field', () => {
    const file = suite([
      JSON.stringify({ id: 'ok_1', prompt: 'p' }),
      '{"id": "broken", "prompt": ',
      JSON.stringify({ id: 'typed', prompt: 'p', max_steps: 'ten' }),
      JSON.stringify({ id: 'ok_1', prompt: 'again' }),
      JSON.stringify({ id: 'unknown', prompt: 'p', expected_contain: ['x'] }),
      JSON.stringify({ id: 'nowhere', prompt: 'p', workspace: 'missing' }),
      JSON.stringify({ id: 'neither' }),
      JSON.stringify({ id: 'both', prompt: 'p', tool_call: { name: 'x', arguments: {} } }),
      JSON.stringify({ id: 'bad_error', prompt: 'p', expected_error_types: ['FILE_MISSING'] }),
      JSON.stringify({ id: 'bad regex', prompt: 'p' }),
      JSON.stringify({ id: 'rx', prompt: 'p', expected_policy: { match: '(', decision: 'deny' } }),
      '[1, 2]',
      JSON.stringify({ id: 'exec', prompt: 'p', execute: false }),
      JSON.stringify({ id: 'vague', prompt: 'p', expected_policy: 'maybe' }),
    ]);
    const issues = issuesOf(file);
    const at = (line: number) => issues.filter((i) => i.line === line);
    expect(at(2)[0]!.message).toMatch(/invalid JSON/);
    expect(at(3)[0]!.field).toBe('max_steps');
    expect(at(4)[0]).toMatchObject({ field: 'id', message: expect.stringMatching(/duplicate id "ok_1" \(first on line 1\)/) });
    expect(at(5)[0]).toMatchObject({ field: 'expected_contain', message: expect.stringMatching(/did you mean expected_contains/) });
    expect(at(6)[0]).toMatchObject({ field: 'workspace', message: expect.stringMatching(/does not exist/) });
    expect(at(7)[0]!.message).toMatch(/one of prompt/);
    expect(at(8)[0]!.message).toMatch(/only one of/);
    expect(at(9)[0]!.field).toBe('expected_error_types.0');
    expect(at(10)[0]!.field).toBe('id');
    expect(at(11)[0]).toMatchObject({ field: 'expected_policy.match', message: expect.stringMatching(/regular expression/) });
    expect(at(12)[0]!.message).toMatch(/one JSON object/);
    expect(at(13)[0]!.field).toBe('execute');
    expect(at(14)[0]).toMatchObject({ field: 'expected_policy', message: expect.stringMatching(/"allow", "deny", "require_approval" or "blocked"/) });
    expect(at(1)).toHaveLength(0);
  });

  it('refuses a missing file and an empty suite', () => {
    expect(issuesOf(path.join(tempDir(), 'none.jsonl'))[0]!.message).toMatch(/not found/);
    expect(issuesOf(suite(['', '# only comments']))[0]!.message).toMatch(/no tasks/);
  });

  it('refuses duplicate ids across suites', () => {
    const a = suite([JSON.stringify({ id: 'same', prompt: 'p' })]);
    const b = suite([JSON.stringify({ id: 'same', prompt: 'q' })]);
    expect(() => loadSuites([a, b])).toThrow(/duplicate id "same"/);
  });

  it('fingerprints the definition, not the tags', () => {
    const one = loadSuite(suite([JSON.stringify({ id: 'a', prompt: 'p', tags: ['x'] })])).tasks[0]!;
    const two = loadSuite(suite([JSON.stringify({ id: 'a', prompt: 'p', tags: ['y'] })])).tasks[0]!;
    const three = loadSuite(suite([JSON.stringify({ id: 'a', prompt: 'changed' })])).tasks[0]!;
    expect(one.fingerprint).toBe(two.fingerprint);
    expect(one.fingerprint).not.toBe(three.fingerprint);
  });
});

describe('suite header line', () => {
  it('names cassettes and a policy relative to the suite, and must come first', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'tapes'));
    writeFileSync(path.join(dir, 'p.json'), '{}');
    const file = path.join(dir, 's.jsonl');
    writeFileSync(file, [JSON.stringify({ suite: { cassettes: 'tapes', policy: 'p.json' } }), JSON.stringify({ id: 'a', prompt: 'p' })].join('\n'));
    const { header } = loadSuite(file);
    expect(path.resolve(header.cassettes!)).toBe(path.join(dir, 'tapes'));
    expect(path.resolve(header.policy!)).toBe(path.join(dir, 'p.json'));

    writeFileSync(file, [JSON.stringify({ id: 'a', prompt: 'p' }), JSON.stringify({ suite: {} }), JSON.stringify({ suite: { cassetes: 'x' } })].join('\n'));
    const issues = issuesOf(file);
    expect(issues.find((i) => i.line === 2)?.message).toMatch(/must be the first line/);
    writeFileSync(file, [JSON.stringify({ suite: { cassetes: 'x', policy: 'missing.json' } }), JSON.stringify({ id: 'a', prompt: 'p' })].join('\n'));
    expect(issuesOf(file)[0]).toMatchObject({ line: 1, field: 'suite.cassetes', message: 'unknown field' });
  });
});

describe('real-world files', () => {
  it('tells a suite written as one JSON array, pretty-printed or not, to use JSON Lines: one issue, not one a line', () => {
    const tasks = [{ id: 'a', prompt: 'p' }, { id: 'b', prompt: 'q' }];
    for (const text of [JSON.stringify(tasks, null, 2), JSON.stringify(tasks)]) {
      const file = path.join(tempDir(), 'array.json');
      writeFileSync(file, text + '\n');
      const issues = issuesOf(file);
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ line: 1, field: null, message: expect.stringMatching(/JSON array of 2 tasks.*JSON Lines: one task object per line/) });
    }
  });

  it('accepts a byte-order mark and CRLF line ends', () => {
    const dir = tempDir();
    const file = path.join(dir, 'windows.jsonl');
    writeFileSync(file, '\uFEFF' + [JSON.stringify({ id: 'a', prompt: 'p' }), JSON.stringify({ id: 'b', prompt: 'q' })].join('\r\n') + '\r\n');
    expect(loadSuite(file).tasks.map((t) => t.id)).toEqual(['a', 'b']);
  });
});
