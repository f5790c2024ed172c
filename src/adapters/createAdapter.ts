import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { CaptureProxy } from '../capture/captureProxy.js';
import { CassetteRecorder, CassetteReplay } from '../capture/cassetteStore.js';
import { startOtlpReceiver } from '../capture/otlpReceiver.js';
import type { ErrorPattern } from '../capture/trafficSpans.js';
import { EndpointLimiter } from '../provider/index.js';
import type { Redactor } from '../schema/redact.js';
import type { ModelInfo } from '../schema/trace.js';
import { createCommandAdapter } from './commandAdapter.js';
import { createHarnessAdapter } from './harnessAdapter.js';
import { createHttpAdapter } from './httpAdapter.js';
import type { ModelPlan, SystemPlan } from './resolveSystem.js';
import { AdapterConfigError, type Adapter } from './types.js';

export interface AdapterDeps {
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  /** Values that must never reach an external agent (the upstream key). */
  secrets: string[];
  errorPatterns?: ErrorPattern[];
  cwd?: string;
  /** The run's -j: the ceiling of requests in flight to one model endpoint. */
  concurrency?: number;
}

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  return (env['PATH'] ?? '').split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The agent runs in the trial's workspace, so words of the command that name files where tracegate
 * was started (`python3 agents/my_agent.py`) are made absolute; a program that is nowhere is bad input.
 */
export function anchorCommand(argv: string[], cwd: string, env: NodeJS.ProcessEnv): string[] {
  const out = argv.map((word, i) => {
    if (word.startsWith('-') || word.includes('=') || path.isAbsolute(word)) return word;
    if (i > 0 && !word.includes('/') && !word.includes('.')) return word;
    const full = path.resolve(cwd, word);
    return existsSync(full) && (i > 0 || word.includes('/')) ? full : word;
  });
  const program = out[0]!;
  const found = path.isAbsolute(program) ? existsSync(program) && statSync(program).isFile() : onPath(program, env);
  if (!found) throw new AdapterConfigError(`--agent-cmd: ${program} is not ${path.isAbsolute(program) ? 'a file' : 'on PATH'}`);
  return out;
}

function externalModel(plan: ModelPlan, redactor: Redactor, concurrency: number): { info: ModelInfo; proxy: CaptureProxy } {
  if (plan.kind === 'cassettes') {
    if (!existsSync(plan.dir)) throw new AdapterConfigError(`--cassettes ${plan.dir}: folder not found`);
    const replay = new CassetteReplay(plan.dir);
    return { info: replay.info, proxy: new CaptureProxy({ upstream: null, replay, recorder: null }) };
  }
  if (plan.kind === 'none') {
    return { info: { provider: 'none', mode: 'none', model: 'none', base_url: null }, proxy: new CaptureProxy({ upstream: null, replay: null, recorder: null }) };
  }
  const baseUrl = plan.baseUrl ?? 'https://api.openai.com/v1';
  const recorder = plan.record ? new CassetteRecorder(plan.record, baseUrl, redactor) : null;
  return {
    info: { provider: 'openai', mode: plan.record ? 'recording' : 'live', model: plan.model ?? 'chosen by the agent', base_url: baseUrl },
    proxy: new CaptureProxy({ upstream: { baseUrl, apiKey: plan.apiKey ?? null }, replay: null, recorder, limiter: new EndpointLimiter({ max: Math.max(1, concurrency) }) }),
  };
}

/** Builds (and for external agents starts) the adapter a resolved plan names. */
export async function createAdapter(plan: SystemPlan, deps: AdapterDeps): Promise<Adapter> {
  if (plan.adapter === 'harness') {
    const m = plan.model;
    if (m.kind === 'cassettes' && !existsSync(m.dir)) throw new AdapterConfigError(`--cassettes ${m.dir}: folder not found`);
    return createHarnessAdapter({
      provider: m.kind === 'live' ? 'openai' : m.kind === 'cassettes' ? 'cassette' : 'none',
      model: m.kind === 'live' ? (m.model ?? '') : m.kind === 'cassettes' ? 'cassette' : 'none',
      baseURL: m.kind === 'live' ? m.baseUrl : undefined,
      apiKey: m.kind === 'live' ? m.apiKey : undefined,
      cassettes: m.kind === 'cassettes' ? m.dir : undefined,
      record: m.kind === 'live' ? m.record : undefined,
      policyFile: plan.policyFile,
      settings: plan.settings,
      sandbox: plan.sandbox,
      redactor: deps.redactor,
      concurrency: deps.concurrency,
    });
  }
  const argv = plan.adapter === 'command' ? anchorCommand(plan.argv, deps.cwd ?? process.cwd(), deps.env) : [];
  const { info, proxy } = externalModel(plan.model, deps.redactor, deps.concurrency ?? 4);
  await proxy.start();
  // One OTLP receiver per run, next to the proxy: spans of instrumented agents join their trial's trace.
  const otlp = await startOtlpReceiver().catch(async (error: unknown) => {
    await proxy.close();
    throw error;
  });
  const shared = {
    proxy,
    otlp,
    model: info,
    modelName: plan.model.kind === 'live' ? plan.model.model : null,
    runTimeoutMs: plan.timeoutMs,
    defaultMaxSteps: plan.maxSteps,
    errorPatterns: deps.errorPatterns ?? [],
    redactor: deps.redactor,
  };
  const adapter =
    plan.adapter === 'command'
      ? createCommandAdapter({ ...shared, argv, passEnv: plan.passEnv, parentEnv: deps.env, secrets: deps.secrets })
      : createHttpAdapter({ ...shared, url: plan.url, headers: plan.headers });
  return { ...adapter, run: adapter.run.bind(adapter), close: async () => {
      await Promise.all([proxy.close(), otlp.close()]);
    },
  };
}
