import { randomUUID } from 'node:crypto';
import type { RunInfo } from '../schema/report.js';
import type { LoadedSuite } from '../suite/loadSuite.js';
import { TRACEGATE_VERSION } from '../version.js';

/** The part of a run's info every way of making a report shares: its id, its times, its suites. */
export function runHeader(startedAt: Date, endedAt: Date, suites: LoadedSuite[]): Pick<RunInfo, 'id' | 'started_at' | 'ended_at' | 'duration_ms' | 'tracegate_version' | 'suites'> {
  return {
    id: randomUUID(),
    started_at: startedAt.toISOString(),
    ended_at: endedAt.toISOString(),
    duration_ms: endedAt.getTime() - startedAt.getTime(),
    tracegate_version: TRACEGATE_VERSION,
    suites: suites.map((s) => ({ path: s.path, tasks: s.tasks.length, sha256: s.sha256 })),
  };
}
