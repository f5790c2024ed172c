import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

/** runCli, killed after `ms` (the old code hung on a FIFO and spun on a billion epochs). */
function runBounded(args: string[], ms = 30_000) {
  let timer: NodeJS.Timeout | undefined;
  return runCli(args, { onSpawn: (pid) => (timer = setTimeout(() => process.kill(pid, 'SIGKILL'), ms)) }).finally(() => clearTimeout(timer));
}

const VALID_TRACE = path.join(ROOT, 'tests/fixtures/traces/openai-messages.json');

/** Bad input: exit 2 with a message, never a stack trace. */
function expectBadInput(result: { code: number | null; stderr: string }, message: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
}

describe('import reads regular files only, the size checked before reading', () => {
  it('a FIFO, a device and a folder are exit 2 at once, and nothing is written', async () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    const out = path.join(dir, 'out');
    // Not a hang (a FIFO nobody writes to), nor unbounded growth (/dev/zero never ends).
    for (const file of [fifo, '/dev/zero', dir]) {
      const result = await runBounded(['import', file, '--out', out]);
      expectBadInput(result, new RegExp(`${file.replace(/[/.]/g, '\\$&')}.*(a FIFO|a device|a directory), not a regular file`));
    }
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('--out naming an existing file is exit 2 with a clear message', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'taken.txt');
    writeFileSync(file, 'mine\n');
    const result = await runBounded(['import', VALID_TRACE, '--out', file]);
    expectBadInput(result, /--out .*taken\.txt.*is a file, not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });
});

describe('run bounds what it is asked to do', () => {
  const suite = (dir: string, task: object) => {
    mkdirSync(path.join(dir, 'ws'), { recursive: true });
    const file = path.join(dir, 'suite.jsonl');
    writeFileSync(file, `${JSON.stringify(task)}\n`);
    return file;
  };
  const policyTask = { id: 'ls', tool_call: { name: 'run_shell', arguments: { command: 'ls' } }, workspace: 'ws', expected_policy: 'allow' };

  it('--epochs 1000000000 is exit 2, and so is a run of more trials than a run holds', async () => {
    const dir = tempDir();
    const file = suite(dir, policyTask);
    expectBadInput(await runBounded(['run', file, '--epochs', '1000000000', '--out', path.join(dir, 'out')]), /--epochs.*at most 10000/);
    const many = path.join(dir, 'many.jsonl');
    writeFileSync(many, Array.from({ length: 200 }, (_, i) => JSON.stringify({ ...policyTask, id: `ls_${i}` })).join('\n') + '\n');
    expectBadInput(await runBounded(['run', many, '--epochs', '10000', '--out', path.join(dir, 'out')]), /200 tasks × 10000 epochs = 2000000 trials.*at most 1000000/);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });

  it('validate and run refuse a workspace outside the suite folder or at the file-system root, naming file, line and field', async () => {
    const dir = tempDir();
    const file = suite(dir, { ...policyTask, workspace: '/' });
    const lines = readFileSync(file, 'utf8');
    writeFileSync(file, `${lines}${JSON.stringify({ ...policyTask, id: 'up', workspace: '..' })}\n${JSON.stringify({ ...policyTask, id: 'fine' })}\n`);
    for (const command of ['validate', 'run']) {
      const result = await runBounded([command, file, ...(command === 'run' ? ['--out', path.join(dir, 'out')] : [])]);
      expectBadInput(result, /suite\.jsonl:1.*workspace.*\/ is outside the suite's folder/);
      expect(result.stderr).toMatch(/suite\.jsonl:2.*workspace.*outside the suite's folder/);
      expect(result.stderr).not.toMatch(/suite\.jsonl:3/);
    }
  });

  it('a workspace too large to copy for every trial is refused', async () => {
    const dir = tempDir();
    const file = suite(dir, policyTask);
    const ws = path.join(dir, 'ws');
    for (let i = 0; i < 101; i++) {
      mkdirSync(path.join(ws, `d${i}`));
      for (let j = 0; j < 1000; j++) writeFileSync(path.join(ws, `d${i}`, `f${j}`), '');
    }
    expectBadInput(await runBounded(['validate', file]), /suite\.jsonl:1.*workspace.*more than 100000 entries/);
  }, 120_000);
});
