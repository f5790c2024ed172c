import { TracegateError } from '../../src/schema/runError.js';
import { SANDBOX_REQUESTS, type SandboxRequest } from '../../src/schema/sandboxRequest.js';
import { probeBubblewrap, type SandboxMode } from './runCommand.js';

export { SANDBOX_REQUESTS, type SandboxRequest };

/** True only while the requests are exactly `auto` and the modes: a mode added here fails to compile until it is listed there. */
export const REQUESTS_ARE_MODES: [SandboxRequest] extends [SandboxMode | 'auto'] ? ([SandboxMode | 'auto'] extends [SandboxRequest] ? true : never) : never = true;

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
