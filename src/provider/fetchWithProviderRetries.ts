import { cutAtToken } from '../schema/redact.js';
import { TracegateError } from '../schema/runError.js';
import { SlotWaitExpired, type EndpointLimiter, type LimiterSlot } from './endpointLimiter.js';
import { faultOfStatus, ProviderFaultError, type FaultRecord, type ProviderFault } from './providerFault.js';
import { BodyTooLarge, BodyUndecodable, nodeHttpRequest, type HttpReply, type HttpRequestInit } from './nodeHttpRequest.js';
import { networkFaultOf } from './networkFault.js';
import { retryAfterMs } from './retryAfter.js';

/** The time a request may take, retries included, and what it may lean on meanwhile. */
export interface ProviderBudget {
  /** Epoch ms (Date.now scale) by which the request must have succeeded; faults until then are retried. */
  deadline: number;
  /** Cancels everything (the task ended or the run was interrupted); its reason is rethrown as is. */
  signal?: AbortSignal | undefined;
  /** Caps and adapts the requests in flight to this endpoint. */
  limiter?: EndpointLimiter | undefined;
  /** Checks a 2xx body; false marks it malformed, and it is retried. Default: any body. */
  acceptBody?: ((body: string) => boolean) | undefined;
  /** Awaits a backoff; a caller may lend its work slot meanwhile (the orchestrator's park). */
  park?: (<T>(wait: Promise<T>) => Promise<T>) | undefined;
  /** fetchWithProviderRetries only: the HTTP client for each attempt (default: the global fetch). */
  transport?: typeof fetch | undefined;
}

export interface ProviderRetryTuning {
  /** Share of the remaining budget one attempt may take before it counts as hung and is retried (never below the limiter's patienceMs). */
  attemptShare: number;
  /** An attempt gets at least this long (unless less budget is left). */
  minAttemptMs: number;
  /** Exponential backoff with full jitter: first ceiling and cap. */
  backoffBaseMs: number;
  backoffCapMs: number;
  /** A larger body is a fault (an untrusted server must not exhaust memory). */
  maxBodyBytes?: number;
  random: () => number;
  now: () => number;
}

export const DEFAULT_TUNING: ProviderRetryTuning = {
  attemptShare: 0.5,
  minAttemptMs: 1000,
  backoffBaseMs: 250,
  backoffCapMs: 20_000,
  random: Math.random,
  now: Date.now,
};

export interface ProviderResponse {
  /** The final response, its body already read into `body` (and re-readable from `response`). */
  response: Response;
  body: string;
  /** Attempts that failed before this one, with what each fault was. */
  faults: FaultRecord[];
}

/** One attempt hung past its share of the budget; it becomes a `timeout` fault and is retried. */
class AttemptTimeout extends TracegateError {
  constructor(ms: number) {
    super('PROVIDER_ERROR', `no complete response within ${Math.round(ms)} ms`);
  }
}

const MIN_BACKOFF_MS = 50;
/**
 * Another attempt gets at least this long or is not made: a sliver of an attempt would only time
 * out, and the error would name that timeout instead of the fault that really outlasted the budget.
 */
const MIN_LAST_ATTEMPT_MS = 250;

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function connectionFault(error: unknown): { fault: ProviderFault; detail: string } {
  if (error instanceof AttemptTimeout) return { fault: 'timeout', detail: error.message };
  if (error instanceof BodyTooLarge) return { fault: 'malformed_body', detail: error.message };
  if (error instanceof BodyUndecodable) {
    const cause = (error.cause as { code?: string } | undefined)?.code;
    return { fault: 'malformed_body', detail: `${error.message}${cause ? `: ${cause}` : ''}` };
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const detail = [error instanceof Error ? error.message : String(error), cause?.code ?? cause?.message].filter(Boolean).join(': ');
  return { fault: networkFaultOf(error), detail };
}

/** A body too large to be a model's answer. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

async function readCapped(response: Response, max: number): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > max) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(max);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    bytes += chunk.value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(max);
    }
    text += decoder.decode(chunk.value, { stream: true });
  }
  return text + decoder.decode();
}

/** One attempt: the request under its own signal, its answer (body read) within the attempt's bound. */
type Attempt<R extends HttpReply> = (signal: AbortSignal, maxBodyBytes: number) => Promise<R>;

/** Runs `send` bounded by its own timeout and the caller's signal. */
async function bounded<R extends HttpReply>(send: Attempt<R>, timeoutMs: number, outer: AbortSignal | undefined, maxBodyBytes: number): Promise<R> {
  const controller = new AbortController();
  const onOuter = () => controller.abort(outer!.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(timeoutMs)), timeoutMs);
  try {
    return await send(controller.signal, maxBodyBytes);
  } catch (error) {
    // The client rejects with its own AbortError; the reason says which deadline fired.
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}

/** The answer as a Response again, its body as text (the original stream was consumed). */
function rebuilt(reply: HttpReply & { headers: Headers }): Response {
  const headers = new Headers(reply.headers);
  // The body is already decoded; these would describe the wire form.
  headers.delete('content-encoding');
  headers.delete('content-length');
  return new Response(reply.body, { status: reply.status, statusText: reply.statusText, headers });
}

/**
 * `fetch` that absorbs provider faults: 429 (honouring Retry-After), 408/409/5xx, hung requests
 * (each attempt gets a share of the remaining budget), connection resets and malformed 2xx bodies
 * are retried with jittered exponential backoff until `budget.deadline`; only a fault that outlasts
 * the budget throws, as a ProviderFaultError naming it. Other responses (4xx) are returned as they
 * are. The request body must be replayable (a string or bytes).
 */
export async function fetchWithProviderRetries(
  url: string,
  init: RequestInit,
  budget: ProviderBudget,
  tuning: ProviderRetryTuning = DEFAULT_TUNING,
): Promise<ProviderResponse> {
  const transport = budget.transport ?? fetch;
  const { reply, faults } = await withProviderRetries(url, budget, tuning, async (signal, maxBodyBytes) => {
    const response = await transport(url, { ...init, signal });
    const body = await readCapped(response, maxBodyBytes);
    return { status: response.status, statusText: response.statusText, headers: response.headers, body };
  });
  return { response: rebuilt(reply), body: reply.body, faults };
}

/** A provider's answer as plain data: what requestWithProviderRetries resolves to. */
export interface ProviderReply extends HttpReply {
  /** Attempts that failed before this one, with what each fault was. */
  faults: FaultRecord[];
}

/**
 * The same retries as fetchWithProviderRetries for a JSON API called directly (the harness's model
 * client): over node:http, the answer as plain data, no WHATWG objects built per request.
 */
export async function requestWithProviderRetries(
  url: URL,
  init: HttpRequestInit,
  budget: ProviderBudget,
  tuning: ProviderRetryTuning = DEFAULT_TUNING,
): Promise<ProviderReply> {
  const { reply, faults } = await withProviderRetries(url.href, budget, tuning, (signal, maxBodyBytes) => nodeHttpRequest(url, init, signal, maxBodyBytes));
  return { ...reply, faults };
}

const isOk = (status: number) => status >= 200 && status <= 299;

/** The retry loop both entry points share; `send` makes one attempt. */
async function withProviderRetries<R extends HttpReply>(url: string, budget: ProviderBudget, tuning: ProviderRetryTuning, send: Attempt<R>): Promise<{ reply: R; faults: FaultRecord[] }> {
  const faults: FaultRecord[] = [];
  const giveUp = (why: string) => new ProviderFaultError(url, faults, why);
  for (let retry = 0; ; retry++) {
    budget.signal?.throwIfAborted();
    let slot: LimiterSlot | null = null;
    try {
      slot = budget.limiter ? await budget.limiter.acquire(budget.signal, retry > 0, budget.deadline) : null;
    } catch (error) {
      if (!(error instanceof SlotWaitExpired)) throw error;
      if (faults.length > 0) throw giveUp(`and then ${error.message}`);
      // Not a 429: the provider never saw the call; the wait for one of our own slots ran out.
      faults.push({ fault: 'timeout', status: null, detail: error.message });
      throw giveUp('and the time budget ran out');
    }
    const remaining = budget.deadline - tuning.now();
    if (remaining <= 0) {
      slot?.release('fault');
      if (faults.length === 0) faults.push({ fault: 'timeout', status: null, detail: 'the budget ran out before the first attempt' });
      throw giveUp('and the time budget ran out');
    }
    // A share of what is left, so a hang leaves time to retry; never less than a normal answer takes here.
    const timeoutMs = Math.min(remaining, Math.max(tuning.minAttemptMs, remaining * tuning.attemptShare, budget.limiter?.patienceMs ?? 0));
    const started = tuning.now();

    let waitMs: number | null = null;
    try {
      const reply = await bounded(send, timeoutMs, budget.signal, tuning.maxBodyBytes ?? MAX_BODY_BYTES);
      const { status, body } = reply;
      const statusFault = faultOfStatus(status);
      if (statusFault) {
        waitMs = retryAfterMs(reply.headers, tuning.now());
        slot?.release(statusFault === 'rate_limited' || waitMs !== null ? 'rate_limited' : 'fault');
        faults.push({ fault: statusFault, status, detail: cutAtToken(body, 200).replace(/\s+/g, ' ') || reply.statusText });
      } else if (isOk(status) && budget.acceptBody && !budget.acceptBody(body)) {
        slot?.release('fault');
        // What came instead (a proxy's HTML error page, `choices: []`) is the evidence: its start, one line.
        const start = cutAtToken(body, 200).replace(/\s+/g, ' ').trim();
        faults.push({ fault: 'malformed_body', status, detail: `unreadable body (${body.length} bytes)${start ? `: ${start}` : ''}` });
      } else {
        if (isOk(status)) budget.limiter?.observe(tuning.now() - started);
        slot?.release(isOk(status) ? 'ok' : 'fault');
        return { reply, faults };
      }
    } catch (error) {
      slot?.release('fault');
      if (budget.signal?.aborted) throw budget.signal.reason;
      faults.push({ status: error instanceof BodyUndecodable ? error.status : null, ...connectionFault(error) });
    }

    // Time we may wait and still leave the next attempt its minimum.
    const room = budget.deadline - tuning.now() - MIN_LAST_ATTEMPT_MS;
    if (room < MIN_BACKOFF_MS) throw giveUp('and the time budget ran out');
    // A Retry-After is honoured, with a little jitter so the callers it sent away do not return at
    // once; a backoff of our own shrinks to leave room for one more attempt.
    // A Retry-After of 0 or in the past says nothing about when: retrying at once would hammer the
    // server (retries are bounded by the budget, not a count), so our own backoff applies.
    const hinted = waitMs !== null && waitMs > 0 ? waitMs : null;
    const delay =
      hinted === null
        ? Math.min(room, Math.max(MIN_BACKOFF_MS, tuning.random() * Math.min(tuning.backoffCapMs, tuning.backoffBaseMs * 2 ** retry)))
        : Math.max(MIN_BACKOFF_MS, hinted + tuning.random() * Math.min(1000, hinted * 0.1));
    if (delay > room) throw giveUp(`and its Retry-After (${Math.round(hinted ?? delay)} ms) outlasts the time budget`);
    const wait = sleep(delay, budget.signal);
    await (budget.park ? budget.park(wait) : wait);
  }
}
