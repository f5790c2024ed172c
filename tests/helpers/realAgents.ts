import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * What the real-agent e2e tests (tests/e2e/realAgents*.test.ts) share: where
 * examples/agents/install.sh put the agents, whether a missing one fails, the two-task suite each
 * agent records and replays, and how they read a run's verdicts.
 */
export const AGENTS_DIR = process.env['TRACEGATE_AGENTS_DIR'] ?? path.join(homedir(), '.cache', 'tracegate-agents');
/** .ci/run sets it: there a missing agent is a failure, not a skip. */
export const REQUIRED = process.env['TRACEGATE_REQUIRE_AGENTS'] === '1';
/** One task whose answer needs the tool's output, one the agent must fail (FINAL_ANSWER_INCOMPLETE). */
export const REAL_SUITE = 'examples/agents/real-suite/suite.jsonl';

export interface RealReport {
  run: { model: { mode: string; provider?: string }; sandbox?: string };
  tasks: Array<{ id: string; status: string; failure_reason: string | null; trials: Array<{ trace_file: string | null; error?: { code: string; message: string } | null }> }>;
}
export const readReport = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as RealReport;
/** Each task's `status:failure_reason`. */
export const verdicts = (r: RealReport) => Object.fromEntries(r.tasks.map((t) => [t.id, `${t.status}:${t.failure_reason ?? ''}`]));
