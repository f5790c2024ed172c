import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunReportSchema, type RunReport } from '../../src/schema/report.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { DEMO_TASKS } from '../helpers/demoSuite.js';

const readReport = (dir: string): RunReport => RunReportSchema.parse(JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')));
const verdicts = (report: RunReport) =>
  report.tasks.map((t) => ({ id: t.id, status: t.status, reason: t.failure_reason, layer: t.failure_layer, checks: t.checks.map((c) => [c.type, c.passed]), trials: t.trials.map((x) => x.status) }));

const demo = ['suites/demo.jsonl', '--cassettes', 'suites/demo/cassettes', '--no-html', '-q'];

describe('merge: shards joined into one report', () => {
  const root = tempDir();
  const shardDirs = [1, 2, 3, 4].map((i) => path.join(root, `shard-${i}`));
  const whole = path.join(root, 'whole');

  beforeAll(async () => {
    // Four shard jobs at once, as a CI matrix would run them, and one unsharded run to compare with.
    const runs = await Promise.all([
      ...shardDirs.map((dir, i) => runCli(['run', ...demo, '--shard', `${i + 1}/4`, '--out', dir])),
      runCli(['run', ...demo, '--out', whole]),
    ]);
    // The demo has failing tasks, so without a baseline the default gate may fail a shard (exit 1).
    for (const run of runs) expect([0, 1], run.stderr).toContain(run.code);
  }, 120_000);

  it('4 shards run in parallel and merged give the same per-task verdicts as one run, and the merged report gates', async () => {
    const out = path.join(root, 'merged');
    const merged = await runCli(['merge', ...shardDirs, '--out', out, '--baseline', 'baselines/demo.json']);
    expect(merged.code, merged.stderr).toBe(0);
    const report = readReport(out);
    const single = readReport(whole);
    expect(verdicts(report)).toEqual(verdicts(single));
    expect(report.summary).toMatchObject({ total: single.summary.total, passed: single.summary.passed, failed: single.summary.failed, failure_reasons: single.summary.failure_reasons });
    expect(report.run).toMatchObject({ shard: null, interrupted: false, merged_from: shardDirs, trials_planned: DEMO_TASKS });
    expect(report.diff?.counts.regressed).toBe(0);
    expect(report.gate?.passed).toBe(true);
    for (const task of report.tasks) expect(existsSync(path.join(out, task.trace_file!)), task.id).toBe(true);
    for (const file of ['junit.xml', 'summary.md', 'report.html']) expect(existsSync(path.join(out, file))).toBe(true);

    // The same merged report against a stricter gate fails it: the gate reads the union.
    const strict = await runCli(['merge', ...shardDirs, '--out', path.join(root, 'strict'), '--min-pass-rate', '100%', '--no-html']);
    expect(strict.code).toBe(1);
    expect(readReport(path.join(root, 'strict')).gate?.results[0]).toMatchObject({ rule: 'min_pass_rate', passed: false });
  });

  it('refuses overlapping, missing, unsharded, other-suite and other-settings outputs with exit 2 and writes nothing', async () => {
    const [s1, s2, s3, s4] = shardDirs as [string, string, string, string];
    // A shard of another suite (another path and sha256), and one run with other settings.
    const otherSuiteShard = path.join(root, 'other-suite');
    const otherEpochs = path.join(root, 'other-epochs');
    await Promise.all([
      runCli(['run', 'suites/security.jsonl', '--no-html', '-q', '--shard', '4/4', '--out', otherSuiteShard]),
      runCli(['run', ...demo, '--shard', '4/4', '--epochs', '2', '--out', otherEpochs]),
    ]);
    const cases: Array<[string[], RegExp]> = [
      [[s1, s2, s2, s4], /overlapping shards: .*shard-2 and .*shard-2 are both shard 2\/4/],
      [[s1, s2, s4], /missing shard 3\/4/],
      [[s1, s2, s3, s4, whole], /whole: not the output of a sharded run/],
      [[s1, s2, s3, otherSuiteShard], /differ in suites/],
      [[s1, s2, s3, otherEpochs], /differ in epochs: 2 vs 1/],
      [[s1, s2, s3, path.join(root, 'nowhere')], /nowhere\/report\.json: report not found/],
    ];
    for (const [dirs, message] of cases) {
      const out = path.join(tempDir(), 'merged');
      const result = await runCli(['merge', ...dirs, '--out', out]);
      expect(result.code, `${dirs.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(existsSync(path.join(out, 'report.json'))).toBe(false);
    }
  }, 120_000);

  it('refuses shards selected or limited differently (--tag, --grep, --max-steps, --timeout), naming the flag', async () => {
    const [s1, s2, s3] = shardDirs as [string, string, string, string];
    const variants: Array<[string[], RegExp]> = [
      [['--tag', 'safety', 'basics', 'files', 'recovery', 'search', 'shell', 'tools'], /differ in --tag: safety basics files recovery search shell tools vs none/],
      [['--grep', '.'], /differ in --grep: \. vs none/],
      [['--max-steps', '3'], /differ in --max-steps: 3 vs 10/],
      [['--timeout', '60000'], /differ in --timeout: 60000 vs 300000/],
    ];
    const dirs = variants.map((_, i) => path.join(root, `selection-${i}`));
    const runs = await Promise.all(variants.map(([flags], i) => runCli(['run', ...demo, '--shard', '4/4', ...flags, '--out', dirs[i]!])));
    for (const run of runs) expect([0, 1], run.stderr).toContain(run.code);
    for (const [i, [, message]] of variants.entries()) {
      const out = path.join(tempDir(), 'merged');
      const result = await runCli(['merge', s1, s2, s3, dirs[i]!, '--out', out]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(existsSync(path.join(out, 'report.json'))).toBe(false);
    }
  }, 120_000);

  it('refuses a baseline that shares no task id with the merged shards (another suite\'s), writing nothing', async () => {
    const baseline = JSON.parse(readFileSync('baselines/demo.json', 'utf8')) as RunReport;
    for (const task of baseline.tasks) task.id = `other_${task.id}`;
    const file = path.join(tempDir(), 'other.json');
    writeFileSync(file, JSON.stringify(baseline));
    const out = path.join(tempDir(), 'merged');
    const result = await runCli(['merge', ...shardDirs, '--out', out, '--baseline', file]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/other\.json: it shares no task id with this run/);
    expect(existsSync(path.join(out, 'report.json'))).toBe(false);
  });

  it('a baseline is compared with the whole run, not one shard: a shard holding only tasks added since the baseline runs, and the merge gates', async () => {
    const dir = tempDir();
    const task = (id: string) => JSON.stringify({ id, tool_call: { name: 'calculator', arguments: { expression: '1+1' } } });
    writeFileSync(path.join(dir, 'old.jsonl'), ['a', 'b'].map(task).join('\n') + '\n');
    // Many new tasks, so some shard of 4 holds none of the baseline's two.
    const ids = ['a', 'b', ...Array.from({ length: 14 }, (_, i) => `n${i}`)];
    writeFileSync(path.join(dir, 'new.jsonl'), ids.map(task).join('\n') + '\n');
    expect((await runCli(['run', path.join(dir, 'old.jsonl'), '--out', path.join(dir, 'base'), '--no-html', '-q'])).code).toBe(0);
    const baseline = path.join(dir, 'base', 'report.json');
    const outs = [1, 2, 3, 4].map((i) => path.join(dir, `s${i}`));
    const runs = await Promise.all(outs.map((out, i) => runCli(['run', path.join(dir, 'new.jsonl'), '--shard', `${i + 1}/4`, '--baseline', baseline, '--out', out, '--no-html', '-q'])));
    expect(outs.some((out) => !readReport(out).tasks.some((t) => t.id === 'a' || t.id === 'b'))).toBe(true);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const merged = await runCli(['merge', ...outs, '--baseline', baseline, '--out', path.join(dir, 'merged'), '--no-html']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(readReport(path.join(dir, 'merged')).tasks).toHaveLength(ids.length);
  });

  it('a CI matrix wider than the suite: empty shards exit 0 with an empty output, and merge joins them', async () => {
    const dir = tempDir();
    const suite = path.join(dir, 's.jsonl');
    writeFileSync(suite, ['a', 'b', 'c'].map((id) => JSON.stringify({ id, tool_call: { name: 'calculator', arguments: { expression: '1+1' } } })).join('\n') + '\n');
    const outs = [1, 2, 3, 4, 5].map((i) => path.join(dir, `shard-${i}`));
    const runs = await Promise.all(outs.map((out, i) => runCli(['run', suite, '--shard', `${i + 1}/5`, '--out', out, '--no-html', '-q'])));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(runs[4]!.stderr).toMatch(/shard 5\/5 has no task/);
    expect(readReport(outs[4]!).tasks).toEqual([]);
    // Its own report applies no rule and says why: no 'gate failed' beside an exit 0.
    expect(readReport(outs[4]!).gate).toMatchObject({ passed: true, rules: {}, results: [], source: 'none: an empty shard; tracegate merge gates the whole run' });
    const merged = await runCli(['merge', ...outs, '--out', path.join(dir, 'merged'), '--no-html']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(readReport(path.join(dir, 'merged')).tasks.map((t) => t.id)).toEqual(['a', 'b', 'c']);
    // A selection that matches nothing before sharding is still bad input.
    const none = await runCli(['run', suite, '--shard', '1/5', '--grep', 'zzz', '--out', path.join(dir, 'none')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no task matches the selection \(--grep\)/);
  });

  it('--shard auto takes the shard from CI variables (GitLab counts from 1, CircleCI from 0)', async () => {
    const gitlab = path.join(root, 'gitlab');
    const circle = path.join(root, 'circle');
    const [a, b] = await Promise.all([
      runCli(['run', ...demo, '--shard', 'auto', '--out', gitlab], { env: { CI_NODE_INDEX: '2', CI_NODE_TOTAL: '4' } }),
      runCli(['run', ...demo, '--shard', 'auto', '--out', circle], { env: { CIRCLE_NODE_INDEX: '1', CIRCLE_NODE_TOTAL: '4', CI_NODE_INDEX: '', CI_NODE_TOTAL: '' } }),
    ]);
    expect([0, 1], a.stderr).toContain(a.code);
    expect([0, 1], b.stderr).toContain(b.code);
    const expected = readReport(shardDirs[1]!).tasks.map((t) => t.id);
    expect(readReport(gitlab).run.shard).toEqual({ index: 2, total: 4 });
    expect(readReport(gitlab).tasks.map((t) => t.id)).toEqual(expected);
    expect(readReport(circle).tasks.map((t) => t.id)).toEqual(expected);
    const none = await runCli(['run', ...demo, '--shard', 'auto', '--out', tempDir()], { env: { CI_NODE_INDEX: '', CIRCLE_NODE_INDEX: '', BUILDKITE_PARALLEL_JOB: '' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--shard auto: none of CI_NODE_INDEX\/CI_NODE_TOTAL/);
  });
});
