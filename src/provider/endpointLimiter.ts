import { TracegateError } from '../schema/runError.js';

/** The caller's deadline passed while it waited for a slot (the limit had been cut below the ceiling). */
export class SlotWaitExpired extends TracegateError {
  constructor(
    readonly limit: number,
    readonly max: number,
  ) {
    super('PROVIDER_ERROR', `tracegate's own concurrency limit held the call: no free slot at the endpoint before the deadline (concurrency ${limit} of at most ${max}, the run's -j); the provider never saw it`);
  }
}

/** How an attempt ended, as the limiter learns from it. */
export type SlotOutcome = 'ok' | 'rate_limited' | 'fault';

export interface LimiterSlot {
  /** Give the slot back; call exactly once, as soon as the response is read (before any backoff). */
  release(outcome: SlotOutcome): void;
}

export interface EndpointLimiterOptions {
  /** The ceiling: never more requests in flight than this (the run's -j). */
  max: number;
  /** Multiplicative cut on a rate limit (default 0.8; 0.5 halves). */
  decrease?: number;
  /** At most one cut per this many ms (default 2000), so a burst of 429s cuts once. */
  cooldownMs?: number;
  now?: () => number;
}

interface Waiter {
  resolve: (slot: LimiterSlot) => void;
  reject: (error: unknown) => void;
}

/**
 * Adaptive concurrency for one provider endpoint (AIMD, as TCP, promptfoo's scheduler and Inspect
 * AI's adaptive connections do it): a 429 or a Retry-After cuts the limit, each success grows it by
 * 1/limit (about +1 per round of requests), never above `max`. Only requests on the wire hold a
 * slot; a caller waiting out a Retry-After has released its own.
 */
export class EndpointLimiter {
  readonly max: number;
  private current: number;
  private active = 0;
  private lastCut = -Infinity;
  private readonly queue: Waiter[] = [];
  /** Smoothed response time and its mean deviation (TCP's SRTT and RTTVAR, RFC 6298). */
  private srtt: number | null = null;
  private rttvar = 0;
  private readonly decrease: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(options: EndpointLimiterOptions) {
    if (!Number.isInteger(options.max) || options.max < 1) throw new RangeError('EndpointLimiter: max must be a whole number of at least 1');
    this.max = options.max;
    this.current = options.max;
    // Gentle and spaced out: a provider's share of random 429s must not starve the run (bench: 10% 429s).
    this.decrease = options.decrease ?? 0.8;
    this.cooldownMs = options.cooldownMs ?? 2000;
    this.now = options.now ?? Date.now;
  }

  /** The current limit (whole requests). */
  get limit(): number {
    return Math.max(1, Math.floor(this.current));
  }

  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /**
   * How long a healthy response from this endpoint may take (SRTT + 4·RTTVAR, as TCP's retransmission
   * timeout): an attempt is never cut off sooner, so a slow but normal answer is not taken for a hang.
   * Null before the first success.
   */
  get patienceMs(): number | null {
    return this.srtt === null ? null : this.srtt + 4 * this.rttvar;
  }

  /** Records how long a successful attempt took. */
  observe(ms: number): void {
    if (this.srtt === null) {
      this.srtt = ms;
      this.rttvar = ms / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - ms);
      this.srtt = 0.875 * this.srtt + 0.125 * ms;
    }
  }

  /**
   * A slot as soon as one is free. `first`: a retry goes ahead of new requests (its budget is
   * running). Rejects with the signal's reason, or with SlotWaitExpired at `deadline` (epoch ms).
   */
  acquire(signal?: AbortSignal, first = false, deadline?: number): Promise<LimiterSlot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.limit && this.queue.length === 0) return Promise.resolve(this.grant());
    return new Promise<LimiterSlot>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = (reason: unknown) => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(reason);
      };
      const onAbort = () => leave(signal!.reason);
      const waiter: Waiter = {
        resolve: (slot) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
        reject,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline !== undefined) timer = setTimeout(() => leave(new SlotWaitExpired(this.limit, this.max)), Math.max(0, deadline - this.now()));
      if (first) this.queue.unshift(waiter);
      else this.queue.push(waiter);
    });
  }

  private grant(): LimiterSlot {
    this.active++;
    let released = false;
    return {
      release: (outcome) => {
        if (released) return;
        released = true;
        this.active--;
        this.learn(outcome);
        this.drain();
      },
    };
  }

  private learn(outcome: SlotOutcome): void {
    if (outcome === 'ok') {
      this.current = Math.min(this.max, this.current + 1 / this.current);
    } else if (outcome === 'rate_limited') {
      const now = this.now();
      if (now - this.lastCut >= this.cooldownMs) {
        this.current = Math.max(1, this.current * this.decrease);
        this.lastCut = now;
      }
    }
  }

  private drain(): void {
    while (this.active < this.limit && this.queue.length > 0) this.queue.shift()!.resolve(this.grant());
  }
}

/** One limiter per endpoint (origin and path of the base URL), all with the same ceiling. */
export class EndpointLimiters {
  private readonly byEndpoint = new Map<string, EndpointLimiter>();
  constructor(private readonly options: EndpointLimiterOptions) {}

  for(url: string): EndpointLimiter {
    const parsed = new URL(url);
    const key = `${parsed.origin}${parsed.pathname}`;
    let limiter = this.byEndpoint.get(key);
    if (!limiter) this.byEndpoint.set(key, (limiter = new EndpointLimiter(this.options)));
    return limiter;
  }
}
