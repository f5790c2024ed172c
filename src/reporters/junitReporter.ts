import { writeFileAtomic } from '../files/atomicWrite.js';
import path from 'node:path';
import { completeness } from '../report/completeness.js';
import type { TaskResult } from '../schema/report.js';
import { modelLabel } from './modelLabel.js';
import type { Reporter } from './reporter.js';
import { xmlEscape } from './xml.js';

const PROMPT_CHARS = 1000;

function failureMessage(task: TaskResult): string {
  const failed = task.checks.filter((c) => !c.passed).map((c) => `${c.type}: ${c.reason}`);
  return `${task.failure_reason} (${task.failure_layer} layer)${failed.length ? `; failed checks: ${failed.join('; ')}` : ''}`;
}

function testcase(task: TaskResult, suite: string): string {
  const name = xmlEscape(task.id);
  const time = (task.duration_ms / 1000).toFixed(3);
  const properties = [
    ['steps', String(task.steps)],
    ['pass_fraction', String(task.pass_fraction ?? '')],
    ['flaky', String(task.flaky)],
    ['tags', task.tags.join(',')],
    ['trace', task.trace_file ?? ''],
    // What the task asked (redacted with the report), cut so a CI viewer's property table stays readable.
    ...(task.prompt ? [['prompt', task.prompt.slice(0, PROMPT_CHARS)]] : []),
  ]
    .map(([k, v]) => `<property name="${k}" value="${xmlEscape(v!)}"/>`)
    .join('');
  let body = `<properties>${properties}</properties>`;
  if (task.status === 'failed') {
    const evidence = task.evidence.map((e) => `${e.step !== null ? `step ${e.step}: ` : ''}${e.detail}`).join('\n');
    body += `<failure message="${xmlEscape(failureMessage(task))}" type="${xmlEscape(task.failure_reason ?? 'FAILED')}">${xmlEscape(evidence)}</failure>`;
  } else if (task.status === 'errored') {
    body += `<error message="${xmlEscape(task.error?.message ?? 'errored')}" type="${xmlEscape(task.error?.code ?? 'ERROR')}"/>`;
  }
  if (task.flaky) body += `<system-out>${xmlEscape(`flaky: passed ${Math.round((task.pass_fraction ?? 0) * task.trials.length)} of ${task.trials.length} trials`)}</system-out>`;
  return `    <testcase classname="${xmlEscape(suite)}" name="${name}" time="${time}">${body}</testcase>`;
}

/** junit.xml: one testcase per task, failure message = reason, layer and failed checks. */
export const junitReporter: Reporter = {
  name: 'junit',
  async onRunEnd(report, outDir) {
    const suite = report.run.suites.map((s) => s.path).join(',');
    const s = report.summary;
    const whole = completeness(report);
    // A partial run gets one extra failing testcase, so a CI that only counts failures still sees it.
    const incomplete = whole.notice
      ? [`    <testcase classname="tracegate" name="run_complete" time="0"><failure message="${xmlEscape(whole.notice)}" type="${report.run.interrupted ? 'INTERRUPTED' : 'INCOMPLETE'}"/></testcase>`]
      : [];
    let failedTasks = 0;
    let erroredTasks = 0;
    for (const t of report.tasks) {
      if (t.status === 'failed') failedTasks++;
      else if (t.status === 'errored') erroredTasks++;
    }
    const tests = report.tasks.length + incomplete.length;
    const failures = failedTasks + incomplete.length;
    const errors = erroredTasks;
    const runProperties = [
      ['model', modelLabel(report.run.model)],
      ['scripted', String(report.run.scripted)],
      ['pass_rate', String(s.pass_rate ?? '')],
      ['interrupted', String(report.run.interrupted)],
      ['complete', String(whole.complete)],
      ['trials', String(whole.done)],
      ['trials_planned', String(whole.planned ?? '')],
      ...(report.run.shard ? [['shard', `${report.run.shard.index}/${report.run.shard.total}`]] : []),
    ]
      .map(([k, v]) => `<property name="${k}" value="${xmlEscape(v!)}"/>`)
      .join('');
    // Written testcase by testcase: a 100k-task suite is never one string.
    function* xml() {
      yield '<?xml version="1.0" encoding="UTF-8"?>\n';
      yield `<testsuites name="tracegate" tests="${tests}" failures="${failures}" errors="${errors}" time="${(report.run.duration_ms / 1000).toFixed(3)}">\n`;
      yield `  <testsuite name="${xmlEscape(suite)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="0" time="${(s.duration_ms.total / 1000).toFixed(3)}" timestamp="${report.run.started_at}">\n`;
      yield `    <properties>${runProperties}</properties>\n`;
      for (const line of incomplete) yield line + '\n';
      for (const task of report.tasks) yield testcase(task, suite) + '\n';
      yield '  </testsuite>\n</testsuites>\n';
    }
    const file = path.join(outDir, 'junit.xml');
    await writeFileAtomic(file, xml(), { durable: true });
    return file;
  },
};
