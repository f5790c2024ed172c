import { setTimeout as sleep } from 'node:timers/promises';
import { encodeOtlpProtobuf } from './otlpProto.js';

export type OtlpProtocol = 'http/json' | 'http/protobuf';

/** Where OTLP/HTTP traces go: a base endpoint gets `/v1/traces`, a full `/v1/traces` URL is kept. */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/$/, '')}/v1/traces`;
  return url.toString();
}

/** How much of an error answer is read (a hostile endpoint may answer gigabytes) and quoted. */
const ERROR_BODY_BYTES = 4096;
const ERROR_BODY_CHARS = 300;
/** 429/502/503/504 are retried (OTLP/HTTP spec), at most this often, waiting Retry-After up to the cap. */
const RETRIES = 3;
const RETRY_WAIT_MAX_MS = 30_000;
const RETRYABLE = new Set([429, 502, 503, 504]);

/** The first bytes of a body, the rest cancelled unread. */
async function bodyStart(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < ERROR_BODY_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, ERROR_BODY_BYTES).toString('utf8');
}

/** The endpoint's words, one line, without control characters that would drive the terminal. */
// eslint-disable-next-line no-control-regex
const quoted = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);

/** Why a request got no answer: fetch says only "fetch failed"; its cause says refused, bad certificate, … */
function failure(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.message) return quoted(cause.code && !cause.message.includes(cause.code) ? `${cause.code}: ${cause.message}` : cause.message);
  return quoted((error as Error).message ?? String(error));
}

/** Retry-After as seconds or an HTTP date; when absent or unreadable, 1 s, 2 s, 4 s. */
function retryWaitMs(header: string | null, attempt: number): number {
  const fallback = 1000 * 2 ** attempt;
  if (header === null) return fallback;
  const seconds = Number(header);
  const ms = /^\d+$/.test(header.trim()) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(RETRY_WAIT_MAX_MS, Math.max(0, ms)) : fallback;
}

/**
 * POSTs one ExportTraceServiceRequest; a non-2xx answer is an error with the status and the start of
 * the body. Redirects are not followed: the traces go only to the host named on the command line.
 */
export async function sendOtlp(endpoint: string, request: unknown, protocol: OtlpProtocol, headers: Record<string, string>, timeoutMs = 30_000): Promise<void> {
  const url = tracesUrl(endpoint);
  const body = protocol === 'http/json' ? JSON.stringify(request) : Buffer.from(encodeOtlpProtobuf(request));
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': protocol === 'http/json' ? 'application/json' : 'application/x-protobuf' },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    }).catch((error: unknown) => {
      throw new Error(`${url}: ${failure(error)}`);
    });
    if (response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return;
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      const location = quoted(response.headers.get('location') ?? '');
      throw new Error(`${url} answered ${response.status} (a redirect${location ? ` to ${location}` : ''}); redirects are not followed, so traces and headers go only where --otlp-endpoint says: give the final URL`);
    }
    if (RETRYABLE.has(response.status) && attempt < RETRIES) {
      await response.body?.cancel().catch(() => undefined);
      await sleep(retryWaitMs(response.headers.get('retry-after'), attempt));
      continue;
    }
    const text = quoted(await bodyStart(response));
    const tries = attempt > 0 ? ` (after ${attempt + 1} attempts)` : '';
    throw new Error(`${url} answered ${response.status} ${quoted(response.statusText)}${tries}${text ? `: ${text}` : ''}`);
  }
}
