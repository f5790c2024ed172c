import { TracegateError } from '../schema/runError.js';

/**
 * What went wrong with one attempt at a provider request. All but client_error are retried (a server
 * that refuses connections may be restarting); the run's preflight stops a run at once on the
 * network faults and on a refused key.
 */
export const PROVIDER_FAULTS = ['rate_limited', 'server_error', 'timeout', 'connection_refused', 'dns_failed', 'tls_failed', 'connection_reset', 'malformed_body', 'client_error'] as const;
export type ProviderFault = (typeof PROVIDER_FAULTS)[number];

export interface FaultRecord {
  fault: ProviderFault;
  /** HTTP status, or null when no response came (timeout, refused, reset). */
  status: number | null;
  detail: string;
}

/** The fault of one attempt, from its HTTP status (null: the response was fine or not retryable). */
export function faultOfStatus(status: number): ProviderFault | null {
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 409 || status >= 500) return 'server_error';
  return null;
}

/** `3×rate_limited, 1×timeout`: every fault seen, by kind, for the trial error. */
export function faultSummary(faults: readonly FaultRecord[]): string {
  const counts = new Map<string, number>();
  for (const f of faults) counts.set(f.fault, (counts.get(f.fault) ?? 0) + 1);
  return [...counts].map(([fault, n]) => `${n}×${fault}`).join(', ');
}

/**
 * A provider fault that outlasted the request's time budget (or could not be retried). It names the
 * last fault, its HTTP status and how many retries were spent, so a report says what happened.
 */
export class ProviderFaultError extends TracegateError {
  readonly fault: ProviderFault;
  readonly status: number | null;
  readonly retries: number;
  constructor(
    readonly url: string,
    readonly faults: readonly FaultRecord[],
    why: string,
  ) {
    const last = faults[faults.length - 1]!;
    const status = last.status === null ? 'no response' : `HTTP ${last.status}`;
    const retries = faults.length - 1;
    super('PROVIDER_ERROR', `${url}: ${last.fault} (${status}: ${last.detail}) ${why}; ${retries} ${retries === 1 ? 'retry' : 'retries'} (${faultSummary(faults)})`);
    this.fault = last.fault;
    this.status = last.status;
    this.retries = retries;
  }
}
