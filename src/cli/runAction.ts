/**
 * What `tracegate run` does once its flags are parsed (runCommands.ts defines them): load and select
 * the tasks, resolve the run once, build and check its adapter, run the trials and finish the report.
 * compare (compareAction.ts) runs its two sides with the same pieces.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parsePriceTable, usePriceTable, type PriceTable } from '../judging/checks/priceTable.js';
import { volatileMask } from '../capture/cassetteNormalize.js';
import type { Adapter } from '../schema/adapter.js';
import type { McpServerSpec } from '../schema/mcpServer.js';
import { createAdapter } from '../adapters/createAdapter.js';
import { otherUpstreams } from '../adapters/otherUpstreams.js';
import { DEFAULT_OPENAI_BASE_URL, secretsOf, type SystemPlan } from '../adapters/resolveSystem.js';
import { preflight, type PreflightTarget } from '../provider/index.js';
import { terminalSafe } from '../reporters/terminalSafe.js';
import { parseShard, selectShard, shardFromEnv } from '../orchestrator/shard.js';
import { createRedactor, type Redactor } from '../schema/redact.js';
import { heldReport, type StreamedReport } from '../report/taskRows.js';
import { safeRegex, type SafeRegex } from '../schema/safeRegex.js';
import type { Task } from '../schema/task.js';
import { loadSuites, type LoadedSuite } from '../suite/loadSuite.js';
import { executeRun } from '../runner/executeRun.js';
import type { RubricJudge } from '../runner/rubricJudge.js';
import { EXIT } from './exitCodes.js';
import { CliError } from './errors.js';
import { artifactReporters, finishReport, loadGateInputs, type GateInputs } from './finishReport.js';
import type { RunFlags } from './runCommands.js';
import { defaultProgressReporter, PROGRESS_REPORTERS } from '../reporters/progress.js';
import type { Reporter } from '../reporters/reporter.js';
import { Reporters } from '../reporters/runAll.js';
import { withAdapters } from './runLifecycle.js';
import { ensureWritableDir } from './outputDir.js';
import { checkEpochsFlags, checkTrialCount, runEpochsAuto, type PairedSide } from './epochsAuto.js';
import { loadVariant, type LoadedVariant } from './variantOption.js';
import { checkResumeSettings, runSettingsOf } from './runSettingsOf.js';
import { resolveRun, type ResolvedRun } from './resolveRun.js';
import { checkOutputFolder } from '../runner/previousRun.js';
import { FaultStreak } from '../runner/faultStreak.js';
import { checkBaselineShares } from '../baseline/baselineOverlap.js';

function selectTasks(flags: RunFlags, tasks: Task[]) {
  let selected = tasks;
  if (flags.tag?.length) selected = selected.filter((t) => t.tags.some((tag) => flags.tag!.includes(tag)));
  if (flags.grep) {
    let pattern: SafeRegex;
    try {
      pattern = safeRegex(flags.grep);
    } catch (error) {
      throw new CliError(`--grep: ${(error as Error).message}`, EXIT.BAD_INPUT);
    }
    selected = selected.filter((t) => pattern.test(t.id));
  }
  let shard: { index: number; total: number } | null = null;
  if (flags.shard) {
    try {
      const parsed = flags.shard === 'auto' ? shardFromEnv(process.env) : parseShard(flags.shard);
      shard = { index: parsed.index, total: parsed.total };
    } catch (error) {
      throw new CliError((error as Error).message, EXIT.BAD_INPUT);
    }
  }
  if (selected.length === 0) throw new CliError(`no task matches the selection (${[flags.tag?.length ? '--tag' : null, flags.grep ? '--grep' : null].filter(Boolean).join(', ') || 'the suites are empty'})`, EXIT.BAD_INPUT);
  const policyTasksOnly = selected.every((t) => t.toolCall !== null);
  // A CI matrix wider than the suite leaves some shards empty: they write an empty shard output that merge joins.
  const wholeRun = selected;
  if (shard) selected = selectShard(selected, shard.index, shard.total);
  return { selected, wholeRun, shard, policyTasksOnly };
}

export interface PreparedRun {
  suites: LoadedSuite[];
  /** What the suites' header lines ask for (one value across all suites). */
  suiteDefaults: { cassettes: string | null; judgeCassettes: string | null; policy: string | null; mcpServers: McpServerSpec[] | null };
  tasks: Task[];
  /** The selected tasks of the whole run, every shard's: what a baseline is compared with. */
  wholeRun: Task[];
  shard: { index: number; total: number } | null;
  /** Every selected task of the whole run (all shards) is a policy task: the harness needs no model. */
  policyTasksOnly: boolean;
  redactor: Redactor;
}

/** Loads and selects the tasks once; every error here is bad input (exit 2) and nothing is written yet. */
export function prepareRun(suiteFiles: string[], flags: RunFlags): PreparedRun {
  const suites = loadSuites(suiteFiles);
  const { selected, wholeRun, shard, policyTasksOnly } = selectTasks(flags, suites.flatMap((s) => s.tasks));
  checkTrialCount(wholeRun.length, flags);
  usePriceTable(priceTableOf(flags, suites));
  return { suites, suiteDefaults: suiteDefaults(suites), tasks: selected, wholeRun, shard, policyTasksOnly, redactor: createRedactor(process.env, [...secretsOf({ flags, env: process.env }), ...judgeSecret(flags)]) };
}

/** The judge's own key, when it is read from another variable than the agent's. */
function judgeSecret(flags: RunFlags): string[] {
  const key = flags.judgeApiKeyEnv ? process.env[flags.judgeApiKeyEnv] : undefined;
  return key ? [key] : [];
}

/** --price-table, else the suites' one header price_table; null for the shipped table. A bad file is exit 2. */
function priceTableOf(flags: RunFlags, suites: LoadedSuite[]): PriceTable | null {
  const named = [...new Set(suites.map((s) => s.header.priceTable).filter((v): v is string => v !== null))];
  if (flags.priceTable === undefined && named.length > 1) throw new CliError(`the suites name different price_table files (${named.join(', ')}); pass --price-table`, EXIT.BAD_INPUT);
  const file = flags.priceTable ?? named[0];
  if (file === undefined) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`${file}: cannot read the price table (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, EXIT.BAD_INPUT);
  }
  const parsed = parsePriceTable(text);
  if ('problem' in parsed) throw new CliError(`${file}: ${parsed.problem}`, EXIT.BAD_INPUT);
  return parsed.table;
}

/** Suites run together must agree on their header's cassettes, judge cassettes and policy. */
function suiteDefaults(suites: LoadedSuite[]): PreparedRun['suiteDefaults'] {
  const FLAG = { cassettes: '--cassettes', judgeCassettes: '--judge-cassettes', policy: '--policy' } as const;
  const pick = (key: keyof typeof FLAG) => {
    const values = [...new Set(suites.map((s) => s.header[key]).filter((v): v is string => v !== null))];
    if (values.length > 1) throw new CliError(`the suites name different ${FLAG[key].slice(2)} (${values.join(', ')}); run them separately or pass ${FLAG[key]}`, EXIT.BAD_INPUT);
    return values[0] ?? null;
  };
  const servers = [...new Set(suites.map((s) => s.header.mcpServers).filter((v) => v !== null).map((v) => JSON.stringify(v)))];
  if (servers.length > 1) throw new CliError('the suites name different mcp_servers; run them separately', EXIT.BAD_INPUT);
  return { cassettes: pick('cassettes'), judgeCassettes: pick('judgeCassettes'), policy: pick('policy'), mcpServers: servers[0] ? (JSON.parse(servers[0]) as McpServerSpec[]) : null };
}

/** The environment the run reads: the other protocols' upstream flags stand in for their variables. */
function runEnvironment(flags: RunFlags): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(flags.anthropicBaseUrl ? { ANTHROPIC_BASE_URL: flags.anthropicBaseUrl } : {}),
    ...(flags.geminiBaseUrl ? { GOOGLE_GEMINI_BASE_URL: flags.geminiBaseUrl } : {}),
  };
}

/** The run resolved once from the flags, the environment, the suites, the variant and the gate inputs (src/cli/resolveRun.ts). */
export function resolveRunOf(flags: RunFlags, variant: LoadedVariant | null, prepared: PreparedRun, gate: Pick<GateInputs, 'rules' | 'baseline'>): ResolvedRun {
  return resolveRun(flags, runEnvironment(flags), { suiteDefaults: prepared.suiteDefaults, policyTasksOnly: prepared.policyTasksOnly, variant, gate, tasks: prepared.wholeRun });
}

/** The live endpoint a plan's model calls go to (the harness's, or the capture proxy's upstream); null for cassettes and no model. */
function modelEndpointOf(plan: SystemPlan, flags: RunFlags, env: NodeJS.ProcessEnv): PreflightTarget | null {
  if (plan.model.kind !== 'live') return null;
  // An external agent on Anthropic's or Gemini's API with no OpenAI endpoint named: nothing of OpenAI's to check.
  const otherUpstream = Object.keys(otherUpstreams(env)).length > 0;
  if (plan.adapter !== 'harness' && plan.model.baseUrl === undefined && otherUpstream) return null;
  return {
    baseUrl: plan.model.baseUrl ?? DEFAULT_OPENAI_BASE_URL,
    apiKey: plan.model.apiKey ?? null,
    urlSource: '--base-url (or OPENAI_BASE_URL)',
    keyName: flags.apiKeyEnv,
    role: plan.adapter === 'harness' ? 'the model endpoint' : "the capture proxy's upstream",
  };
}

/** The live judge of the run's rubric checks, which every graded trial will call; null when it replays or there is none. */
function judgeEndpointOf(run: ResolvedRun): PreflightTarget | null {
  if (run.judge.kind !== 'live') return null;
  return { baseUrl: run.judge.baseUrl, apiKey: run.judge.apiKey ?? null, urlSource: '--judge-base-url (or OPENAI_BASE_URL)', keyName: run.judge.keyEnv, keyFlag: '--judge-api-key-env', role: 'the judge endpoint' };
}

/** Checks the resolved run's model endpoint and live judge answer (exit 3 at once if not), and builds its adapter. */
export async function buildAdapter(flags: RunFlags, run: ResolvedRun, prepared: PreparedRun): Promise<Adapter> {
  const plan = run.system;
  const endpoints = [modelEndpointOf(plan, flags, runEnvironment(flags)), judgeEndpointOf(run)].filter((e): e is PreflightTarget => e !== null);
  for (const endpoint of endpoints) {
    const warning = await preflight(endpoint);
    if (warning) process.stderr.write(terminalSafe(`warning: ${warning}`) + '\n');
  }
  const errorPatterns = prepared.suites.flatMap((s) => s.header.errorPatterns).map((p) => ({ pattern: safeRegex(p.pattern), error_type: p.error_type }));
  const maskPatterns = prepared.suites.flatMap((s) => s.header.maskPatterns).map((p) => volatileMask(p.pattern, p.replacement));
  return createAdapter(plan, { redactor: prepared.redactor, env: runEnvironment(flags), secrets: [...run.secrets], errorPatterns, maskPatterns, concurrency: run.concurrency });
}

/** What a run's trial phase needs besides its tasks and adapter: who hears its events, and what its header says. */
export interface RunHooks {
  reporters: Reporters;
  /** The gate the run is judged by, for the header (gateSummary). */
  gate: string;
  /** compare --epochs auto: this side's stages run together with the other side's. */
  pairedSide?: PairedSide;
  /** A judge shared with another run (compare's two sides: one recording, one adaptive limit); else the run makes its own. */
  judge?: RubricJudge | null;
}

/**
 * The judge of a run's rubric checks, or null when no task has one. Loaded only then: it brings the
 * cassette store and the reply parser of the capture proxy, which a run without rubric checks never needs.
 */
export async function judgeOf(run: ResolvedRun, prepared: PreparedRun): Promise<RubricJudge | null> {
  if (run.judge.kind === 'none') return null;
  const { RubricJudge } = await import('../runner/rubricJudge.js');
  return new RubricJudge({ plan: run.judge, redactor: prepared.redactor, concurrency: run.concurrency, timeoutMs: run.timeoutMs });
}

/** A path as the header shows it: relative below the working folder, else absolute. */
function shownPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : path.resolve(file);
}

/** `defaults: min_pass_rate 1, max_error_rate 0`: where the gate's rules come from and what they are. */
export function gateSummary(inputs: Pick<GateInputs, 'rules' | 'source' | 'baseline'>, baselineNote?: string): string {
  const rules = Object.entries(inputs.rules).filter(([key]) => key !== 'schema_version').map(([key, value]) => `${key} ${Array.isArray(value) ? value.join(',') : String(value)}`);
  const against = baselineNote ?? (inputs.baseline ? `against ${path.relative(process.cwd(), inputs.baseline.file) || inputs.baseline.file}` : 'no baseline');
  return `${inputs.source}: ${rules.join(', ') || 'no rule'} (${against})`;
}

/**
 * Runs the prepared tasks into `outDir` with an adapter built (and checked) before, telling the
 * reporters as it goes. Ctrl-C stops new trials and keeps the finished ones. The adapter is the
 * caller's to close (withAdapters).
 */
export async function runInto(prepared: PreparedRun, flags: RunFlags, run: ResolvedRun, outDir: string, adapter: Adapter, hooks: RunHooks): Promise<StreamedReport> {
  const controller = new AbortController();
  const stopListening = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = () => {
    // The next signal gets its default action, which ends the process at once: building and
    // writing the report is synchronous work, during which no handler would be heard. Before the
    // notice, so a signal sent on reading it is never caught by this handler on its way out.
    stopListening();
    process.stderr.write('\ninterrupted: writing the report with the trials done so far (again to quit at once)\n');
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const { reporters } = hooks;
  // A provider fault that errors the first trials alike stops the run before every task pays for it.
  const streak = new FaultStreak();
  // One judge for the run's stages: its adaptive concurrency and recording span every trial.
  const judge = hooks.judge !== undefined ? hooks.judge : await judgeOf(run, prepared);
  let stopped: string | null = null;
  reporters.emit('onRunStart', {
    model: adapter.model,
    judge: judge?.info ?? null,
    agent: run.agent,
    policy: adapter.policy,
    sandbox: adapter.sandbox,
    suites: prepared.suites.map((s) => shownPath(s.path)),
    tasks: prepared.tasks.length,
    epochs: run.epochs,
    maxEpochs: run.maxEpochs,
    concurrency: run.concurrency,
    gate: hooks.gate,
    outDir: shownPath(outDir),
  });
  try {
    const stream = (trialsWanted?: (task: Task) => number, resume = flags.resume) => executeRun({
      ...prepared,
      adapter,
      outDir,
      concurrency: run.concurrency,
      epochs: run.maxEpochs,
      trialsWanted,
      timeoutMs: run.timeoutMs,
      variant: run.variant ? { name: run.variant.name, file: run.variant.file } : null,
      resume,
      settings: runSettingsOf(run, adapter),
      selection: run.selection,
      judge,
      signal: controller.signal,
      onTraceStored: (event) => reporters.traceStored(event),
      onTracePacked: (file, packed) => reporters.tracePacked(file, packed),
      onTrialStart: (event) => reporters.emit('onTrialStart', event),
      onTrialEnd: (event) => {
        reporters.emit('onTrialEnd', event);
        stopped ??= streak.observe(event.taskId, event.trial, event.total - event.done);
        if (stopped && !controller.signal.aborted) controller.abort(new Error(stopped));
      },
      onWaiting: (waiting) => reporters.emit('onWaiting', waiting),
    });
    // --epochs auto weighs each stage's rows against the last, so it holds them; a plain run streams its rows from the journal.
    const held = async (trialsWanted?: (task: Task) => number, resume?: boolean) => heldReport(await stream(trialsWanted, resume));
    return run.epochs === 'auto' ? await runEpochsAuto(flags, prepared.tasks, held, run, hooks.pairedSide) : await stream();
  } finally {
    stopListening();
    reporters.emit('onTrialsDone');
    if (stopped) process.stderr.write(terminalSafe(`stopped: ${stopped}\n  fix the cause, then finish the run with --resume`) + '\n');
  }
}

/** The progress display --reporter names (or -q, or the default for this terminal). `shared`: two runs print at once, so no live status line. */
export function progressReporter(flags: Pick<RunFlags, 'quiet' | 'reporter'>, shared = false): Reporter {
  const chosen = flags.quiet ? 'quiet' : (flags.reporter ?? defaultProgressReporter(process.stderr, process.env));
  return PROGRESS_REPORTERS[shared && chosen === 'live' ? 'line' : chosen](process.stderr);
}

/** The progress display, then the artifacts. */
export function runReporters(flags: RunFlags): Reporters {
  return new Reporters([progressReporter(flags), ...artifactReporters(flags.html)]);
}

/** `tracegate run`: every input checked before the first trial, then the trials, the reports and the gate. */
export async function runCommand(suites: string[], flags: RunFlags): Promise<number> {
  // Every input is loaded and checked before the first trial: a bad gate or baseline costs nothing.
  const prepared = prepareRun(suites, flags);
  checkEpochsFlags(flags);
  const variant = flags.variant ? loadVariant(flags.variant) : null;
  const gateInputs = loadGateInputs(flags);
  // The whole run's tasks: one shard may hold only tasks added since the baseline (merge checks the rest).
  checkBaselineShares(prepared.wholeRun, gateInputs.baseline);
  const outDir = path.resolve(flags.out);
  ensureWritableDir(outDir);
  const reporters = runReporters(flags);
  const run = resolveRunOf(flags, variant, prepared, gateInputs);
  const report = await withAdapters([() => buildAdapter(flags, run, prepared)], async ([adapter]) => {
    checkOutputFolder(outDir);
    checkResumeSettings(outDir, runSettingsOf(run, adapter!), flags.resume);
    return runInto(prepared, flags, run, outDir, adapter!, { reporters, gate: gateSummary(gateInputs) });
  });
  return finishReport(report, outDir, flags, gateInputs, prepared.redactor, reporters);
}
