import { TracegateError } from '../schema/runError.js';
import { retryDelayMs } from '../capture/upstream.js';
import { AGENT_ATTR, type AgentOutcome } from '../schema/agentIo.js';
import type { Task } from '../schema/task.js';
import type { AttributeValue, Trace } from '../schema/trace.js';
import { parseAgentOutput } from './agentOutput.js';
import { openExternalTrial, type ExternalAgentOptions } from './externalTrial.js';
import { AGENT_RUN_ERROR } from './runErrorCodes.js';
import type { Adapter, AdapterRunContext } from './types.js';

export const HTTP_AGENT_RETRIES = 3;
const RESPONSE_CAP_BYTES = 4 * 1024 * 1024;

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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface HttpAnswer {
  status: number;
  body: string;
  truncated: boolean;
}

async function post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<HttpAnswer> {
  let lastError = '';
  for (let attempt = 0; attempt <= HTTP_AGENT_RETRIES; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/plain' }, body, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      const cause = (error as Error).cause;
      lastError = cause instanceof Error ? cause.message : (error as Error).message;
      if (attempt < HTTP_AGENT_RETRIES) await sleep(retryDelayMs(null, attempt));
      continue;
    }
    if (retryable(response.status) && attempt < HTTP_AGENT_RETRIES) {
      await response.body?.cancel().catch(() => undefined);
      await sleep(retryDelayMs(response.headers.get('retry-after'), attempt));
      continue;
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    const truncated = bytes.length > RESPONSE_CAP_BYTES;
    const kept = bytes.subarray(0, RESPONSE_CAP_BYTES).toString('utf8');
    // A cut body loses its last, possibly partial, token: no half secret for redaction to miss.
    return { status: response.status, body: truncated ? kept.replace(/\S+$/, '') : kept, truncated };
  }
  throw new AgentUnreachableError(`${url}: no answer after ${HTTP_AGENT_RETRIES + 1} attempts: ${lastError}`);
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
          answer = await post(options.url, { ...options.headers, traceparent: trial.otlp.traceparent }, JSON.stringify(trial.input), signal);
        } catch (error) {
          ctx.signal.throwIfAborted();
          if (!timeout.aborted) throw error;
          outcome = 'timeout';
        }
        if (answer && (answer.status < 200 || answer.status >= 300)) outcome = 'crash';
        const ending: Record<string, AttributeValue> = {
          'agent.http_status': answer?.status ?? null,
          [AGENT_ATTR.stdoutBytes]: answer?.body.length ?? 0,
          [AGENT_ATTR.stdoutTruncated]: answer?.truncated ?? false,
          ...(outcome === 'timeout' ? { [AGENT_ATTR.problem]: `no answer within ${trial.agentTimeoutMs} ms` } : {}),
          ...(outcome === 'crash' ? { [AGENT_ATTR.problem]: `HTTP ${answer!.status}`, [AGENT_ATTR.stderrTail]: options.redactor.preview(answer!.body, 4000) } : {}),
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
