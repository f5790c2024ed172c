/** What `compare` does once its flags are parsed (runCommands.ts defines them), with the pieces of runAction.ts. */
import path from 'node:path';
import { writeReportJson } from '../reporters/jsonReporter.js';
import { Reporters } from '../reporters/runAll.js';
import { heldReport } from '../report/taskRows.js';
import { removeReports, checkOutputFolder } from '../runner/previousRun.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './errors.js';
import { artifactReporters, finishReport, loadGateInputs } from './finishReport.js';
import { checkCompareEpochsFlags, pairedEpochsAuto } from './epochsAuto.js';
import { ensureWritableDir } from './outputDir.js';
import { buildAdapter, gateSummary, judgeOf, prepareRun, progressReporter, resolveRunOf, runInto } from './runAction.js';
import type { RunFlags } from './runCommands.js';
import { withAdapters } from './runLifecycle.js';
import { checkResumeSettings, runSettingsOf } from './runSettingsOf.js';
import { loadVariant } from './variantOption.js';

/**
 * `tracegate compare`: both variants resolved before any trial, A run into <out>/a, B into <out>
 * (in stages together under --epochs auto), then B finished with A as its baseline.
 */
export async function compareCommand(suites: string[], flags: RunFlags & { a: string; b: string }): Promise<number> {
  if (flags.baseline !== undefined) throw new CliError(`compare takes no --baseline (${flags.baseline}): variant A is the baseline; to diff against a stored baseline, use run --baseline or diff`, EXIT.BAD_INPUT);
  checkCompareEpochsFlags(flags);
  const prepared = prepareRun(suites, flags);
  const variantA = loadVariant(flags.a);
  const variantB = loadVariant(flags.b);
  const gateInputs = loadGateInputs(flags, { baselineFromRun: true });
  const outDir = path.resolve(flags.out);
  const aDir = path.join(outDir, 'a');
  ensureWritableDir(aDir);
  // Each side resolved once, before any trial: a variant that cannot run is exit 2 here.
  const runA = resolveRunOf(flags, variantA, prepared, gateInputs);
  const runB = resolveRunOf(flags, variantB, prepared, gateInputs);
  const paired = flags.epochs === 'auto' ? pairedEpochsAuto(flags, runB.alpha) : null;
  // A's only artifact is its report.json (B's baseline); B's report is the page's, and A's
  // traces are read from a/ as a baseline's are; both sides print progress, never two live lines at once.
  const reportersA = new Reporters([progressReporter(flags, paired !== null)]);
  const reportersB = new Reporters([progressReporter(flags, paired !== null), ...artifactReporters(flags.html)]);
  const gate = gateSummary(gateInputs, 'B against A');
  // One judge for both sides: A and B are graded alike, and --judge-record keeps both sides' verdicts.
  const judge = await judgeOf(runB, prepared);
  const { reportA, reportB } = await withAdapters([() => buildAdapter(flags, runA, prepared), () => buildAdapter(flags, runB, prepared)], async ([adapterA, adapterB]) => {
    for (const dir of [aDir, outDir]) checkOutputFolder(dir);
    checkResumeSettings(aDir, runSettingsOf(runA, adapterA!), flags.resume);
    checkResumeSettings(outDir, runSettingsOf(runB, adapterB!), flags.resume);
    // B's previous report would sit beside A's new trials while A runs.
    removeReports(outDir);
    process.stderr.write(`variant A (${variantA.name}) → ${path.relative(process.cwd(), aDir)}\n`);
    if (paired) {
      // Both sides run in stages together; B is diffed at the level of the look the run stopped at.
      process.stderr.write(`variant B (${variantB.name}) → ${path.relative(process.cwd(), outDir)}\n`);
      const [streamedA, b] = await Promise.all([
        runInto(prepared, flags, runA, aDir, adapterA!, { reporters: reportersA, gate, judge, pairedSide: paired.side('a') }),
        runInto(prepared, flags, runB, outDir, adapterB!, { reporters: reportersB, gate, judge, pairedSide: paired.side('b') }),
      ]);
      // A is B's baseline: the diff reads every row of both, so A's are held.
      const a = heldReport(streamedA);
      await writeReportJson(prepared.redactor.deep(a), aDir);
      return { reportA: a, reportB: b };
    }
    const a = heldReport(await runInto(prepared, flags, runA, aDir, adapterA!, { reporters: reportersA, gate, judge }));
    await writeReportJson(prepared.redactor.deep(a), aDir);
    process.stderr.write(`variant B (${variantB.name}) → ${path.relative(process.cwd(), outDir)}\n`);
    const b = await runInto(prepared, flags, runB, outDir, adapterB!, { reporters: reportersB, gate, judge });
    return { reportA: a, reportB: b };
  });
  return finishReport(reportB, outDir, flags, {
    ...gateInputs,
    baseline: { report: reportA, file: path.join(aDir, 'report.json'), traceDir: 'a' },
  }, prepared.redactor, reportersB);
}
