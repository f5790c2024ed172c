import { fetchWithProviderRetries, MAX_BODY_BYTES, readStreamCapped, type EndpointLimiter } from '../provider/index.js';
/**
 * The capture proxy's one way out to the real model endpoint, with the key tracegate holds. Retries
 * are src/provider's (fetchWithProviderRetries): 429 honouring Retry-After, 408/409/5xx, hangs and
 * connection resets, with jittered backoff within the trial's time budget; a fault that outlasts it
 * throws ProviderFaultError (code PROVIDER_ERROR) naming the fault. A streamed answer is retried
 * only before its body starts: once a 2xx stream begins, it is passed on as it comes.
 */
export interface Upstream {
  /** e.g. https://api.openai.com/v1 (no trailing slash needed). */
  baseUrl: string;
  apiKey: string | null;
  /** The header the key goes in: `authorization` (Bearer, the default), `x-api-key` (Anthropic), `x-goog-api-key` (Gemini). */
  keyHeader?: 'authorization' | 'x-api-key' | 'x-goog-api-key' | undefined;
}

/** The trial's time budget and what its retries may lean on. */
export interface UpstreamBudget {
  /** Epoch ms by which a request must have an answer; faults until then are retried. */
  deadline: number;
  /** Awaits a backoff without holding one of the run's work slots. */
  park?: (<T>(wait: Promise<T>) => Promise<T>) | undefined;
  /** The run's adaptive concurrency for this endpoint. */
  limiter?: EndpointLimiter | undefined;
}

const MAX_RETRY_WAIT_MS = 20_000;

/**
 * Retry-After in seconds or as an HTTP date; otherwise exponential backoff from 250 ms. (For the
 * HTTP adapter's requests to the agent itself, which is not a model provider.)
 */
export function retryDelayMs(retryAfter: string | null, attempt: number, now = Date.now()): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, seconds * 1000));
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, date - now));
  }
  return Math.min(MAX_RETRY_WAIT_MS, 250 * 2 ** attempt);
}

/** A 2xx answer that is not a stream must be JSON; anything else (an HTML error page) is retried. */
function isJson(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends one request upstream and resolves to its response: a 2xx, or a status that is not a
 * provider fault (a 4xx: the agent's own request refused). For `stream` requests a 2xx comes back
 * with its body unread, to be piped; otherwise the body has been read (and the response re-readable).
 */
export async function forwardUpstream(
  upstream: Upstream,
  subPath: string,
  init: { method: 'GET' | 'POST'; body?: string; headers?: Record<string, string>; signal: AbortSignal; stream?: boolean },
  budget: UpstreamBudget,
): Promise<Response> {
  const url = upstream.baseUrl.replace(/\/+$/, '') + subPath;
  const headers: Record<string, string> = { ...init.headers, accept: 'application/json, text/event-stream' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (upstream.apiKey) {
    const header = upstream.keyHeader ?? 'authorization';
    headers[header] = header === 'authorization' ? `Bearer ${upstream.apiKey}` : upstream.apiKey;
  }
  // A stream's 2xx is kept aside unread and the retry loop gets an empty stand-in, so the loop
  // retries what fails before the body starts and never buffers a stream. The trial's signal still
  // cancels the kept stream (the loop's per-attempt signal ends with the attempt).
  let kept: Response | null = null;
  let keptBytes: Response | null = null;
  const transport: typeof fetch = async (input, attemptInit) => {
    kept = null;
    keptBytes = null;
    if (!init.stream) {
      // The retry loop reads bodies as UTF-8 text; a 2xx is passed to the agent from its own bytes
      // (a body in another charset byte for byte). Past the loop's cap it reads no further.
      const response = await fetch(input, attemptInit);
      if (!response.ok || !response.body) return response;
      const { bytes, error } = await readStreamCapped(response.body, MAX_BODY_BYTES);
      if (error) throw error;
      const headers = new Headers(response.headers);
      headers.delete('content-encoding');
      headers.delete('content-length');
      keptBytes = new Response(bytes, { status: response.status, statusText: response.statusText, headers });
      return new Response(bytes, { status: response.status, statusText: response.statusText, headers });
    }
    // Until the headers come the attempt's own timeout applies; after that only the trial's signal.
    const attempt = attemptInit!.signal!;
    const beforeHeaders = new AbortController();
    const onAttempt = () => beforeHeaders.abort(attempt.reason);
    attempt.addEventListener('abort', onAttempt, { once: true });
    try {
      const response = await fetch(input, { ...attemptInit, signal: AbortSignal.any([beforeHeaders.signal, init.signal]) });
      // Not a stream after all (an error page, a JSON answer): read and checked like any other body.
      if (!response.ok || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
      kept = response;
      return new Response(null, { status: response.status, headers: response.headers });
    } finally {
      attempt.removeEventListener('abort', onAttempt);
    }
  };
  const { response } = await fetchWithProviderRetries(
    url,
    { method: init.method, headers, body: init.body ?? null },
    { deadline: budget.deadline, signal: init.signal, limiter: budget.limiter, park: budget.park, transport, acceptBody: (body) => kept !== null || isJson(body) },
  );
  return kept ?? keptBytes ?? response;
}
