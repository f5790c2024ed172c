import { TracegateError } from '../schema/runError.js';
import { buildReport } from './buildReport.js';
import type { RunInfo, RunReport, TaskResult } from '../schema/report.js';

/** One shard's output as `merge` read it: where it came from, and its report. */
export interface ShardOutput {
  dir: string;
  report: RunReport;
}

export class MergeError extends TracegateError {
  constructor(message: string) {
    super('MERGE_INVALID', message);
  }
}

/** What must be equal across shards for their union to be one run (timings and -j may differ). */
function settingsOf(run: RunInfo) {
  const { provider, model, mode, base_url } = run.model;
  return {
    suites: run.suites.map((s) => `${s.path} (${s.tasks} tasks, sha256 ${s.sha256.slice(0, 12)})`).join(', '),
    adapter: run.adapter,
    model: `${provider}/${model}/${mode}/${base_url ?? ''}`,
    variant: run.variant ? `${run.variant.name}` : 'none',
    policy: run.policy,
    sandbox: run.sandbox,
    epochs: String(run.epochs),
    shards: String(run.shard?.total ?? ''),
    tracegate_version: run.tracegate_version,
    ...selectionOf(run),
  };
}

/** --tag, --grep, --max-steps, --timeout: shards selected or limited differently are not one run. */
function selectionOf(run: RunInfo) {
  const s = run.selection;
  const unknown = 'not recorded (an older tracegate)';
  return {
    '--tag': s ? (s.tags?.join(' ') ?? 'none') : unknown,
    '--grep': s ? (s.grep ?? 'none') : unknown,
    '--max-steps': s ? String(s.max_steps ?? 'default') : unknown,
    '--timeout': s ? String(s.timeout_ms) : unknown,
  };
}

/**
 * Joins the reports of `--shard i/n` runs into the report one unsharded run would have written
 * (tasks in suite order, the summary recomputed); only timings differ. Refuses a set that is not
 * exactly shards 1..n of one run of the same suites and settings. Pure: ids and paths come in.
 */
export function mergeShards(shards: ShardOutput[], runId: string): RunReport {
  if (shards.length === 0) throw new MergeError('merge needs at least one shard output folder');
  for (const { dir, report } of shards) {
    if (!report.run.shard) throw new MergeError(`${dir}: not the output of a sharded run (run it with --shard i/n)`);
  }
  const [first, ...rest] = shards as [ShardOutput, ...ShardOutput[]];
  const expected = settingsOf(first.report.run);
  for (const { dir, report } of rest) {
    const actual = settingsOf(report.run);
    for (const key of Object.keys(expected) as Array<keyof typeof expected>) {
      if (actual[key] !== expected[key]) {
        throw new MergeError(`${dir} and ${first.dir} differ in ${key === 'shards' ? 'shard count' : key}: ${actual[key]} vs ${expected[key]}; shards of one run must share suites and settings`);
      }
    }
  }
  const total = first.report.run.shard!.total;
  const byIndex = new Map<number, string>();
  for (const { dir, report } of shards) {
    const { index } = report.run.shard!;
    const other = byIndex.get(index);
    if (other) throw new MergeError(`overlapping shards: ${other} and ${dir} are both shard ${index}/${total}`);
    byIndex.set(index, dir);
  }
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) throw new MergeError(`missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${total}`).join(', ')}: merge needs the output of every shard`);

  const owner = new Map<string, string>();
  const tasks: TaskResult[] = [];
  for (const { dir, report } of shards) {
    for (const task of report.tasks) {
      const other = owner.get(task.id);
      if (other) throw new MergeError(`overlapping shards: task ${task.id} is in both ${other} and ${dir}`);
      owner.set(task.id, dir);
      tasks.push(task);
    }
  }
  const suiteOrder = new Map(first.report.run.suites.map((s, i) => [s.path, i]));
  tasks.sort((a, b) => (suiteOrder.get(a.source.file) ?? 0) - (suiteOrder.get(b.source.file) ?? 0) || a.source.line - b.source.line);

  const runs = shards.map((s) => s.report.run);
  const startedAt = runs.map((r) => r.started_at).sort()[0]!;
  const endedAt = runs.map((r) => r.ended_at).sort().at(-1)!;
  const planned = runs.every((r) => r.trials_planned !== undefined) ? runs.reduce((s, r) => s + r.trials_planned!, 0) : undefined;
  const run: RunInfo = {
    ...first.report.run,
    id: runId,
    started_at: startedAt,
    ended_at: endedAt,
    duration_ms: Date.parse(endedAt) - Date.parse(startedAt),
    scripted: runs.some((r) => r.scripted),
    shard: null,
    interrupted: runs.some((r) => r.interrupted),
    ...(planned !== undefined ? { trials_planned: planned } : {}),
    merged_from: [...shards].sort((a, b) => a.report.run.shard!.index - b.report.run.shard!.index).map((s) => s.dir),
  };
  return buildReport(run, tasks);
}
