/**
 * The provider-client layer: requests to a model provider that absorb its faults (rate limits,
 * outages, hangs, resets, malformed bodies) within a time budget, at adaptive concurrency per
 * endpoint. Usable with plain fetch and with SDK clients that take a `fetch`. See docs/production.md.
 */
export { EndpointLimiter, EndpointLimiters, SlotWaitExpired, type EndpointLimiterOptions, type LimiterSlot, type SlotOutcome } from './endpointLimiter.js';
export {
  DEFAULT_TUNING,
  fetchWithProviderRetries,
  MAX_BODY_BYTES,
  requestWithProviderRetries,
  type ProviderBudget,
  type ProviderReply,
  type ProviderResponse,
  type ProviderRetryTuning,
} from './fetchWithProviderRetries.js';
export { BodyTooLarge, nodeHttpRequest, type HttpReply, type HttpRequestInit, type ReplyHeaders } from './nodeHttpRequest.js';
export { PROVIDER_CALL, providerCall, providerCallInit, providerFetch, type ProviderCall } from './providerFetch.js';
export { faultSummary, PROVIDER_FAULTS, ProviderFaultError, type FaultRecord, type ProviderFault } from './providerFault.js';
export { retryAfterMs } from './retryAfter.js';
export { readStreamCapped, type CappedBody } from './readStreamCapped.js';
export { errorCodeOf, NETWORK_FAULT_TEXT, networkFaultOf, type NetworkFault } from './networkFault.js';
export { preflight, PREFLIGHT_TIMEOUT_MS, PreflightError, type PreflightTarget } from './preflight.js';
