import { afterEach, describe, expect, it } from 'vitest';
import { EndpointLimiter, EndpointLimiters, fetchWithProviderRetries, ProviderFaultError, retryAfterMs, type ProviderBudget } from '../../src/provider/index.js';
import { faultPlan, type FaultPlanOptions } from '../helpers/faultServer.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function faultyServer(plan: FaultPlanOptions) {
  const { hook, injected } = faultPlan(plan);
  const server = new FakeOpenAIServer(() => ({ content: 'ok' }), { fault: hook });
  servers.push(server);
  const base = await server.start();
  return { server, injected, url: `${base}/chat/completions` };
}

const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [] }) };
const isCompletion = (body: string) => {
  try {
    return Array.isArray((JSON.parse(body) as { choices?: unknown }).choices);
  } catch {
    return false;
  }
};
const budget = (ms: number, extra: Partial<ProviderBudget> = {}): ProviderBudget => ({ deadline: Date.now() + ms, acceptBody: isCompletion, ...extra });

describe('retryAfterMs', () => {
  it('reads seconds, an HTTP-date and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }), now)).toBe(150);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(retryAfterMs(new Headers(), now)).toBeNull();
  });
});

describe('EndpointLimiter', () => {
  it('never lets more than its limit run, cuts on a rate limit once per cooldown and grows back slowly', async () => {
    let clock = 0;
    const limiter = new EndpointLimiter({ max: 8, decrease: 0.5, cooldownMs: 1000, now: () => clock });
    const slots = await Promise.all(Array.from({ length: 8 }, () => limiter.acquire()));
    expect(limiter.inFlight).toBe(8);
    let ninth = false;
    void limiter.acquire().then((s) => {
      ninth = true;
      s.release('ok');
    });
    await Promise.resolve();
    expect(ninth).toBe(false);

    slots[0]!.release('rate_limited');
    slots[1]!.release('rate_limited'); // same window: no second cut
    expect(limiter.limit).toBe(4);
    for (const s of slots.slice(2, 4)) s.release('ok');
    await Promise.resolve();
    expect(limiter.inFlight).toBe(4);
    expect(ninth).toBe(false); // 4 in flight: at the cut limit
    for (const s of slots.slice(4)) s.release('ok');
    await new Promise((r) => setImmediate(r));
    expect(ninth).toBe(true);
    expect(limiter.limit).toBeLessThanOrEqual(8);

    clock = 5000;
    const more = await limiter.acquire();
    more.release('rate_limited');
    const cut = limiter.limit;
    for (let i = 0; i < 200; i++) (await limiter.acquire()).release('ok');
    expect(limiter.limit).toBeGreaterThan(cut);
    expect(limiter.limit).toBe(8); // never above max
  });

  it('learns how long a healthy answer takes, and allows a normal answer that long (SRTT + 4·RTTVAR)', () => {
    const limiter = new EndpointLimiter({ max: 2 });
    expect(limiter.patienceMs).toBeNull();
    for (const ms of [800, 1200, 1000, 900, 1100]) limiter.observe(ms);
    expect(limiter.patienceMs!).toBeGreaterThan(1200);
    expect(limiter.patienceMs!).toBeLessThan(3000);
    for (let i = 0; i < 50; i++) limiter.observe(1000);
    expect(limiter.patienceMs!).toBeLessThan(1100);
  });

  it('EndpointLimiters keeps one limiter per endpoint', () => {
    const limiters = new EndpointLimiters({ max: 3 });
    const a = limiters.for('http://127.0.0.1:8000/v1/chat/completions');
    expect(limiters.for('http://127.0.0.1:8000/v1/chat/completions?x=1')).toBe(a);
    expect(limiters.for('http://127.0.0.1:8001/v1/chat/completions')).not.toBe(a);
    expect(limiters.for('http://127.0.0.1:8000/v1/embeddings')).not.toBe(a);
    expect(a.max).toBe(3);
  });

  it('gives up waiting when the caller aborts', async () => {
    const limiter = new EndpointLimiter({ max: 1 });
    const held = await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('task over'));
    await expect(waiting).rejects.toThrow('task over');
    expect(limiter.waiting).toBe(0);
    held.release('ok');
    expect(limiter.inFlight).toBe(0);
  });
});

describe('fetchWithProviderRetries against a loopback fault server', () => {
  it.each([
    ['rate_limited', { 'retry-after-ms': '20' }],
    ['server_error', {}],
    ['reset', {}],
    ['malformed', {}],
    ['hang', {}],
  ] as const)('absorbs %s and returns the good response with the fault it saw', async (fault) => {
    // Every other request faults: the first attempt fails, the retry succeeds.
    let n = 0;
    const { hook } = faultPlan({ rates: { [fault]: 1 }, retryAfter: { header: 'retry-after-ms', value: () => '20' } });
    const server = new FakeOpenAIServer(() => ({ content: 'ok' }), { fault: (req, res, i) => (n++ % 2 === 0 ? hook(req, res, i) : false) });
    servers.push(server);
    const url = `${await server.start()}/chat/completions`;
    // Each attempt gets 2 s (a tenth of the budget): a hang is cut there, and an answered fault is never
    // mistaken for one on a loaded machine.
    const result = await fetchWithProviderRetries(url, post, budget(20_000), { attemptShare: 0.1, minAttemptMs: 200, backoffBaseMs: 10, backoffCapMs: 50, random: Math.random, now: Date.now });
    expect(result.response.status).toBe(200);
    expect(JSON.parse(await result.response.text()).choices[0].message.content).toBe('ok');
    expect(result.faults.map((f) => f.fault)).toEqual([{ rate_limited: 'rate_limited', server_error: 'server_error', reset: 'connection_reset', malformed: 'malformed_body', hang: 'timeout' }[fault]]);
    expect(server.requests).toHaveLength(2);
  });

  it('keeps retrying a 429 for as long as the budget lasts, not a fixed count', async () => {
    const { server, url } = await faultyServer({ rates: { rate_limited: 1 }, retryAfter: { header: 'retry-after-ms', value: () => '30' } });
    const error = await fetchWithProviderRetries(url, post, budget(1000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderFaultError);
    const fault = error as ProviderFaultError;
    expect(fault.code).toBe('PROVIDER_ERROR');
    expect(fault.fault).toBe('rate_limited');
    expect(fault.status).toBe(429);
    expect(fault.retries).toBeGreaterThan(5);
    expect(fault.retries).toBe(server.requests.length - 1);
    expect(fault.message).toMatch(/rate_limited \(HTTP 429: .*Rate limit reached.*\) .*\d+ retries \(\d+×rate_limited\)/);
  });

  it('gives up at once when the Retry-After outlasts the budget, and says so', async () => {
    const { server, url } = await faultyServer({ rates: { rate_limited: 1 }, retryAfter: { header: 'retry-after', value: () => '30' } });
    const error = (await fetchWithProviderRetries(url, post, budget(2000)).catch((e: unknown) => e)) as ProviderFaultError;
    expect(error.message).toContain('Retry-After (30000 ms) outlasts the time budget');
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a body larger than the cap, as a fault, without holding it', async () => {
    const server = new FakeOpenAIServer(() => ({ content: 'x'.repeat(5000) }));
    servers.push(server);
    const url = `${await server.start()}/chat/completions`;
    const error = (await fetchWithProviderRetries(url, post, budget(300), { attemptShare: 0.5, minAttemptMs: 50, backoffBaseMs: 10, backoffCapMs: 20, maxBodyBytes: 1000, random: Math.random, now: Date.now }).catch((e: unknown) => e)) as ProviderFaultError;
    expect(error).toBeInstanceOf(ProviderFaultError);
    expect(error.fault).toBe('malformed_body');
    expect(error.message).toContain('response body over 1000 bytes');
  });

  it('a request that waits past its deadline for a slot fails as such, and leaves the queue', async () => {
    const { server, url } = await faultyServer({ rates: {} });
    const limiter = new EndpointLimiter({ max: 1 });
    const held = await limiter.acquire();
    const error = (await fetchWithProviderRetries(url, post, budget(200, { limiter })).catch((e: unknown) => e)) as ProviderFaultError;
    expect(error).toBeInstanceOf(ProviderFaultError);
    expect(error.message).toContain("timeout (no response: tracegate's own concurrency limit held the call: no free slot at the endpoint before the deadline (concurrency 1 of at most 1, the run's -j); the provider never saw it)");
    expect(error.message).not.toContain('rate_limited');
    expect(error.fault).toBe('timeout');
    expect(limiter.waiting).toBe(0);
    expect(server.requests).toHaveLength(0);
    held.release('ok');
  });

  it('returns a 4xx that retrying cannot mend as it is', async () => {
    const server = new FakeOpenAIServer(() => ({ status: 400 }));
    servers.push(server);
    const url = `${await server.start()}/chat/completions`;
    const result = await fetchWithProviderRetries(url, post, budget(2000));
    expect(result.response.status).toBe(400);
    expect(server.requests).toHaveLength(1);
  });

  it('a slot waiting out a Retry-After is not in flight, and the limiter was cut', async () => {
    const { url } = await faultyServer({ rates: { rate_limited: 1 }, retryAfter: { header: 'retry-after-ms', value: () => '300' } });
    const limiter = new EndpointLimiter({ max: 4 });
    let inFlightWhileWaiting = -1;
    const parked: Array<Promise<unknown>> = [];
    const park = <T>(wait: Promise<T>) => {
      inFlightWhileWaiting = limiter.inFlight;
      parked.push(wait);
      return wait;
    };
    await fetchWithProviderRetries(url, post, budget(200, { limiter, park })).catch(() => undefined);
    await fetchWithProviderRetries(url, post, budget(1000, { limiter, park })).catch(() => undefined);
    expect(parked.length).toBeGreaterThan(0);
    expect(inFlightWhileWaiting).toBe(0);
    expect(limiter.limit).toBeLessThan(4);
  });

  it('does not take a slow but normal answer for a hang', async () => {
    // The endpoint answers in 300 ms; the budget's share would cut an attempt at 100 ms.
    const server = new FakeOpenAIServer(() => ({ content: 'ok' }), { latencyMs: 300 });
    servers.push(server);
    const url = `${await server.start()}/chat/completions`;
    const limiter = new EndpointLimiter({ max: 2 });
    const tuning = { attemptShare: 0.05, minAttemptMs: 10, backoffBaseMs: 10, backoffCapMs: 20, random: Math.random, now: Date.now };
    await fetchWithProviderRetries(url, post, budget(10_000, { limiter }), { ...tuning, attemptShare: 1 });
    const result = await fetchWithProviderRetries(url, post, budget(2000, { limiter }), tuning);
    expect(result.faults).toEqual([]);
    // Without what the limiter learned, the same call times out and retries.
    const blind = await fetchWithProviderRetries(url, post, budget(2000), tuning).catch((e: unknown) => e as ProviderFaultError);
    expect('faults' in blind ? blind.faults.some((f) => f.fault === 'timeout') : false).toBe(true);
  });

  it('stops at once, with the caller’s reason, when the caller aborts', async () => {
    const { url } = await faultyServer({ rates: { hang: 1 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('interrupted')), 100);
    await expect(fetchWithProviderRetries(url, post, budget(10_000, { signal: controller.signal }))).rejects.toThrow('interrupted');
  });
});
