import path from 'node:path';
import { readReport } from '../baseline/baselineFile.js';
import { diffReports } from '../baseline/diffReports.js';
import { defaultRules, evaluateGate } from '../gate/evaluateGate.js';
import { htmlReporter } from '../reporters/html/htmlReporter.js';
import { jsonReporter } from '../reporters/jsonReporter.js';
import { junitReporter } from '../reporters/junitReporter.js';
import { Reporters } from '../reporters/runAll.js';
import { terminalSafe } from '../reporters/terminalSafe.js';
import type { Reporter } from '../reporters/reporter.js';
import { formatDiff, formatGate } from '../reporters/terminalDiff.js';
import { formatTerminal } from '../reporters/terminal.js';
import { completeness } from '../report/completeness.js';
import { summaryMarkdownReporter } from '../reporters/summaryMarkdown.js';
import type { Redactor } from '../schema/redact.js';
import { DEFAULT_ALPHA, GATE_SCHEMA_VERSION, GateRulesSchema, type GateResult, type GateRules } from '../schema/gate.js';
import { JsonFileError, readJsonFile } from '../files/jsonFile.js';
import type { RunReport } from '../schema/report.js';
import { heldReport, rowsWhere, type StreamedReport } from '../report/taskRows.js';
import { finalizeReport } from '../report/finalizeReport.js';
import { SpilledRows } from '../runner/spilledRows.js';
import { EXIT } from './exitCodes.js';
import type { GateFlags } from './gateOptions.js';

/** Flags override the gate file; with neither, the defaults of src/gate apply. */
function resolveRules(flags: GateFlags, hasBaseline: boolean): { rules: GateRules; source: string } {
  const fromFile = flags.gate ? readJsonFile(flags.gate, GateRulesSchema, 'gate file') : {};
  // Like every other tracegate file, a gate file says which format it is in; a bare object could be anything.
  if (flags.gate && fromFile.schema_version === undefined) {
    throw new JsonFileError(`${flags.gate}: field schema_version: missing; a gate file starts with "schema_version": "${GATE_SCHEMA_VERSION}"`);
  }
  const fromFlags: GateRules = {
    ...(flags.minPassRate !== undefined ? { min_pass_rate: flags.minPassRate } : {}),
    ...(flags.maxDrop !== undefined ? { max_drop: flags.maxDrop } : {}),
    ...(flags.maxRegressions !== undefined ? { max_regressions: flags.maxRegressions } : {}),
    ...(flags.maxTasksDown !== undefined ? { max_tasks_down: flags.maxTasksDown } : {}),
    ...(flags.mustPassTag !== undefined ? { must_pass_tags: flags.mustPassTag } : {}),
    ...(flags.maxErrorRate !== undefined ? { max_error_rate: flags.maxErrorRate } : {}),
    ...(flags.significance ? { no_significant_regression: true } : {}),
    ...(flags.alpha !== undefined ? { alpha: flags.alpha } : {}),
  };
  const given = { ...fromFile, ...fromFlags };
  const { schema_version: _v, alpha: _a, ...ruleKeys } = given;
  if (Object.keys(ruleKeys).length === 0) {
    return { rules: { ...defaultRules(hasBaseline), ...(given.alpha !== undefined ? { alpha: given.alpha } : {}) }, source: 'defaults' };
  }
  const source = [flags.gate, Object.keys(fromFlags).length ? 'flags' : null].filter(Boolean).join(' + ');
  return { rules: given, source };
}

export interface BaselineInput {
  report: RunReport;
  file: string;
  /** Where its traces are, relative to the output folder (compare keeps variant A's beside B's). */
  traceDir: string | null;
}

/** Everything the end of a run needs, loaded and validated before the first trial is paid for. */
export interface GateInputs {
  rules: GateRules;
  source: string;
  baseline: BaselineInput | null;
}

/**
 * Reads the gate file and the baseline now, so a typo in either is exit 2 before any work.
 * `baselineFromRun`: compare's baseline is variant A, which only exists after it ran.
 */
export function loadGateInputs(flags: GateFlags, options: { baselineFromRun?: boolean } = {}): GateInputs {
  const baseline = flags.baseline && !options.baselineFromRun ? { report: readReport(flags.baseline), file: flags.baseline, traceDir: null } : null;
  const { rules, source } = resolveRules(flags, baseline !== null || options.baselineFromRun === true);
  return { rules, source, baseline };
}

/** The artifacts every run writes: report.json, junit.xml, summary.md and (unless --no-html) report.html. */
export function artifactReporters(html: boolean): Reporter[] {
  return [jsonReporter, junitReporter, summaryMarkdownReporter, ...(html ? [htmlReporter()] : [])];
}

/**
 * What the gate reads of the rows: only the tasks its must-pass tags name (the summary and the diff
 * carry the rest), so a streamed report's rows are not all held for it.
 */
function gateView(report: StreamedReport, rules: GateRules): RunReport {
  if (Array.isArray(report.tasks)) return report as RunReport;
  const tags = rules.must_pass_tags ?? [];
  return { ...report, tasks: tags.length ? rowsWhere(report.tasks, (t) => t.tags.some((tag) => tags.includes(tag))) : [] };
}

/** `2×PROVIDER_ERROR, 1×NO_MODEL: pass --base-url URL …`: why trials errored, the first message whole. */
function errorCounts(report: StreamedReport): string {
  const counts = new Map<string, number>();
  let first: { message: string } | undefined;
  for (const task of report.tasks) {
    for (const { error } of task.trials) {
      if (!error) continue;
      first ??= error;
      counts.set(error.code, (counts.get(error.code) ?? 0) + 1);
    }
  }
  return `${[...counts].map(([code, n]) => `${n}×${code}`).join(', ')}${first ? `; first: ${first.message}` : ''}`;
}

/**
 * The common end of run, diff, compare and merge: attach the diff and gate, write every artifact
 * (one broken reporter does not stop the others), print the summary, and return the exit code.
 */
export async function finishReport(
  report: StreamedReport,
  outDir: string,
  flags: Pick<GateFlags, 'html'>,
  inputs: GateInputs,
  redactor: Redactor,
  /** The run's reporters (run and compare: with its live display and the traces packed for the page). */
  reporters: Reporters = new Reporters(artifactReporters(flags.html)),
): Promise<number> {
  const { rules, source, baseline } = inputs;
  // The diff pairs every row with the baseline's, so a diffed report holds its rows; otherwise
  // they stay streamed from the run's journal, each artifact reading them in its own pass.
  const diffed: StreamedReport = baseline ? { ...heldReport(report) } : { ...report };
  if (baseline) {
    // --epochs auto spent alpha over its looks: the diff tests at the level of the look the run stopped at.
    const alpha = report.run.adaptive?.final_level ?? rules.alpha ?? DEFAULT_ALPHA;
    diffed.diff = diffReports(diffed as RunReport, baseline.report, path.relative(process.cwd(), baseline.file) || baseline.file, alpha, baseline.traceDir);
  }
  // A CI matrix wider than the suite: this shard's empty output is for merge, whose report the gate
  // judges; its own report applies no rule (rules on no task would fail, and the exit says it did not).
  const shard = report.run.shard;
  const emptyShard = shard !== null && shard !== undefined && report.tasks.length === 0 && !report.run.merged_from && completeness(report).complete;
  const gate = emptyShard ? evaluateGate(gateView(diffed, {}), {}, 'none: an empty shard; tracegate merge gates the whole run') : evaluateGate(gateView(diffed, rules), rules, source);
  const finalized = finalizeReport({ ...diffed, gate }, redactor);
  // Streamed rows are finished (redacted) once, into a file that each artifact's pass reads back.
  const spilled = Array.isArray(finalized.tasks) ? null : new SpilledRows(finalized.tasks, outDir);
  try {
    return await writeArtifacts(spilled ? { ...finalized, tasks: spilled } : finalized, gate, outDir, reporters, emptyShard ? shard : null);
  } finally {
    spilled?.remove();
  }
}

/** Every artifact, the terminal summary, and the exit code of the finished report. */
async function writeArtifacts(finished: StreamedReport, gate: GateResult, outDir: string, reporters: Reporters, emptyShard: { index: number; total: number } | null): Promise<number> {
  const written = await reporters.runEnd(finished, outDir);

  const out = process.stdout;
  out.write(formatTerminal(finished) + '\n');
  if (finished.diff) out.write(formatDiff(finished.diff) + '\n');
  out.write(formatGate(gate) + '\n');
  out.write(`wrote ${written.map((f) => path.relative(process.cwd(), f)).join(', ')}\n`);
  for (const failure of reporters.failures()) process.stderr.write(terminalSafe(`reporter failed: ${failure}`) + '\n');

  const judged = finished.summary.passed + finished.summary.failed;
  if (emptyShard) {
    process.stderr.write(`shard ${emptyShard.index}/${emptyShard.total} has no task (the run has fewer tasks than shards): wrote its empty output for tracegate merge\n`);
    return EXIT.PASS;
  }
  if (!completeness(finished).complete || judged === 0) {
    if (judged === 0) process.stderr.write(terminalSafe(`no trial could be judged: every one errored (${errorCounts(finished)})`) + '\n');
    return EXIT.COULD_NOT_RUN;
  }
  return gate.passed ? EXIT.PASS : EXIT.GATE_FAILED;
}
