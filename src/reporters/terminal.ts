import { makeTable } from './table.js';
import type { StreamedReport } from '../report/taskRows.js';
import type { TaskResult } from '../schema/report.js';
import { completeness } from '../report/completeness.js';
import { agreementLabel, judgeLabel, modelLabel } from './modelLabel.js';
import { summaryCounts } from './summaryCounts.js';
import { terminalSafe } from './terminalSafe.js';

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const MAX_FAILURE_ROWS = 30;
const EVIDENCE_WIDTH = 60;

/** The table wraps at spaces and cuts a longer word with "…": a long path or URL is broken to fit instead. */
const wrappable = (text: string, width: number) => text.replace(new RegExp(`\\S{${width}}(?=\\S)`, 'g'), '$& ');
/** Audited policy tasks of ordinary work (the benign corpus): a tool error in one is a refusal of benign work. */
const EVERYDAY_TAG = 'everyday';
/** A held-out corpus: commands that must not run, and ordinary work that must (suites/security.jsonl, docs/harness.md). */
const HELDOUT_TAGS = { dangerous: 'heldout-dangerous', benign: 'heldout-benign' } as const;

function evidenceText(evidence: TaskResult['evidence']): string {
  const first = evidence[0];
  if (!first) return '';
  const where = first.step !== null ? `step ${first.step}: ` : '';
  return `${where}${first.detail}` + (evidence.length > 1 ? ` (+${evidence.length - 1})` : '');
}

/** The terminal summary: where the model came from, pass rate, failures by layer, failing tasks. */
/** What the summary reads of the rows, in one pass: a streamed report's rows are not held for it. */
function rowFacts(report: StreamedReport) {
  let everyday = 0;
  let refused = 0;
  /** Failed trials' reasons by layer, each in the order first seen. */
  const reasonsByLayer = new Map<string, Map<string | null, number>>();
  const heldOut = { dangerous: { tasks: 0, allowed: 0 }, benign: { tasks: 0, refused: 0 } };
  const bad: TaskResult[] = [];
  let badCount = 0;
  for (const t of report.tasks) {
    if (t.tags.includes(EVERYDAY_TAG)) {
      everyday++;
      if (t.trials.some((trial) => trial.tool_errors > 0)) refused++;
    }
    // A trial with no tool error ran (or, audited, would have): for a dangerous command, a hole.
    if (t.tags.includes(HELDOUT_TAGS.dangerous)) {
      heldOut.dangerous.tasks++;
      if (t.trials.some((trial) => trial.tool_errors === 0)) heldOut.dangerous.allowed++;
    }
    if (t.tags.includes(HELDOUT_TAGS.benign)) {
      heldOut.benign.tasks++;
      if (t.trials.some((trial) => trial.tool_errors > 0)) heldOut.benign.refused++;
    }
    for (const trial of t.trials) {
      if (!trial.failure_layer) continue;
      const reasons = reasonsByLayer.get(trial.failure_layer) ?? reasonsByLayer.set(trial.failure_layer, new Map()).get(trial.failure_layer)!;
      reasons.set(trial.failure_reason, (reasons.get(trial.failure_reason) ?? 0) + 1);
    }
    if (t.status !== 'passed' && badCount++ < MAX_FAILURE_ROWS) bad.push(t);
  }
  return { everyday, refused, heldOut, reasonsByLayer, bad, badCount };
}

export function formatTerminal(report: StreamedReport): string {
  const { summary: s, run } = report;
  const lines: string[] = [];
  lines.push(terminalSafe(`model: ${modelLabel(run.model)}`));
  if (run.judge) lines.push(terminalSafe(`judge: ${judgeLabel(run.judge)}${s.rubric_agreement ? `; ${agreementLabel(s.rubric_agreement)}` : ''}`));
  lines.push(terminalSafe(`suites: ${run.suites.map((x) => x.path).join(', ')}  policy: ${run.policy}  sandbox: ${run.sandbox}${run.sandbox_reason ? ` (${run.sandbox_reason})` : ''}${run.epochs > 1 ? `  epochs: ${run.epochs}` : ''}${run.shard ? `  shard: ${run.shard.index}/${run.shard.total}` : ''}`));
  const notice = completeness(report).notice;
  if (notice) lines.push(terminalSafe(notice));

  const counts = summaryCounts(report);
  const summary = makeTable({ head: counts.head });
  summary.push(counts.row);
  lines.push(summary.toString());
  const facts = rowFacts(report);
  if (facts.everyday > 0) {
    const { refused, everyday } = facts;
    lines.push(`everyday commands refused: ${refused} of ${everyday} (${pct(refused / everyday)}) under sandbox ${run.sandbox}`);
  }
  const { dangerous, benign } = facts.heldOut;
  if (dangerous.tasks + benign.tasks > 0) {
    const share = (n: number, of: number) => `${n} of ${of} (${of > 0 ? pct(n / of) : 'n/a'})`;
    lines.push(`held-out corpus: dangerous allowed ${share(dangerous.allowed, dangerous.tasks)}, benign refused ${share(benign.refused, benign.tasks)} under sandbox ${run.sandbox}`);
  }
  if (run.epochs > 1) lines.push(`pass@${run.epochs}: ${pct(s.pass_at_k)}  pass^${run.epochs}: ${pct(s.pass_hat_k)}  flaky tasks: ${s.flaky}`);

  const layers = Object.entries(s.failure_layers);
  if (layers.length > 0) {
    const byLayer = makeTable({ head: ['failure layer', 'failed trials', 'reasons'] });
    for (const [layer, count] of layers.sort((a, b) => b[1] - a[1])) {
      const counts = [...(facts.reasonsByLayer.get(layer) ?? [])].map(([r, n]) => `${r} ×${n}`);
      byLayer.push([layer, count, counts.join(', ')]);
    }
    lines.push(byLayer.toString());
  }

  const { bad, badCount } = facts;
  if (badCount > 0) {
    const failing = makeTable({ head: ['task', 'status', 'reason', 'layer', 'evidence'], wordWrap: true, colWidths: [34, 9, 30, 13, EVIDENCE_WIDTH] });
    for (const t of bad) {
      // Whole, wrapped by the table: what to do about an error is often at its end ("pass --base-url URL").
      failing.push([t.id, t.status, t.failure_reason ?? t.error?.code ?? '', t.failure_layer ?? '', wrappable(t.error ? t.error.message : evidenceText(t.evidence), EVIDENCE_WIDTH - 2)]);
    }
    lines.push(failing.toString());
    if (badCount > MAX_FAILURE_ROWS) lines.push(`… and ${badCount - MAX_FAILURE_ROWS} more in report.json`);
  }
  return lines.join('\n');
}
