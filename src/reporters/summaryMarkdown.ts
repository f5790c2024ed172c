import { writeFileAtomic } from '../files/atomicWrite.js';
import path from 'node:path';
import { completeness } from '../report/completeness.js';
import { describeDrop } from '../statistics/dropFigure.js';
import type { StreamedReport } from '../report/taskRows.js';
import type { TaskResult } from '../schema/report.js';
import { agreementLabel, judgeLabel, modelLabel } from './modelLabel.js';
import { summaryCounts } from './summaryCounts.js';
import type { Reporter } from './reporter.js';
import { triageRows, triageText } from './triage.js';
import { RATE_METRICS, type Diff } from '../schema/diff.js';

const MAX_ROWS = 15;
/** GitHub refuses PR comments over 65,536 characters. */
const MAX_CHARS = 60_000;
const pct = (v: number | null | undefined) => (v === null || v === undefined ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const signed = (v: number | null, unit: 'points' | 'plain') =>
  v === null ? 'n/a' : unit === 'points' ? `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)} pts` : `${v >= 0 ? '+' : ''}${Number(v.toFixed(2))}`;

/** Text from traces is untrusted: markdown tables and GitHub's HTML rendering must not see it raw. */
export function mdText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/([`*[\]])/g, '\\$1')
    // GFM never reads an underscore inside a word as emphasis; only those at word edges need escaping.
    .replace(/(^|[^A-Za-z0-9])_|_(?=[^A-Za-z0-9]|$)/g, (m) => m.replace('_', '\\_'))
    .slice(0, 200);
}

/** Dollars to 4 significant digits below a cent, else to the cent. */
export function usd(value: number): string {
  return value !== 0 && value < 0.01 ? `$${value.toPrecision(4)}` : `$${value.toFixed(2)}`;
}

/** Failed trials by reason and by layer against the baseline, the ones that grew first. */
function triageMarkdown(diff: Diff): string[] {
  const reasons = triageRows(diff.failure_reasons);
  const layers = triageRows(diff.failure_layers);
  if (reasons.length === 0 && layers.length === 0) return [];
  const list = (rows: typeof reasons) => (rows.length === 0 ? 'none' : rows.map((r) => mdText(triageText(r))).join(' · '));
  return ['', '### Failures by reason and layer (failed trials, baseline → current)', '', `**Reasons:** ${list(reasons)}`, '', `**Layers:** ${list(layers)}`];
}

/** summary.md: the verdict, deltas and regressions with evidence, sized for a job summary or PR comment. */
export function summaryMarkdown(report: StreamedReport): string {
  const s = report.summary;
  const gate = report.gate;
  const lines: string[] = [];
  const whole = completeness(report);
  const verdict = gate ? (gate.passed && whole.complete ? '✅ gate passed' : '❌ gate failed') : '';
  if (whole.notice) lines.push(`## ⚠️ tracegate ${mdText(whole.notice)}`, '');
  lines.push(`## tracegate: ${pct(s.pass_rate)} pass rate ${verdict ? `— ${verdict}` : ''}`);
  lines.push('');
  lines.push(`**Model:** ${mdText(modelLabel(report.run.model))}${report.run.variant ? ` · **variant:** ${mdText(report.run.variant.name)}` : ''} · **sandbox:** ${mdText(report.run.sandbox)}${report.run.sandbox_reason ? ` (${mdText(report.run.sandbox_reason)})` : ''}`);
  if (report.run.judge) lines.push(`**Judge:** ${mdText(judgeLabel(report.run.judge))}${s.rubric_agreement ? ` · ${mdText(agreementLabel(s.rubric_agreement))}` : ''}`);
  lines.push('');
  const counts = summaryCounts(report);
  lines.push(`| ${counts.head.join(' | ')} |`, `|${' ---: |'.repeat(counts.head.length)}`, `| ${counts.row.join(' | ')} |`);
  if (s.cost) lines.push('', `**Cost:** ${usd(s.cost.usd)} over ${s.cost.priced_trials} of ${s.cost.trials} trials (prices as of ${mdText(s.cost.as_of)})`);
  if (s.epochs > 1) lines.push('', `pass@${s.epochs} ${pct(s.pass_at_k)} · pass^${s.epochs} ${pct(s.pass_hat_k)} · flaky tasks ${s.flaky}`);
  const auto = report.run.adaptive;
  if (auto) {
    const groups = new Map<string, { trials: number; reason: string; count: number }>();
    for (const t of report.tasks) {
      const key = `${t.trials.length}|${t.adaptive?.reason ?? ''}`;
      const g = groups.get(key) ?? { trials: t.trials.length, reason: t.adaptive?.reason ?? '', count: 0 };
      g.count++;
      groups.set(key, g);
    }
    const spread = [...groups.values()].sort((a, b) => a.trials - b.trials).map((g) => `${g.count} task(s) × ${g.trials}${g.reason ? ` (${mdText(g.reason)})` : ''}`).join('; ');
    lines.push('', `**Epochs auto${auto.sides === 'both' ? ' (both sides staged, ' + (auto.calls_both_sides ?? 0) + ' model calls in all)' : ''}:** ${auto.trials_run} trials in ${auto.stages.length} stage(s) (at most ${auto.max_epochs} per task): ${spread}. Stopped: ${mdText(auto.stop_reason)}. Final look tested at p ≤ ${auto.final_level.toPrecision(3)} (alpha ${auto.alpha} spent over the looks).`);
  }

  const diff = report.diff;
  if (diff) {
    lines.push('', `### Against baseline \`${mdText(diff.baseline.file)}\``);
    const c = diff.counts;
    lines.push('', `${c.regressed} regressed · ${c.fixed} fixed · ${c.reason_changed} changed reason · ${c.still_failing} still failing · ${c.new} new · ${c.removed} removed · ${c.errored} errored`);
    if (diff.significance) {
      const g = diff.significance;
      lines.push('', `**Paired test (${g.method.replaceAll('_', ' ')}):** ${g.verdict} — ${mdText(describeDrop(g))}; minimum detectable effect ${pct(g.minimum_detectable_effect)}`);
      if (g.why) lines.push('', `Why this test: ${mdText(g.why)}.`);
      if (g.weak?.length) lines.push('', '**Weak comparison:**', '', ...g.weak.map((w) => `- ${mdText(w)}`));
    }
    lines.push(...triageMarkdown(diff));
    lines.push('', '| metric | baseline | current | Δ |', '| --- | ---: | ---: | ---: |');
    for (const m of diff.metrics) {
      const rateLike = RATE_METRICS.has(m.name);
      const fmt = (v: number | null) => (v === null ? 'n/a' : rateLike ? pct(v) : String(Number(v.toFixed(2))));
      lines.push(`| ${m.name} | ${fmt(m.baseline)} | ${fmt(m.current)} | ${signed(m.delta, rateLike ? 'points' : 'plain')} |`);
    }
    const regressions = diff.tasks.filter((t) => t.change === 'regressed');
    if (regressions.length > 0) {
      const shown = new Set(regressions.slice(0, MAX_ROWS).map((t) => t.id));
      const promptOf = new Map<string, string>();
      for (const t of report.tasks) if (shown.has(t.id)) promptOf.set(t.id, t.prompt ?? '');
      lines.push('', '### Regressions', '', '| task | prompt | reason | layer | evidence |', '| --- | --- | --- | --- | --- |');
      for (const t of regressions.slice(0, MAX_ROWS)) {
        const e = t.evidence[0];
        lines.push(`| ${mdText(t.id)} | ${mdText(promptOf.get(t.id) ?? '')} | ${t.current?.failure_reason ?? ''} | ${t.current?.failure_layer ?? ''} | ${e ? mdText(`${e.step !== null ? `step ${e.step}: ` : ''}${e.detail}`) : ''} |`);
      }
      if (regressions.length > MAX_ROWS) lines.push('', `…and ${regressions.length - MAX_ROWS} more in report.json`);
    }
    for (const note of diff.notes) if (!(diff.significance?.weak?.length && note.startsWith('weak comparison:'))) lines.push('', `> ${mdText(note)}`);
  } else {
    const failing: TaskResult[] = [];
    let failingCount = 0;
    for (const t of report.tasks) if (t.status !== 'passed' && failingCount++ < MAX_ROWS) failing.push(t);
    if (failingCount > 0) {
      lines.push('', '### Failing tasks', '', '| task | prompt | status | reason | layer |', '| --- | --- | --- | --- | --- |');
      for (const t of failing) lines.push(`| ${mdText(t.id)} | ${mdText(t.prompt ?? '')} | ${t.status} | ${t.failure_reason ?? t.error?.code ?? ''} | ${t.failure_layer ?? ''} |`);
      if (failingCount > MAX_ROWS) lines.push('', `…and ${failingCount - MAX_ROWS} more in report.json`);
    }
  }
  if (gate) {
    lines.push('', `### Gate (${mdText(gate.source)})`, '', '| rule | expected | actual | |', '| --- | --- | --- | --- |');
    for (const r of gate.results) lines.push(`| ${mdText(r.rule)} | ${mdText(r.expected)} | ${mdText(r.actual)} | ${r.passed ? '✅' : '❌'} |`);
  }
  const text = lines.join('\n') + '\n';
  return text.length <= MAX_CHARS ? text : `${text.slice(0, MAX_CHARS)}\n\n…cut at ${MAX_CHARS} characters; report.json has everything.\n`;
}

export const summaryMarkdownReporter: Reporter = {
  name: 'summary.md',
  async onRunEnd(report, outDir) {
    const file = path.join(outDir, 'summary.md');
    await writeFileAtomic(file, summaryMarkdown(report), { durable: true });
    return file;
  },
};
