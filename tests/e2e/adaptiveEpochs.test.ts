import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { DEMO_TASKS } from '../helpers/demoSuite.js';

/** A baseline in which the demo's three failing tasks passed: against it the run looks worse, so it goes on. */
function betterBaseline(): string {
  const dir = tempDir();
  const baseline = JSON.parse(readFileSync('baselines/demo.json', 'utf8'));
  for (const t of baseline.tasks) {
    if (t.status !== 'failed') continue;
    Object.assign(t, { status: 'passed', pass_fraction: 1, failure_reason: null, failure_layer: null, evidence: [] });
    for (const trial of t.trials) Object.assign(trial, { status: 'passed', failure_reason: null, failure_layer: null, evidence: [] });
  }
  writeFileSync(path.join(dir, 'base.json'), JSON.stringify(baseline));
  return path.join(dir, 'base.json');
}

describe('run --epochs auto', () => {
  it('stops after one stage when nothing points to a regression', async () => {
    const out = tempDir();
    const result = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--max-epochs', '3', '--baseline', 'baselines/demo.json', '--out', out, '-q', '--no-html']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(report.run.adaptive.stages).toHaveLength(1);
    expect(report.run.adaptive.stop_reason).toMatch(new RegExp(`no sign of a regression after ${DEMO_TASKS} of ${2 * DEMO_TASKS} trials`));
    expect(report.tasks.every((t: { adaptive: { trials: number; reason: string } }) => t.adaptive.trials === 1 && /futility/.test(t.adaptive.reason))).toBe(true);
  });

  it('runs in stages against the baseline and records how many trials each task got and why', async () => {
    const base = betterBaseline();
    const out = tempDir();
    const result = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--max-epochs', '3', '--baseline', base, '--out', out, '-q', '--no-html']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`epochs auto: stage 1: ${DEMO_TASKS} trials so far`));
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    const auto = report.run.adaptive;
    // No --budget: at most 3 trials a task on average (every demo task), within the caps of 2 × the baseline's 1.
    expect(auto).toMatchObject({ max_epochs: 3, budget_trials: 3 * DEMO_TASKS, alpha: 0.05 });
    expect(auto.stages[0]).toMatchObject({ stage: 1, trials_run: DEMO_TASKS, rerun: DEMO_TASKS });
    // The demo baseline has one trial per task: a second current trial is all that can still matter.
    expect(auto.trials_run).toBe(2 * DEMO_TASKS);
    expect(auto.stages).toHaveLength(2);
    expect(auto.stages[1].fraction).toBe(1);
    expect(auto.stop_reason).toBe('no task can still move the verdict');
    for (const t of report.tasks) expect(t.adaptive).toEqual({ trials: 2, reason: expect.stringMatching(/outnumber the baseline/) });
    expect(report.diff.significance).toMatchObject({ method: 'stratified_exact', regressed: 3 });
    expect(report.diff.significance.alpha).toBeCloseTo(auto.final_level, 10);
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(new RegExp(`\\*\\*Epochs auto:\\*\\* ${2 * DEMO_TASKS} trials in 2 stage\\(s\\) \\(at most 3 per task\\): ${DEMO_TASKS} task\\(s\\) × 2`));
  });

  it('spends no more than --budget trials', async () => {
    const base = betterBaseline();
    const out = tempDir();
    const result = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--budget', '20', '--baseline', base, '--out', out, '-q', '--no-html']);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(report.run.adaptive).toMatchObject({ budget_trials: 20, trials_run: 20, stop_reason: 'the budget of 20 trials is spent' });
    expect(report.tasks.filter((t: { trials: unknown[] }) => t.trials.length === 2)).toHaveLength(20 - DEMO_TASKS);
  });

  it('spends the alpha of a --gate file over its looks, as it does --alpha', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'gate.json'), JSON.stringify({ schema_version: 'gate/v1', no_significant_regression: true, alpha: 0.01 }));
    const out = path.join(dir, 'out');
    const result = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--max-epochs', '3', '--baseline', betterBaseline(), '--gate', path.join(dir, 'gate.json'), '--out', out, '-q', '--no-html']);
    expect([0, 1], result.stderr).toContain(result.code);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(report.run.adaptive.alpha).toBe(0.01);
    expect(report.run.adaptive.final_level).toBeLessThanOrEqual(0.01);
    expect(report.diff.significance.alpha).toBeCloseTo(report.run.adaptive.final_level, 10);
    expect(report.gate.rules.alpha).toBe(0.01);
  });

  it('refuses --epochs auto without a baseline, and --max-epochs without auto, with exit 2', async () => {
    const noBaseline = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--out', tempDir(), '-q']);
    expect(noBaseline.code).toBe(2);
    expect(noBaseline.stderr).toMatch(/--epochs auto needs --baseline/);
    const stray = await runCli(['run', 'suites/demo.jsonl', '--max-epochs', '3', '--out', tempDir(), '-q']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/--max-epochs need --epochs auto/);
    const bad = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'sometimes', '--out', tempDir(), '-q']);
    expect(bad.code).toBe(2);
  });
});

describe('compare --epochs auto', () => {
  it('runs both variants in stages, 3 a side for every task and more only while its trials vary, and gates on the staged verdict', async () => {
    const out = tempDir();
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--epochs', 'auto', '--max-epochs', '4', '--out', out, '-q', '--no-html']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`epochs auto: stage 1: ${2 * DEMO_TASKS} model calls so far \\(both sides\\)`));
    const b = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    const a = JSON.parse(readFileSync(path.join(out, 'a', 'report.json'), 'utf8'));
    const auto = b.run.adaptive;
    expect(auto).toMatchObject({ sides: 'both', max_epochs: 4, alpha: 0.05 });
    expect(a.run.adaptive).toMatchObject({ sides: 'both', calls_both_sides: auto.calls_both_sides });
    // Stage 1: one trial per task a side; stages 2 and 3: every task until it has 3 a side (a task
    // whose trials all agree may still be where a drop shows); then the three tasks B broke (A
    // passes, B fails) settle the verdict and the others, whose trials all agree stop.
    expect(auto.stages.map((s: { trials_run: number; rerun: number }) => [s.trials_run, s.rerun])).toEqual([[2 * DEMO_TASKS, DEMO_TASKS], [4 * DEMO_TASKS, DEMO_TASKS], [6 * DEMO_TASKS, 0]]);
    expect(auto.calls_both_sides).toBe(6 * DEMO_TASKS);
    const broken = ['calculator_invalid_args_001', 'count_lines_shell_001', 'write_notes_001'];
    for (const report of [a, b]) {
      for (const t of report.tasks) {
        if (broken.includes(t.id)) expect(t.adaptive).toEqual({ trials: 3, reason: expect.stringMatching(/verdict settled/) });
        else expect(t.adaptive).toEqual({ trials: 3, reason: expect.stringMatching(/all agree/) });
      }
    }
    expect(auto.stop_reason).toMatch(/the verdict settled at stage 3: regressed/);
    // The diff tests the epoch-paired trials (9 pairs, all A-only passes) at the level of the last look.
    expect(b.diff.significance).toMatchObject({ method: 'exact_mcnemar', verdict: 'regressed', regressed: 3 });
    expect(b.diff.significance.p_value).toBeCloseTo(2 * 0.5 ** 9, 12);
    expect(b.diff.significance.alpha).toBeCloseTo(auto.final_level, 10);
    expect(b.diff.significance.why).toMatch(/9 epoch-paired trials/);
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(new RegExp(`\\*\\*Epochs auto \\(both sides staged, ${6 * DEMO_TASKS} model calls in all\\):\\*\\*`));
  });

  it('spends no more than --budget model calls over both sides', async () => {
    const out = tempDir();
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--epochs', 'auto', '--budget', '40', '--out', out, '-q', '--no-html']);
    // The gate still fails on the three regressed tasks; the paired test has too few calls to say so.
    expect(result.code, result.stderr).toBe(1);
    const b = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(b.run.adaptive).toMatchObject({ budget_trials: 40, calls_both_sides: 40, stop_reason: 'the budget of 40 model calls is spent' });
    expect(b.diff.significance.verdict).toBe('inconclusive');
  });

  it('spends the alpha of a --gate file over both sides\' looks', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'gate.json'), JSON.stringify({ schema_version: 'gate/v1', no_significant_regression: true, alpha: 0.02 }));
    const out = path.join(dir, 'out');
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--epochs', 'auto', '--max-epochs', '4', '--gate', path.join(dir, 'gate.json'), '--out', out, '-q', '--no-html']);
    expect([0, 1], result.stderr).toContain(result.code);
    const b = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(b.run.adaptive).toMatchObject({ sides: 'both', alpha: 0.02 });
    expect(b.diff.significance.alpha).toBeCloseTo(b.run.adaptive.final_level, 10);
  });

  it('refuses --max-epochs without --epochs auto with exit 2', async () => {
    const result = await runCli(['compare', 'suites/demo.jsonl', '--a', 'suites/demo/variants/a.json', '--b', 'suites/demo/variants/b.json', '--max-epochs', '3', '--out', tempDir(), '-q']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--max-epochs need --epochs auto/);
  });
});
