/**
 * The commands that read stored files (`validate`, `replay`, `diff`, `baseline save`, `report`,
 * `merge`) as the command line knows them: flags and help. What they do (storedActions.ts,
 * mergeAction.ts) is imported only when one runs.
 */
import type { Command } from 'commander';
import { exitCodesHelp } from './exitCodes.js';
import { addGateOptions, GATE_HELP } from './gateOptions.js';
import { lazyAction, type Handle } from './lazyAction.js';

export function defineValidate(program: Command, handle: Handle): void {
  program
    .command('validate')
    .description('check suite files without running them: JSON, fields, types, duplicate ids, workspaces; warns about event types no trace carries')
    .argument('<suite...>', 'JSONL suite files')
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'every suite valid', 2: 'a suite is not (every error with file, line and field)' })}`)
    .action(lazyAction(handle, () => import('./storedActions.js').then((m) => m.validateCommand)));
}

export function defineReplay(program: Command, handle: Handle): void {
  program
    .command('replay')
    .description('tell a trace as a readable story: the task\'s prompt, then each step, tool, arguments, decision, result, final answer')
    .argument('<trace>', 'a trace file, e.g. reports/latest/traces/<task>.e0.json')
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'told', 2: 'not a readable trace' })}`)
    .action(lazyAction(handle, () => import('./storedActions.js').then((m) => m.replayCommand)));
}

export function defineDiff(program: Command, handle: Handle): void {
  const command = program
    .command('diff')
    .description('diff a stored report against a baseline, apply the gate and rewrite the report files')
    .argument('<report>', 'report.json of a run')
    .argument('[baseline]', 'baseline report, e.g. baselines/demo.json (or give it as -b/--baseline; not both)')
    .option('-o, --out <dir>', "where to write (default: the report's folder); created if missing");
  addGateOptions(command);
  command.addHelpText('after', `\nThe baseline is the second argument or -b/--baseline FILE; giving two different ones is an error.\n${GATE_HELP}\n\n${exitCodesHelp([0, 1, 2, 3], { 2: 'bad input or usage (also an --out that cannot be created)' })}`);
  command.action(lazyAction(handle, () => import('./storedActions.js').then((m) => m.diffCommand)));
}

export function defineBaseline(program: Command, handle: Handle): void {
  const baseline = program.command('baseline').description('manage baselines: committed reports that runs are diffed against');
  baseline
    .command('save')
    .description('save a report as baselines/<name>.json (without diff, gate and trace paths)')
    .argument('<report>', 'report.json of a run')
    .option('-n, --name <name>', 'baseline name', 'default')
    .option('--dir <dir>', 'baselines folder', 'baselines')
    .option('--allow-partial', 'also save an interrupted or partial report (fewer trials than planned); every later diff then compares against those trials only', false)
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'saved', 2: 'bad input (a bad --name, a report that cannot be read, a partial report without --allow-partial)' })}`)
    .action(lazyAction(handle, () => import('./storedActions.js').then((m) => m.baselineSaveCommand)));
}

export function defineReport(program: Command, handle: Handle): void {
  program
    .command('report')
    .description('re-render report.html from a stored report.json')
    .argument('<report>', 'report.json')
    .option('-o, --out <file>', 'output HTML file (default: report.html beside the report); its folder is created if missing')
    .addHelpText('after', `\n${exitCodesHelp([0, 2], { 0: 'written', 2: 'bad input (a report that cannot be read, an --out that is the report or a folder)' })}`)
    .action(lazyAction(handle, () => import('./storedActions.js').then((m) => m.reportCommand)));
}

export function defineMerge(program: Command, handle: Handle): void {
  const command = program
    .command('merge')
    .description('join the output folders of `run --shard i/n` jobs into one report, then diff it and apply the gate')
    .argument('<dir...>', 'output folders of the shard runs (each with its report.json and traces/)')
    .requiredOption('-o, --out <dir>', 'folder for the merged report.json, report.html, junit.xml, summary.md and traces/');
  addGateOptions(command);
  command.addHelpText(
    'after',
    `
Every shard 1..n of one run must be given once, all from the same suites (sha256) and settings;
anything else is refused with exit 2. The merged report is what one unsharded run would have
written, apart from timings. ${exitCodesHelp([0, 1, 2, 3], { 3: 'could not run (a shard was interrupted, or every trial errored)' })}`,
  );
  command.action(lazyAction(handle, () => import('./mergeAction.js').then((m) => m.mergeCommand)));
}
