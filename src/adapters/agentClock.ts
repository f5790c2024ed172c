import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * libfaketime (Debian package faketime) as the dynamic loader sees it, or null where it is not
 * installed. Preloaded directly rather than through the `faketime` wrapper, whose named semaphore
 * is keyed by its pid: two agents in pid namespaces of their own (bubblewrap) both have pid 2.
 */
export function findLibfaketime(): string | null {
  const roots = ['/usr/lib', '/usr/lib64', '/usr/local/lib'];
  for (const root of roots) {
    const dirs = [path.join(root, 'faketime')];
    try {
      for (const entry of readdirSync(root)) if (entry.includes('-linux-')) dirs.push(path.join(root, entry, 'faketime'));
    } catch {
      continue;
    }
    for (const dir of dirs) {
      const lib = path.join(dir, 'libfaketime.so.1');
      if (existsSync(lib)) return lib;
    }
  }
  return null;
}

/** The agent's pinned clock (`--agent-clock`): the libfaketime spec and the instant it starts at. */
export interface AgentClock {
  /** As given on the command line, exported to the agent as TRACEGATE_AGENT_CLOCK. */
  spec: string;
  /** libfaketime's library, found when the flag was read. */
  lib?: string;
  /** libfaketime's FAKETIME form: `@YYYY-MM-DD HH:MM:SS` (absolute, then ticking) or `+1d` (offset). */
  faketime: string;
  /** Milliseconds the agent's clock runs ahead of the real one (negative: behind), fixed at the trial's start. */
  offsetMs(now?: number): number;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, y: 365 * 86_400_000 };

/**
 * `--agent-clock`: an offset (`+1d`, `-3h`, `+90m`, `+3600` seconds) or an instant (`2026-01-05`,
 * `2026-01-05T10:00:00Z`). A sentence saying why when it is neither.
 */
export function parseAgentClock(spec: string): AgentClock | string {
  const offset = /^([+-])(\d+(?:\.\d+)?)([smhdy]?)$/.exec(spec.trim());
  if (offset) {
    const ms = Number(offset[2]) * UNIT_MS[offset[3] || 's']! * (offset[1] === '-' ? -1 : 1);
    return { spec, faketime: `${offset[1]}${offset[2]}${offset[3] ?? ''}`, offsetMs: () => ms };
  }
  const at = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(spec.trim()) ? `${spec.trim()}T00:00:00Z` : spec.trim());
  if (!Number.isFinite(at)) return `--agent-clock ${spec}: not an offset (+1d, -3h, +90m, +3600) or a date (2026-01-05, 2026-01-05T10:00:00Z)`;
  // libfaketime reads an absolute time in the agent's local zone; UTC is passed with TZ=UTC below.
  const utc = new Date(at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '');
  return { spec, faketime: `@${utc}`, offsetMs: (now = Date.now()) => at - now };
}

/**
 * The variables that run the agent under libfaketime: the library preloaded, its clock, the
 * monotonic clock left alone (Node's and Go's timers run on it) and an absolute start read in UTC.
 */
export function agentClockEnv(clock: AgentClock, lib: string): Record<string, string> {
  const env: Record<string, string> = { LD_PRELOAD: lib, FAKETIME: clock.faketime, FAKETIME_DONT_FAKE_MONOTONIC: '1', TRACEGATE_AGENT_CLOCK: clock.spec };
  if (clock.faketime.startsWith('@')) env['TZ'] = 'UTC';
  return env;
}
