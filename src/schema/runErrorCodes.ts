import type { RunErrorCode } from './runError.js';

/**
 * Run-error codes the external-agent adapters and the capture proxy produce (a trial with one of
 * these is `errored`, never judged). Each is a code of the run-error enum (src/schema/runError.ts).
 */
export const AGENT_RUN_ERROR = {
  /** The upstream model endpoint failed after retries. */
  PROVIDER_ERROR: 'PROVIDER_ERROR',
  /** Replaying: no recorded response for the agent's request. */
  CASSETTE_MISS: 'CASSETTE_MISS',
  /** The agent called a model, but the run has neither an upstream nor cassettes. */
  NO_MODEL: 'NO_MODEL',
  /** The agent called an API or sent a body the capture proxy does not speak (named in the message). */
  PROTOCOL_REFUSED: 'PROTOCOL_REFUSED',
  /** The HTTP agent could not be reached after retries. */
  AGENT_UNREACHABLE: 'AGENT_UNREACHABLE',
  /** The agent command could not be started at all. */
  AGENT_SPAWN_FAILED: 'AGENT_SPAWN_FAILED',
} as const satisfies Record<string, RunErrorCode>;
export type AgentRunErrorCode = (typeof AGENT_RUN_ERROR)[keyof typeof AGENT_RUN_ERROR];
