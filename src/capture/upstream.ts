import { TracegateError } from '../schema/runError.js';
/**
 * The capture proxy's one way out to the real model endpoint, with the key tracegate holds. Kept in
 * one small module so a shared provider client (retries, adaptive concurrency) can replace it.
 * Retries connection errors, 408, 409, 429 and 5xx, honouring Retry-After; a stream is retried only
 * before its response starts.
 */
export interface Upstream {
  /** e.g. https://api.openai.com/v1 (no trailing slash needed). */
  baseUrl: string;
  apiKey: string | null;
}

export const UPSTREAM_RETRIES = 2;
const MAX_RETRY_WAIT_MS = 20_000;

export class UpstreamError extends TracegateError {
  constructor(message: string, readonly status: number | null) {
    super('PROVIDER_ERROR', message);
  }
}

const retryable = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** Retry-After in seconds or as an HTTP date; otherwise exponential backoff from 250 ms. */
export function retryDelayMs(retryAfter: string | null, attempt: number, now = Date.now()): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, seconds * 1000));
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.min(MAX_RETRY_WAIT_MS, Math.max(0, date - now));
  }
  return Math.min(MAX_RETRY_WAIT_MS, 250 * 2 ** attempt);
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * Sends one request upstream. Resolves to the response (its body unread) for any status that is not
 * worth retrying, or the last retryable one; throws UpstreamError when no response ever came.
 */
export async function forwardUpstream(
  upstream: Upstream,
  subPath: string,
  init: { method: 'GET' | 'POST'; body?: string; signal: AbortSignal },
): Promise<Response> {
  const url = upstream.baseUrl.replace(/\/+$/, '') + subPath;
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (upstream.apiKey) headers['authorization'] = `Bearer ${upstream.apiKey}`;
  let lastError = '';
  for (let attempt = 0; attempt <= UPSTREAM_RETRIES; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, { method: init.method, headers, body: init.body ?? null, signal: init.signal });
    } catch (error) {
      if (init.signal.aborted) throw error;
      lastError = `${url}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
      if (attempt < UPSTREAM_RETRIES) await sleep(retryDelayMs(null, attempt), init.signal);
      continue;
    }
    if (!retryable(response.status) || attempt === UPSTREAM_RETRIES) return response;
    lastError = `${url}: HTTP ${response.status}`;
    await response.body?.cancel().catch(() => undefined);
    await sleep(retryDelayMs(response.headers.get('retry-after'), attempt), init.signal);
  }
  throw new UpstreamError(`no response after ${UPSTREAM_RETRIES + 1} attempts: ${lastError}`, null);
}
