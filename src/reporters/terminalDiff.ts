import { makeTable } from './table.js';
import { terminalSafe } from './terminalSafe.js';
import { triageRows, triageText, type TriageDistribution } from './triage.js';
import { describeDrop } from '../statistics/dropFigure.js';
import { COMPRESSION_METRIC, type Diff } from '../schema/diff.js';
import type { GateResult } from '../schema/gate.js';

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const MAX_ROWS = 20;

export function formatDiff(diff: Diff): string {
  const lines: string[] = [];
  const c = diff.counts;
  lines.push(`against ${terminalSafe(diff.baseline.file)}: ${c.regressed} regressed, ${c.fixed} fixed, ${c.reason_changed} changed reason, ${c.still_failing} still failing, ${c.unchanged} unchanged, ${c.new} new, ${c.removed} removed, ${c.errored} errored`);
  const g = diff.significance;
  if (g) {
    lines.push(`paired test (${g.method}): ${g.verdict}; ${describeDrop(g)}, minimum detectable effect ${pct(g.minimum_detectable_effect)}`);
    if (g.why) lines.push(`  why this test: ${g.why}`);
    if (g.trials) lines.push(`  judged trials: baseline ${g.trials.baseline_judged} (${g.trials.baseline_errored} errored), current ${g.trials.current_judged} (${g.trials.current_errored} errored) over ${g.pairs} paired tasks, ${g.informative_pairs ?? g.pairs} informative`);
  }
  const changed = diff.tasks.filter((t) => t.change !== 'unchanged' && t.change !== 'still_failing');
  if (changed.length > 0) {
    const table = makeTable({ head: ['task', 'change', 'baseline', 'now', 'evidence'], wordWrap: true, colWidths: [32, 15, 30, 30, 50] });
    for (const t of changed.slice(0, MAX_ROWS)) {
      const fmt = (s: Diff['tasks'][number]['current']) => (s ? `${s.status}${s.failure_reason ? ` ${s.failure_reason} (${s.failure_layer})` : ''}` : '—');
      const e = t.evidence[0];
      table.push([t.id + (t.definition_changed ? ' *' : ''), t.change, fmt(t.baseline), fmt(t.current), e ? `${e.step !== null ? `step ${e.step}: ` : ''}${e.detail}`.slice(0, 100) : '']);
    }
    lines.push(table.toString());
    if (changed.length > MAX_ROWS) lines.push(`… and ${changed.length - MAX_ROWS} more in report.json`);
  }
  lines.push(...formatTriage(diff));
  // Notes name a baseline's task ids, which may come from anyone.
  for (const note of diff.notes) lines.push(terminalSafe(`note: ${note}`));
  return lines.join('\n');
}

/** Failed trials by reason and by layer, baseline → current, the ones that grew first; then compression. */
function formatTriage(diff: Diff): string[] {
  const block = (title: string, distribution: TriageDistribution) => {
    const rows = triageRows(distribution);
    // A baseline's keys may come from anyone: shown, never obeyed by the terminal.
    return rows.length === 0 ? [] : [`${title}, baseline → current (failed trials):`, ...rows.map((r) => terminalSafe(`  ${triageText(r)}`))];
  };
  const lines = [...block('failure reasons', diff.failure_reasons), ...block('failure layers', diff.failure_layers)];
  const compression = diff.metrics.find((m) => m.name === COMPRESSION_METRIC);
  if (compression && (compression.baseline !== null || compression.current !== null)) {
    lines.push(`context compression: ${pct(compression.baseline)} → ${pct(compression.current)} of judged trials compressed`);
  }
  const cost = diff.metrics.find((m) => m.name === 'cost_per_trial_usd');
  if (cost && cost.baseline !== null && cost.current !== null) {
    lines.push(terminalSafe(`cost per trial: $${cost.baseline.toPrecision(4)} → $${cost.current.toPrecision(4)}${cost.note ? ` (${cost.note})` : ''}`));
  }
  return lines;
}

export function formatGate(gate: GateResult): string {
  const table = makeTable({ head: ['gate rule', 'expected', 'actual', 'verdict'], wordWrap: true, colWidths: [28, 34, 64, 9] });
  for (const r of gate.results) table.push([r.rule, r.expected, r.actual + (r.detail ? `\n${r.detail}` : ''), r.passed ? 'pass' : 'FAIL']);
  return `${table.toString()}\ngate (${terminalSafe(gate.source)}): ${gate.passed ? 'PASSED' : 'FAILED'}`;
}
