import { epochFlips, PAIRED_STOP_REASONS, planPairedStage, type PairedDecision, type PairedTaskTrials } from '../statistics/pairedAdaptivePlan.js';
import { trialCounts } from '../baseline/diffReports.js';
import type { AdaptiveRun } from '../schema/adaptive.js';
import type { RunReport } from '../schema/report.js';
import type { Task } from '../schema/task.js';

/** Runs a side's tasks until each has `trialsWanted(task)` trials, keeping the ones already done. */
export type ExecuteSide = (trialsWanted: (task: Task) => number, resume: boolean) => Promise<RunReport>;

export interface PairedAdaptiveOptions {
  maxEpochs: number;
  minEpochs: number;
  /** Most model calls for the whole comparison, both sides; null: 2 × max-epochs × tasks. */
  budgetCalls: number | null;
  budgetTokens: number | null;
  alpha: number;
  tasks: Task[];
  /** Whether the first stage keeps trials already in the output folders (--resume). */
  resume: boolean;
  log?: (line: string) => void;
}

const recorded = (report: RunReport) => report.tasks.reduce((s, t) => s + t.trials.length, 0);

/**
 * `compare --epochs auto`: one trial per task on each side, then stages of one more trial on BOTH
 * sides for the tasks that can still move the verdict, until it settles, no task can move it, or
 * the budget is spent (src/statistics/pairedAdaptivePlan.ts decides). A runs before B in each stage.
 */
export async function runPairedAdaptive(options: PairedAdaptiveOptions, executeA: ExecuteSide, executeB: ExecuteSide): Promise<{ a: RunReport; b: RunReport; finalLevel: number }> {
  const wanted = { a: new Map<string, number>(), b: new Map<string, number>() };
  const want = (side: 'a' | 'b') => (task: Task) => wanted[side].get(task.id) ?? 1;
  const stages: AdaptiveRun['stages'] = [];
  let a = await executeA(want('a'), options.resume);
  let b = await executeB(want('b'), options.resume);
  const startedAt = { a: a.run.started_at, b: b.run.started_at };
  // With --resume the folders may already hold more trials of a task: later stages build on them.
  for (const t of a.tasks) wanted.a.set(t.id, Math.max(1, t.trials.length));
  for (const t of b.tasks) wanted.b.set(t.id, Math.max(1, t.trials.length));
  let calls = recorded(a) + recorded(b);
  let decision: PairedDecision | null = null;
  for (let stage = 1; ; stage++) {
    const tokens = a.summary.tokens.total + b.summary.tokens.total;
    const perCall = calls > 0 ? tokens / calls : 0;
    // A token budget becomes a call budget at the mean tokens per call so far.
    const byTokens = options.budgetTokens !== null && perCall > 0 ? calls + Math.floor((options.budgetTokens - tokens) / perCall) : null;
    const budgets = [options.budgetCalls, byTokens].filter((x): x is number => x !== null);
    const byId = new Map(a.tasks.map((t) => [t.id, t]));
    const state: PairedTaskTrials[] = b.tasks.flatMap((t) => {
      const other = byId.get(t.id);
      return other ? [{ id: t.id, a: trialCounts(other), b: trialCounts(t), flips: epochFlips(other, t) }] : [];
    });
    const settings = { maxEpochs: options.maxEpochs, minEpochs: options.minEpochs, budget: budgets.length ? Math.min(...budgets) : null, alpha: options.alpha };
    decision = planPairedStage(state, stage, calls, settings, stages.map((x) => x.fraction));
    const { look } = decision;
    stages.push({ stage, trials_run: calls, fraction: look.fraction, boundary: look.boundary, p_value: look.p, level: look.level, verdict: look.verdict, rerun: decision.rerun.length });
    options.log?.(`stage ${stage}: ${calls} model calls so far (both sides), p=${look.p.toPrecision(3)} at level ${look.level.toPrecision(3)}` + (decision.done ? `; stop: ${decision.reason}` : `; re-running ${decision.rerun.length} task(s) on both sides`));
    if (decision.done || a.run.interrupted || b.run.interrupted) break;
    for (const id of decision.rerun) {
      for (const side of ['a', 'b'] as const) wanted[side].set(id, Math.min(options.maxEpochs, (wanted[side].get(id) ?? 1) + 1));
    }
    const before = recorded(a) + recorded(b);
    a = await executeA(want('a'), true);
    if (a.run.interrupted) break;
    b = await executeB(want('b'), true);
    calls += recorded(a) + recorded(b) - before;
  }

  const interrupted = a.run.interrupted || b.run.interrupted;
  const stopReason = interrupted ? 'interrupted' : (decision?.reason ?? 'no stage ran');
  const why = (id: string) => {
    const reason = decision?.stopped[id];
    return reason ? PAIRED_STOP_REASONS[reason] : stopReason;
  };
  const finish = (report: RunReport, side: 'a' | 'b'): RunReport => {
    const adaptive: AdaptiveRun = {
      max_epochs: options.maxEpochs,
      budget_trials: options.budgetCalls,
      budget_tokens: options.budgetTokens,
      trials_run: recorded(report),
      tokens_used: report.summary.tokens.total,
      alpha: options.alpha,
      final_level: decision?.look.level ?? options.alpha,
      stages,
      stop_reason: stopReason,
      sides: 'both',
      calls_both_sides: calls,
    };
    return {
      ...report,
      // Each stage's report covers that stage; the side began with the first.
      run: { ...report.run, started_at: startedAt[side], duration_ms: Date.parse(report.run.ended_at) - Date.parse(startedAt[side]), adaptive },
      tasks: report.tasks.map((t) => ({ ...t, adaptive: { trials: t.trials.length, reason: why(t.id) } })),
    };
  };
  return { a: finish(a, 'a'), b: finish(b, 'b'), finalLevel: decision?.look.level ?? options.alpha };
}
