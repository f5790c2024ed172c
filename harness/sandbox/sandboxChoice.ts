import { TracegateError } from '../../src/schema/runError.js';
import { probeBubblewrap, type SandboxMode } from './runCommand.js';

/** What a run asks for: a mode, or `auto` (bubblewrap when it works here, else the process group). */
export type SandboxRequest = SandboxMode | 'auto';
export const SANDBOX_REQUESTS = ['auto', 'process', 'bwrap'] as const satisfies readonly SandboxRequest[];

export interface SandboxChoice {
  mode: SandboxMode;
  requested: SandboxRequest;
  /** Why this mode runs, for every trace and report. */
  reason: string;
}

export class SandboxUnavailableError extends TracegateError {
  constructor(message: string) {
    super('ADAPTER_CONFIG', message);
  }
}

/** Resolves a request once per run; `bwrap` where bubblewrap cannot run is an error, never a fallback. */
export function chooseSandbox(requested: SandboxRequest): SandboxChoice {
  if (requested === 'process') return { mode: 'process', requested, reason: 'process group: asked for with --sandbox process' };
  const probe = probeBubblewrap();
  if (requested === 'bwrap') {
    if (!probe.ok) throw new SandboxUnavailableError(`--sandbox bwrap: ${probe.detail}`);
    return { mode: 'bwrap', requested, reason: `bubblewrap: asked for with --sandbox bwrap; ${probe.detail}` };
  }
  return probe.ok
    ? { mode: 'bwrap', requested, reason: `bubblewrap: --sandbox auto and ${probe.detail}` }
    : { mode: 'process', requested, reason: `process group: --sandbox auto and ${probe.detail}` };
}

/** How the policy sees a mode: is the command isolated from the system, the network and homes? */
export function sandboxKind(mode: SandboxMode): 'process' | 'isolated' {
  return mode === 'bwrap' ? 'isolated' : 'process';
}
