import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

/** One policy task (no model needed): a trial that ran leaves its trace and a journal line. */
function oneTaskSuite(): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, 's.jsonl'), JSON.stringify({ id: 'marks', tool_call: { name: 'calculator', arguments: { expression: '1+1' } } }) + '\n');
  return path.join(dir, 's.jsonl');
}

describe('fail before spending: every input is checked before the first trial', () => {
  it.each([
    ['a gate file that is not JSON', (dir: string) => {
      writeFileSync(path.join(dir, 'gate.json'), '{"min_pass_rate": ');
      return ['--gate', path.join(dir, 'gate.json')];
    }, /gate\.json: not valid JSON/],
    ['a gate file with an unknown rule', (dir: string) => {
      writeFileSync(path.join(dir, 'gate.json'), '{"min_pass": 0.9}');
      return ['--gate', path.join(dir, 'gate.json')];
    }, /gate\.json: field min_pass: unknown field/],
    ['a missing baseline', (dir: string) => ['--baseline', path.join(dir, 'nope.json')], /nope\.json: report not found/],
    ['a baseline of another schema', (dir: string) => {
      writeFileSync(path.join(dir, 'old.json'), '{"schema_version": "report/v0"}');
      return ['--baseline', path.join(dir, 'old.json')];
    }, /old\.json: field schema_version: "report\/v0" is not report\/v1/],
    ['a missing variant', (dir: string) => ['--variant', path.join(dir, 'variant.json')], /variant/],
    ['a missing policy', (dir: string) => ['--policy', path.join(dir, 'policy.json')], /policy\.json/],
    ['an output folder that is a file', (dir: string) => {
      writeFileSync(path.join(dir, 'file'), '');
      return ['--out', path.join(dir, 'file', 'out')];
    }, /--out .*: cannot write there/],
  ])('%s: exit 2, and no trial ran', async (_name, extra, message) => {
    const suite = oneTaskSuite();
    const dir = tempDir();
    const out = path.join(dir, 'out');
    const result = await runCli(['run', suite, '--out', out, ...extra(dir)]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    // No trial: no journal line, no trace, no progress line.
    expect(existsSync(path.join(out, 'results.jsonl'))).toBe(false);
    expect(existsSync(path.join(out, 'traces')) ? readdirSync(path.join(out, 'traces')) : []).toEqual([]);
    expect(result.stderr).not.toMatch(/\[1\/1\]/);
  });

  it('compare checks its gate before variant A runs', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'gate.json'), '[]');
    const out = path.join(dir, 'out');
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--gate', path.join(dir, 'gate.json'), '--out', out]);
    expect(result.code).toBe(2);
    expect(existsSync(path.join(out, 'a'))).toBe(false);
  });

  it('the same inputs, valid, do run', async () => {
    const suite = oneTaskSuite();
    const out = tempDir();
    const result = await runCli(['run', suite, '--out', out, '--no-html']);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(path.join(out, 'traces'))).toEqual(['marks.e0.json']);
  });
});
