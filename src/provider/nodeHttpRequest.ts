import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { TracegateError } from '../schema/runError.js';

/**
 * One HTTP request to a model endpoint over node:http with keep-alive agents, its answer read whole
 * (capped) into a string. Why not `fetch`: on a loopback server undici's fetch cost about 1.3 ms of
 * CPU a request against about 0.4 ms here, and the WHATWG Response, Headers and stream objects a
 * fetch answer needs cost more again; a request/response API needs none of them
 * (docs/performance.md). Rejections are TypeErrors like fetch's ("fetch failed", with the cause),
 * an AbortError on abort, and a BodyTooLarge for an answer over `maxBodyBytes` (also once decompressed).
 */

/** What an attempt needs of an answer's headers (a fetch Headers has the same method). */
export interface ReplyHeaders {
  get(name: string): string | null;
}

export interface HttpReply {
  status: number;
  statusText: string;
  /** Lower-case names; the body is decoded already, so no content-encoding or content-length. */
  headers: ReplyHeaders;
  body: string;
}

export interface HttpRequestInit {
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

/** A body too large to be a model's answer (an untrusted server must not exhaust memory). */
export class BodyTooLarge extends TracegateError {
  constructor(readonly max: number) {
    super('PROVIDER_ERROR', `response body over ${max} bytes`);
  }
}

/**
 * An answer came (its status is known) but its body could not be decoded (`content-encoding: gzip`
 * on a body that is not): a malformed body, not a lost connection.
 */
export class BodyUndecodable extends TypeError {
  constructor(
    readonly status: number,
    options: { cause: unknown },
  ) {
    super('fetch failed: could not decode the response body', options);
  }
}

const MAX_REDIRECTS = 5;

// Keep-alive agents shared by every request of the process, like fetch's global dispatcher.
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

function abortError(signal: AbortSignal): Error {
  const error = new Error('This operation was aborted', { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

/** The body as sent before compression; a decompression bomb stops at `max` (ERR_BUFFER_TOO_LARGE). */
function decode(body: Buffer, encoding: string | undefined, max: number): Buffer {
  const options = { maxOutputLength: max };
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body, options);
    case 'deflate':
      // Some servers send raw deflate without its zlib header; browsers and fetch read both.
      try {
        return inflateSync(body, options);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'Z_DATA_ERROR') throw error;
        return inflateRawSync(body, options);
      }
    case 'br':
      return brotliDecompressSync(body, options);
    default:
      return body;
  }
}

/** The body as text the way fetch's UTF-8 decode reads it: a leading byte order mark is not text (some gateways send one). */
function utf8Text(payload: Buffer): string {
  const hasBom = payload.length >= 3 && payload[0] === 0xef && payload[1] === 0xbb && payload[2] === 0xbf;
  return payload.toString('utf8', hasBom ? 3 : 0);
}

/** Node's parsed headers, read like fetch's (repeated values joined with ", "). */
function replyHeaders(headers: IncomingHttpHeaders): ReplyHeaders {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** Headers that carry credentials: a redirect to another origin does not get them (as fetch does it). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

/** The request as sent on to `next`: the same, minus its credentials if `next` is another origin. */
function redirected(init: HttpRequestInit, from: URL, next: URL): HttpRequestInit {
  if (next.origin === from.origin) return init;
  return { ...init, headers: Object.fromEntries(Object.entries(init.headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase()))) };
}

export function nodeHttpRequest(url: string | URL, init: HttpRequestInit, signal: AbortSignal | undefined, maxBodyBytes: number): Promise<HttpReply> {
  return send(typeof url === 'string' ? new URL(url) : url, init, signal, maxBodyBytes, 0);
}

function send(url: URL, init: HttpRequestInit, signal: AbortSignal | undefined, maxBodyBytes: number, redirects: number): Promise<HttpReply> {
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new TypeError(`fetch failed: unsupported protocol ${url.protocol}`));
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== null) headers['content-length'] = String(Buffer.byteLength(init.body));

  return new Promise<HttpReply>((resolve, reject) => {
    let settled = false;
    const settle = () => {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (error: Error) => {
      if (settled) return;
      settle();
      reject(error);
    };
    const onAbort = () => {
      request.destroy();
      fail(abortError(signal!));
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, { method: init.method, headers, agent }, (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if ((status === 307 || status === 308) && location && redirects < MAX_REDIRECTS) {
        response.resume();
        settle();
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          return reject(new TypeError(`fetch failed: redirect to an invalid location ${JSON.stringify(location.slice(0, 200))}`));
        }
        send(next, redirected(init, url, next), signal, maxBodyBytes, redirects + 1).then(resolve, reject);
        return;
      }
      if (Number(response.headers['content-length'] ?? 0) > maxBodyBytes) {
        request.destroy();
        return fail(new BodyTooLarge(maxBodyBytes));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes) {
          request.destroy();
          fail(new BodyTooLarge(maxBodyBytes));
        } else chunks.push(chunk);
      });
      response.on('error', (error) => fail(new TypeError('fetch failed', { cause: error })));
      response.on('end', () => {
        if (settled) return;
        if (status < 200 || status > 599) return fail(new TypeError(`fetch failed: HTTP status ${status}`));
        let payload: Buffer;
        try {
          payload = decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), response.headers['content-encoding'], maxBodyBytes);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return fail(new BodyTooLarge(maxBodyBytes));
          return fail(new BodyUndecodable(status, { cause: error }));
        }
        settle();
        const { 'content-encoding': _encoding, 'content-length': _length, ...kept } = response.headers;
        resolve({ status, statusText: response.statusMessage ?? '', headers: replyHeaders(kept), body: utf8Text(payload) });
      });
    });
    request.on('error', (error) => fail(new TypeError('fetch failed', { cause: error })));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(init.body ?? undefined);
  });
}
