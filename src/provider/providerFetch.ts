import { fetchWithProviderRetries, type ProviderBudget } from './fetchWithProviderRetries.js';
import { ProviderFaultError, type FaultRecord } from './providerFault.js';

/** One logical request through an SDK client: its budget in, and what the retries saw out. */
export interface ProviderCall {
  budget: ProviderBudget;
  /** Faults absorbed by retries, across every fetch the client made for this call. */
  faults: FaultRecord[];
  /** Set when a fault outlasted the budget (the client may wrap the error it sees). */
  failure: ProviderFaultError | null;
}

/**
 * The key under which a ProviderCall rides in a request's init. SDK clients pass their per-request
 * `fetchOptions` through to `fetch` (the openai client does), so this carries the budget without
 * AsyncLocalStorage, which on Node 20 slows every promise in the process.
 */
export const PROVIDER_CALL = Symbol.for('tracegate.providerCall');

/** A new call record for `budget`; pass it as `fetchOptions: providerCallInit(call)` to the SDK. */
export function providerCall(budget: ProviderBudget): ProviderCall {
  return { budget, faults: [], failure: null };
}

/** Request options that carry `call` to providerFetch (typed empty: SDKs check their own option keys). */
export function providerCallInit(call: ProviderCall): Record<never, never> {
  return { [PROVIDER_CALL]: call };
}

/**
 * A `fetch` for SDK clients (e.g. `new OpenAI({ fetch: providerFetch(...), maxRetries: 0 })`): each
 * request retries provider faults within the budget of the ProviderCall in its init, or
 * `fallback()` without one. The client's own signal still cancels.
 */
export function providerFetch(fallback: () => ProviderBudget, transport?: typeof fetch): typeof fetch {
  return async (input, init) => {
    const call = (init as { [PROVIDER_CALL]?: ProviderCall } | undefined)?.[PROVIDER_CALL];
    const budget = call?.budget ?? fallback();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const { signal, ...rest } = init ?? {};
    try {
      const result = await fetchWithProviderRetries(url, rest, { transport, ...budget, signal: signal ?? budget.signal });
      call?.faults.push(...result.faults);
      return result.response;
    } catch (error) {
      if (error instanceof ProviderFaultError && call) {
        call.faults.push(...error.faults);
        call.failure = error;
      }
      throw error;
    }
  };
}
