import type { ProviderFault } from './providerFault.js';

/** The faults a request can meet before any answer comes: no HTTP status to read. */
export type NetworkFault = Extract<ProviderFault, 'connection_refused' | 'dns_failed' | 'tls_failed' | 'connection_reset'>;

/** How each network fault reads to a person, in a preflight's message and a live line. */
export const NETWORK_FAULT_TEXT: Record<NetworkFault, string> = {
  connection_refused: 'connection refused',
  dns_failed: 'DNS lookup failed',
  tls_failed: 'TLS handshake failed',
  connection_reset: 'connection reset',
};

const BY_CODE: Readonly<Record<string, NetworkFault>> = {
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns_failed',
  EAI_AGAIN: 'dns_failed',
  EAI_FAIL: 'dns_failed',
  EAI_NONAME: 'dns_failed',
  EPROTO: 'tls_failed',
  CERT_HAS_EXPIRED: 'tls_failed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls_failed',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls_failed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls_failed',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls_failed',
};

/** The system error code of a failed request: fetch and nodeHttpRequest both put it on `cause` ("fetch failed"). */
export function errorCodeOf(error: unknown): string | null {
  const own = (error as { code?: unknown } | null)?.code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof cause === 'string' ? cause : typeof own === 'string' ? own : null;
}

/** Which network fault a failed request met, by its system error code (anything unnamed is a reset). */
export function networkFaultOf(error: unknown): NetworkFault {
  const code = errorCodeOf(error);
  if (code === null) return 'connection_reset';
  if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) return 'tls_failed';
  return BY_CODE[code] ?? 'connection_reset';
}
