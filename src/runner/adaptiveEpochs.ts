import { planNextStage, TASK_STOP_REASONS, type AdaptiveSettings, type TaskTrials } from '../statistics/adaptivePlan.js';
import { trialCounts } from '../baseline/diffReports.js';
import type { AdaptiveRun } from '../schema/adaptive.js';
import type { RunReport } from '../schema/report.js';
import type { Task } from '../schema/task.js';

export interface AdaptiveOptions {
  maxEpochs: number;
  budgetTrials: number | null;
  budgetTokens: number | null;
  alpha: number;
  /** The report the run is diffed against; its trials are fixed. */
  baseline: RunReport;
  /** Runs the tasks until each has `trialsWanted(task)` trials, keeping the ones already done after the first call. */
  execute: (trialsWanted: (task: Task) => number, resume: boolean) => Promise<RunReport>;
  tasks: Task[];
  /** Whether the first stage keeps trials already in the output folder (--resume). */
  resume: boolean;
  log?: (line: string) => void;
}

const kept = (report: RunReport) => report.tasks.reduce((s, t) => s + t.trials.filter((x) => x.status !== 'errored').length, 0);
const recorded = (report: RunReport) => report.tasks.reduce((s, t) => s + t.trials.length, 0);

/**
 * --epochs auto: one trial per task, then stages of one more trial for the tasks whose extra trials
 * can still move the verdict against the (fixed) baseline, until the verdict settles, no task can
 * move it, --max-epochs is reached, or the budget is spent (src/statistics/adaptivePlan.ts decides).
 */
export async function runAdaptive(options: AdaptiveOptions): Promise<{ report: RunReport; finalLevel: number }> {
  const { baseline, maxEpochs } = options;
  const baseById = new Map(baseline.tasks.map((t) => [t.id, t]));
  const wanted = new Map(options.tasks.map((t) => [t.id, 1]));
  const want = (task: Task) => wanted.get(task.id) ?? 1;
  const stages: AdaptiveRun['stages'] = [];

  let report = await options.execute(want, options.resume);
  const startedAt = report.run.started_at;
  // With --resume the folder may already hold more trials of a task: later stages build on them.
  for (const t of report.tasks) wanted.set(t.id, Math.max(1, t.trials.length));
  let trialsRun = recorded(report);
  let decision: ReturnType<typeof planNextStage> | null = null;
  for (let stage = 1; ; stage++) {
    const tokens = report.summary.tokens.total;
    const perTrial = trialsRun > 0 ? tokens / trialsRun : 0;
    // A token budget becomes a trial budget at the mean tokens per trial so far.
    const byTokens = options.budgetTokens !== null && perTrial > 0 ? trialsRun + Math.floor((options.budgetTokens - tokens) / perTrial) : null;
    const budgets = [options.budgetTrials, byTokens].filter((b): b is number => b !== null);
    const settings: AdaptiveSettings = { maxEpochs, budget: budgets.length ? Math.min(...budgets) : null, alpha: options.alpha };
    const state: TaskTrials[] = report.tasks.map((t) => {
      const base = baseById.get(t.id);
      const b = base && base.fingerprint === t.fingerprint ? trialCounts(base) : null;
      return { id: t.id, baseline: b && b.judged > 0 ? b : null, current: trialCounts(t) };
    });
    decision = planNextStage(state, stage, trialsRun, settings, stages.map((x) => x.fraction));
    stages.push({ stage, trials_run: trialsRun, fraction: decision.look.fraction, boundary: decision.look.boundary, p_value: decision.look.p, level: decision.look.level, verdict: decision.look.verdict, rerun: decision.rerun.length });
    options.log?.(`stage ${stage}: ${trialsRun} trials so far, p=${decision.look.p.toPrecision(3)} at level ${decision.look.level.toPrecision(3)}` + (decision.done ? `; stop: ${decision.reason}` : `; re-running ${decision.rerun.length} task(s)`));
    if (decision.done || report.run.interrupted) break;
    for (const id of decision.rerun) wanted.set(id, (wanted.get(id) ?? 1) + 1);
    const before = kept(report);
    report = await options.execute(want, true);
    trialsRun += recorded(report) - before;
  }

  const stopReason = report.run.interrupted ? 'interrupted' : (decision?.reason ?? 'no stage ran');
  const adaptive: AdaptiveRun = {
    max_epochs: maxEpochs,
    budget_trials: options.budgetTrials,
    budget_tokens: options.budgetTokens,
    trials_run: trialsRun,
    tokens_used: report.summary.tokens.total,
    alpha: options.alpha,
    final_level: decision?.look.level ?? options.alpha,
    stages,
    stop_reason: stopReason,
  };
  const why = (id: string) => {
    const reason = decision?.stopped[id];
    return reason ? TASK_STOP_REASONS[reason] : stopReason;
  };
  return {
    report: {
      ...report,
      // Each stage's report covers that stage; the run began with the first.
      run: { ...report.run, started_at: startedAt, duration_ms: Date.parse(report.run.ended_at) - Date.parse(startedAt), adaptive },
      tasks: report.tasks.map((t) => ({ ...t, adaptive: { trials: t.trials.length, reason: why(t.id) } })),
    },
    finalLevel: adaptive.final_level,
  };
}
