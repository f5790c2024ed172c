/**
 * The environment an external agent runs with. Built from an allow list plus the names the user
 * passes with --agent-env, never from tracegate's whole environment; the real API key is never in it.
 */
export const ENV_ALLOW_LIST = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TERM', 'SYSTEMROOT'] as const;

export interface TrialFacts {
  taskId: string;
  epoch: number;
  maxSteps: number;
  workspace: string;
  traceFile: string;
  traceId: string;
  /** The trial's root span, the parent of anything an OpenTelemetry-instrumented agent exports. */
  rootSpanId: string;
  /** The trial's own capture-proxy path (OpenAI's, ending in /v1) and dummy key. */
  baseUrl: string;
  /** The trial's proxy root, for clients that append `/v1/…` or `/v1beta/…` themselves (Anthropic, Gemini); default baseUrl without /v1. */
  rootUrl?: string | undefined;
  apiKey: string;
  /** The model named on the command line, if any, for agents that read OPENAI_MODEL. */
  model: string | null;
  /** OpenTelemetry exporter settings of the trial (OTEL_EXPORTER_OTLP_ENDPOINT, ...), from otlpTrial. */
  otel?: Record<string, string>;
  /**
   * The trial's own empty HOME (TRACEGATE_HOME), for wrappers that give the agent a fresh one: its
   * path is blanked in cassette keys like the workspace's. HOME itself stays the caller's.
   */
  home?: string;
}

/**
 * One trial's environment. `secrets` are values that must never reach the agent (the upstream key):
 * a variable carrying one is dropped even when asked for by name.
 */
export function trialEnvironment(
  parent: NodeJS.ProcessEnv,
  passNames: readonly string[],
  facts: TrialFacts,
  secrets: readonly string[],
): Record<string, string> {
  const env: Record<string, string> = {};
  const root = facts.rootUrl ?? facts.baseUrl.replace(/\/v1\/?$/, '');
  for (const name of [...ENV_ALLOW_LIST, ...passNames]) {
    const value = parent[name];
    if (value !== undefined && !secrets.some((s) => s && value.includes(s))) env[name] = value;
  }
  Object.assign(env, facts.otel ?? {}, {
    TRACEGATE: '1',
    TRACEGATE_TASK_ID: facts.taskId,
    TRACEGATE_EPOCH: String(facts.epoch),
    TRACEGATE_MAX_STEPS: String(facts.maxSteps),
    TRACEGATE_WORKSPACE: facts.workspace,
    TRACEGATE_TRACE_FILE: facts.traceFile,
    TRACEGATE_TRACE_ID: facts.traceId,
    TRACEPARENT: `00-${facts.traceId}-${facts.rootSpanId}-01`,
    OPENAI_BASE_URL: facts.baseUrl,
    OPENAI_API_KEY: facts.apiKey,
    // The same trial path and key in every protocol's variables: Anthropic's and Gemini's clients find the proxy too.
    ANTHROPIC_BASE_URL: root,
    ANTHROPIC_API_KEY: facts.apiKey,
    GOOGLE_GEMINI_BASE_URL: root,
    GEMINI_API_KEY: facts.apiKey,
  });
  if (facts.model) env['OPENAI_MODEL'] = facts.model;
  if (facts.home) env['TRACEGATE_HOME'] = facts.home;
  return env;
}
