import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { readReport, saveBaseline } from '../baseline/baselineFile.js';
import { renderHtmlChunks } from '../reporters/html/renderHtml.js';
import { writeReportJson } from '../reporters/jsonReporter.js';
import { traceStory } from '../reporters/traceStory.js';
import { writeFileAtomic } from '../files/atomicWrite.js';
import { readJsonFile } from '../files/jsonFile.js';
import { createRedactor } from '../schema/redact.js';
import { TraceSchema } from '../schema/trace.js';
import { formatIssue, loadSuites } from '../suite/loadSuite.js';
import { CliError, EXIT, exitCodesHelp } from './exitCodes.js';
import { addGateOptions, artifactReporters, finishReport, GATE_HELP, loadGateInputs, type GateFlags } from './finishReport.js';
import { Reporters } from '../reporters/runAll.js';
import { withAdapters } from './runLifecycle.js';
import { ensureWritableDir } from './outputDir.js';
import { heldReport } from '../report/taskRows.js';
import { addRunOptions, buildAdapter, gateSummary, judgeOf, prepareRun, progressReporter, resolveRunOf, runInto, type RunFlags } from './runAction.js';
import { checkCompareEpochsFlags, pairedEpochsAuto } from './epochsAuto.js';
import { loadVariant } from './variantOption.js';
import { checkBaselineShares } from '../baseline/baselineOverlap.js';
import { completeness } from '../report/completeness.js';
import { finalizeReport } from '../report/finalizeReport.js';
import { checkResumeSettings, runSettingsOf } from './runSettingsOf.js';
import { checkOutputFolder, removeReports } from '../runner/previousRun.js';

type Handle = (work: () => Promise<number>) => Promise<void>;

export function registerValidate(program: Command, handle: Handle): void {
  program
    .command('validate')
    .description('check suite files without running them: JSON, fields, types, duplicate ids, workspaces; warns about event types no trace carries')
    .argument('<suite...>', 'JSONL suite files')
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'every suite valid', 2: 'a suite is not (every error with file, line and field)' })}`)
    .action(async (files: string[]) =>
      handle(async () => {
        const suites = loadSuites(files);
        for (const s of suites) {
          for (const warning of s.warnings) process.stderr.write(`warning: ${formatIssue(warning)}\n`);
          const policy = s.tasks.filter((t) => t.toolCall).length;
          process.stdout.write(`${s.path}: ${s.tasks.length} tasks valid (${s.tasks.length - policy} agent, ${policy} policy)\n`);
        }
        return EXIT.PASS;
      }),
    );
}

export function registerReplay(program: Command, handle: Handle): void {
  program
    .command('replay')
    .description('tell a trace as a readable story: the task\'s prompt, then each step, tool, arguments, decision, result, final answer')
    .argument('<trace>', 'a trace file, e.g. reports/latest/traces/<task>.e0.json')
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'told', 2: 'not a readable trace' })}`)
    .action(async (file: string) =>
      handle(async () => {
        // A trace from elsewhere may hold secrets: told redacted, as every artifact is written.
        process.stdout.write(traceStory(createRedactor().deep(readJsonFile(file, TraceSchema, 'trace'))) + '\n');
        return EXIT.PASS;
      }),
    );
}

export function registerDiff(program: Command, handle: Handle): void {
  const command = program
    .command('diff')
    .description('diff a stored report against a baseline, apply the gate and rewrite the report files')
    .argument('<report>', 'report.json of a run')
    .argument('[baseline]', 'baseline report, e.g. baselines/demo.json (or give it as -b/--baseline; not both)')
    .option('-o, --out <dir>', "where to write (default: the report's folder); created if missing");
  addGateOptions(command);
  command.addHelpText('after', `\nThe baseline is the second argument or -b/--baseline FILE; giving two different ones is an error.\n${GATE_HELP}\n\n${exitCodesHelp([0, 1, 2, 3], { 2: 'bad input or usage (also an --out that cannot be created)' })}`);
  command.action(async (reportFile: string, positional: string | undefined, flags: GateFlags & { out?: string }) =>
    handle(async () => {
      const baselineFile = diffBaseline(positional, flags.baseline);
      const report = readReport(reportFile);
      const gateInputs = loadGateInputs({ ...flags, baseline: baselineFile });
      checkBaselineShares(report.tasks, gateInputs.baseline);
      const outDir = path.resolve(flags.out ?? path.dirname(reportFile));
      ensureWritableDir(outDir);
      return finishReport(report, outDir, flags, gateInputs, createRedactor());
    }),
  );
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

export function registerBaseline(program: Command, handle: Handle): void {
  const baseline = program.command('baseline').description('manage baselines: committed reports that runs are diffed against');
  baseline
    .command('save')
    .description('save a report as baselines/<name>.json (without diff, gate and trace paths)')
    .argument('<report>', 'report.json of a run')
    .option('-n, --name <name>', 'baseline name', 'default')
    .option('--dir <dir>', 'baselines folder', 'baselines')
    .option('--allow-partial', 'also save an interrupted or partial report (fewer trials than planned); every later diff then compares against those trials only', false)
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'saved', 2: 'bad input (a bad --name, a report that cannot be read, a partial report without --allow-partial)' })}`)
    .action(async (reportFile: string, flags: { name: string; dir: string; allowPartial: boolean }) =>
      handle(async () => {
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
      }),
    );
}

export function registerReport(program: Command, handle: Handle): void {
  program
    .command('report')
    .description('re-render report.html from a stored report.json')
    .argument('<report>', 'report.json')
    .option('-o, --out <file>', 'output HTML file (default: report.html beside the report); its folder is created if missing')
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'written', 2: 'bad input (a report that cannot be read, an --out that is the report or a folder)' })}`)
    .action(async (reportFile: string, flags: { out?: string }) =>
      handle(async () => {
        // The page is redacted as a run redacts it: a report written elsewhere, or edited, may hold secrets.
        const report = finalizeReport(readReport(reportFile), createRedactor());
        const target = htmlTarget(reportFile, flags.out);
        // Trace paths in a report are relative to its own folder, wherever the page is written.
        await writeFileAtomic(target, renderHtmlChunks(report, { traceRoot: path.dirname(path.resolve(reportFile)) }), { durable: true });
        process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
        return EXIT.PASS;
      }),
    );
}

/** Where `report` writes its page: never over its input, never onto a folder; a missing folder is created. */
function htmlTarget(reportFile: string, out: string | undefined): string {
  const target = path.resolve(out ?? path.join(path.dirname(reportFile), 'report.html'));
  if (target === path.resolve(reportFile)) throw new CliError(`--out ${out}: that is the input report; the HTML would replace it (give e.g. ${path.join(path.dirname(reportFile), 'report.html')})`, EXIT.BAD_INPUT);
  if (existsSync(target) && statSync(target).isDirectory()) throw new CliError(`--out ${out}: a folder; give the HTML file's name, e.g. ${path.join(out!, 'report.html')}`, EXIT.BAD_INPUT);
  ensureWritableDir(path.dirname(target));
  return target;
}

export function registerCompare(program: Command, handle: Handle): void {
  const command = program
    .command('compare')
    .description('run two harness variants on the same tasks and diff B against A (A is the baseline)')
    .argument('<suite...>', 'JSONL suite files')
    .requiredOption('--a <file>', 'variant A (the baseline), e.g. suites/demo/variants/a.json')
    .requiredOption('--b <file>', 'variant B (the candidate)');
  addRunOptions(command, { variant: false });
  addGateOptions(command);
  command.addHelpText(
    'after',
    '\nA runs into <out>/a, B into <out>; <out>/report.json is B with its diff against A (so compare takes no --baseline).\n' +
      '--epochs auto: A and B run in stages together; every task gets 3 trials a side, then more go to both sides of the\n' +
      'tasks whose trials still vary, up to --max-epochs a side; --budget counts both sides\' model calls (3 epochs a side at\n' +
      '100 tasks: --budget 600).\n' +
      GATE_HELP +
      `\n\n${exitCodesHelp([0, 1, 2, 3], { 1: 'gate failed (e.g. a regression)' })}`,
  );
  command.action(async (suites: string[], flags: RunFlags & { a: string; b: string }) =>
    handle(async () => {
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
    }),
  );
}
