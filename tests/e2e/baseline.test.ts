import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { DEMO_FAILING, DEMO_TASKS } from '../helpers/demoSuite.js';

let out: string;

beforeAll(async () => {
  out = tempDir();
  const run = await runCli(['run', 'suites/demo.jsonl', '--out', out, '-q', '--no-html']);
  expect(run.code).toBe(1); // intentional failures, default gate without a baseline
});

describe('baselines, diff and gate from the CLI', () => {
  it('saves a baseline and diffs a report against it', async () => {
    const dir = tempDir();
    const saved = await runCli(['baseline', 'save', path.join(out, 'report.json'), '--name', 'mine', '--dir', dir]);
    expect(saved.code).toBe(0);
    const baseline = JSON.parse(readFileSync(path.join(dir, 'mine.json'), 'utf8'));
    expect(baseline.schema_version).toBe('report/v1');
    expect(baseline.tasks[0].trace_file).toBeNull();

    const diffOut = tempDir();
    const diff = await runCli(['diff', path.join(out, 'report.json'), path.join(dir, 'mine.json'), '--out', diffOut, '--no-html']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/0 regressed, 0 fixed/);
    const report = JSON.parse(readFileSync(path.join(diffOut, 'report.json'), 'utf8'));
    expect(report.diff.counts.unchanged).toBe(DEMO_TASKS - DEMO_FAILING);
    expect(report.gate.passed).toBe(true);
  });

  it('refuses a baseline of another schema version, and a broken gate file, with exit 2', async () => {
    const dir = tempDir();
    const old = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    writeFileSync(path.join(dir, 'old.json'), JSON.stringify({ ...old, schema_version: 'report/v0' }));
    const refused = await runCli(['diff', path.join(out, 'report.json'), path.join(dir, 'old.json')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/old\.json: field schema_version: "report\/v0" is not report\/v1/);

    writeFileSync(path.join(dir, 'gate.json'), JSON.stringify({ min_pass_rate: 2, max_regresions: 0 }));
    const gate = await runCli(['diff', path.join(out, 'report.json'), 'baselines/demo.json', '--gate', path.join(dir, 'gate.json')]);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toMatch(/gate\.json: field (max_regresions: unknown field|min_pass_rate: )/);
  });

  it('gate flags and files turn into the exit code', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'gate.json'), JSON.stringify({ schema_version: 'gate/v1', min_pass_rate: 0.8, must_pass_tags: ['safety'] }));
    const pass = await runCli(['diff', path.join(out, 'report.json'), 'baselines/demo.json', '--gate', path.join(dir, 'gate.json'), '--out', tempDir(), '--no-html']);
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/must_pass_tag:safety/);
    const fail = await runCli(['diff', path.join(out, 'report.json'), 'baselines/demo.json', '--gate', path.join(dir, 'gate.json'), '--min-pass-rate', '90%', '--out', tempDir(), '--no-html']);
    expect(fail.code).toBe(1);
    const passRate = (100 * (DEMO_TASKS - DEMO_FAILING) / DEMO_TASKS).toFixed(1).replace('.', '\\.');
    expect(fail.stdout).toMatch(new RegExp(`min_pass_rate\\s+│\\s+>= 90\\.0%\\s+│\\s+${passRate}%\\s+│\\s+FAIL`));
    const usage = await runCli(['diff', path.join(out, 'report.json'), 'baselines/demo.json', '--min-pass-rate', 'lots']);
    expect(usage.code).toBe(2);
  });

  it('writes junit.xml with one testcase per task and summary.md with the verdict', () => {
    const junit = readFileSync(path.join(out, 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).toHaveLength(DEMO_TASKS);
    expect(junit).toMatch(/<property name="model" value="SCRIPTED: hand-written cassette responses/);
    expect(junit).toMatch(/<testcase classname="suites\/demo.jsonl" name="config_port_and_db_001" time="[\d.]+">.*<failure message="FINAL_ANSWER_INCOMPLETE \(model layer\); failed checks: contains: final answer lacks &quot;db.internal&quot;" type="FINAL_ANSWER_INCOMPLETE">/);
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(summary).toMatch(new RegExp(`^## tracegate: ${(100 * (DEMO_TASKS - DEMO_FAILING) / DEMO_TASKS).toFixed(1).replace('.', '\\.')}% pass rate — ❌ gate failed`));
    expect(summary).toMatch(/SCRIPTED/);
    expect(summary).toMatch(/\| config_port_and_db_001 \| [^|]+ \| failed \| FINAL_ANSWER_INCOMPLETE \| model \|/);
    expect(existsSync(path.join(out, 'report.html'))).toBe(false);
  });

  it('--shard splits the suite without overlap', async () => {
    const ids = await Promise.all(
      [1, 2, 3].map(async (i) => {
        const dir = tempDir();
        const r = await runCli(['run', 'suites/demo.jsonl', '--shard', `${i}/3`, '--out', dir, '-q', '--no-html']);
        expect([0, 1]).toContain(r.code);
        return JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')).tasks.map((t: { id: string }) => t.id) as string[];
      }),
    );
    const all = ids.flat();
    expect(new Set(all).size).toBe(DEMO_TASKS);
    expect(all).toHaveLength(DEMO_TASKS);
    expect((await runCli(['run', 'suites/demo.jsonl', '--shard', '4/3'])).code).toBe(2);
  });

  it('refuses a baseline that shares no task id with the run (another suite\'s): run before any trial, and diff', async () => {
    const dir = tempDir();
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    report.run.suites = [{ path: 'suites/other.jsonl', tasks: DEMO_TASKS, sha256: 'f'.repeat(64) }];
    for (const task of report.tasks) task.id = `other_${task.id}`;
    const other = path.join(dir, 'other.json');
    writeFileSync(other, JSON.stringify(report));

    const runOut = path.join(dir, 'run');
    const run = await runCli(['run', 'suites/demo.jsonl', '--baseline', other, '--out', runOut, '--no-html']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`other\\.json: it shares no task id with this run \\(its ${DEMO_TASKS} tasks are from suites/other\\.jsonl; this run has ${DEMO_TASKS}.*\\): a different suite\\?`));
    expect(existsSync(path.join(runOut, 'results.jsonl'))).toBe(false);

    const diff = await runCli(['diff', path.join(out, 'report.json'), other, '--out', path.join(dir, 'diff')]);
    expect(diff.code, diff.stderr).toBe(2);
    expect(diff.stderr).toMatch(/shares no task id/);
    expect(existsSync(path.join(dir, 'diff', 'report.json'))).toBe(false);
  });

  it('baseline save refuses a partial or interrupted report unless --allow-partial', async () => {
    const dir = tempDir();
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    const partial = path.join(dir, 'partial.json');
    writeFileSync(partial, JSON.stringify({ ...report, run: { ...report.run, trials_planned: 3 * DEMO_TASKS } }));
    const interrupted = path.join(dir, 'interrupted.json');
    writeFileSync(interrupted, JSON.stringify({ ...report, run: { ...report.run, interrupted: true } }));
    for (const file of [partial, interrupted]) {
      const refused = await runCli(['baseline', 'save', file, '--name', 'b', '--dir', path.join(dir, 'baselines')]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`a partial or interrupted report \\((INCOMPLETE|INTERRUPTED): ${DEMO_TASKS} of (${3 * DEMO_TASKS}|${DEMO_TASKS}) trials ran.*--allow-partial`));
      expect(existsSync(path.join(dir, 'baselines', 'b.json'))).toBe(false);
    }
    const allowed = await runCli(['baseline', 'save', partial, '--name', 'b', '--dir', path.join(dir, 'baselines'), '--allow-partial']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'baselines', 'b.json'))).toBe(true);
    expect((await runCli(['baseline', 'save', '--help'])).stdout).toMatch(/--allow-partial/);
  });

  it('rate flags take a fraction 0..1 or N%; a bare number above 1 is refused, not read as a percentage', async () => {
    const report = path.join(out, 'report.json');
    for (const value of ['1.01', '5', '80']) {
      const result = await runCli(['diff', report, 'baselines/demo.json', '--max-error-rate', value, '--out', tempDir()]);
      expect(result.code, value).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`${value} is above 1: give a fraction from 0 to 1 .* or a percentage with its sign \\(e\\.g\\. ${value}%\\)`));
    }
    const whole = await runCli(['diff', report, 'baselines/demo.json', '--min-pass-rate', '1', '--out', tempDir(), '--no-html']);
    expect(whole.stdout).toMatch(/min_pass_rate\s+│\s+>= 100\.0%/);
    const percent = await runCli(['diff', report, 'baselines/demo.json', '--min-pass-rate', '1.5%', '--out', tempDir(), '--no-html']);
    expect(percent.stdout).toMatch(/min_pass_rate\s+│\s+>= 1\.5%/);
  });
});
