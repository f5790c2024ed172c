import type { StreamedReport } from '../../report/taskRows.js';
import type { RunReport, TaskResult } from '../../schema/report.js';
import { packJson } from '../../files/packJson.js';

/** Tasks per detail block: opening one task inflates one block of this many. */
export const DETAIL_CHUNK = 500;

/**
 * One table row, as an array (field names would be most of the bytes of a 100,000-task page):
 * [id, status, flaky, change, failure_reason, failure_layer, steps, pass_fraction, tags,
 *  duration_ms, answer_preview, error_code, error_message, detail_index].
 */
export type PageRow = [
  string, string, 0 | 1, string | null, string | null, string | null, number, number | null, string[],
  number, string | null, string | null, string | null, number,
];

/** What the detail view needs of a task beyond its row; kept out of the table's data. */
export interface PageDetail {
  /** What the task asked (redacted), shown at the top of the task panel; null when the report predates it. */
  prompt: string | null;
  checks: TaskResult['checks'];
  evidence: TaskResult['evidence'];
  trace_file: string | null;
  baseline_trace_file: string | null;
  /** Under `--epochs auto`: how many trials the task got and why no more. */
  adaptive: NonNullable<TaskResult['adaptive']> | null;
  /** Only when there are several; one trial is the row itself. */
  trials: Array<Pick<TaskResult['trials'][number], 'epoch' | 'status' | 'failure_reason' | 'failure_layer' | 'evidence' | 'checks' | 'trace_file' | 'error' | 'steps'>>;
}

export interface PageData {
  /** The report without its per-task lists (those are `rows` and the detail blocks). */
  report: Omit<RunReport, 'tasks' | 'diff'> & { diff: Omit<NonNullable<RunReport['diff']>, 'tasks'> | null };
  rows: PageRow[];
  /** The values each filter offers, so the page need not scan every row for them. */
  facets: { layer: string[]; reason: string[]; tag: string[]; change: string[] };
  /** Detail blocks: gzip + base64 of a JSON array of PageDetail, DETAIL_CHUNK tasks each. */
  detailBlocks: string[];
}

const CHANGE_ORDER = ['regressed', 'errored', 'reason_changed', 'fixed', 'still_failing', 'new', 'removed', 'unchanged'];
const STATUS_ORDER: Record<string, number> = { failed: 0, errored: 1, passed: 2 };

const sorted = (values: Iterable<string | null | undefined>) => [...new Set([...values].filter((v): v is string => !!v))].sort();

/**
 * The report as the page reads it: rows already in display order (changes first, then failures,
 * then by id), filter values precomputed, and everything only the detail view needs packed into
 * compressed blocks that are inflated when a task is opened. One pass over the report's rows
 * (which may be streamed from the journal): only the compact table rows are held, to sort them.
 */
export function pageData(report: StreamedReport): PageData {
  const { tasks, diff, ...rest } = report;
  const diffById = new Map(diff?.tasks.map((t) => [t.id, t]));
  const changeRank = (change: string | null) => (change ? CHANGE_ORDER.indexOf(change) : CHANGE_ORDER.length);
  const detailOf = (t: TaskResult): PageDetail => ({
    prompt: t.prompt ?? null,
    checks: t.checks,
    evidence: t.evidence,
    trace_file: t.trace_file,
    baseline_trace_file: diffById.get(t.id)?.baseline_trace_file ?? null,
    adaptive: t.adaptive ?? null,
    trials:
      t.trials.length === 1
        ? []
        : t.trials.map((x) => ({ epoch: x.epoch, status: x.status, failure_reason: x.failure_reason, failure_layer: x.failure_layer, evidence: x.evidence, checks: x.checks, trace_file: x.trace_file, error: x.error, steps: x.steps })),
  });
  const rows: PageRow[] = [];
  const facets = { layer: new Set<string | null>(), reason: new Set<string | null>(), tag: new Set<string>(), change: new Set<string | null | undefined>() };
  // One block's details at a time: a 100,000-task report never holds a second copy of every task.
  const detailBlocks: string[] = [];
  let block: PageDetail[] = [];
  for (const t of tasks) {
    const change = diffById.get(t.id)?.change ?? null;
    rows.push([
      t.id, t.status, t.flaky ? 1 : 0, change, t.failure_reason, t.failure_layer, t.steps, t.pass_fraction, t.tags,
      t.duration_ms, t.answer_preview, t.error?.code ?? null, t.error?.message ?? null, rows.length,
    ]);
    facets.layer.add(t.failure_layer);
    facets.reason.add(t.failure_reason);
    for (const tag of t.tags) facets.tag.add(tag);
    facets.change.add(diffById.get(t.id)?.change);
    block.push(detailOf(t));
    if (block.length === DETAIL_CHUNK) {
      detailBlocks.push(packJson(JSON.stringify(block), 4));
      block = [];
    }
  }
  if (block.length) detailBlocks.push(packJson(JSON.stringify(block), 4));
  // A stable sort on the same keys as ever: rows that tie keep their suite order.
  rows.sort((x, y) => (diff ? changeRank(x[3]) - changeRank(y[3]) : 0) || STATUS_ORDER[x[1]]! - STATUS_ORDER[y[1]]! || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const { tasks: _diffTasks, ...diffRest } = diff ?? { tasks: [] };
  return {
    report: { ...rest, diff: diff ? (diffRest as Omit<NonNullable<RunReport['diff']>, 'tasks'>) : null },
    rows,
    facets: { layer: sorted(facets.layer), reason: sorted(facets.reason), tag: sorted(facets.tag), change: sorted(facets.change) },
    detailBlocks,
  };
}
