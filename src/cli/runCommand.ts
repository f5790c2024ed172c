import path from 'node:path';
import { Option, type Command } from 'commander';
import { SANDBOX_REQUESTS, type SandboxRequest } from '../adapters/harnessAdapter.js';
import type { Adapter } from '../adapters/types.js';
import type { McpServerSpec } from '../schema/mcpServer.js';
import { createAdapter } from '../adapters/createAdapter.js';
import { resolveSystem, secretsOf, type SystemRequest } from '../adapters/resolveSystem.js';
import { parseShard, selectShard, shardFromEnv } from '../orchestrator/shard.js';
import { createRedactor, type Redactor } from '../schema/redact.js';
import type { RunReport } from '../schema/report.js';
import { safeRegex, type SafeRegex } from '../schema/safeRegex.js';
import { MAX_TIMEOUT_MS, type Task } from '../schema/task.js';
import { loadSuites, type LoadedSuite } from '../suite/loadSuite.js';
import { executeRun } from '../runner/executeRun.js';
import { ViewerTraces } from '../reporters/html/viewerTraces.js';
import { CliError, EXIT } from './exitCodes.js';
import { addGateOptions, finishReport, loadGateInputs, type GateFlags } from './finishReport.js';
import { ensureWritableDir } from './outputDir.js';
import { epochs, epochsOption, positiveInt, timeoutMs } from './parsers.js';
import { checkEpochsFlags, checkTrialCount, epochCount, runEpochsAuto } from './epochsAuto.js';
import { loadVariant, type LoadedVariant } from './variantOption.js';
import { checkResumeSettings, runSettingsOf } from './runSettingsOf.js';
import { checkOutputFolder } from '../runner/previousRun.js';
import { checkBaselineShares } from '../baseline/baselineOverlap.js';

export interface RunFlags extends GateFlags {
  out: string;
  provider?: 'openai' | 'cassette';
  model?: string;
  baseUrl?: string;
  apiKeyEnv: string;
  cassettes?: string;
  record?: string;
  policy?: string;
  sandbox: SandboxRequest;
  concurrency: number;
  epochs: number | 'auto';
  maxEpochs?: number;
  budget?: number;
  budgetTokens?: number;
  timeout: number;
  maxSteps?: number;
  shard?: string;
  resume: boolean;
  tag?: string[];
  grep?: string;
  variant?: string;
  quiet: boolean;
  agentCmd?: string;
  agentUrl?: string;
  agentEnv?: string[];
  agentHeader?: string[];
}

/** The options shared by `run` and `compare`. */
export function addRunOptions(command: Command, { variant }: { variant: boolean }): Command {
  command
    .option('-o, --out <dir>', 'output folder for report.json, report.html, junit.xml, summary.md and traces/', 'reports/latest')
    .addOption(new Option('--provider <name>', 'model provider (default: cassette when --cassettes is given, else openai)').choices(['openai', 'cassette']))
    .option('-m, --model <name>', 'model name at an OpenAI-compatible endpoint (or OPENAI_MODEL)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (or OPENAI_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable that holds the API key', 'OPENAI_API_KEY')
    .option('--cassettes <dir>', 'replay model responses from this folder of cassettes (<task_id>.json each)')
    .option('--record <dir>', "record the live model's responses as cassettes into this folder")
    .option('--policy <file>', 'permission policy JSON for the harness (default: harness/policy/default-policy.json)')
    .addOption(
      new Option('--sandbox <mode>', 'how run_shell (or an --agent-cmd agent: its own PID namespace, nothing outlives the trial) is isolated: auto (bubblewrap when it works here, else a process group; the reason is in every trace and report), process, or bwrap (an error where bubblewrap cannot run)')
        .choices(SANDBOX_REQUESTS)
        .default('auto'),
    )
    .option('-j, --concurrency <n>', 'tasks run at once', positiveInt, 4)
    .option('--epochs <k|auto>', 'run every task K times (pass@k, pass^k, flaky tasks); auto: re-run in stages only where more trials can still move the verdict against --baseline', epochsOption, 1)
    .option('--max-epochs <k>', 'with --epochs auto: most trials any task gets (default 5)', epochs)
    .option('--budget <trials>', 'with --epochs auto: most trials (agent runs) for the whole run', positiveInt)
    .option('--budget-tokens <n>', 'with --epochs auto: stop re-running once the run has used about this many tokens', positiveInt)
    .option('--timeout <ms>', `per-task time limit in milliseconds (1 to ${MAX_TIMEOUT_MS}); a task over it is errored, provider retries stay within it`, timeoutMs, 300_000)
    .option('--max-steps <n>', 'step limit for tasks that set none (default 10)', positiveInt)
    .addOption(
      new Option('--shard <i/n>', 'run only shard i of n (1-based), to split a suite across CI jobs; "auto" reads GitLab, Buildkite or CircleCI variables; join the outputs with `tracegate merge` (a shard with no task, in a matrix wider than the suite, writes an empty output and exits 0)').env('TRACEGATE_SHARD'),
    )
    .option('--resume', 'keep the finished trials in --out and run only what is missing; refused (exit 2) when the agent, model, base URL, cassettes, policy, sandbox, variant, --max-steps or --timeout differ from the run that made them (run-settings.json)', false)
    .option('--tag <tag...>', 'run only tasks with one of these tags')
    .option('--grep <regex>', 'run only tasks whose id matches')
    .option('-q, --quiet', 'no per-task progress lines', false)
    .option('--agent-cmd <command>', 'evaluate your own agent: run this program per trial (agent-input/v1 on stdin, answer on stdout; words split like a shell, no shell run)')
    .option('--agent-url <url>', 'evaluate your own agent behind HTTP: POST agent-input/v1 per trial, read agent-output/v1')
    .option('--agent-env <name...>', 'with --agent-cmd: also pass this environment variable to the agent (repeatable; the API key never is)')
    .option('--agent-header <header=env...>', 'with --agent-url: send header HEADER with the value of environment variable ENV (never written to output)');
  if (variant) command.option('--variant <file>', 'variant JSON overriding harness settings (system prompt, tool descriptions, model, ...)');
  return command;
}

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
  suiteDefaults: { cassettes: string | null; policy: string | null; mcpServers: McpServerSpec[] | null };
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
  return { suites, suiteDefaults: suiteDefaults(suites), tasks: selected, wholeRun, shard, policyTasksOnly, redactor: createRedactor(process.env, secretsOf({ flags, env: process.env })) };
}

/** Suites run together must agree on their header's cassettes and policy. */
function suiteDefaults(suites: LoadedSuite[]): PreparedRun['suiteDefaults'] {
  const pick = (key: 'cassettes' | 'policy') => {
    const values = [...new Set(suites.map((s) => s.header[key]).filter((v): v is string => v !== null))];
    if (values.length > 1) throw new CliError(`the suites name different ${key} (${values.join(', ')}); run them separately or pass --${key === 'cassettes' ? 'cassettes' : 'policy'}`, EXIT.BAD_INPUT);
    return values[0] ?? null;
  };
  const servers = [...new Set(suites.map((s) => s.header.mcpServers).filter((v) => v !== null).map((v) => JSON.stringify(v)))];
  if (servers.length > 1) throw new CliError('the suites name different mcp_servers; run them separately', EXIT.BAD_INPUT);
  return { cassettes: pick('cassettes'), policy: pick('policy'), mcpServers: servers[0] ? (JSON.parse(servers[0]) as McpServerSpec[]) : null };
}

/** The CLI's part of "which system runs": hand flags, environment, suite header and variant to the resolver. */
export function systemRequest(flags: RunFlags, variant: LoadedVariant | null, prepared: PreparedRun): SystemRequest {
  return { flags, env: process.env, suite: prepared.suiteDefaults, variant, policyTasksOnly: prepared.policyTasksOnly };
}

export async function buildAdapter(flags: RunFlags, variant: LoadedVariant | null, prepared: PreparedRun): Promise<Adapter> {
  const request = systemRequest(flags, variant, prepared);
  const plan = resolveSystem(request);
  const errorPatterns = prepared.suites.flatMap((s) => s.header.errorPatterns).map((p) => ({ pattern: safeRegex(p.pattern), error_type: p.error_type }));
  return createAdapter(plan, { redactor: prepared.redactor, env: process.env, secrets: secretsOf(request), errorPatterns, concurrency: flags.concurrency });
}

/** Runs the prepared tasks into `outDir` with an adapter built (and checked) before. Ctrl-C stops new trials and keeps the finished ones. */
export async function runInto(
  prepared: PreparedRun,
  flags: RunFlags,
  variant: LoadedVariant | null,
  outDir: string,
  adapter: Adapter,
  viewerTraces?: ViewerTraces,
): Promise<RunReport> {
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
  try {
    const fixedEpochs = epochCount(flags);
    const execute = (trialsWanted?: (task: Task) => number, resume = flags.resume) => executeRun({
      ...prepared,
      adapter,
      outDir,
      concurrency: flags.concurrency,
      epochs: fixedEpochs,
      trialsWanted,
      timeoutMs: flags.timeout,
      variant: variant ? { name: variant.name, file: variant.file } : null,
      resume,
      settings: runSettingsOf(flags, variant, prepared, adapter),
      selection: { tags: flags.tag?.length ? flags.tag : null, grep: flags.grep ?? null, max_steps: flags.maxSteps ?? null, timeout_ms: flags.timeout },
      signal: controller.signal,
      ...(viewerTraces && flags.html ? { viewerTraces } : {}),
      onProgress: flags.quiet
        ? undefined
        : (done, total, trial, taskId) => {
            const detail =
              trial.status === 'failed'
                ? ` ${trial.failure_reason} (${trial.failure_layer})`
                : trial.status === 'errored'
                  ? ` ${trial.error?.code}: ${trial.error?.message.slice(0, 120)}`
                  : '';
            process.stderr.write(`[${done}/${total}] ${trial.status.padEnd(7)} ${taskId}${fixedEpochs > 1 ? ` #${trial.epoch}` : ''}${detail}\n`);
          },
    });
    return flags.epochs === 'auto' ? await runEpochsAuto(flags, prepared.tasks, execute) : await execute();
  } finally {
    stopListening();
    await adapter.close?.();
  }
}

export function registerRun(program: Command, handle: (work: () => Promise<number>) => Promise<void>): void {
  const command = program
    .command('run')
    .description('run JSONL suites through the reference harness (or your own agent: --agent-cmd, --agent-url), judge every trace, write the reports and apply the gate')
    .argument('<suite...>', 'JSONL suite files');
  addRunOptions(command, { variant: true });
  addGateOptions(command);
  command.addHelpText(
    'after',
    `
Models:
  --cassettes DIR            replay cassettes (scripted or recorded); reports say so
  --model M --base-url URL   any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM)
  --record DIR               with a live model: also write its responses as cassettes

Your own agent (see docs/agents.md):
  --agent-cmd 'python3 my_agent.py'   each trial runs the program in a fresh workspace copy, its own
                                      process group and time limit; model calls go through a capture
                                      proxy (OPENAI_BASE_URL, a dummy OPENAI_API_KEY) that records the trace
  --agent-url http://127.0.0.1:8080/run   the same contract over HTTP

Exit codes: 0 gate passed, 1 gate failed, 2 bad input or usage, 3 could not run.`,
  );
  command.action(async (suites: string[], flags: RunFlags) => {
    await handle(async () => {
      // Every input is loaded and checked before the first trial: a bad gate or baseline costs nothing.
      const prepared = prepareRun(suites, flags);
      checkEpochsFlags(flags);
      const variant = flags.variant ? loadVariant(flags.variant) : null;
      const gateInputs = loadGateInputs(flags);
      // The whole run's tasks: one shard may hold only tasks added since the baseline (merge checks the rest).
      checkBaselineShares(prepared.wholeRun, gateInputs.baseline);
      const adapter = await buildAdapter(flags, variant, prepared);
      const outDir = path.resolve(flags.out);
      ensureWritableDir(outDir);
      try {
        checkOutputFolder(outDir);
        checkResumeSettings(outDir, runSettingsOf(flags, variant, prepared, adapter), flags.resume);
      } catch (error) {
        await adapter.close?.();
        throw error;
      }
      const viewerTraces = new ViewerTraces();
      const report = await runInto(prepared, flags, variant, outDir, adapter, viewerTraces);
      // --epochs auto spends alpha over its looks: the diff uses the level left for the last one.
      const inputs = flags.epochs === 'auto' && flags.alpha !== undefined ? { ...gateInputs, rules: { ...gateInputs.rules, alpha: flags.alpha } } : gateInputs;
      return finishReport(report, outDir, flags, inputs, prepared.redactor, viewerTraces);
    });
  });
}
