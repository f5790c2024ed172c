import { checkedRows } from './finalizeReport.js';
import type { StreamedReport, TaskRows } from './taskRows.js';
import { REPORT_SCHEMA_VERSION, RunReportSchema, type RunInfo, type RunReport, type Summary, type TaskResult, type Trial } from '../schema/report.js';
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

/**
 * The summary in one pass over the rows (a streamed report is read from its journal once for it);
 * each sum is taken in row and trial order, as the fields were always computed.
 */
export function summarize(tasks: Iterable<TaskResult>, epochs: number): Summary {
  let total = 0, trialCount = 0, passed = 0, errored = 0, toolCalls = 0, toolErrors = 0;
  let compressed = 0, withRecoverable = 0, recovered = 0, flaky = 0, judgedTasks = 0, anyPass = 0, allPass = 0;
  let durationSum = 0, pricedTrials = 0, usd = 0;
  const tokens = { input: 0, output: 0, total: 0 };
  const steps: number[] = [];
  const durations: number[] = [];
  const failedTrials: Array<Pick<Trial, 'failure_reason' | 'failure_layer'>> = [];
  const rubricTrials: Trial[] = [];
  const byTag = new Map<string, { total: number; passed: number; failed: number }>();
  for (const task of tasks) {
    total++;
    flaky += task.flaky ? 1 : 0;
    if (task.pass_fraction !== null) {
      judgedTasks++;
      if ((task.pass_fraction ?? 0) > 0) anyPass++;
      if (task.pass_fraction === 1) allPass++;
    }
    const tags = [...new Set(task.tags)].map((tag) => byTag.get(tag) ?? byTag.set(tag, { total: 0, passed: 0, failed: 0 }).get(tag)!);
    for (const t of task.trials) {
      trialCount++;
      if (t.status === 'passed') passed++;
      else if (t.status === 'failed') failedTrials.push({ failure_reason: t.failure_reason, failure_layer: t.failure_layer });
      for (const tag of tags) {
        tag.total++;
        if (t.status === 'passed') tag.passed++;
        if (t.status === 'failed') tag.failed++;
      }
      if (t.status === 'errored') errored++;
      else {
        steps.push(t.steps);
        if (t.compressed === true) compressed++;
        if (t.tool_errors > 0) {
          withRecoverable++;
          if (t.recovered) recovered++;
        }
      }
      toolCalls += t.tool_calls;
      toolErrors += t.tool_errors;
      tokens.input += t.tokens.input;
      tokens.output += t.tokens.output;
      tokens.total += t.tokens.total;
      durations.push(t.duration_ms);
      durationSum += t.duration_ms;
      if (t.cost_usd !== undefined) {
        pricedTrials++;
        usd += t.cost_usd;
      }
      if (t.checks.some((c) => c.type === 'rubric')) rubricTrials.push(t);
    }
  }
  const failed = failedTrials.length;
  const table = activePriceTable();
  const agreement = rubricAgreement(rubricTrials);
  return {
    ...(pricedTrials > 0 ? { cost: { usd, priced_trials: pricedTrials, trials: trialCount, as_of: table.as_of, source: table.source } } : {}),
    total,
    trials: trialCount,
    passed,
    failed,
    errored,
    pass_rate: ratio(passed, passed + failed),
    error_rate: ratio(errored, trialCount) ?? 0,
    steps: distribution(steps),
    failure_reasons: countBy(failedTrials, (t) => t.failure_reason),
    failure_layers: countBy(failedTrials, (t) => t.failure_layer),
    tokens,
    duration_ms: { ...distribution(durations), total: durationSum },
    tool_calls: toolCalls,
    tool_errors: toolErrors,
    tool_error_rate: ratio(toolErrors, toolCalls),
    compressed_trials: compressed,
    recovery_rate: ratio(recovered, withRecoverable),
    flaky,
    epochs,
    pass_at_k: ratio(anyPass, judgedTasks),
    pass_hat_k: ratio(allPass, judgedTasks),
    ...(agreement ? { rubric_agreement: agreement } : {}),
    by_tag: Object.fromEntries(
      [...byTag.keys()].sort().map((tag) => {
        const t = byTag.get(tag)!;
        return [tag, { total: t.total, passed: t.passed, pass_rate: ratio(t.passed, t.passed + t.failed) }];
      }),
    ),
  };
}

export function buildReport(run: RunInfo, tasks: TaskResult[]): RunReport;
export function buildReport(run: RunInfo, tasks: TaskRows): StreamedReport;
export function buildReport(run: RunInfo, tasks: TaskRows): StreamedReport {
  // The report validates itself before anyone reads it: a bug here is caught at the source. Each
  // row is checked as the summary reads it, so streamed rows are read once for both.
  const summary = summarize(checkedRows(tasks), run.epochs);
  const report: StreamedReport = { schema_version: REPORT_SCHEMA_VERSION, run, summary, tasks };
  RunReportSchema.parse({ ...report, tasks: [] });
  return report;
}
