import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';

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

/** What every real-agent run sees of the test's own provider settings: none; each test sets the ones it means. */
export const NO_PROVIDER_ENV = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '', GEMINI_API_KEY: '', GOOGLE_GEMINI_BASE_URL: '', GOOGLE_API_KEY: '' };
/** What REAL_SUITE's two tasks come to for every agent, recorded and replayed. */
export const EXPECTED_VERDICTS = { launch_code_001: 'passed:', backup_code_001: 'failed:FINAL_ANSWER_INCOMPLETE' };
/** The run flags every real-agent test shares: a slow CLI's generous timeout, two trials at once. */
export const realAgentFlags = (cmd: string) => ['--agent-cmd', cmd, '--agent-env', 'TRACEGATE_AGENTS_DIR', '--timeout', '180000', '--no-html', '-j', '2'];

/**
 * One test of an agent examples/agents/install.sh puts at AGENTS_DIR/`installed`: skipped when it is
 * not there, and a failure instead under REQUIRED (CI), so a missing agent is never a silent pass.
 * Two runs of a real CLI that starts slowly: on a loaded 2-core machine one run took over a minute.
 */
export function itWithAgent(name: string, installed: string, title: string, body: () => Promise<void>, timeout = 480_000): void {
  const present = existsSync(path.join(AGENTS_DIR, installed));
  if (!present && REQUIRED) {
    it('is installed', () => expect.fail(`${name} is not installed in ${AGENTS_DIR}: run examples/agents/install.sh`));
    return;
  }
  it.skipIf(!present)(`${title} (skipped unless installed in ${AGENTS_DIR} by examples/agents/install.sh)`, body, timeout);
}
