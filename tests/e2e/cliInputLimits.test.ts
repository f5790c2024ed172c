import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir } from '../helpers/cli.js';

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

describe('Ctrl-C in a run of the most epochs a run takes', () => {
  const EPOCHS = 10_000;
  /** A policy task that runs no command: thousands of trials finish in seconds. */
  const fastSuite = (dir: string) => {
    const file = path.join(dir, 'fast.jsonl');
    writeFileSync(file, `${JSON.stringify({ id: 'read', tool_call: { name: 'read_file', arguments: { path: 'x' } }, expected_policy: 'allow' })}\n`);
    return file;
  };
  /**
   * Runs the CLI and sends SIGINT once `trials` trials are done (read from its progress lines), and
   * again when it says it is writing the report, if `twice`; resolves with the exit code and how
   * long the process took after the last SIGINT.
   */
  const interrupt = (dir: string, trials: number, twice: boolean) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; afterLastMs: number }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'run', fastSuite(dir), '--out', path.join(dir, 'out'), '--epochs', String(EPOCHS), '-j', '8'], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: '1', CI: '1' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
      let stderr = '';
      let sent = 0;
      let lastAt = 0;
      const signal = () => {
        sent++;
        lastAt = Date.now();
        child.kill('SIGINT');
      };
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const done = Number([...stderr.slice(-200).matchAll(/\[(\d+)\/\d+\]/g)].at(-1)?.[1] ?? 0);
        if (sent === 0 && done >= trials) signal();
        else if (sent === 1 && twice && stderr.includes('writing the report')) signal();
      });
      child.on('close', (code, signal) => {
        clearTimeout(guard);
        resolve({ code, signal, stderr, afterLastMs: Date.now() - lastAt });
      });
    });

  it('one SIGINT stops new trials and writes a partial report of the trials done', async () => {
    const dir = tempDir();
    const result = await interrupt(dir, 500, false);
    expect(result.code, result.stderr.slice(-2000)).toBe(3);
    expect(result.afterLastMs).toBeLessThan(30_000);
    const report = JSON.parse(readFileSync(path.join(dir, 'out', 'report.json'), 'utf8')) as { run: { interrupted: boolean; trials_planned: number }; summary: { trials: number } };
    expect(report.run).toMatchObject({ interrupted: true, trials_planned: EPOCHS });
    expect(report.summary.trials).toBeGreaterThanOrEqual(500);
    expect(report.summary.trials).toBeLessThan(EPOCHS);
  }, 150_000);

  it('a second SIGINT while the report is written ends the process at once (by the signal), leaving no torn report', async () => {
    const dir = tempDir();
    // Thousands of trials done: writing their report takes long enough for the second SIGINT to land in it.
    const result = await interrupt(dir, 3000, true);
    expect(result.stderr).toContain('again to quit at once');
    // Ended by the signal itself, not after finishing the report (the old handler was never heard
    // while the report was built: the run went on to exit 3).
    expect({ code: result.code, signal: result.signal }, result.stderr.slice(-2000)).toEqual({ code: null, signal: 'SIGINT' });
    expect(result.afterLastMs).toBeLessThan(5_000);
    const file = path.join(dir, 'out', 'report.json');
    if (existsSync(file)) expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();
  }, 150_000);
});
