import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { RunReportSchema, type RunReport } from '../../src/schema/report.js';
import { BIN, ROOT, runCli, tempDir } from '../helpers/cli.js';

const readReport = (dir: string): RunReport => RunReportSchema.parse(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));

/** Policy tasks (no model) that each take a little while, so a kill lands among them. */
function slowSuite(count: number, seconds = 0.05): string {
  const dir = tempDir();
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `t_${String(i).padStart(3, '0')}`, tool_call: { name: 'run_shell', arguments: { command: `sleep ${seconds}` } }, expected_policy: 'allow' }),
  );
  writeFileSync(path.join(dir, 'slow.jsonl'), lines.join('\n') + '\n');
  return path.join(dir, 'slow.jsonl');
}

/**
 * Starts the CLI as a real child process and kills it with SIGKILL when `when` says so (given the
 * stderr so far) or after `afterMs`; resolves once it is gone.
 */
function runAndKill(args: string[], kill: { afterMs?: number; when?: (stderr: string) => boolean }): Promise<{ pid: number; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = kill.afterMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), kill.afterMs) : undefined;
    child.stderr.on('data', (d) => {
      stderr += d;
      if (kill.when?.(stderr)) child.kill('SIGKILL');
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ pid: child.pid!, code, stderr });
    });
  });
}

/** report.json, when there is one, is always a whole, valid report. */
function expectNoTornReport(out: string): RunReport | null {
  const file = path.join(out, 'report.json');
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  expect(text.length, 'report.json is empty').toBeGreaterThan(0);
  return RunReportSchema.parse(JSON.parse(text));
}

describe('nothing lost: kill -9, resume, interruption', () => {
  it('kill -9 at random moments during trials and during report writing, then --resume: every trial exactly once, no torn report', async () => {
    const suite = slowSuite(40);
    const out = tempDir();
    const epochs = 2;
    const total = 40 * epochs;
    const base = ['run', suite, '--out', out, '-j', '4', '--epochs', String(epochs)];
    const killed: number[] = [];

    for (let round = 0; round < 4; round++) {
      const args = round === 0 ? base : [...base, '--resume'];
      const result = await runAndKill(args, { afterMs: 300 + Math.floor(Math.random() * 1200) });
      killed.push(result.pid);
      expectNoTornReport(out);
    }
    // Once more, killed just as the last trial is reported: the reports are being written.
    const lastLine = new RegExp(`\\[${total}/${total}\\]`);
    const atReports = await runAndKill([...base, '--resume'], { when: (stderr) => lastLine.test(stderr) });
    killed.push(atReports.pid);
    expectNoTornReport(out);

    const resumed = await runCli([...base, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = readReport(out);
    expect(report.run.interrupted).toBe(false);
    expect(report.summary.trials).toBe(total);
    expect(new Set(report.tasks.map((t) => t.id)).size).toBe(40);
    for (const task of report.tasks) expect(task.trials.map((t) => t.epoch).sort()).toEqual([0, 1]);
    // The journal holds each trial once: none was run twice, none glued onto a torn line.
    const lines = readFileSync(path.join(out, 'results.jsonl'), 'utf8').split('\n').filter(Boolean);
    const keys = lines.map((l) => {
      const e = JSON.parse(l) as { task_id: string; trial: { epoch: number } };
      return `${e.task_id}#${e.trial.epoch}`;
    });
    expect(new Set(keys).size).toBe(total);
    expect(keys).toHaveLength(total);
    expect(readdirSync(path.join(out, 'traces')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(out).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // The workspaces of the killed runs were removed by the runs that followed them.
    const leftovers = readdirSync(tmpdir()).filter((n) => killed.some((pid) => n.startsWith(`tracegate-run-${pid}-`)));
    expect(leftovers).toEqual([]);

    // A fresh run killed while writing its reports: the previous run's report went when the run
    // started (its traces were replaced), so the folder holds the new run's whole report or none.
    const before = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as RunReport;
    await runAndKill(base, { when: (stderr) => lastLine.test(stderr) });
    const after = expectNoTornReport(out);
    if (after) {
      expect(after.run.id).not.toBe(before.run.id);
      expect(after.tasks).toHaveLength(40);
      expect(after.summary.trials).toBe(total);
    }
  }, 120_000);

  it('after Ctrl-C every artifact says the run is partial and none says the gate passed', async () => {
    const suite = slowSuite(8, 2);
    const out = tempDir();
    let pid = 0;
    const running = runCli(['run', suite, '--out', out, '-j', '2'], { onSpawn: (p) => (pid = p) });
    const journal = path.join(out, 'results.jsonl');
    for (let i = 0; i < 600 && !(existsSync(journal) && readFileSync(journal, 'utf8').split('\n').filter(Boolean).length >= 2); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(pid, 'SIGINT');
    const result = await running;
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/INTERRUPTED: \d of 8 trials ran/);
    expect(result.stdout).toMatch(/gate \(defaults\): FAILED/);
    expect(result.stdout).not.toMatch(/PASSED/);

    const report = readReport(out);
    expect(report.run).toMatchObject({ interrupted: true, trials_planned: 8 });
    expect(report.gate?.passed).toBe(false);
    expect(report.gate?.results.find((r) => r.rule === 'run_complete')?.passed).toBe(false);

    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(summary.split('\n')[0]).toMatch(/^## ⚠️ tracegate INTERRUPTED: \d of 8 trials ran/);
    expect(summary).not.toMatch(/gate passed/);
    expect(summary).toMatch(/❌ gate failed/);

    const junit = readFileSync(path.join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('<property name="interrupted" value="true"/>');
    expect(junit).toContain('<property name="complete" value="false"/>');
    expect(junit).toMatch(/<testcase classname="tracegate" name="run_complete" time="0"><failure message="INTERRUPTED: \d of 8 trials ran/);

    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    expect(html).toMatch(/"notice":"INTERRUPTED: \d of 8 trials ran/);
  });
});
