import { DEFAULT_RECORD_CONTENT, type RecordContent } from '../schema/recordContent.js';
import type { HarnessSettings, McpServerSpec, SandboxRequest } from './harnessAdapter.js';
import { splitCommand } from './splitCommand.js';
import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import { AdapterConfigError } from '../schema/adapter.js';
import { findLibfaketime, parseAgentClock, type AgentClock } from './agentClock.js';
import type { CassetteMatch } from '../capture/cassetteMatch.js';

/** Everything that decides which system and which model run: flags, environment, suite header, variant. */
export interface SystemRequest {
  flags: {
    provider?: 'openai' | 'cassette' | undefined;
    model?: string | undefined;
    baseUrl?: string | undefined;
    apiKeyEnv: string;
    cassettes?: string | undefined;
    record?: string | undefined;
    policy?: string | undefined;
    sandbox: SandboxRequest;
    recordContent?: RecordContent | undefined;
    maxSteps?: number | undefined;
    timeout: number;
    agentCmd?: string | undefined;
    agentUrl?: string | undefined;
    agentEnv?: string[] | undefined;
    agentHeader?: string[] | undefined;
    /** --agent-clock: the agent's pinned clock (libfaketime). */
    agentClock?: string | undefined;
    /** --cassette-match: recordings replayed by request hash (default) or by call order. */
    cassetteMatch?: CassetteMatch | undefined;
  };
  env: Readonly<Record<string, string | undefined>>;
  suite: { cassettes: string | null; policy: string | null; mcpServers: McpServerSpec[] | null };
  variant: { settings: { model: string | undefined; harness: Partial<HarnessSettings> }; policy: string | undefined; cassettes: string | undefined } | null;
  /** Every selected task is a policy task (no model needed by the harness). */
  policyTasksOnly: boolean;
}

/** Where model calls go: a live endpoint (maybe recorded), cassettes, or nowhere. */
export type ModelPlan =
  | { kind: 'live'; model: string | null; baseUrl: string | undefined; apiKey: string | undefined; record: string | undefined }
  | { kind: 'cassettes'; dir: string; match: CassetteMatch }
  | { kind: 'none' };

export type SystemPlan =
  | { adapter: 'harness'; model: ModelPlan; policyFile: string | undefined; sandbox: SandboxRequest; settings: Partial<HarnessSettings> }
  | { adapter: 'command'; argv: string[]; passEnv: string[]; sandbox: SandboxRequest; model: ModelPlan; timeoutMs: number; maxSteps: number; recordContent: RecordContent; agentClock: AgentClock | null }
  | { adapter: 'http'; url: string; headers: Record<string, string>; model: ModelPlan; timeoutMs: number; maxSteps: number; recordContent: RecordContent };

/** Where a live model's calls go when no base URL is named. */
export const DEFAULT_OPENAI_BASE_URL = RUN_DEFAULTS.openaiBaseUrl;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function bad(message: string): never {
  throw new AdapterConfigError(message);
}

/** A model endpoint must be an http(s) URL: anything else is bad input before any trial, not an error in every one. */
function checkBaseUrl(value: string, source: string): void {
  let protocol: string | null = null;
  try {
    protocol = new URL(value).protocol;
  } catch {
    // not a URL at all
  }
  if (protocol !== 'http:' && protocol !== 'https:') bad(`${source} ${value}: not an http:// or https:// URL of an OpenAI-compatible endpoint`);
}

/** Which model answers. No model configured is an error for the harness, never a silent fallback to a script. */
function modelPlan(req: SystemRequest, external: boolean): ModelPlan {
  const { flags, env, variant } = req;
  const liveNamed = flags.provider === 'openai' || Boolean(flags.model ?? flags.baseUrl ?? variant?.settings.model);
  // The suite's own cassettes only stand in when no model at all is named on the command line.
  const cassettes = variant?.cassettes ?? flags.cassettes ?? (liveNamed ? undefined : req.suite.cassettes ?? undefined);
  const provider = flags.provider ?? (cassettes ? 'cassette' : 'openai');
  if (provider === 'cassette') {
    if (!cassettes) bad('--provider cassette needs --cassettes DIR');
    if (flags.record) bad('--record needs a live model (--model / --base-url), not --cassettes');
    return { kind: 'cassettes', dir: cassettes, match: flags.cassetteMatch ?? 'hash' };
  }
  const model = variant?.settings.model || flags.model || env['OPENAI_MODEL'] || null;
  const baseUrl = flags.baseUrl || env['OPENAI_BASE_URL'] || undefined;
  if (baseUrl) checkBaseUrl(baseUrl, flags.baseUrl ? '--base-url' : 'OPENAI_BASE_URL');
  const apiKey = env[flags.apiKeyEnv] || undefined;
  if (external) {
    for (const name of ['ANTHROPIC_BASE_URL', 'GOOGLE_GEMINI_BASE_URL'] as const) {
      const value = env[name];
      if (value) checkBaseUrl(value, name === 'ANTHROPIC_BASE_URL' ? 'ANTHROPIC_BASE_URL (or --anthropic-base-url)' : 'GOOGLE_GEMINI_BASE_URL (or --gemini-base-url)');
    }
    // An external agent picks its own model; the proxy needs only somewhere to send its calls.
    // Anthropic's or Gemini's endpoint (ANTHROPIC_API_KEY, GEMINI_API_KEY, their base URLs) is an upstream too.
    if (!baseUrl && !apiKey && !OTHER_UPSTREAM_VARIABLES.some((name) => env[name])) {
      if (flags.record) bad(`--record needs an upstream: pass --base-url URL (or OPENAI_BASE_URL), or set ${flags.apiKeyEnv} for api.openai.com (or ANTHROPIC_API_KEY, GEMINI_API_KEY for those APIs)`);
      return { kind: 'none' };
    }
    return { kind: 'live', model, baseUrl, apiKey, record: flags.record };
  }
  if (!model && !flags.provider && !cassettes && req.policyTasksOnly) return { kind: 'none' };
  if (!model) {
    bad('no model configured: pass --model NAME (with --base-url URL or OPENAI_BASE_URL for a local server), or --cassettes DIR to replay recorded responses');
  }
  if (!baseUrl && !apiKey) {
    bad(`${flags.apiKeyEnv} is not set, and api.openai.com needs a key; for a local server (vLLM, Ollama, llama.cpp) pass --base-url URL or set OPENAI_BASE_URL`);
  }
  return { kind: 'live', model, baseUrl, apiKey, record: flags.record };
}

/** `NAME=ENV_VAR` pairs: the header NAME gets the value of ENV_VAR (never written anywhere). */
function headersFrom(pairs: string[], env: SystemRequest['env']): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of pairs) {
    const m = /^([A-Za-z0-9-]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(pair);
    if (!m) bad(`--agent-header ${pair}: expected HEADER=ENV_VAR (the value is read from the environment variable, never given on the command line)`);
    const value = env[m[2]!];
    if (value === undefined) bad(`--agent-header ${pair}: environment variable ${m[2]} is not set`);
    headers[m[1]!] = value;
  }
  return headers;
}

/**
 * The one owner of "which system and which model run". Pure: it reads only what it is given and
 * throws AdapterConfigError (bad input, exit 2) for a configuration that cannot run.
 */
export function resolveSystem(req: SystemRequest): SystemPlan {
  const { flags } = req;
  if (flags.agentCmd && flags.agentUrl) bad('give --agent-cmd or --agent-url, not both');
  const external = Boolean(flags.agentCmd ?? flags.agentUrl);
  if (!external && (flags.agentEnv?.length || flags.agentHeader?.length)) bad('--agent-env and --agent-header apply only with --agent-cmd or --agent-url');
  if (flags.agentClock !== undefined && flags.agentCmd === undefined) bad('--agent-clock applies only with --agent-cmd (the agent runs under libfaketime)');
  let agentClock: AgentClock | null = null;
  if (flags.agentClock !== undefined) {
    const parsed = parseAgentClock(flags.agentClock);
    if (typeof parsed === 'string') bad(parsed);
    const lib = findLibfaketime();
    if (!lib) bad("--agent-clock needs libfaketime (libfaketime.so.1, Debian package faketime); install it, or pin the clock in the agent's own wrapper from TRACEGATE_AGENT_CLOCK");
    agentClock = { ...parsed, lib };
  }
  // Named as the variant file spells them.
  const harnessOnly = Object.keys(req.variant?.settings.harness ?? {})
    .filter((k) => k !== 'maxSteps')
    .map((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  if (external && (harnessOnly.length > 0 || req.variant?.policy)) {
    bad(`the variant sets ${[...harnessOnly, ...(req.variant?.policy ? ['policy'] : [])].join(', ')}, which only the reference harness reads; an external agent takes model, max_steps and cassettes from a variant`);
  }
  // The step limit for tasks that set none: the flag, else the variant's, else the default.
  const maxSteps = flags.maxSteps ?? req.variant?.settings.harness.maxSteps ?? RUN_DEFAULTS.maxSteps;
  const recordContent = flags.recordContent ?? DEFAULT_RECORD_CONTENT;
  if (flags.agentCmd !== undefined) {
    let argv: string[];
    try {
      argv = splitCommand(flags.agentCmd);
    } catch (error) {
      bad((error as Error).message);
    }
    const passEnv = flags.agentEnv ?? [];
    for (const name of passEnv) {
      if (!ENV_NAME.test(name)) bad(`--agent-env ${name}: not an environment variable name`);
      if (name === flags.apiKeyEnv) bad(`--agent-env ${name}: the upstream key never reaches the agent; it gets its own dummy key and base URL`);
    }
    return { adapter: 'command', argv, passEnv, sandbox: flags.sandbox, model: modelPlan(req, true), timeoutMs: flags.timeout, maxSteps, recordContent, agentClock };
  }
  if (flags.agentUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(flags.agentUrl);
    } catch {
      bad(`--agent-url ${flags.agentUrl}: not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') bad(`--agent-url ${flags.agentUrl}: only http and https`);
    return { adapter: 'http', url: url.href, headers: headersFrom(flags.agentHeader ?? [], req.env), model: modelPlan(req, true), timeoutMs: flags.timeout, maxSteps, recordContent };
  }
  return {
    adapter: 'harness',
    model: modelPlan(req, false),
    policyFile: req.variant?.policy ?? flags.policy ?? req.suite.policy ?? undefined,
    sandbox: flags.sandbox,
    settings: {
      ...(req.suite.mcpServers ? { mcpServers: req.suite.mcpServers } : {}),
      ...req.variant?.settings.harness,
      maxSteps,
      recordContent,
    },
  };
}

/** Values that must be redacted from every output: the upstream key and the HTTP agent's header values. */
/** Keys of the Anthropic and Gemini upstreams, read from the environment like OPENAI_API_KEY. */
export const OTHER_UPSTREAM_KEYS = ['ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY'] as const;
/** Any of these set makes an external agent's run live: the proxy has an Anthropic or Gemini upstream. */
const OTHER_UPSTREAM_VARIABLES = [...OTHER_UPSTREAM_KEYS, 'ANTHROPIC_BASE_URL', 'GOOGLE_GEMINI_BASE_URL'] as const;

export function secretsOf(req: Pick<SystemRequest, 'flags' | 'env'>): string[] {
  const out: string[] = [];
  // The OpenAI key, and the keys of the other protocols' upstreams the capture proxy holds.
  for (const name of [req.flags.apiKeyEnv, ...OTHER_UPSTREAM_KEYS]) {
    const key = req.env[name];
    if (key) out.push(key);
  }
  for (const pair of req.flags.agentHeader ?? []) {
    const value = req.env[pair.split('=')[1] ?? ''];
    if (value) out.push(value);
  }
  return out;
}
