import { AsyncLocalStorage } from 'node:async_hooks';
import { fetchWithProviderRetries, type ProviderBudget } from './fetchWithProviderRetries.js';
import { ProviderFaultError, type FaultRecord } from './providerFault.js';

/** One logical request through a client: its budget in, and what the retries saw out. */
export interface ProviderCall {
  budget: ProviderBudget;
  /** Faults absorbed by retries, across every fetch the client made for this call. */
  faults: FaultRecord[];
  /** Set when a fault outlasted the budget (the client may wrap the error it sees). */
  failure: ProviderFaultError | null;
}

const currentCall = new AsyncLocalStorage<ProviderCall>();

/** Runs `fn` (one SDK call) with `budget` for every fetch a `providerFetch` makes inside it. */
export async function withProviderBudget<T>(budget: ProviderBudget, fn: () => Promise<T>): Promise<{ value: T; call: ProviderCall } | { error: unknown; call: ProviderCall }> {
  const call: ProviderCall = { budget, faults: [], failure: null };
  try {
    return { value: await currentCall.run(call, fn), call };
  } catch (error) {
    return { error, call };
  }
}

/**
 * A `fetch` for SDK clients (e.g. `new OpenAI({ fetch: providerFetch(...), maxRetries: 0 })`): each
 * request retries provider faults within the budget of the surrounding `withProviderBudget`, or
 * `fallback()` outside one. The client's own signal still cancels.
 */
export function providerFetch(fallback: () => ProviderBudget): typeof fetch {
  return async (input, init) => {
    const call = currentCall.getStore();
    const budget = call?.budget ?? fallback();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const { signal, ...rest } = init ?? {};
    try {
      const result = await fetchWithProviderRetries(url, rest, { ...budget, signal: signal ?? budget.signal });
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
