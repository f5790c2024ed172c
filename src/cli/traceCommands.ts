/**
 * The `import`, `score` and `export` commands as the command line knows them: flags and help. What
 * they do (traceActions.ts) is imported only when one runs.
 */
import { Option, type Command } from 'commander';
import { FORMAT_NAMES } from '../traceio/formatNames.js';
import { exitCodesHelp } from './exitCodes.js';
import { addGateOptions } from './gateOptions.js';
import { lazyAction, type Handle } from './lazyAction.js';

export function defineImport(program: Command, handle: Handle): void {
  program
    .command('import')
    .description('turn stored traces of other tools into tracegate traces (one per conversation) and print what each file held')
    .argument('<file...>', 'trace files: OTLP/JSON or protobuf, SDK/Jaeger/Phoenix span exports, Inspect .eval/.json, SWE-agent .traj, mini-swe-agent, OpenHands, Claude Code sessions, Codex rollouts, OpenAI messages')
    .requiredOption('-o, --out <dir>', 'folder to write the traces into (<task>.e<epoch>.json)')
    .addOption(new Option('--format <name>', 'the files\' format (default: detected per file)').choices(['auto', ...FORMAT_NAMES]).default('auto'))
    .addHelpText('after', `\nFormats: ${FORMAT_NAMES.join(', ')}. See docs/traces.md.\nEvery file is read before anything is written; a file that is not a trace, or is broken, is exit 2 with its name and the reason.\nA file over 512 MB is refused from its size, unread; OTLP/JSON of 8 MB or more is streamed: JSON Lines line by line (one trace in memory at a time), one request span by span.\n${exitCodesHelp([0, 2], { 0: 'every file imported', 2: 'bad input (nothing written)' })}`)
    .action(lazyAction(handle, () => import('./traceActions.js').then((m) => m.importCommand)));
}

export function defineScore(program: Command, handle: Handle): void {
  const command = program
    .command('score')
    .description('judge stored traces against a suite without running the agent: report.json, report.html, junit.xml, summary.md, diff and gate')
    .argument('<suite...>', 'JSONL suite files whose tasks the traces answer')
    .requiredOption('--traces <dir>', 'folder of trace/v1 files (from `tracegate import`, or a report folder to re-judge)')
    .option('-o, --out <dir>', 'output folder', 'reports/scored');
  addGateOptions(command);
  command.addHelpText('after', `\nA trace answers the task named by its task_id, else by its file name (<task>.e<epoch>.json).\nUnmatched traces and tasks without a trace are listed. ${exitCodesHelp([0, 1, 2, 3], { 2: 'bad input (also: no trace answers any task)', 3: 'nothing judged (every trace is of an errored trial)' })}`);
  command.action(lazyAction(handle, () => import('./traceActions.js').then((m) => m.scoreCommand)));
}

export function defineExport(program: Command, handle: Handle): void {
  program
    .command('export')
    .description('write a run\'s traces as OpenTelemetry (OTLP/JSON, GenAI names) to a file or an OTLP/HTTP endpoint (Jaeger, Langfuse, Phoenix)')
    .argument('<report-dir>', 'a report folder (with traces/) or a folder of trace files')
    .option('--otlp <file>', 'write OTLP/JSON Lines: one ExportTraceServiceRequest per trace')
    .option('--otlp-endpoint <url>', 'POST to this OTLP/HTTP endpoint (…/v1/traces is added when missing)')
    .addOption(new Option('--protocol <p>', 'OTLP/HTTP encoding for --otlp-endpoint').choices(['http/json', 'http/protobuf']).default('http/protobuf'))
    .option('--header <name=ENVVAR...>', 'HTTP header whose value is read from an environment variable, e.g. Authorization=LANGFUSE_AUTH', [])
    .addHelpText('after', `\nLangfuse: export LANGFUSE_AUTH="Basic $(echo -n pk:sk | base64)" and pass --otlp-endpoint https://HOST/api/public/otel --header Authorization=LANGFUSE_AUTH.\n${exitCodesHelp([0, 2, 3], { 0: 'written or sent', 3: 'the endpoint did not take them' })}`)
    .action(lazyAction(handle, () => import('./traceActions.js').then((m) => m.exportCommand)));
}
