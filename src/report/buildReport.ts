import { checkReport } from './finalizeReport.js';
import { REPORT_SCHEMA_VERSION, type RunInfo, type RunReport, type Summary, type TaskResult, type Trial } from '../schema/report.js';
import { taskInput, type Task } from '../schema/task.js';
import { activePriceTable } from '../judging/checks/priceTable.js';
import { rubricAgreement } from './rubricAgreement.js';
import { countBy, distribution, ratio } from '../statistics/distribution.js';

/** The sum of the priced trials' cost, or undefined when none was priced. */
function costOf(trials: Trial[]): number | undefined {
  const priced = trials.filter((t) => t.cost_usd !== undefined);
  return priced.length === 0 ? undefined : priced.reduce((s, t) => s + t.cost_usd!, 0);
}

/** Folds a task's trials into its row: the first failing trial speaks for it. */
export function taskResult(task: Task, trials: Trial[]): TaskResult {
  const sorted = [...trials].sort((a, b) => a.epoch - b.epoch);
  const judged = sorted.filter((t) => t.status !== 'errored');
  const passed = judged.filter((t) => t.status === 'passed').length;
  const failing = sorted.find((t) => t.status === 'failed');
  const status = judged.length === 0 ? 'errored' : failing ? 'failed' : 'passed';
  const speaker = failing ?? sorted.find((t) => t.status === 'errored' && status === 'errored') ?? sorted[0]!;
  return {
    id: task.id,
    tags: task.tags,
    fingerprint: task.fingerprint,
    source: task.source,
    prompt: taskInput(task),
    status,
    pass_fraction: ratio(passed, judged.length),
    flaky: passed > 0 && passed < judged.length,
    failure_reason: failing?.failure_reason ?? null,
    failure_layer: failing?.failure_layer ?? null,
    evidence: failing?.evidence ?? [],
    checks: speaker.checks,
    steps: distribution(sorted.map((t) => t.steps)).mean,
    answer_preview: speaker.answer_preview,
    trace_file: speaker.trace_file,
    duration_ms: sorted.reduce((s, t) => s + t.duration_ms, 0),
    ...(costOf(sorted) !== undefined ? { cost_usd: costOf(sorted) } : {}),
    error: status === 'errored' ? speaker.error : null,
    trials: sorted,
  };
}

export function summarize(tasks: TaskResult[], epochs: number): Summary {
  const trials = tasks.flatMap((t) => t.trials);
  const passed = trials.filter((t) => t.status === 'passed').length;
  const failed = trials.filter((t) => t.status === 'failed').length;
  const errored = trials.filter((t) => t.status === 'errored').length;
  const judgedTasks = tasks.filter((t) => t.pass_fraction !== null);
  const failedTrials = trials.filter((t) => t.status === 'failed');
  const toolCalls = trials.reduce((s, t) => s + t.tool_calls, 0);
  const toolErrors = trials.reduce((s, t) => s + t.tool_errors, 0);
  const trialsWithRecoverable = trials.filter((t) => t.status !== 'errored' && t.tool_errors > 0);
  const tags = [...new Set(tasks.flatMap((t) => t.tags))].sort();
  const durations = trials.map((t) => t.duration_ms);
  const usd = costOf(trials);
  const table = activePriceTable();
  const agreement = rubricAgreement(trials);
  return {
    ...(usd !== undefined ? { cost: { usd, priced_trials: trials.filter((t) => t.cost_usd !== undefined).length, trials: trials.length, as_of: table.as_of, source: table.source } } : {}),
    total: tasks.length,
    trials: trials.length,
    passed,
    failed,
    errored,
    pass_rate: ratio(passed, passed + failed),
    error_rate: ratio(errored, trials.length) ?? 0,
    steps: distribution(trials.filter((t) => t.status !== 'errored').map((t) => t.steps)),
    failure_reasons: countBy(failedTrials, (t) => t.failure_reason),
    failure_layers: countBy(failedTrials, (t) => t.failure_layer),
    tokens: trials.reduce(
      (s, t) => ({ input: s.input + t.tokens.input, output: s.output + t.tokens.output, total: s.total + t.tokens.total }),
      { input: 0, output: 0, total: 0 },
    ),
    duration_ms: { ...distribution(durations), total: durations.reduce((s, d) => s + d, 0) },
    tool_calls: toolCalls,
    tool_errors: toolErrors,
    tool_error_rate: ratio(toolErrors, toolCalls),
    compressed_trials: trials.filter((t) => t.status !== 'errored' && t.compressed === true).length,
    recovery_rate: ratio(trialsWithRecoverable.filter((t) => t.recovered).length, trialsWithRecoverable.length),
    flaky: tasks.filter((t) => t.flaky).length,
    epochs,
    pass_at_k: ratio(judgedTasks.filter((t) => (t.pass_fraction ?? 0) > 0).length, judgedTasks.length),
    pass_hat_k: ratio(judgedTasks.filter((t) => t.pass_fraction === 1).length, judgedTasks.length),
    ...(agreement ? { rubric_agreement: agreement } : {}),
    by_tag: Object.fromEntries(
      tags.map((tag) => {
        const tagTrials = tasks.filter((t) => t.tags.includes(tag)).flatMap((t) => t.trials);
        const p = tagTrials.filter((t) => t.status === 'passed').length;
        const f = tagTrials.filter((t) => t.status === 'failed').length;
        return [tag, { total: tagTrials.length, passed: p, pass_rate: ratio(p, p + f) }];
      }),
    ),
  };
}

export function buildReport(run: RunInfo, tasks: TaskResult[]): RunReport {
  const report: RunReport = { schema_version: REPORT_SCHEMA_VERSION, run, summary: summarize(tasks, run.epochs), tasks };
  // The report validates itself before anyone reads it: a bug here is caught at the source.
  return checkReport(report);
}
