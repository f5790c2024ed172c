import { RUN_DEFAULTS } from '../schema/runDefaults.js';
import { existsSync } from 'node:fs';
import { CaptureProxy } from '../capture/captureProxy.js';
import { CassetteRecorder, CassetteReplay } from '../capture/cassetteStore.js';
import { startOtlpReceiver } from '../capture/otlpReceiver.js';
import type { VolatileMask } from '../capture/cassetteNormalize.js';
import { EndpointLimiter } from '../provider/index.js';
import type { Redactor } from '../schema/redact.js';
import type { ModelInfo } from '../schema/trace.js';
import { createCommandAdapter } from './commandAdapter.js';
import type { AdapterDeps } from './adapterDeps.js';
import { createHttpAdapter } from './httpAdapter.js';
import { MODEL_CHOSEN_BY_AGENT, proxiedModel } from './proxiedModel.js';
import { DEFAULT_OPENAI_BASE_URL, type ModelPlan, type SystemPlan } from './resolveSystem.js';
import { AdapterConfigError, type Adapter } from '../schema/adapter.js';
import { otherUpstreams } from './otherUpstreams.js';

function externalModel(plan: ModelPlan, redactor: Redactor, concurrency: number, env: Readonly<Record<string, string | undefined>>, masks: readonly VolatileMask[]): { info: ModelInfo; proxy: CaptureProxy } {
  if (plan.kind === 'cassettes') {
    if (!existsSync(plan.dir)) throw new AdapterConfigError(`--cassettes ${plan.dir}: folder not found`);
    const replay = new CassetteReplay(plan.dir, plan.match);
    return { info: replay.info, proxy: new CaptureProxy({ upstream: null, replay, recorder: null, redactor, masks }) };
  }
  if (plan.kind === 'none') {
    return { info: { provider: 'none', mode: 'none', model: 'none', base_url: null }, proxy: new CaptureProxy({ upstream: null, replay: null, recorder: null, redactor, masks }) };
  }
  const baseUrl = plan.baseUrl ?? DEFAULT_OPENAI_BASE_URL;
  const others = otherUpstreams(env);
  // With no OpenAI endpoint named, the report names the one the run does have (Anthropic's or Gemini's).
  const otherNamed = plan.baseUrl || plan.apiKey ? null : others.anthropic ? 'anthropic' : others.gemini ? 'gemini' : null;
  const named = (otherNamed ? others[otherNamed]!.baseUrl : undefined) ?? plan.baseUrl ?? baseUrl;
  const recorder = plan.record ? new CassetteRecorder(plan.record, named, redactor) : null;
  return {
    info: { provider: otherNamed ?? 'openai', mode: plan.record ? 'recording' : 'live', model: plan.model ?? MODEL_CHOSEN_BY_AGENT, base_url: named },
    proxy: new CaptureProxy({ upstream: { baseUrl, apiKey: plan.apiKey ?? null }, upstreams: others, replay: null, recorder, limiter: new EndpointLimiter({ max: Math.max(1, concurrency) }), redactor, masks }),
  };
}

/** Starts an external agent's adapter (`--agent-cmd`, `--agent-url`): its capture proxy and OTLP receiver first. */
export async function createExternalAdapter(plan: Exclude<SystemPlan, { adapter: 'harness' }>, argv: string[], deps: AdapterDeps): Promise<Adapter> {
  const { info, proxy } = externalModel(plan.model, deps.redactor, deps.concurrency ?? RUN_DEFAULTS.concurrency, deps.env, deps.maskPatterns ?? []);
  // What this function started, closed in its one `finally` unless the adapter was built (then the
  // adapter's close owns them, called by the run's lifecycle owner).
  const started: { close(): Promise<void> }[] = [];
  let built = false;
  try {
    await proxy.start();
    started.push(proxy);
    // One OTLP receiver per run, next to the proxy: spans of instrumented agents join their trial's trace.
    const otlp = await startOtlpReceiver({ openTracesOnly: true });
    started.push(otlp);
    const adapter = externalAdapter(plan, argv, deps, info, proxy, otlp);
    built = true;
    return adapter;
  } finally {
    if (!built) await Promise.all(started.map((s) => s.close()));
  }
}

function externalAdapter(
  plan: Exclude<SystemPlan, { adapter: 'harness' }>,
  argv: string[],
  deps: AdapterDeps,
  info: ReturnType<typeof externalModel>['info'],
  proxy: CaptureProxy,
  otlp: Awaited<ReturnType<typeof startOtlpReceiver>>,
): Adapter {
  const shared = {
    proxy,
    otlp,
    model: info,
    modelName: plan.model.kind === 'live' ? plan.model.model : null,
    runTimeoutMs: plan.timeoutMs,
    defaultMaxSteps: plan.maxSteps,
    errorPatterns: deps.errorPatterns ?? [],
    redactor: deps.redactor,
    recordContent: plan.recordContent,
  };
  const adapter =
    plan.adapter === 'command'
      ? createCommandAdapter({ ...shared, argv, passEnv: plan.passEnv, sandbox: plan.sandbox, parentEnv: deps.env, secrets: deps.secrets, agentClock: plan.agentClock })
      : createHttpAdapter({ ...shared, url: plan.url, headers: plan.headers });
  return {
    ...adapter,
    run: adapter.run.bind(adapter),
    // Read when the report is built: by then the proxy has seen which model the agent asked for.
    get model() {
      return proxiedModel(info, shared.modelName, proxy.modelsSeen);
    },
    close: async () => {
      await Promise.all([proxy.close(), otlp.close()]);
    },
  };
}
