import { existsSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { SANDBOX_REQUESTS, type SandboxRequest } from '../../harness/index.js';
import type { Adapter } from '../adapters/types.js';
import type { McpServerSpec } from '../schema/mcpServer.js';
import { createHarnessAdapter } from '../adapters/harnessAdapter.js';
import { parseShard, selectShard, shardFromEnv } from '../orchestrator/shard.js';
import { createRedactor, type Redactor } from '../schema/redact.js';
import type { RunReport } from '../schema/report.js';
import { safeRegex, type SafeRegex } from '../schema/safeRegex.js';
import { MAX_TIMEOUT_MS, type Task } from '../schema/task.js';
import { loadSuites, type LoadedSuite } from '../suite/loadSuite.js';
import { executeRun } from '../runner/executeRun.js';
import { CliError, EXIT } from './exitCodes.js';
import { addGateOptions, finishReport, loadGateInputs, type GateFlags } from './finishReport.js';
import { ensureWritableDir } from './outputDir.js';
import { epochsOption, positiveInt, timeoutMs } from './parsers.js';
import { checkEpochsFlags, epochCount, runEpochsAuto } from './epochsAuto.js';
import { loadVariant, type LoadedVariant } from './variantOption.js';

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
      new Option('--sandbox <mode>', 'how run_shell is isolated: auto (bubblewrap when it works here, else a process group; the reason is in every trace and report), process, or bwrap (an error where bubblewrap cannot run)')
        .choices(SANDBOX_REQUESTS)
        .default('auto'),
    )
    .option('-j, --concurrency <n>', 'tasks run at once', positiveInt, 4)
    .option('--epochs <k|auto>', 'run every task K times (pass@k, pass^k, flaky tasks); auto: re-run in stages only where more trials can still move the verdict against --baseline', epochsOption, 1)
    .option('--max-epochs <k>', 'with --epochs auto: most trials any task gets (default 5)', positiveInt)
    .option('--budget <trials>', 'with --epochs auto: most trials (agent runs) for the whole run', positiveInt)
    .option('--budget-tokens <n>', 'with --epochs auto: stop re-running once the run has used about this many tokens', positiveInt)
    .option('--timeout <ms>', `per-task time limit in milliseconds (1 to ${MAX_TIMEOUT_MS}); a task over it is errored, provider retries stay within it`, timeoutMs, 300_000)
    .option('--max-steps <n>', 'step limit for tasks that set none (default 10)', positiveInt)
    .addOption(
      new Option('--shard <i/n>', 'run only shard i of n (1-based), to split a suite across CI jobs; "auto" reads GitLab, Buildkite or CircleCI variables; join the outputs with `tracegate merge`').env('TRACEGATE_SHARD'),
    )
    .option('--resume', 'keep the finished trials in --out and run only what is missing', false)
    .option('--tag <tag...>', 'run only tasks with one of these tags')
    .option('--grep <regex>', 'run only tasks whose id matches')
    .option('-q, --quiet', 'no per-task progress lines', false);
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
    selected = selectShard(selected, shard.index, shard.total);
  }
  if (selected.length === 0) throw new CliError('no task matches the selection (--tag, --grep, --shard)', EXIT.BAD_INPUT);
  return { selected, shard };
}

/** Which model answers. No model configured is an error, never a silent fallback to a script. */
function providerOf(flags: RunFlags, variant: LoadedVariant | null, prepared: PreparedRun) {
  const { tasks } = prepared;
  const liveNamed = flags.provider === 'openai' || Boolean(flags.model ?? flags.baseUrl ?? variant?.settings.model);
  // The suite's own cassettes only stand in when no model at all is named on the command line.
  const cassettes = variant?.cassettes ?? flags.cassettes ?? (liveNamed ? undefined : prepared.suiteDefaults.cassettes ?? undefined);
  const modelNamed = Boolean(flags.provider ?? cassettes ?? variant?.settings.model ?? flags.model ?? process.env['OPENAI_MODEL']);
  if (!modelNamed && tasks.every((t) => t.toolCall !== null)) {
    return { provider: 'none', model: 'none', cassettes: undefined } as const;
  }
  const provider = flags.provider ?? (cassettes ? 'cassette' : 'openai');
  if (provider === 'cassette') {
    if (!cassettes) throw new CliError('--provider cassette needs --cassettes DIR', EXIT.BAD_INPUT);
    if (!existsSync(cassettes)) throw new CliError(`--cassettes ${cassettes}: folder not found`, EXIT.BAD_INPUT);
    return { provider, model: 'cassette', cassettes } as const;
  }
  const model = variant?.settings.model ?? flags.model ?? process.env['OPENAI_MODEL'];
  if (!model) {
    throw new CliError(
      'no model configured: pass --model NAME (with --base-url URL or OPENAI_BASE_URL for a local server), or --cassettes DIR to replay recorded responses',
      EXIT.BAD_INPUT,
    );
  }
  const baseUrl = flags.baseUrl ?? process.env['OPENAI_BASE_URL'];
  if (!baseUrl && !process.env[flags.apiKeyEnv]) {
    throw new CliError(
      `${flags.apiKeyEnv} is not set, and api.openai.com needs a key; for a local server (vLLM, Ollama, llama.cpp) pass --base-url URL or set OPENAI_BASE_URL`,
      EXIT.BAD_INPUT,
    );
  }
  return { provider, model, cassettes: undefined } as const;
}

export interface PreparedRun {
  suites: LoadedSuite[];
  /** What the suites' header lines ask for (one value across all suites). */
  suiteDefaults: { cassettes: string | null; policy: string | null; mcpServers: McpServerSpec[] | null };
  tasks: Task[];
  shard: { index: number; total: number } | null;
  redactor: Redactor;
}

/** Loads and selects the tasks once; every error here is bad input (exit 2) and nothing is written yet. */
export function prepareRun(suiteFiles: string[], flags: RunFlags): PreparedRun {
  const suites = loadSuites(suiteFiles);
  const { selected, shard } = selectTasks(flags, suites.flatMap((s) => s.tasks));
  const apiKey = process.env[flags.apiKeyEnv];
  return { suites, suiteDefaults: suiteDefaults(suites), tasks: selected, shard, redactor: createRedactor(process.env, apiKey ? [apiKey] : []) };
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

export function buildAdapter(flags: RunFlags, variant: LoadedVariant | null, prepared: PreparedRun): Adapter {
  const { redactor } = prepared;
  const { provider, model, cassettes } = providerOf(flags, variant, prepared);
  return createHarnessAdapter({
    provider,
    model,
    baseURL: flags.baseUrl,
    apiKey: process.env[flags.apiKeyEnv],
    cassettes,
    record: flags.record,
    policyFile: variant?.policy ?? flags.policy ?? prepared.suiteDefaults.policy ?? undefined,
    settings: {
      ...(prepared.suiteDefaults.mcpServers ? { mcpServers: prepared.suiteDefaults.mcpServers } : {}),
      ...variant?.settings.harness,
      ...(flags.maxSteps ? { maxSteps: flags.maxSteps } : {}),
    },
    sandbox: flags.sandbox,
    redactor,
    concurrency: flags.concurrency,
  });
}

/** Runs the prepared tasks into `outDir`. Ctrl-C stops new trials and keeps the finished ones. */
export async function runInto(
  prepared: PreparedRun,
  flags: RunFlags,
  variant: LoadedVariant | null,
  outDir: string,
  adapter: Adapter = buildAdapter(flags, variant, prepared),
): Promise<RunReport> {
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(EXIT.COULD_NOT_RUN);
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
      signal: controller.signal,
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
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export function registerRun(program: Command, handle: (work: () => Promise<number>) => Promise<void>): void {
  const command = program
    .command('run')
    .description('run JSONL suites through the reference harness, judge every trace, write the reports and apply the gate')
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

Exit codes: 0 gate passed, 1 gate failed, 2 bad input or usage, 3 could not run.`,
  );
  command.action(async (suites: string[], flags: RunFlags) => {
    await handle(async () => {
      // Every input is loaded and checked before the first trial: a bad gate or baseline costs nothing.
      const prepared = prepareRun(suites, flags);
      checkEpochsFlags(flags);
      const variant = flags.variant ? loadVariant(flags.variant) : null;
      const gateInputs = loadGateInputs(flags);
      const adapter = buildAdapter(flags, variant, prepared);
      const outDir = path.resolve(flags.out);
      ensureWritableDir(outDir);
      const report = await runInto(prepared, flags, variant, outDir, adapter);
      // --epochs auto spends alpha over its looks: the diff uses the level left for the last one.
      const inputs = flags.epochs === 'auto' && flags.alpha !== undefined ? { ...gateInputs, rules: { ...gateInputs.rules, alpha: flags.alpha } } : gateInputs;
      return finishReport(report, outDir, flags, inputs, prepared.redactor);
    });
  });
}
