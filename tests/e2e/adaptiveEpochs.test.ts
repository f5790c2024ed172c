import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

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
    expect(report.run.adaptive.stop_reason).toMatch(/no sign of a regression after 16 of 32 trials/);
    expect(report.tasks.every((t: { adaptive: { trials: number; reason: string } }) => t.adaptive.trials === 1 && /futility/.test(t.adaptive.reason))).toBe(true);
  });

  it('runs in stages against the baseline and records how many trials each task got and why', async () => {
    const base = betterBaseline();
    const out = tempDir();
    const result = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--max-epochs', '3', '--baseline', base, '--out', out, '-q', '--no-html']);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/epochs auto: stage 1: 16 trials so far/);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    const auto = report.run.adaptive;
    expect(auto).toMatchObject({ max_epochs: 3, budget_trials: null, alpha: 0.05 });
    expect(auto.stages[0]).toMatchObject({ stage: 1, trials_run: 16, rerun: 16 });
    // The demo baseline has one trial per task: a second current trial is all that can still matter.
    expect(auto.trials_run).toBe(32);
    expect(auto.stages).toHaveLength(2);
    expect(auto.stages[1].fraction).toBe(1);
    expect(auto.stop_reason).toBe('no task can still move the verdict');
    for (const t of report.tasks) expect(t.adaptive).toEqual({ trials: 2, reason: expect.stringMatching(/outnumber the baseline/) });
    expect(report.diff.significance).toMatchObject({ method: 'stratified_exact', regressed: 3 });
    expect(report.diff.significance.alpha).toBeCloseTo(auto.final_level, 10);
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toMatch(/\*\*Epochs auto:\*\* 32 trials in 2 stage\(s\) \(at most 3 per task\): 16 task\(s\) × 2/);
  });

  it('spends no more than --budget trials', async () => {
    const base = betterBaseline();
    const out = tempDir();
    const result = await runCli(['run', 'suites/demo.jsonl', '--epochs', 'auto', '--budget', '20', '--baseline', base, '--out', out, '-q', '--no-html']);
    expect(result.code, result.stderr).toBe(1);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(report.run.adaptive).toMatchObject({ budget_trials: 20, trials_run: 20, stop_reason: 'the budget of 20 trials is spent' });
    expect(report.tasks.filter((t: { trials: unknown[] }) => t.trials.length === 2)).toHaveLength(4);
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
