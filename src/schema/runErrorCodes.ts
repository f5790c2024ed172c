import { RunErrorCodeSchema } from './runError.js';

/**
 * The run-error codes the external-agent adapters and the capture proxy produce (a trial with one of
 * these is `errored`, never judged), picked from the run-error enum (src/schema/runError.ts), which
 * owns each code and its meaning: PROVIDER_ERROR (the upstream failed after retries), CASSETTE_MISS
 * (no recorded response for the request), NO_MODEL (a model call with neither an upstream nor
 * cassettes), AGENT_UNREACHABLE (the HTTP agent could not be reached), AGENT_SPAWN_FAILED (the
 * agent command could not be started), PROTOCOL_REFUSED (the agent called an API or sent a body the
 * capture proxy does not speak, named in the message).
 */
export const AGENT_RUN_ERROR = RunErrorCodeSchema.extract(['PROVIDER_ERROR', 'CASSETTE_MISS', 'NO_MODEL', 'PROTOCOL_REFUSED', 'AGENT_UNREACHABLE', 'AGENT_SPAWN_FAILED']).enum;
export type AgentRunErrorCode = (typeof AGENT_RUN_ERROR)[keyof typeof AGENT_RUN_ERROR];
