/** What `import`, `score` and `export` do once their flags are parsed (traceCommands.ts defines them). */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { buildReport, taskResult } from '../report/buildReport.js';
import { judgeTrial } from '../judging/judgeTrial.js';
import { makeTable } from '../reporters/table.js';
import { terminalSafe } from '../reporters/terminalSafe.js';
import type { Trial, RunInfo } from '../schema/report.js';
import { createRedactor } from '../schema/redact.js';
import { taskInput, type Task } from '../schema/task.js';
import type { ModelInfo } from '../schema/trace.js';
import { loadSuites } from '../suite/loadSuite.js';
import { ImportError } from '../traceio/importError.js';
import { finalAnswerCell, importRow, importRowOf, type ImportRow } from '../traceio/importSummary.js';
import type { FormatName } from '../traceio/formatNames.js';
import type { ImportedFile } from '../traceio/formats.js';
import { toOtlpRequest, toOtlpRequests } from '../traceio/otlpExport.js';
import { sendOtlp, tracesUrl } from '../traceio/otlpSend.js';
import { qualifySharedSampleIds } from '../traceio/sampleIds.js';
import { mergeSplitTraces } from '../traceio/splitTraces.js';
import { readTraceDir, traceFileNames, traceWriter, writeAtomic } from '../traceio/traceFiles.js';
import { removeOrphanedTempFiles, StagedFolder } from '../files/atomicWrite.js';
import { isAlive } from '../orchestrator/workspaces.js';
import { openTraceInput, type TraceInput } from '../traceio/traceInput.js';
import { runHeader } from '../report/runHeader.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './errors.js';
import { finishReport, loadGateInputs } from './finishReport.js';
import type { GateFlags } from './gateOptions.js';
import { ensureWritableDir, refuseFileAsDir } from './outputDir.js';

const badInput = (error: unknown): never => {
  if (error instanceof ImportError) throw new CliError(error.message, EXIT.BAD_INPUT);
  throw error;
};

/** Files a folder's notes may hold beside its traces; they are skipped with a line saying so. */
const NOT_TRACES = /(^|[\\/])[^\\/]*\.(md|txt)$/i;

/** `tracegate import`: every file read and checked before anything is written, then one trace/v1 file a conversation and a table of what each file held. */
export async function importCommand(files: string[], flags: { out: string; format: FormatName | 'auto' }): Promise<number> {
  const imported: ImportedFile[] = [];
  const streamed: Array<Extract<TraceInput, { kind: 'streamed' }>> = [];
  // A file where the folder should be is bad input, found before any file is read.
  refuseFileAsDir(path.resolve(flags.out));
  const problems: string[] = [];
  // A file named twice (overlapping globs) is read once.
  for (const file of [...new Map(files.map((f) => [realPathOr(f), f])).values()]) {
    if (NOT_TRACES.test(file)) {
      process.stderr.write(`skipped ${file}: a notes file, not a trace\n`);
      continue;
    }
    try {
      const input = openTraceInput(file, flags.format);
      if (input.kind === 'whole') imported.push(input.imported);
      else streamed.push(input);
    } catch (error) {
      if (error instanceof ImportError) problems.push(error.message);
      else throw error;
    }
  }
  try {
    if (problems.length > 0) throw new CliError(`nothing written; ${problems.length} file${problems.length > 1 ? 's' : ''} could not be imported:\n  ${problems.join('\n  ')}`, EXIT.BAD_INPUT);
    if (imported.length + streamed.length === 0) throw new CliError('no trace file given', EXIT.BAD_INPUT);
    // Parts of one trace in several files (same trace id) are read as one, or named.
    const split = mergeSplitTraces(imported, (file) => readFileSync(file));
    imported.splice(0, imported.length, ...split.imported);
    qualifySharedSampleIds(imported);
    for (const warning of [...split.warnings, ...streamedSplitWarnings(imported, streamed)]) process.stderr.write(`warning: ${warning}\n`);
    const redactor = createRedactor();
    const outDir = path.resolve(flags.out);
    const write = traceWriter(outDir, redactor.deep);
    const rows: ImportRow[] = [];
    for (const i of imported) {
      i.traces.forEach(write);
      rows.push(importRow(i));
    }
    // A streamed file's traces are written as they are built: the file was checked whole by the first pass.
    for (const { lines } of streamed) {
      const row = importRowOf(lines.file, 'otlp-json');
      lines.eachTrace((trace) => {
        row.add(trace);
        write(trace);
      });
      rows.push(row.row());
    }
    const written = rows.reduce((n, r) => n + r.traces, 0);

    const table = makeTable({ head: ['file', 'format', 'traces', 'model calls', 'tool calls', 'errors', 'final answer', 'cannot tell'] });
    for (const row of rows) {
      table.push([path.relative(process.cwd(), row.file) || row.file, row.format, row.traces, row.model_calls, row.tool_calls, row.errors, finalAnswerCell(row), row.unknown.join('; ') || '—']);
    }
    process.stdout.write(`${table.toString()}\nwrote ${written} trace${written === 1 ? '' : 's'} to ${path.relative(process.cwd(), outDir) || '.'}\n`);
  } finally {
    for (const s of streamed) s.close();
  }
  return EXIT.PASS;
}

/** A streamed file is not merged with others: a trace id it shares with another file is said, each part kept. */
function streamedSplitWarnings(imported: ImportedFile[], streamed: Array<Extract<TraceInput, { kind: 'streamed' }>>): string[] {
  const owner = new Map<string, string>();
  for (const i of imported) for (const t of i.traces) owner.set(t.trace_id, i.file);
  const warnings: string[] = [];
  for (const { lines } of streamed) {
    for (const id of lines.traceIds) {
      const other = owner.get(id);
      if (other !== undefined && other !== lines.file) warnings.push(`trace ${id} is split across ${other} + ${lines.file}: ${lines.file} is streamed (it is large), so each part is imported as its own trace`);
      owner.set(id, lines.file);
    }
  }
  return warnings;
}

/** The file name's task id: `<task>.e<epoch>(-n).json` → task. */
const taskFromFile = (file: string) => path.basename(file).replace(/(\.e\d+)?(-\d+)?\.json$/, '');

/** The run's model line: the traces' own when they agree (policy-only traces aside), else "imported". */
function modelOf(models: ModelInfo[]): ModelInfo {
  const withModel = models.filter((m) => m.mode !== 'none');
  const pool = withModel.length > 0 ? withModel : models;
  const first = pool[0];
  if (first && pool.every((m) => m.mode === first.mode && m.provider === first.provider && m.model === first.model)) return first;
  const names = [...new Set(pool.map((m) => m.model))];
  return { provider: 'imported', mode: 'imported', model: names.join(', ') || 'unknown', base_url: null };
}

/** `tracegate score`: stored traces judged against a suite's tasks, without running the agent, then reported and gated. */
export async function scoreCommand(suiteFiles: string[], flags: GateFlags & { traces: string; out: string }): Promise<number> {
  const suites = loadSuites(suiteFiles);
  const tasks = new Map<string, Task>(suites.flatMap((s) => s.tasks.map((t) => [t.id, t] as const)));
  let stored;
  try {
    stored = readTraceDir(flags.traces);
  } catch (error) {
    return badInput(error);
  }
  const outDir = path.resolve(flags.out);
  const gateInputs = loadGateInputs(flags);
  ensureWritableDir(outDir);
  const redactor = createRedactor();
  const matched = new Map<string, Trial[]>();
  const unmatched: string[] = [];
  const models: ModelInfo[] = [];
  // The judged traces replace the folder's old ones as a whole, once every one is written.
  removeOrphanedTempFiles(outDir, isAlive);
  const traceFolder = new StagedFolder(path.join(outDir, 'traces'));
  const taken = new Set<string>();
  const startedAt = new Date();
  try {
    for (const { file, trace } of stored) {
      const task = tasks.get(trace.task_id) ?? tasks.get(taskFromFile(file));
      if (!task) {
        unmatched.push(terminalSafe(`${path.relative(process.cwd(), file)} (task_id ${trace.task_id})`));
        continue;
      }
      const trials = matched.get(task.id) ?? [];
      // Two traces of one task and epoch become successive epochs: both are judged.
      const used = new Set(trials.map((t) => t.epoch));
      let epoch = trace.epoch;
      while (used.has(epoch)) epoch++;
      // A stored trace rarely says what was asked; the suite's task does.
      const judged = { ...trace, task_id: task.id, epoch, prompt: trace.prompt ?? taskInput(task) };
      const [name] = traceFileNames([judged], taken);
      traceFolder.write(name!, JSON.stringify(redactor.deep(judged), null, 1) + '\n');
      const duration = Math.max(0, Date.parse(trace.ended_at) - Date.parse(trace.started_at)) || 0;
      // The trial is redacted with its report row (finishReport).
      trials.push(judgeTrial(task, epoch, judged, null, duration, `traces/${name}`));
      matched.set(task.id, trials);
      models.push(trace.model);
    }
    traceFolder.commit();
  } catch (error) {
    traceFolder.discard();
    throw error;
  }
  const missing = [...tasks.keys()].filter((id) => !matched.has(id));
  for (const u of unmatched) process.stderr.write(`unmatched trace: ${u}\n`);
  for (const id of missing) process.stderr.write(`task without a trace: ${id}\n`);
  if (matched.size === 0) throw new CliError(`no trace in ${flags.traces} answers a task of ${suiteFiles.join(', ')} (by task_id or file name)`, EXIT.BAD_INPUT);
  process.stderr.write(`scored ${stored.length - unmatched.length} trace${stored.length - unmatched.length === 1 ? '' : 's'} of ${matched.size} task${matched.size === 1 ? '' : 's'}; ${unmatched.length} unmatched, ${missing.length} task${missing.length === 1 ? '' : 's'} without a trace\n`);

  const rows = [...tasks.values()].filter((t) => matched.has(t.id)).map((t) => taskResult(t, matched.get(t.id)!));
  const endedAt = new Date();
  const model = modelOf(models);
  const run: RunInfo = {
    ...runHeader(startedAt, endedAt, suites),
    adapter: 'stored traces',
    model,
    scripted: models.some((m) => m.mode === 'scripted'),
    variant: null,
    policy: 'as recorded in the traces',
    sandbox: 'as recorded in the traces',
    epochs: Math.max(1, ...rows.map((r) => r.trials.length)),
    concurrency: 1,
    shard: null,
    interrupted: false,
  };
  return finishReport(buildReport(run, rows), outDir, flags, gateInputs, redactor);
}

/** `--header NAME=ENVVAR`: the value comes from the named environment variable, never the command line. */
function headersFrom(specs: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const spec of specs) {
    const m = /^([A-Za-z0-9-]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(spec);
    if (!m) throw new CliError(`--header ${spec}: expected NAME=ENVVAR (the value is read from the environment variable ENVVAR)`, EXIT.BAD_INPUT);
    const value = process.env[m[2]!];
    if (value === undefined || value === '') throw new CliError(`--header ${m[1]}: environment variable ${m[2]} is not set`, EXIT.BAD_INPUT);
    headers[m[1]!] = value;
  }
  return headers;
}

/** `tracegate export`: a run's traces, redacted again, as OTLP/JSON Lines to a file or OTLP/HTTP to an endpoint. */
export async function exportCommand(dir: string, flags: { otlp?: string; otlpEndpoint?: string; protocol: 'http/json' | 'http/protobuf'; header: string[] }): Promise<number> {
  if (!flags.otlp && !flags.otlpEndpoint) throw new CliError('export needs --otlp FILE.jsonl or --otlp-endpoint URL', EXIT.BAD_INPUT);
  const headers = headersFrom(flags.header);
  if (flags.otlpEndpoint) {
    try {
      new URL(flags.otlpEndpoint);
    } catch {
      throw new CliError(`--otlp-endpoint ${flags.otlpEndpoint}: not a URL`, EXIT.BAD_INPUT);
    }
  }
  let stored;
  try {
    stored = readTraceDir(dir);
  } catch (error) {
    return badInput(error);
  }
  if (stored.length === 0) throw new CliError(`${dir}: no trace files`, EXIT.BAD_INPUT);
  // Stored traces are redacted already; leaving the machine, they are redacted again with this environment's secrets.
  const redactor = createRedactor();
  const traces = stored.map((s) => redactor.deep(s.trace));
  if (flags.otlp) {
    writeAtomic(path.resolve(flags.otlp), traces.map((t) => JSON.stringify(toOtlpRequest([t]))).join('\n') + '\n');
    process.stdout.write(`wrote ${traces.length} trace${traces.length === 1 ? '' : 's'} as OTLP/JSON to ${flags.otlp}\n`);
  }
  if (flags.otlpEndpoint) {
    let sent = 0;
    for (const batch of toOtlpRequests(traces)) {
      try {
        await sendOtlp(flags.otlpEndpoint, batch.request, flags.protocol, headers);
      } catch (error) {
        process.stderr.write(`export failed after ${sent} of ${traces.length} traces: ${(error as Error).message}\n`);
        return EXIT.COULD_NOT_RUN;
      }
      sent = batch.traces;
    }
    process.stdout.write(`sent ${traces.length} trace${traces.length === 1 ? '' : 's'} to ${tracesUrl(flags.otlpEndpoint)} (${flags.protocol})\n`);
  }
  return EXIT.PASS;
}

function realPathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
