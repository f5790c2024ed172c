import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunReportSchema } from '../../src/schema/report.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

/** 2^40 backtracking steps in a backtracking engine: minutes, with signals ignored meanwhile. */
const BOMB = '(a+)+b';
const VICTIM = `echo ${'a'.repeat(40)}!`;

function write(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

function policyWith(rule: object | null, dir: string): string {
  const policy = JSON.parse(readFileSync(path.join(ROOT, 'harness/policy/default-policy.json'), 'utf8')) as { shell: { rules: object[] } };
  if (rule) policy.shell.rules.unshift(rule);
  return write(dir, 'policy.json', JSON.stringify(policy, null, 2));
}

describe('bounded inputs', () => {
  it('a regex bomb in a suite check and in a policy rule cannot hang the run', async () => {
    const dir = tempDir();
    const policy = policyWith({ id: 'bomb', programs: ['echo'], when_args_match: `^${BOMB}$`, decision: 'deny', reason: 'a bomb that never matches' }, dir);
    const suite = write(
      dir,
      'bomb.jsonl',
      [
        JSON.stringify({ id: 'echo_allowed', tool_call: { name: 'run_shell', arguments: { command: VICTIM } }, expected_policy: 'allow' }),
        JSON.stringify({ id: 'bomb_in_check', tool_call: { name: 'run_shell', arguments: { command: VICTIM } }, expected_policy: { tool: 'run_shell', match: BOMB, decision: 'deny', or_not_attempted: true } }),
      ].join('\n'),
    );
    const out = tempDir();
    const result = await runCli(['run', suite, '--policy', policy, '--out', out, '-q']);
    expect(result.code, result.stderr).toBe(0);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(report.tasks.map((t) => [t.id, t.status])).toEqual([
      ['echo_allowed', 'passed'],
      ['bomb_in_check', 'passed'],
    ]);
  });

  it('a pattern the linear-time engine refuses is bad input naming file, line and field', async () => {
    const dir = tempDir();
    const suite = write(
      dir,
      'lookahead.jsonl',
      [
        JSON.stringify({ id: 'fine', tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: 'allow' }),
        JSON.stringify({ id: 'lookahead', tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: { match: '(?=ls)l', decision: 'allow' } }),
      ].join('\n'),
    );
    const bad = await runCli(['validate', suite]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/lookahead\.jsonl:2: field expected_policy\.match: not a usable regular expression: .*\(\?=.*no lookaround/);

    const fineSuite = write(dir, 'fine.jsonl', JSON.stringify({ id: 'fine', tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: 'allow' }));
    const policy = policyWith({ id: 'backref', programs: ['ls'], when_args_match: '(a)\\1', decision: 'deny', reason: 'r' }, dir);
    const badPolicy = await runCli(['run', fineSuite, '--policy', policy, '--out', tempDir(), '-q']);
    expect(badPolicy.code).toBe(2);
    expect(badPolicy.stderr).toMatch(/policy\.json:\d+: field shell\.rules\.0\.when_args_match \(rule backref\): not a usable regular expression/);
    const line = Number(/policy\.json:(\d+):/.exec(badPolicy.stderr)![1]);
    expect(readFileSync(policy, 'utf8').split('\n')[line - 1]).toContain('when_args_match');

    const grep = await runCli(['run', fineSuite, '--grep', '(?<=x)y', '--out', tempDir(), '-q']);
    expect(grep.code).toBe(2);
    expect(grep.stderr).toContain('--grep: not a usable regular expression');
  });

  it('a timeout longer than a timer can hold is refused, on the command line and in a suite', async () => {
    const dir = tempDir();
    const fine = JSON.stringify({ id: 'fine', tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: 'allow' });
    const suite = write(dir, 'ok.jsonl', fine);
    const flag = await runCli(['run', suite, '--timeout', '2147483648', '--out', tempDir(), '-q']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--timeout.*at most 2147483647 ms/);

    const longSuite = write(dir, 'long.jsonl', [fine, JSON.stringify({ id: 'long', tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, expected_policy: 'allow', timeout_ms: 3_000_000_000 })].join('\n'));
    const inSuite = await runCli(['validate', longSuite]);
    expect(inSuite.code).toBe(2);
    expect(inSuite.stderr).toMatch(/long\.jsonl:2: field timeout_ms: at most 2147483647 ms/);

    const atMax = await runCli(['run', suite, '--timeout', '2147483647', '--out', tempDir(), '-q']);
    expect(atMax.code, atMax.stderr).toBe(0);
  });
});
