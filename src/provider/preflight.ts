import { TracegateError } from '../schema/runError.js';
import { errorCodeOf, NETWORK_FAULT_TEXT, networkFaultOf, type NetworkFault } from './networkFault.js';
import { BodyTooLarge, nodeHttpRequest } from './nodeHttpRequest.js';

/** A model endpoint a run is about to spend trials on. */
export interface PreflightTarget {
  /** e.g. http://127.0.0.1:11434/v1 */
  baseUrl: string;
  apiKey: string | null;
  /** Where the endpoint was named, for the fix: "--base-url (or OPENAI_BASE_URL)". */
  urlSource: string;
  /** The environment variable the key came from. */
  keyName: string;
  /** The flag that names another variable (default --api-key-env). */
  keyFlag?: string;
  /** What the endpoint is to this run: "the model endpoint", "the capture proxy's upstream". */
  role: string;
}

/** A preflight check gets this long; network faults answer in milliseconds. */
export const PREFLIGHT_TIMEOUT_MS = 5000;

/** The endpoint cannot serve this run: exit 3 before the first trial, the reason first. */
export class PreflightError extends TracegateError {
  constructor(
    readonly reason: NetworkFault | 'key_refused',
    message: string,
  ) {
    super('PROVIDER_ERROR', message);
  }
}

/** The URL as it may be shown: no user:password part. */
function shown(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
}

function fixFor(fault: NetworkFault, target: PreflightTarget, code: string | null): string {
  const fix = {
    connection_refused: `nothing listens there; start the server, or pass the right ${target.urlSource}`,
    dns_failed: `the host name does not resolve; check ${target.urlSource}`,
    tls_failed: `${code ?? 'TLS error'}: a plain http server named with https://, or a certificate this machine does not trust`,
    connection_reset: `the server closed the connection (${code ?? 'no code'})`,
  } satisfies Record<NetworkFault, string>;
  return fix[fault];
}

/**
 * One cheap request (GET {baseUrl}/models) before the first trial: is the endpoint there, and does
 * it accept the key? Resolves to a warning when it cannot tell (no answer in time), to null when it
 * can serve; throws PreflightError when it cannot (refused, DNS, TLS, HTTP 401/403). Any other status
 * counts as reachable: a server without /models, or one having a bad minute, is the trials' business.
 */
export async function preflight(target: PreflightTarget, timeoutMs = PREFLIGHT_TIMEOUT_MS): Promise<string | null> {
  const base = new URL(target.baseUrl);
  const where = `${target.role} ${shown(base)}`;
  const url = new URL(`${base.href.replace(/\/$/, '')}/models`);
  const headers: Record<string, string> = { accept: 'application/json', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) };
  let status: number;
  try {
    status = (await nodeHttpRequest(url, { method: 'GET', headers, body: null }, AbortSignal.timeout(timeoutMs), 1024 * 1024)).status;
  } catch (error) {
    if (error instanceof BodyTooLarge) return null;
    if ((error as Error).name === 'AbortError') {
      return `${where} gave no answer to GET /models within ${timeoutMs / 1000} s; running anyway`;
    }
    const fault = networkFaultOf(error);
    throw new PreflightError(fault, `${NETWORK_FAULT_TEXT[fault]}: ${where}: ${fixFor(fault, target, errorCodeOf(error))}`);
  }
  if (status === 401 || status === 403) {
    const key = target.apiKey ? `the key in ${target.keyName} was refused` : `it needs a key and ${target.keyName} is not set`;
    throw new PreflightError('key_refused', `${key} (HTTP ${status}): ${where}; set ${target.keyName} to a key this endpoint accepts, or pass ${target.keyFlag ?? '--api-key-env'} NAME`);
  }
  return null;
}
