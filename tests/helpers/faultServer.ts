import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultHook } from './openaiServer.js';
import { rng } from '../../bench/seededRandom.js';

/** The provider faults a loopback server can inject. */
export const INJECTED_FAULTS = ['rate_limited', 'server_error', 'hang', 'reset', 'malformed'] as const;
export type InjectedFault = (typeof INJECTED_FAULTS)[number];

export interface FaultPlanOptions {
  /** Fraction of requests that get each fault, e.g. {rate_limited: 0.1}. */
  rates: Partial<Record<InjectedFault, number>>;
  /** The Retry-After header sent with a 429: seconds ('1') or an HTTP-date; or retry-after-ms. */
  retryAfter?: { header: 'retry-after' | 'retry-after-ms'; value: () => string };
  /** Seeds the fault draw, so a run's faults are the same every time. */
  seed?: number;
}


/** Injects faults at set rates into a FakeOpenAIServer, and counts what it injected. */
export function faultPlan(options: FaultPlanOptions): { hook: FaultHook; injected: Record<InjectedFault, number> } {
  const random = rng(options.seed ?? 1);
  const injected = Object.fromEntries(INJECTED_FAULTS.map((f) => [f, 0])) as Record<InjectedFault, number>;
  const retryAfter = options.retryAfter ?? { header: 'retry-after', value: () => '1' };
  const pick = (): InjectedFault | null => {
    let x = random();
    for (const fault of INJECTED_FAULTS) {
      const rate = options.rates[fault] ?? 0;
      if (x < rate) return fault;
      x -= rate;
    }
    return null;
  };
  const hook: FaultHook = (req: IncomingMessage, res: ServerResponse) => {
    const fault = pick();
    if (!fault) return false;
    injected[fault]++;
    switch (fault) {
      case 'rate_limited':
        res
          .writeHead(429, { 'content-type': 'application/json', [retryAfter.header]: retryAfter.value() })
          .end(JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }));
        break;
      case 'server_error':
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } }));
        break;
      case 'hang':
        // Headers and half a body, then nothing: only the client's own timeout gets it out.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id":"chatcmpl-hung","choices":[');
        break;
      case 'reset':
        req.socket.destroy();
        break;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html><body>502 Bad Gateway</body></html>');
        break;
    }
    return true;
  };
  return { hook, injected };
}
