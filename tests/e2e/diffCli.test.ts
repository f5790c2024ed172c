import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { makeReport, type TaskSpec } from '../helpers/reportBuilder.js';
import type { RunReport } from '../../src/schema/report.js';

function reports() {
  const dir = tempDir();
  const before = makeReport([{ id: 'a', trials: 'ppp' }, { id: 'b', trials: 'ppp' }]);
  const after = makeReport([{ id: 'a', trials: 'ppf' }, { id: 'b', trials: 'pfp' }]);
  mkdirSync(path.join(dir, 'run'));
  writeFileSync(path.join(dir, 'run', 'report.json'), JSON.stringify(after));
  writeFileSync(path.join(dir, 'base.json'), JSON.stringify(before));
  return { dir, report: path.join(dir, 'run', 'report.json'), baseline: path.join(dir, 'base.json') };
}

describe('tracegate diff', () => {
  it('--out to a folder that does not exist creates it and writes the report there', async () => {
    const { dir, report, baseline } = reports();
    const out = path.join(dir, 'deep', 'new', 'folder');
    const result = await runCli(['diff', report, baseline, '--out', out, '--no-html', '--significance']);
    expect(result.code, result.stderr).toBe(0);
    const written = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(written.diff.significance).toMatchObject({ verdict: 'inconclusive', method: 'stratified_exact' });
    const summary = readFileSync(path.join(out, 'summary.md'), 'utf8');
    expect(summary).toMatch(/Why this test: several or unequal judged trials per task: exact stratified permutation test/);
    expect(summary).toMatch(/\*\*Weak comparison:\*\*\n\n- only 2 paired task\(s\)\n- no outcome of these 2 informative task\(s\) could reach p &lt; 0.05/);
    expect(result.stdout).toMatch(/weak comparison/);
  });

  it('--out that cannot be a folder fails with exit 2 and writes nothing', async () => {
    const { dir, report, baseline } = reports();
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'x');
    const result = await runCli(['diff', report, baseline, '--out', file, '--no-html']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--out .*a-file is a file, not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('takes the baseline as the argument or as --baseline, and refuses two different ones', async () => {
    const { dir, report, baseline } = reports();
    const byFlag = await runCli(['diff', report, '--baseline', baseline, '--out', path.join(dir, 'o1'), '--no-html', '--significance']);
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir, 'o1', 'report.json'), 'utf8')).diff.baseline.file).toMatch(/base\.json$/);
    const other = path.join(dir, 'other.json');
    writeFileSync(other, readFileSync(baseline));
    const both = await runCli(['diff', report, baseline, '-b', other, '--out', path.join(dir, 'o2'), '--no-html']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/two baselines given/);
    expect(existsSync(path.join(dir, 'o2'))).toBe(false);
    const none = await runCli(['diff', report]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/diff needs a baseline/);
  });
});

/** A report of a live (noisy) agent: the gate must tell its trial noise from a fall. */
function live(specs: TaskSpec[]): RunReport {
  const report = makeReport(specs);
  report.run.model = { ...report.run.model, provider: 'openai', mode: 'live' };
  report.run.scripted = false;
  return report;
}
const many = (n: number, trials: string, prefix: string, fingerprint?: string): TaskSpec[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, trials, ...(fingerprint ? { fingerprint } : {}) }));

function pair(base: RunReport, current: RunReport) {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'base.json'), JSON.stringify(base));
  writeFileSync(path.join(dir, 'report.json'), JSON.stringify(current));
  return { dir, report: path.join(dir, 'report.json'), baseline: path.join(dir, 'base.json') };
}
const written = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as RunReport;
const rule = (report: RunReport, name: string) => report.gate!.results.find((r) => r.rule === name)!;

describe('tracegate diff: the default gate under noise and the one drop figure', () => {
  // An A/A comparison of a noisy agent: ten stable tasks go 3/3 → 2/3, ten others rise, forty flaky ones shuffle.
  const noisyAA = () =>
    pair(
      live([...many(10, 'ppp', 'moved'), ...many(10, 'pff', 'rose'), ...many(40, 'ppf', 'flaky'), ...many(40, 'ppp', 'stable')]),
      live([...many(10, 'ppf', 'moved'), ...many(10, 'ppf', 'rose'), ...many(40, 'pfp', 'flaky'), ...many(40, 'ppp', 'stable')]),
    );

  it('passes a noisy A/A run with no gate flags, naming the tasks that only moved; --max-tasks-down keeps the literal rule', async () => {
    const { dir, report, baseline } = noisyAA();
    const out = path.join(dir, 'out');
    const result = await runCli(['diff', report, baseline, '--out', out, '--no-html']);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/only moved \(within noise\): moved0 \(3\/3 → 2\/3, p=0\.50\)/);
    const gated = written(out);
    expect(gated.gate!.passed).toBe(true);
    expect(rule(gated, 'max_regressions')).toMatchObject({ passed: true, actual: '0 beyond noise, 10 only moved' });
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(/\| max_regressions \| &lt;= 0 beyond noise \| 0 beyond noise, 10 only moved \| ✅ \|/);

    const literal = await runCli(['diff', report, baseline, '--max-tasks-down', '0', '--out', path.join(dir, 'literal'), '--no-html']);
    expect(literal.code).toBe(1);
    expect(rule(written(path.join(dir, 'literal')), 'max_tasks_down')).toMatchObject({ passed: false, actual: '10' });
  });

  it('counts a task as a regression when its own fall is beyond noise (5 → 5 epochs, 5/5 → 0/5)', async () => {
    const { dir, report, baseline } = pair(live([...many(3, 'ppppp', 'broke'), ...many(10, 'ppppf', 'flaky')]), live([...many(3, 'fffff', 'broke'), ...many(10, 'pppfp', 'flaky')]));
    const result = await runCli(['diff', report, baseline, '--out', dir, '--no-html']);
    expect(result.code).toBe(1);
    expect(rule(written(dir), 'max_regressions')).toMatchObject({ passed: false, actual: '3 beyond noise, 0 only moved' });
    expect(result.stdout).toMatch(/beyond noise: broke0 \(5\/5 → 0\/5, p=0\.0040\)/);
  });

  it('--max-drop checks the drop the terminal and summary.md print, to the printed decimal', async () => {
    const { dir, report, baseline } = pair(
      live([...many(30, 'ppp', 'stable'), ...many(30, 'ppf', 'mid'), ...many(10, 'pff', 'hard')]),
      live([...many(22, 'ppp', 'stable'), ...many(8, 'pff', 'stable', undefined).map((t, i) => ({ ...t, id: `stable${22 + i}` })), ...many(30, 'pff', 'mid'), ...many(10, 'fff', 'hard')]),
    );
    const first = await runCli(['diff', report, baseline, '--significance', '--out', path.join(dir, 'o'), '--no-html']);
    const figure = /paired test \([a-z_]+\): regressed; drop (\d+\.\d) points, 95% CI \[(\d+\.\d), (\d+\.\d)\]/.exec(first.stdout);
    expect(figure, first.stdout).not.toBeNull();
    const drop = figure![1]!;
    expect(readFileSync(path.join(dir, 'o', 'summary.md'), 'utf8')).toContain(`regressed — drop ${drop} points, 95% CI \\[${figure![2]}, ${figure![3]}\\]`);
    // The interval printed with the verdict is the test's own: "regressed" sits beside an interval above 0.
    expect(Number(figure![2])).toBeGreaterThan(0);
    const at = await runCli(['diff', report, baseline, '--max-drop', `${drop}%`, '--out', path.join(dir, 'at'), '--no-html']);
    expect(at.code, at.stdout).toBe(0);
    expect(rule(written(path.join(dir, 'at')), 'max_drop')).toMatchObject({ passed: true, actual: `drop ${drop} points` });
    const below = (Number(drop) - 0.1).toFixed(1);
    const under = await runCli(['diff', report, baseline, '--max-drop', `${below}%`, '--out', path.join(dir, 'under'), '--no-html']);
    expect(under.code).toBe(1);
    expect(rule(written(path.join(dir, 'under')), 'max_drop')).toMatchObject({ passed: false, expected: `drop <= ${below} points`, actual: `drop ${drop} points` });
  });

  it('never prints p = 0: 250 tasks PPP → FFF give "p < 1e-300" and a positive p in report.json', async () => {
    const { dir, report, baseline } = pair(live(many(250, 'ppp', 't')), live(many(250, 'fff', 't')));
    const result = await runCli(['diff', report, baseline, '--out', dir, '--no-html']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/regressed; drop 100\.0 points, 95% CI \[\d+\.\d, 100\.0\], p < 1e-300/);
    const sig = written(dir).diff!.significance!;
    expect(sig.p_value).toBeGreaterThan(0);
    expect(sig.p_value_bound).toBe(true);
  });

  it('a comparison with no paired task fails the default gate and --max-drop, saying why', async () => {
    const { dir, report, baseline } = pair(live(many(20, 'ppp', 't')), live(many(20, 'fff', 't', 'redefined')));
    const result = await runCli(['diff', report, baseline, '--out', path.join(dir, 'd'), '--no-html']);
    expect(result.code).toBe(1);
    const gated = written(path.join(dir, 'd'));
    expect(gated.gate!.passed).toBe(false);
    expect(rule(gated, 'no_significant_regression')).toMatchObject({ passed: false, actual: 'no paired task', detail: expect.stringMatching(/nothing to compare/) });
    const drop = await runCli(['diff', report, baseline, '--max-drop', '5%', '--out', path.join(dir, 'm'), '--no-html']);
    expect(drop.code).toBe(1);
    expect(rule(written(path.join(dir, 'm')), 'max_drop')).toMatchObject({ passed: false, actual: 'no paired task' });
  });

  it('every current trial errored: exit 3, and every artifact says the gate did not pass', async () => {
    const { dir, report, baseline } = pair(live(many(5, 'ppp', 't')), live(many(5, 'eee', 't')));
    const result = await runCli(['diff', report, baseline, '--max-drop', '50%', '--out', dir, '--no-html']);
    expect(result.code).toBe(3);
    const gated = written(dir);
    expect(gated.gate!.passed).toBe(false);
    expect(rule(gated, 'trials_judged')).toMatchObject({ passed: false, actual: 'every one of 15 trials errored' });
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toMatch(/gate failed/);
    expect(result.stdout).toMatch(/gate \(flags\): FAILED/);
  });
});
