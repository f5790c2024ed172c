import { COMPRESSION_METRIC, type Diff, type MetricDiff, type TaskChange, type TaskDiff } from '../schema/diff.js';
import { DEFAULT_ALPHA } from '../schema/gate.js';
import type { RunReport, TaskResult } from '../schema/report.js';
import { ratio } from '../statistics/distribution.js';
import { epochFlips } from '../statistics/pairedAdaptivePlan.js';
import { pairedVerdicts } from './pairedVerdicts.js';

/** Model modes whose trials cannot differ by chance: replayed or scripted responses, or no model (policy tasks). */
const DETERMINISTIC_MODES = new Set(['replayed', 'scripted', 'none']);

const CHANGE_ORDER: TaskChange[] = ['regressed', 'errored', 'reason_changed', 'fixed', 'still_failing', 'new', 'removed', 'unchanged'];

/** Judged and errored trials of a task: what its weight in the paired test comes from. */
export function trialCounts(task: TaskResult): { passed: number; judged: number; errored: number } {
  const passed = task.trials.filter((t) => t.status === 'passed').length;
  const failed = task.trials.filter((t) => t.status === 'failed').length;
  return { passed, judged: passed + failed, errored: task.trials.length - passed - failed };
}

function side(task: TaskResult): NonNullable<TaskDiff['baseline']> {
  return {
    status: task.status,
    pass_fraction: task.pass_fraction,
    failure_reason: task.failure_reason,
    failure_layer: task.failure_layer,
    steps: task.steps,
    trials: trialCounts(task),
  };
}

function changeOf(base: TaskResult, cur: TaskResult): TaskChange {
  if (base.status === 'errored' || cur.status === 'errored') return 'errored';
  if (base.status === 'passed' && cur.status === 'failed') return 'regressed';
  if (base.status === 'failed' && cur.status === 'passed') return 'fixed';
  if (base.status === 'failed' && cur.status === 'failed') {
    return base.failure_reason !== cur.failure_reason || base.failure_layer !== cur.failure_layer ? 'reason_changed' : 'still_failing';
  }
  return 'unchanged';
}

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
}

function metric(name: string, baseline: number | null, current: number | null, better: 'higher' | 'lower', note?: string): MetricDiff {
  return { name, baseline, current, delta: baseline === null || current === null ? null : current - baseline, better, ...(note ? { note } : {}) };
}

function distributionOf(report: RunReport, key: 'failure_layers' | 'failure_reasons', other: RunReport) {
  const names = new Set([...Object.keys(report.summary[key]), ...Object.keys(other.summary[key])]);
  return Object.fromEntries([...names].sort().map((n) => [n, { baseline: report.summary[key][n] ?? 0, current: other.summary[key][n] ?? 0 }]));
}

/** Judged trials that compressed their context; null for a report older than the count. */
function compressionRate(report: RunReport): number | null {
  const count = report.summary.compressed_trials;
  return count === undefined ? null : ratio(count, report.summary.passed + report.summary.failed);
}

/**
 * Diffs a run against a baseline report, task by task and metric by metric. Tasks whose definition
 * changed are compared but kept out of the significance test; errors on either side are never
 * counted as regressions of the agent.
 */
export function diffReports(
  current: RunReport,
  baseline: RunReport,
  baselineFile: string,
  alpha = DEFAULT_ALPHA,
  /** Where the baseline's trace files are, relative to the current output folder (compare runs). */
  baselineTraceDir: string | null = null,
): Diff {
  const baselineTrace = (t: TaskResult | undefined) =>
    t?.trace_file && baselineTraceDir !== null ? `${baselineTraceDir}/${t.trace_file}` : null;
  const baseById = new Map(baseline.tasks.map((t) => [t.id, t]));
  const curById = new Map(current.tasks.map((t) => [t.id, t]));
  const tasks: TaskDiff[] = [];

  for (const cur of current.tasks) {
    const base = baseById.get(cur.id);
    tasks.push({
      id: cur.id,
      change: base ? changeOf(base, cur) : 'new',
      definition_changed: base ? base.fingerprint !== cur.fingerprint : false,
      baseline: base ? side(base) : null,
      current: side(cur),
      evidence: cur.evidence,
      trace_file: cur.trace_file,
      baseline_trace_file: baselineTrace(base),
    });
  }
  for (const base of baseline.tasks) {
    if (!curById.has(base.id)) {
      tasks.push({ id: base.id, change: 'removed', definition_changed: false, baseline: side(base), current: null, evidence: [], trace_file: null, baseline_trace_file: baselineTrace(base) });
    }
  }
  tasks.sort((a, b) => CHANGE_ORDER.indexOf(a.change) - CHANGE_ORDER.indexOf(b.change) || a.id.localeCompare(b.id));

  const counts = Object.fromEntries(CHANGE_ORDER.map((c) => [c, tasks.filter((t) => t.change === c).length])) as Diff['counts'];
  const notes: string[] = [];
  const changed = tasks.filter((t) => t.definition_changed).map((t) => t.id);
  if (counts.new > 0) notes.push(`${counts.new} task(s) are new since the baseline`);
  if (counts.removed > 0) notes.push(`${counts.removed} baseline task(s) did not run: ${tasks.filter((t) => t.change === 'removed').map((t) => t.id).slice(0, 10).join(', ')}`);
  if (changed.length > 0) notes.push(`${changed.length} task(s) changed definition since the baseline and are left out of the significance test: ${changed.slice(0, 10).join(', ')}`);
  if (counts.errored > 0) notes.push(`${counts.errored} task(s) errored on one side; errors are not counted as regressions`);
  if (baseline.run.scripted || current.run.scripted) notes.push('one or both runs replayed hand-written scripts, not a model');
  const epochsOf = (r: RunReport) => (r.run.adaptive ? `--epochs auto (at most ${r.run.epochs} per task)` : String(r.run.epochs));
  if (current.run.adaptive?.sides === 'both') {
    notes.push(`both sides ran --epochs auto (compare): each stage gave a task one more trial on each side, ${current.run.adaptive.calls_both_sides ?? 'n/a'} model calls in all`);
  } else if (baseline.run.epochs !== current.run.epochs || current.run.adaptive) {
    notes.push(`epochs differ: baseline ${epochsOf(baseline)}, current ${epochsOf(current)}; the paired test weighs each task by its judged trials on both sides`);
  }

  // Paired tasks: judged on both sides, same definition.
  const paired = current.tasks.flatMap((cur) => {
    const base = baseById.get(cur.id);
    if (!base || base.fingerprint !== cur.fingerprint || base.pass_fraction === null || cur.pass_fraction === null) return [];
    return [{ base, cur }];
  });
  const epochs = Math.min(current.run.epochs, baseline.run.epochs);
  // Both sides staged by compare --epochs auto: the exact test is over each task's epoch-paired trials.
  const staged = current.run.adaptive?.sides === 'both';
  const pairedCounts = paired.map((p) => {
    const b = trialCounts(p.base);
    const c = trialCounts(p.cur);
    const f = staged ? epochFlips(p.base, p.cur) : null;
    return { baseline: b, current: c, errored: { baseline: b.errored, current: c.errored }, ...(f ? { flips: { baselineOnly: f.aOnly, currentOnly: f.bOnly, pairs: f.pairs } } : {}) };
  });
  // The suite's verdict and each paired task's own fall, read against noise with the suite's multiplicity controlled.
  const { significance, noise } = pairedVerdicts(pairedCounts, alpha, {
    staged,
    deterministic: [baseline, current].every((r) => DETERMINISTIC_MODES.has(r.run.model.mode)),
  });
  const byId = new Map(tasks.map((t) => [t.id, t]));
  paired.forEach((p, i) => Object.assign(byId.get(p.cur.id)!, noise[i]));
  if (significance?.weak?.length) notes.push(`weak comparison: ${significance.weak.join('; ')}`);

  const bothPass = paired.filter((p) => p.base.status === 'passed' && p.cur.status === 'passed');
  const metrics: MetricDiff[] = [
    metric('pass_rate', baseline.summary.pass_rate, current.summary.pass_rate, 'higher'),
    metric('error_rate', baseline.summary.error_rate, current.summary.error_rate, 'lower'),
    metric('steps_mean', mean(bothPass.map((p) => p.base.steps)), mean(bothPass.map((p) => p.cur.steps)), 'lower', 'on tasks that pass in both'),
    // A reduce, not Math.max(...list): a spread of 100k+ values overflows the call stack.
    metric('steps_max', bothPass.length ? bothPass.reduce((m, p) => Math.max(m, p.base.steps), -Infinity) : null, bothPass.length ? bothPass.reduce((m, p) => Math.max(m, p.cur.steps), -Infinity) : null, 'lower', 'on tasks that pass in both'),
    metric('tool_error_rate', baseline.summary.tool_error_rate, current.summary.tool_error_rate, 'lower'),
    metric('recovery_rate', baseline.summary.recovery_rate, current.summary.recovery_rate, 'higher', 'recoverable tool errors that still ended in a pass'),
    metric(COMPRESSION_METRIC, compressionRate(baseline), compressionRate(current), 'lower', 'judged trials whose context was compressed'),
    metric('tokens_per_trial', ratio(baseline.summary.tokens.total, baseline.summary.trials), ratio(current.summary.tokens.total, current.summary.trials), 'lower'),
    metric('latency_mean_ms', baseline.summary.duration_ms.mean, current.summary.duration_ms.mean, 'lower'),
    metric('latency_p90_ms', baseline.summary.duration_ms.p90, current.summary.duration_ms.p90, 'lower'),
  ];
  // Cost per trial, only when both runs priced their model (the note names each table's date).
  if (baseline.summary.cost && current.summary.cost) {
    const perTrial = (c: NonNullable<RunReport['summary']['cost']>) => ratio(c.usd, c.priced_trials);
    metrics.push(metric('cost_per_trial_usd', perTrial(baseline.summary.cost), perTrial(current.summary.cost), 'lower', `prices as of ${baseline.summary.cost.as_of} / ${current.summary.cost.as_of}`));
  }
  if (epochs > 1) metrics.push(metric('pass_hat_k', baseline.summary.pass_hat_k, current.summary.pass_hat_k, 'higher'));

  return {
    baseline: {
      file: baselineFile,
      run_id: baseline.run.id,
      started_at: baseline.run.started_at,
      model: baseline.run.model.model,
      scripted: baseline.run.scripted,
      variant: baseline.run.variant?.name ?? null,
    },
    notes,
    counts,
    tasks,
    metrics,
    failure_layers: distributionOf(baseline, 'failure_layers', current),
    failure_reasons: distributionOf(baseline, 'failure_reasons', current),
    significance,
  };
}
