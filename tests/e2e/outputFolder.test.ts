import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir } from '../helpers/cli.js';

/** Policy tasks (no model) that each sleep a little, so a kill lands among them. */
function slowSuite(count: number): string {
  const dir = tempDir();
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ id: `t${i}`, tool_call: { name: 'run_shell', arguments: { command: 'sleep 0.2' } }, expected_policy: 'allow' }));
  writeFileSync(path.join(dir, 's.jsonl'), lines.join('\n') + '\n');
  return path.join(dir, 's.jsonl');
}

/**
 * Runs the CLI and SIGKILLs it once its first trial is stored: after its first progress line, as
 * soon as the journal (written by the trial writer's thread, a moment later) holds a whole line.
 */
function killAfterFirstTrial(args: string[], out: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    const journal = path.join(out, 'results.jsonl');
    let stderr = '';
    let watching: NodeJS.Timeout | undefined;
    child.stderr.on('data', (d) => {
      stderr += d;
      if (watching || !/\[1\/\d+\]/.test(stderr)) return;
      watching = setInterval(() => {
        if (existsSync(journal) && readFileSync(journal, 'utf8').includes('\n')) child.kill('SIGKILL');
      }, 10);
    });
    child.on('close', () => {
      clearInterval(watching);
      resolve();
    });
  });
}

describe('the output folder of a fresh run', () => {
  it('never shows the previous run\'s report beside new traces: a fresh run killed after one trial leaves no report', async () => {
    const suite = slowSuite(12);
    const out = tempDir();
    const first = await runCli(['run', suite, '--out', out, '-j', '4']);
    expect(first.code, first.stderr).toBe(0);
    for (const file of ['report.json', 'report.html', 'junit.xml', 'summary.md']) expect(existsSync(path.join(out, file))).toBe(true);

    await killAfterFirstTrial(['run', suite, '--out', out, '-j', '1'], out);
    for (const file of ['report.json', 'report.html', 'junit.xml', 'summary.md']) expect(existsSync(path.join(out, file)), file).toBe(false);
    // The new run's trials are there, and --resume finishes it with a report of its own.
    const journal = readFileSync(path.join(out, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(journal.length).toBeGreaterThan(0);
    expect(journal.length).toBeLessThan(12);
    const resumed = await runCli(['run', suite, '--out', out, '--resume', '--no-html']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')).summary.trials).toBe(12);
  }, 60_000);

  it('removes only tracegate\'s own files: a user\'s files in --out and traces/ stay', async () => {
    const suite = slowSuite(2);
    const out = tempDir();
    expect((await runCli(['run', suite, '--out', out, '--no-html'])).code).toBe(0);
    writeFileSync(path.join(out, 'traces', 'my-otel-export.json'), '{"resourceSpans": []}');
    writeFileSync(path.join(out, 'traces', 'notes.txt'), 'mine');
    writeFileSync(path.join(out, 'notes.txt'), 'mine too');
    // A trace file of a task no longer in the suite is tracegate's: it goes.
    writeFileSync(path.join(out, 'traces', 'gone_task.e0.json'), '{}');
    const fresh = await runCli(['run', suite, '--out', out, '--no-html']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(readdirSync(path.join(out, 'traces')).sort()).toEqual(['my-otel-export.json', 'notes.txt', 't0.e0.json', 't1.e0.json']);
    expect(readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('mine too');
  });

  it('refuses (exit 2, nothing touched) a traces/ that is a symbolic link: the run would clear and fill the folder it points to', async () => {
    const suite = slowSuite(1);
    const out = tempDir();
    const elsewhere = tempDir();
    writeFileSync(path.join(elsewhere, 'precious.e1.json'), 'mine');
    symlinkSync(elsewhere, path.join(out, 'traces'));
    const result = await runCli(['run', suite, '--out', out, '--no-html']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/traces is a symbolic link/);
    expect(readdirSync(elsewhere)).toEqual(['precious.e1.json']);
  });

  it('refuses (exit 2, nothing touched) a folder whose results.jsonl is not a tracegate journal', async () => {
    const suite = slowSuite(1);
    const out = tempDir();
    writeFileSync(path.join(out, 'results.jsonl'), '{"user": "data"}\n');
    mkdirSync(path.join(out, 'traces'));
    writeFileSync(path.join(out, 'traces', 't0.e0.json'), 'theirs');
    for (const extra of [[], ['--resume']]) {
      const result = await runCli(['run', suite, '--out', out, '--no-html', ...extra]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/results\.jsonl is not a tracegate journal/);
      expect(readFileSync(path.join(out, 'results.jsonl'), 'utf8')).toBe('{"user": "data"}\n');
      expect(readFileSync(path.join(out, 'traces', 't0.e0.json'), 'utf8')).toBe('theirs');
      expect(existsSync(path.join(out, 'report.json'))).toBe(false);
    }
  });
});
