/**
 * The `run` and `compare` commands as the command line knows them: their flags, defaults and help.
 * What they do is imported only when one runs (runAction.ts, compareAction.ts), so `--help` and
 * a usage error load none of it.
 */
import { Option, type Command } from 'commander';
import { CASSETTE_MATCHES, type CassetteMatch } from '../capture/cassetteMatch.js';
import { PROGRESS_REPORTER_NAMES, type ProgressReporterName } from '../reporters/progress.js';
import { DEFAULT_RECORD_CONTENT, RECORD_CONTENT, type RecordContent } from '../schema/recordContent.js';
import { FAULT_STREAK_LIMIT, RUN_DEFAULTS } from '../schema/runDefaults.js';
import { SANDBOX_REQUESTS, type SandboxRequest } from '../schema/sandboxRequest.js';
import { MAX_TIMEOUT_MS } from '../schema/timerLimit.js';
import { exitCodesHelp } from './exitCodes.js';
import { addGateOptions, GATE_HELP, type GateFlags } from './gateOptions.js';
import { lazyAction, type Handle } from './lazyAction.js';
import { epochs, epochsOption, positiveInt, timeoutMs } from './parsers.js';

export interface RunFlags extends GateFlags {
  out: string;
  provider?: 'openai' | 'cassette';
  model?: string;
  baseUrl?: string;
  /** The capture proxy's Anthropic and Gemini upstreams (else ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL). */
  anthropicBaseUrl?: string;
  geminiBaseUrl?: string;
  apiKeyEnv: string;
  cassettes?: string;
  record?: string;
  policy?: string;
  priceTable?: string;
  sandbox: SandboxRequest;
  recordContent: RecordContent;
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
  reporter?: ProgressReporterName;
  agentCmd?: string;
  agentUrl?: string;
  agentEnv?: string[];
  agentHeader?: string[];
  agentClock?: string;
  cassetteMatch?: CassetteMatch;
  judgeModel?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  judgeCassettes?: string;
  judgeRecord?: string;
}

/** The options shared by `run` and `compare`. */
export function addRunOptions(command: Command, { variant }: { variant: boolean }): Command {
  command
    .option('-o, --out <dir>', 'output folder for report.json, report.html, junit.xml, summary.md and traces/', RUN_DEFAULTS.out)
    .addOption(new Option('--provider <name>', 'model provider (default: cassette when --cassettes is given, else openai)').choices(['openai', 'cassette']))
    .option('-m, --model <name>', 'model name at an OpenAI-compatible endpoint (or OPENAI_MODEL)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (or OPENAI_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable that holds the API key', RUN_DEFAULTS.apiKeyEnv)
    .option('--anthropic-base-url <url>', "with --agent-cmd or --agent-url: the capture proxy's Anthropic Messages upstream (or ANTHROPIC_BASE_URL; default https://api.anthropic.com when ANTHROPIC_API_KEY is set; key in ANTHROPIC_API_KEY)")
    .option('--gemini-base-url <url>', "with --agent-cmd or --agent-url: the capture proxy's Gemini upstream (or GOOGLE_GEMINI_BASE_URL; default https://generativelanguage.googleapis.com when GEMINI_API_KEY is set; key in GEMINI_API_KEY)")
    .option('--cassettes <dir>', 'replay model responses from this folder of cassettes (<task_id>.json each)')
    .option('--record <dir>', "record the live model's responses as cassettes into this folder")
    .option('--price-table <file>', 'price table JSON for cost (replaces the shipped table; see docs/checks.md#cost; default: the suite header\'s price_table)')
    .addOption(
      new Option('--cassette-match <mode>', "how recorded cassettes answer an agent's calls: hash (the normalized request must be the recorded one; a change is a miss naming the step) or order (the nth call gets the nth recorded reply, whatever it asked: replays where a request varies in ways no mask covers, but never notices a changed request)")
        .choices(CASSETTE_MATCHES)
        .default('hash'),
    )
    .option('--judge-model <name>', "the judge model of rubric checks, at any OpenAI-compatible endpoint (--judge-base-url, else OPENAI_BASE_URL, else api.openai.com); it grades with a fixed prompt (docs/checks.md#rubric) through the same retries and adaptive concurrency as the agent's model")
    .option('--judge-base-url <url>', 'with --judge-model: its OpenAI-compatible endpoint, e.g. http://localhost:11434/v1')
    .option('--judge-api-key-env <name>', "with --judge-model: environment variable that holds the judge's API key (default: --api-key-env)")
    .option('--judge-record <dir>', "with --judge-model: also record the judge's replies as cassettes (<task_id>.json each) into this folder")
    .option('--judge-cassettes <dir>', 'replay rubric verdicts from this folder of judge cassettes, no network (reports say the verdicts were replayed)')
    .option('--policy <file>', 'permission policy JSON for the harness (default: harness/policy/default-policy.json): tools, secret_paths, shell rules, and limits {processes, memory_mib, address_space_mib} for every command (docs/harness.md)')
    .addOption(
      new Option('--sandbox <mode>', 'how run_shell (or an --agent-cmd agent: its own PID namespace, nothing outlives the trial) is isolated: auto (bubblewrap when it works here, else a process group; the reason is in every trace and report), process, or bwrap (an error where bubblewrap cannot run). Under either, each command has a HOME of its own and the policy\'s limits, git runs with the repository\'s drivers off and tracked secrets withheld from its output, and grep -r skips the secret paths; bubblewrap also masks secret paths and their git objects')
        .choices(SANDBOX_REQUESTS)
        .default(RUN_DEFAULTS.sandbox),
    )
    .addOption(
      new Option('--record-content <level>', "how much of the model's input and output each trace records (redacted at every level): none (counts and tokens only), summary (a preview of each reply), full (every input message and the whole reply)")
        .choices(RECORD_CONTENT)
        .default(DEFAULT_RECORD_CONTENT),
    )
    .option('-j, --concurrency <n>', 'tasks run at once', positiveInt, RUN_DEFAULTS.concurrency)
    .option('--epochs <k|auto>', 'run every task K times (pass@k, pass^k, flaky tasks); auto: re-run in stages only where more trials can still move the verdict against --baseline', epochsOption, RUN_DEFAULTS.epochs)
    .option('--max-epochs <k>', `with --epochs auto: most trials any task gets (default ${RUN_DEFAULTS.maxEpochs})`, epochs)
    .option('--budget <trials>', 'with --epochs auto: most trials (agent runs) for the whole run (default: 3 a task on average)', positiveInt)
    .option('--budget-tokens <n>', 'with --epochs auto: stop re-running once the run has used about this many tokens', positiveInt)
    .option('--timeout <ms>', `per-task time limit in milliseconds (1 to ${MAX_TIMEOUT_MS}); provider retries stay within it; a harness task over it is errored TASK_TIMEOUT; an external agent (--agent-cmd, --agent-url) is stopped a margin before it (20% of it, 0.25 to 2 s) and failed AGENT_TIMEOUT`, timeoutMs, RUN_DEFAULTS.timeoutMs)
    .option('--max-steps <n>', `step limit for tasks that set none (default: the variant's max_steps, else ${RUN_DEFAULTS.maxSteps})`, positiveInt)
    .addOption(
      new Option('--shard <i/n>', 'run only shard i of n (1-based), to split a suite across CI jobs; "auto" reads GitLab, Buildkite or CircleCI variables; join the outputs with `tracegate merge` (a shard with no task, in a matrix wider than the suite, writes an empty output and exits 0)').env('TRACEGATE_SHARD'),
    )
    .option('--resume', 'keep the finished trials in --out and run only what is missing; refused (exit 2) when the agent, model, base URL, cassettes, policy, sandbox, variant, --max-steps or --timeout differ from the run that made them (run-settings.json)', false)
    .option('--tag <tag...>', 'run only tasks with one of these tags')
    .option('--grep <regex>', 'run only tasks whose id matches')
    .addOption(
      new Option('--reporter <name>', 'how progress is shown: live (a header, finished trials and one status line; the default on a terminal), line (plain lines; the default in a pipe or under CI), dot, json (one event a line) or quiet')
        .choices(PROGRESS_REPORTER_NAMES),
    )
    .option('-q, --quiet', 'no progress at all (--reporter quiet)', false)
    .option('--agent-cmd <command>', 'evaluate your own agent: run this program per trial (agent-input/v1 on stdin, answer on stdout; words split like a shell, no shell run). Its model calls (OpenAI Chat Completions or Responses, Anthropic Messages, Gemini) go through the capture proxy: OPENAI_BASE_URL, ANTHROPIC_BASE_URL and GOOGLE_GEMINI_BASE_URL point at it; its upstreams are --base-url, ANTHROPIC_BASE_URL/ANTHROPIC_API_KEY and GOOGLE_GEMINI_BASE_URL/GEMINI_API_KEY')
    .option('--agent-url <url>', 'evaluate your own agent behind HTTP: POST agent-input/v1 per trial, read agent-output/v1')
    .option('--agent-env <name...>', 'with --agent-cmd: also pass this environment variable to the agent (repeatable; the API key never is)')
    .option('--agent-header <header=env...>', 'with --agent-url: send header HEADER with the value of environment variable ENV (never written to output)')
    .option('--agent-clock <when>', "with --agent-cmd: run the agent under libfaketime (Debian package faketime) with its clock moved: an offset (+1d, -3h, +90m) or a start date (2026-01-05, 2026-01-05T10:00:00Z); also exported as TRACEGATE_AGENT_CLOCK");
  if (variant) command.option('--variant <file>', 'variant JSON overriding harness settings (system prompt, tool descriptions, model, ...)');
  return command;
}

export function defineRun(program: Command, handle: Handle): void {
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
  --cassette-match order     replay recordings by call order instead of by request hash
  --judge-model M            the judge of rubric checks (--judge-base-url URL; --judge-record DIR records it)
  --judge-cassettes DIR      replay the judge's recorded verdicts instead; reports say so
  --agent-clock +1d          run an --agent-cmd agent under libfaketime with its clock moved

Your own agent (see docs/agents.md):
  --agent-cmd 'python3 my_agent.py'   each trial runs the program in a fresh workspace copy, its own
                                      process group and time limit; model calls go through a capture
                                      proxy (OPENAI_BASE_URL, a dummy OPENAI_API_KEY) that records the trace
  --agent-url http://127.0.0.1:8080/run   the same contract over HTTP

Progress (see docs/runs.md):
  the header first (model, agent, suites, tasks x epochs, concurrency, sandbox, gate), then
  --reporter live (a terminal: one status line with done, passed, failed, errored, in flight,
  waiting, ETA), line (a pipe or CI), dot, json or quiet. A live endpoint that refuses the
  connection or the key stops the run before its first trial (exit 3); a provider fault that
  errors the first ${FAULT_STREAK_LIMIT} trials alike stops it there (finish with --resume once fixed).

Rich baseline: record the baseline once with many epochs (run --epochs 10, then baseline save), and gate
each change with --baseline B.json --epochs auto: at most 3 trials a task on average (--budget to change).
${GATE_HELP}

${exitCodesHelp([0, 1, 2, 3], { 2: 'bad input or usage' })}`,
  );
  command.action(lazyAction(handle, () => import('./runAction.js').then((m) => m.runCommand)));
}

export function defineCompare(program: Command, handle: Handle): void {
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
  command.action(lazyAction(handle, () => import('./compareAction.js').then((m) => m.compareCommand)));
}
