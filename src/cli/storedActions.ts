/** What the commands that read stored files do (storedCommands.ts defines their flags); merge's is mergeAction.ts. */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { readReport, saveBaseline } from '../baseline/baselineFile.js';
import { checkBaselineShares } from '../baseline/baselineOverlap.js';
import { readJsonFile } from '../files/jsonFile.js';
import { writeFileAtomic } from '../files/atomicWrite.js';
import { completeness } from '../report/completeness.js';
import { finalizeReport } from '../report/finalizeReport.js';
import { renderHtmlChunks } from '../reporters/html/renderHtml.js';
import { traceStory } from '../reporters/traceStory.js';
import { createRedactor } from '../schema/redact.js';
import { TraceSchema } from '../schema/trace.js';
import { formatIssue, loadSuites } from '../suite/loadSuite.js';
import { CliError } from './errors.js';
import { EXIT } from './exitCodes.js';
import { finishReport, loadGateInputs } from './finishReport.js';
import type { GateFlags } from './gateOptions.js';
import { ensureWritableDir } from './outputDir.js';

/** `tracegate validate`: every suite loaded and checked; warnings on stderr, a line a suite on stdout. */
export async function validateCommand(files: string[]): Promise<number> {
  const suites = loadSuites(files);
  for (const s of suites) {
    for (const warning of s.warnings) process.stderr.write(`warning: ${formatIssue(warning)}\n`);
    const policy = s.tasks.filter((t) => t.toolCall).length;
    process.stdout.write(`${s.path}: ${s.tasks.length} tasks valid (${s.tasks.length - policy} agent, ${policy} policy)\n`);
  }
  return EXIT.PASS;
}

/** `tracegate replay`: a trace told as a story, redacted as every artifact is. */
export async function replayCommand(file: string): Promise<number> {
  // A trace from elsewhere may hold secrets: told redacted, as every artifact is written.
  process.stdout.write(traceStory(createRedactor().deep(readJsonFile(file, TraceSchema, 'trace'))) + '\n');
  return EXIT.PASS;
}

/** `tracegate diff`: a stored report diffed against a baseline, gated, and its files rewritten. */
export async function diffCommand(reportFile: string, positional: string | undefined, flags: GateFlags & { out?: string }): Promise<number> {
  const baselineFile = diffBaseline(positional, flags.baseline);
  const report = readReport(reportFile);
  const gateInputs = loadGateInputs({ ...flags, baseline: baselineFile });
  checkBaselineShares(report.tasks, gateInputs.baseline);
  const outDir = path.resolve(flags.out ?? path.dirname(reportFile));
  ensureWritableDir(outDir);
  return finishReport(report, outDir, flags, gateInputs, createRedactor());
}

/** `tracegate baseline save`: a complete report (or a partial one, when allowed) saved as a baseline. */
export async function baselineSaveCommand(reportFile: string, flags: { name: string; dir: string; allowPartial: boolean }): Promise<number> {
  if (!/^[A-Za-z0-9_.-]+$/.test(flags.name)) throw new CliError(`--name ${flags.name}: letters, digits, _ . - only`, EXIT.BAD_INPUT);
  const report = readReport(reportFile);
  const { complete, notice } = completeness(report);
  if (!complete && !flags.allowPartial) {
    throw new CliError(`${reportFile}: a partial or interrupted report (${notice}); finish the run with --resume first, or pass --allow-partial to save it anyway`, EXIT.BAD_INPUT);
  }
  const file = path.join(flags.dir, `${flags.name}.json`);
  saveBaseline(report, file);
  process.stdout.write(`saved ${file} (${report.tasks.length} tasks, pass rate ${report.summary.pass_rate === null ? 'n/a' : (report.summary.pass_rate * 100).toFixed(1) + '%'})\n`);
  return EXIT.PASS;
}

/** `tracegate report`: report.html rendered again from a stored report.json. */
export async function reportCommand(reportFile: string, flags: { out?: string }): Promise<number> {
  // The page is redacted as a run redacts it: a report written elsewhere, or edited, may hold secrets.
  const report = finalizeReport(readReport(reportFile), createRedactor());
  const target = htmlTarget(reportFile, flags.out);
  // Trace paths in a report are relative to its own folder, wherever the page is written.
  await writeFileAtomic(target, renderHtmlChunks(report, { traceRoot: path.dirname(path.resolve(reportFile)) }), { durable: true });
  process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
  return EXIT.PASS;
}

/** One baseline, from the positional argument or -b/--baseline; two different ones is a usage error. */
export function diffBaseline(positional: string | undefined, flag: string | undefined): string {
  if (positional && flag && path.resolve(positional) !== path.resolve(flag)) {
    throw new CliError(`two baselines given: ${positional} (argument) and ${flag} (--baseline); give one`, EXIT.BAD_INPUT);
  }
  const file = positional ?? flag;
  if (!file) throw new CliError('diff needs a baseline: tracegate diff REPORT BASELINE (or --baseline BASELINE)', EXIT.BAD_INPUT);
  return file;
}

/** Where `report` writes its page: never over its input, never onto a folder; a missing folder is created. */
function htmlTarget(reportFile: string, out: string | undefined): string {
  const target = path.resolve(out ?? path.join(path.dirname(reportFile), 'report.html'));
  if (target === path.resolve(reportFile)) throw new CliError(`--out ${out}: that is the input report; the HTML would replace it (give e.g. ${path.join(path.dirname(reportFile), 'report.html')})`, EXIT.BAD_INPUT);
  if (existsSync(target) && statSync(target).isDirectory()) throw new CliError(`--out ${out}: a folder; give the HTML file's name, e.g. ${path.join(out!, 'report.html')}`, EXIT.BAD_INPUT);
  ensureWritableDir(path.dirname(target));
  return target;
}
