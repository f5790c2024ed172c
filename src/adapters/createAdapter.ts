import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ErrorPattern } from '../capture/trafficSpans.js';
import type { VolatileMask } from '../capture/cassetteNormalize.js';
import type { Redactor } from '../schema/redact.js';
import { createHarnessAdapter } from './harnessAdapter.js';
import type { SystemPlan } from './resolveSystem.js';
import { AdapterConfigError, type Adapter } from '../schema/adapter.js';

export interface AdapterDeps {
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  /** Values that must never reach an external agent (the upstream key). */
  secrets: string[];
  errorPatterns?: ErrorPattern[];
  /** The suites' masking patterns for volatile values in tool output (cassette keys). */
  maskPatterns?: VolatileMask[];
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

/** Builds (and for external agents starts) the adapter a resolved plan names. */
export async function createAdapter(plan: SystemPlan, deps: AdapterDeps): Promise<Adapter> {
  if (plan.model.kind === 'cassettes' && existsSync(plan.model.dir) && !statSync(plan.model.dir).isDirectory()) {
    throw new AdapterConfigError(`--cassettes ${plan.model.dir}: not a folder (give the folder of <task_id>.json cassettes)`);
  }
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
  // The capture proxy, the OTLP receiver (protobufjs) and the external adapters load only for an external agent.
  const { createExternalAdapter } = await import('./createExternalAdapter.js');
  return createExternalAdapter(plan, argv, deps);
}
