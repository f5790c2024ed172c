import { setTimeout as delay } from 'node:timers/promises';
import { dropCutToken } from '../schema/redact.js';
import { TracegateError } from '../schema/runError.js';
import { retryDelayMs } from '../capture/upstream.js';
import { readStreamCapped } from '../provider/index.js';
import { AGENT_ATTR, type AgentOutcome } from '../schema/agentIo.js';
import type { Task } from '../schema/task.js';
import type { Trace } from '../schema/trace.js';
import type { SpanAttributes } from '../schema/traceVocabulary.js';
import type { Redactor } from '../schema/redact.js';
import { parseAgentOutput } from './agentOutput.js';
import { errorLineOf } from './errorLine.js';
import { openExternalTrial, type ExternalAgentOptions } from './externalTrial.js';
import { AGENT_RUN_ERROR } from '../schema/runErrorCodes.js';
import type { Adapter, AdapterRunContext } from '../schema/adapter.js';

export const HTTP_AGENT_RETRIES = 3;
const RESPONSE_CAP_BYTES = 4 * 1024 * 1024;
/** How much of a non-2xx body the root span keeps as evidence. */
const HTTP_BODY_CHARS = 4000;

export interface HttpAdapterOptions extends ExternalAgentOptions {
  url: string;
  /** Header name → value, read from named environment variables; never written to any output. */
  headers: Record<string, string>;
}

export class AgentUnreachableError extends TracegateError {
  constructor(message: string) {
    super(AGENT_RUN_ERROR.AGENT_UNREACHABLE, message);
  }
}

const retryable = (status: number) => status === 429 || status >= 500;

interface HttpAnswer {
  status: number;
  body: string;
  /** Bytes received (at most the cap and one chunk more: the rest is never read). */
  bytes: number;
  truncated: boolean;
  /** Why the answer is the agent's failure although it came (a redirect, a body that broke off, a retry that no longer fit). */
  problem: string | null;
}

/** The cause undici gives a failed fetch or body read ("other side closed", "ECONNRESET"), not its "fetch failed" / "terminated". */
function reason(error: unknown): string {
  const cause = (error as Error).cause;
  return cause instanceof Error ? `${(error as Error).message}: ${cause.message}` : (error as Error).message;
}

/**
 * Reads at most the cap from the body and cancels the rest: an endless body costs the cap, not
 * memory without limit. A body that breaks off (reset, shorter than its Content-Length) is kept as
 * far as it came, with the reason.
 */
async function readCapped(response: Response, signal: AbortSignal): Promise<{ bytes: Buffer; truncated: boolean; broke: string | null }> {
  if (!response.body) return { bytes: Buffer.alloc(0), truncated: false, broke: null };
  const { bytes, over, error } = await readStreamCapped(response.body, RESPONSE_CAP_BYTES);
  if (error) {
    if (signal.aborted) throw error;
    return { bytes, truncated: false, broke: reason(error) };
  }
  return over ? { bytes: bytes.subarray(0, RESPONSE_CAP_BYTES), truncated: true, broke: null } : { bytes, truncated: false, broke: null };
}

/**
 * POSTs the input and reads the answer, retrying connection errors, 429 and 5xx; each wait (Retry-After or
 * backoff) is abortable and only taken if it ends before `deadline` (else the last answer stands).
 * Redirects are never followed: the agent's headers (an --agent-header secret) stay with its own URL.
 */
async function post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, deadline: number, park: AdapterRunContext['park']): Promise<HttpAnswer> {
  let lastError = '';
  for (let attempt = 0; attempt <= HTTP_AGENT_RETRIES; attempt++) {
    let response: Response;
    let wait: number;
    try {
      response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/plain' }, body, signal, redirect: 'manual' });
    } catch (error) {
      if (signal.aborted) throw error;
      lastError = reason(error);
      wait = retryDelayMs(null, attempt);
      if (attempt === HTTP_AGENT_RETRIES || Date.now() + wait >= deadline) break;
      await park(delay(wait, undefined, { signal }));
      continue;
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      return { status: response.status, body: '', bytes: 0, truncated: false, problem: `HTTP ${response.status} redirect to ${location ?? '(no Location)'}: redirects are not followed` };
    }
    if (retryable(response.status) && attempt < HTTP_AGENT_RETRIES) {
      wait = retryDelayMs(response.headers.get('retry-after'), attempt);
      if (Date.now() + wait < deadline) {
        await response.body?.cancel().catch(() => undefined);
        await park(delay(wait, undefined, { signal }));
        continue;
      }
      const answer = await answerOf(response, signal);
      return { ...answer, problem: `HTTP ${response.status}; its retry in ${Math.ceil(wait / 1000)} s would end after the time limit` };
    }
    return answerOf(response, signal);
  }
  throw new AgentUnreachableError(`${url}: no answer after ${HTTP_AGENT_RETRIES + 1} attempts: ${lastError}`);
}

async function answerOf(response: Response, signal: AbortSignal): Promise<HttpAnswer> {
  const { bytes, truncated, broke } = await readCapped(response, signal);
  const kept = bytes.toString('utf8');
  return {
    status: response.status,
    // A cut body loses its last, possibly partial, token: no half secret for redaction to miss.
    body: truncated ? dropCutToken(kept, 'end') : kept,
    bytes: bytes.length,
    truncated,
    problem: broke ? `HTTP ${response.status}, then the body broke off after ${bytes.length} bytes: ${broke}` : null,
  };
}

/** What a non-2xx (or broken) answer leaves as evidence: the problem, the body as a body, and the error line in it. */
function crashEnding(answer: HttpAnswer, redactor: Redactor): SpanAttributes {
  const errorLine = errorLineOf(answer.body);
  return {
    [AGENT_ATTR.problem]: redactor.text(answer.problem ?? `HTTP ${answer.status}`),
    [AGENT_ATTR.httpBody]: redactor.preview(answer.body, HTTP_BODY_CHARS),
    [AGENT_ATTR.errorLine]: errorLine === null ? null : redactor.text(errorLine),
  };
}

/** An agent behind an HTTP endpoint: POST agent-input/v1, read agent-output/v1 (or plain text). */
export function createHttpAdapter(options: HttpAdapterOptions): Adapter {
  return {
    name: 'http',
    model: options.model,
    policy: 'the agent’s own',
    sandbox: 'remote service',
    async run(task: Task, ctx: AdapterRunContext): Promise<Trace> {
      const trial = await openExternalTrial(task, ctx, options);
      const started = new Date().toISOString();
      const timeout = AbortSignal.timeout(trial.agentTimeoutMs);
      const signal = AbortSignal.any([ctx.signal, timeout]);
      let answer: HttpAnswer | null = null;
      let outcome: AgentOutcome = 'exited';
      try {
        try {
          answer = await post(options.url, { ...options.headers, traceparent: trial.otlp.traceparent }, JSON.stringify(trial.input), signal, Date.now() + trial.agentTimeoutMs, ctx.park);
        } catch (error) {
          ctx.signal.throwIfAborted();
          if (!timeout.aborted) throw error;
          outcome = 'timeout';
        }
        if (answer && (answer.problem !== null || answer.status < 200 || answer.status >= 300)) outcome = 'crash';
        const ending: SpanAttributes = {
          [AGENT_ATTR.httpStatus]: answer?.status ?? null,
          [AGENT_ATTR.stdoutBytes]: answer?.bytes ?? 0,
          [AGENT_ATTR.stdoutTruncated]: answer?.truncated ?? false,
          ...(outcome === 'timeout' ? { [AGENT_ATTR.problem]: `no answer within ${trial.agentTimeoutMs} ms` } : {}),
          ...(outcome === 'crash' ? crashEnding(answer!, options.redactor) : {}),
        };
        return await trial.finish({
          started,
          ended: new Date().toISOString(),
          outcome,
          ending,
          output: outcome === 'exited' && answer ? parseAgentOutput(answer.body, answer.truncated) : { kind: 'text', text: '' },
        });
      } finally {
        await trial.dispose();
      }
    },
  };
}
