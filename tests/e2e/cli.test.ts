import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunReportSchema, type RunReport } from '../../src/schema/report.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';
import { DEMO_FAILING, DEMO_TASKS } from '../helpers/demoSuite.js';

const readReport = (dir: string): RunReport => RunReportSchema.parse(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));

describe('tracegate CLI, end to end', () => {
  it('runs the demo against its baseline: a report, one trace per task, judged failures, a passing gate', async () => {
    const out = tempDir();
    const result = await runCli(['run', 'suites/demo.jsonl', '--cassettes', 'suites/demo/cassettes', '--baseline', 'baselines/demo.json', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const report = readReport(out);
    expect(report.run).toMatchObject({ scripted: true, model: { provider: 'cassette', mode: 'scripted' } });
    expect(result.stdout).toContain('SCRIPTED: hand-written cassette responses');
    expect(report.tasks).toHaveLength(DEMO_TASKS);
    for (const task of report.tasks) {
      expect(existsSync(path.join(out, task.trace_file!))).toBe(true);
      if (task.status === 'failed') {
        expect(task.failure_reason).not.toBeNull();
        expect(task.failure_layer).not.toBeNull();
        expect(task.evidence.length).toBeGreaterThan(0);
      }
    }
    const layers = new Set(report.tasks.filter((t) => t.status === 'failed').map((t) => t.failure_layer));
    expect(layers.size).toBeGreaterThanOrEqual(2);
    expect(report.diff?.counts.regressed).toBe(0);
    expect(report.gate?.passed).toBe(true);
    expect(readdirSync(path.join(out, 'traces'))).toHaveLength(DEMO_TASKS);
    for (const file of ['junit.xml', 'summary.md', 'report.html']) expect(existsSync(path.join(out, file))).toBe(true);
  });

  it('replaying a demo trace under bubblewrap names the rule that allowed git status and python3 -m pytest', async () => {
    const out = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--sandbox', 'bwrap', '--baseline', 'baselines/demo.json', '--out', out, '-q', '--no-html']);
    expect(run.code, run.stderr).toBe(0);
    const replay = await runCli(['replay', path.join(out, 'traces', 'run_tests_in_repo_001.e0.json')]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/tool run_shell \{"command":"git status --short"\}\n\s+policy: allow \[low risk\] — git-read-only: /);
    expect(replay.stdout).toMatch(/tool run_shell \{"command":"python3 -m pytest -q"\}\n\s+policy: allow \[medium risk\] — interpreter-isolated: python3: runs workspace code inside bubblewrap/);
    // The allowed commands ran for real: git saw the untracked files, pytest ran the workspace's tests.
    expect(replay.stdout).toContain('?? restock.py');
    expect(replay.stdout).toMatch(/ok: .*2 passed in/);
  });

  it('the report.html a run writes (traces packed as they were stored) is the page `report` renders from the files', async () => {
    const out = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--cassettes', 'suites/demo/cassettes', '--baseline', 'baselines/demo.json', '--out', out, '-q']);
    expect(run.code, run.stderr).toBe(0);
    const rerendered = path.join(out, 'rerendered.html');
    const report = await runCli(['report', path.join(out, 'report.json'), '--out', rerendered]);
    expect(report.code, report.stderr).toBe(0);
    const blocks = (file: string) => readFileSync(file, 'utf8').match(/<script type="application\/gzip;base64" class="trace"[^>]*>[^<]*/g);
    const data = (file: string): unknown => JSON.parse(/id="tracegate-data">([^<]*)<\/script>/.exec(readFileSync(file, 'utf8'))![1]!);
    expect(blocks(path.join(out, 'report.html'))).toHaveLength(DEMO_TASKS);
    expect(blocks(rerendered)).toEqual(blocks(path.join(out, 'report.html')));
    expect(data(rerendered)).toEqual(data(path.join(out, 'report.html')));
  });

  it('--version and -V print the version package.json holds, the same one the reports record', async () => {
    const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
    const { TRACEGATE_VERSION } = await import('../../src/version.js');
    expect(TRACEGATE_VERSION).toBe(version);
  });

  it('validate names every broken line and field and exits 2', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'broken.jsonl');
    writeFileSync(file, ['{"id": "fine", "prompt": "p"}', '{"id": "cut", "prompt": ', '{"id": "typed", "prompt": "p", "max_steps": "10"}'].join('\n'));
    const result = await runCli(['validate', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/broken\.jsonl:2: invalid JSON/);
    expect(result.stderr).toMatch(/broken\.jsonl:3: field max_steps:/);
    expect(result.stderr).not.toMatch(/:1:/);
    const ok = await runCli(['validate', 'suites/demo.jsonl']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(new RegExp(`${DEMO_TASKS} tasks valid`));
  });

  it('a bad suite writes nothing and keeps what is already in the output folder', async () => {
    const out = tempDir();
    writeFileSync(path.join(out, 'report.json'), '{"keep": true}');
    const dir = tempDir();
    writeFileSync(path.join(dir, 's.jsonl'), '{"id": "x"}\n');
    const result = await runCli(['run', path.join(dir, 's.jsonl'), '--cassettes', 'suites/demo/cassettes', '--out', out]);
    expect(result.code).toBe(2);
    expect(readFileSync(path.join(out, 'report.json'), 'utf8')).toBe('{"keep": true}');
  });

  it('refuses to run without a model instead of falling back to a script', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'agent.jsonl'), JSON.stringify({ id: 'needs_model', prompt: 'hi', expected_contains: ['x'] }) + '\n');
    const result = await runCli(['run', path.join(dir, 'agent.jsonl'), '--out', tempDir()], { env: { OPENAI_MODEL: '', OPENAI_BASE_URL: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no model configured/);
    const keyless = await runCli(['run', path.join(dir, 'agent.jsonl'), '--model', 'gpt-4o-mini', '--out', tempDir()], { env: { OPENAI_API_KEY: '', OPENAI_BASE_URL: '' } });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toMatch(/OPENAI_API_KEY is not set, and api\.openai\.com needs a key/);
    // The demo names its own cassettes in its header line, and the report says they are scripts.
    const demo = await runCli(['run', 'suites/demo.jsonl', '--grep', 'read_summarize', '--out', tempDir(), '--no-html']);
    expect(demo.code).toBe(0);
    expect(demo.stdout).toMatch(/SCRIPTED/);
  });

  it('replay tells a demo trace as a story', async () => {
    const out = tempDir();
    await runCli(['run', 'suites/demo.jsonl', '--cassettes', 'suites/demo/cassettes', '--grep', 'missing_readme', '--out', out, '--no-html']);
    const result = await runCli(['replay', path.join(out, 'traces/missing_readme_recovery_001.e0.json')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/step 1\n {2}model: 1 tool call\n {2}tool read_file \{"path":"README2.md"\}/);
    expect(result.stdout).toMatch(/FILE_NOT_FOUND: README2.md does not exist · suggestion: similar files: README.md/);
    expect(result.stdout).toMatch(/final answer \(completed\): README2.md does not exist/);
    const bad = await runCli(['replay', path.join(out, 'report.json')]);
    expect(bad.code).toBe(2);
  });

  it('compare finds the tool-layer regression of variant B and exits 1', async () => {
    const out = tempDir();
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--out', out, '-q']);
    expect(result.code).toBe(1);
    const report = readReport(out);
    expect(report.run.variant?.name).toBe('b');
    const regressed = report.diff!.tasks.filter((t) => t.change === 'regressed');
    expect(regressed.length).toBeGreaterThan(0);
    expect(regressed.every((t) => t.current?.failure_layer === 'tool')).toBe(true);
    expect(regressed[0]!.baseline_trace_file).toMatch(/^a\/traces\//);
    expect(report.gate?.results.find((r) => r.rule === 'max_regressions')?.passed).toBe(false);
    expect(readReport(path.join(out, 'a')).run.variant?.name).toBe('a');
  });

  it('--epochs 3 gives every task 3 trials and pass@k / pass^k', async () => {
    const out = tempDir();
    const result = await runCli(['run', 'suites/demo.jsonl', '--cassettes', 'suites/demo/cassettes', '--epochs', '3', '--out', out, '-q', '--no-html']);
    expect(result.code).toBe(1); // the demo fails on purpose and no baseline is given
    // The README says so beside the command: keep the two in step if the default gate changes.
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toMatch(/--epochs 3 --out reports\/epochs +# .*exits 1/);
    const report = readReport(out);
    expect(report.tasks.every((t) => t.trials.length === 3)).toBe(true);
    expect(report.summary.epochs).toBe(3);
    expect(report.summary.pass_hat_k).toBeCloseTo((DEMO_TASKS - DEMO_FAILING) / DEMO_TASKS, 10);
    expect(report.summary.pass_at_k).toBeCloseTo((DEMO_TASKS - DEMO_FAILING) / DEMO_TASKS, 10);
    const rate = (100 * (DEMO_TASKS - DEMO_FAILING) / DEMO_TASKS).toFixed(1).replace('.', '\\.');
    expect(result.stdout).toMatch(new RegExp(`pass@3: ${rate}%\\s+pass\\^3: ${rate}%`));
  });

  it('runs against a live OpenAI-compatible server, records, and replays the recording', async () => {
    const server = new FakeOpenAIServer((body) => {
      const hasTool = body.messages.some((m) => m.role === 'tool');
      return hasTool ? { content: 'The project is stockroom, an inventory service.' } : { tool_calls: [{ name: 'read_file', arguments: '{"path":"README.md"}' }] };
    });
    const baseURL = await server.start();
    try {
      const out = tempDir();
      const cassettes = tempDir();
      const live = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--model', 'local-model', '--base-url', baseURL, '--record', cassettes, '--out', out, '--no-html']);
      expect(live.code, live.stderr).toBe(0);
      expect(readReport(out).run.model).toMatchObject({ provider: 'openai', mode: 'recording', model: 'local-model' });
      expect(live.stdout).toMatch(/LIVE and recording: local-model/);

      const replay = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--cassettes', cassettes, '--out', out, '--no-html']);
      expect(replay.code, replay.stderr).toBe(0);
      expect(readReport(out).run.model.mode).toBe('replayed');
      expect(replay.stdout).toMatch(/REPLAYED: recorded responses of local-model/);
    } finally {
      await server.stop();
    }
  });

  it('a provider outage that outlasts the task budget makes tasks errored (exit 3 when nothing could be judged)', async () => {
    const server = new FakeOpenAIServer(() => ({ status: 503 }));
    const baseURL = await server.start();
    try {
      const out = tempDir();
      // Provider faults are retried until the task's --timeout runs out.
      const result = await runCli(['run', 'suites/demo.jsonl', '--grep', '^read_summarize', '--model', 'm', '--base-url', baseURL, '--timeout', '1500', '--out', out, '--no-html']);
      expect(result.code).toBe(3);
      const report = readReport(out);
      expect(report.tasks[0]).toMatchObject({ status: 'errored', error: { code: 'PROVIDER_ERROR' } });
    } finally {
      await server.stop();
    }
  });

  it('an interrupted run keeps every finished trial and --resume completes it', async () => {
    const dir = tempDir();
    const lines = Array.from({ length: 6 }, (_, i) =>
      JSON.stringify({ id: `slow_${i}`, tool_call: { name: 'run_shell', arguments: { command: i < 2 ? 'echo fast' : 'sleep 5' } }, expected_policy: 'allow' }),
    );
    writeFileSync(path.join(dir, 'slow.jsonl'), lines.join('\n'));
    const out = tempDir();
    let pid = 0;
    const running = runCli(['run', path.join(dir, 'slow.jsonl'), '--out', out, '-j', '2', '--no-html'], { onSpawn: (p) => (pid = p) });
    // Wait for the first journal lines, then interrupt.
    const journal = path.join(out, 'results.jsonl');
    for (let i = 0; i < 600 && !(existsSync(journal) && readFileSync(journal, 'utf8').split('\n').filter(Boolean).length >= 2); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(pid, 'SIGINT');
    const interrupted = await running;
    expect(interrupted.code).toBe(3);
    const partial = readReport(out);
    expect(partial.run.interrupted).toBe(true);
    expect(partial.tasks.length).toBeGreaterThanOrEqual(2);
    expect(partial.tasks.length).toBeLessThan(6);

    const resumed = await runCli(['run', path.join(dir, 'slow.jsonl'), '--out', out, '-j', '3', '--no-html', '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const full = readReport(out);
    expect(full.tasks).toHaveLength(6);
    expect(full.run.interrupted).toBe(false);
    const resumedLines = resumed.stderr.split('\n').filter((l) => l.startsWith('['));
    expect(resumedLines.length).toBe(6 - partial.tasks.length);
  });

  it('a reader that closes the pipe early (tracegate … | head) does not crash the run: it still writes its report and exits with its code', async () => {
    const out = tempDir();
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/tracegate.js'), 'run', 'suites/demo.jsonl', '--baseline', 'baselines/demo.json', '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
    expect(readReport(out).tasks).toHaveLength(DEMO_TASKS);
  });
});
