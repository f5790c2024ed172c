/**
 * The least wall time any client can take for the provider-faults bench: N one-request tasks,
 * J requests on the wire, every request LATENCY s, and a share of requests answered at once with a
 * 429 whose Retry-After (plus up to 10% jitter, as tracegate adds) must pass before the retry. No
 * start-up, no CPU, unlimited waiting trials, each free slot taken by the request ready first.
 * It shows what the 429s alone cost: a trial that draws two 429s in a row late in the run ends
 * two seconds after everything else, whatever the client does.
 */
import { rng } from './seededRandom.js';

class MinHeap {
  private readonly items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  push(value: number): void {
    const a = this.items;
    a.push(value);
    for (let i = a.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= a[i]!) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]! < a[m]!) m = l;
        if (r < a.length && a[r]! < a[m]!) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}

export interface FloorParams {
  tasks: number;
  concurrency: number;
  latencyS: number;
  rate429: number;
  retryAfterS: number;
}

/** One simulated run's wall time, in seconds. */
export function simulateFloor(p: FloorParams, seed: number): number {
  const random = rng(seed);
  const ready = new MinHeap();
  const slots = new MinHeap();
  for (let i = 0; i < p.tasks; i++) ready.push(0);
  for (let i = 0; i < p.concurrency; i++) slots.push(0);
  let end = 0;
  while (ready.size > 0) {
    const start = Math.max(ready.pop(), slots.pop());
    if (random() < p.rate429) {
      slots.push(start);
      ready.push(start + p.retryAfterS * (1 + 0.1 * random()));
    } else {
      slots.push(start + p.latencyS);
      end = Math.max(end, start + p.latencyS);
    }
  }
  return end;
}

/** Mean and 90th percentile over `runs` seeds. */
export function floorStats(p: FloorParams, runs = 200): { mean: number; p90: number } {
  const ends = Array.from({ length: runs }, (_, i) => simulateFloor(p, i + 1)).sort((a, b) => a - b);
  return { mean: ends.reduce((s, e) => s + e, 0) / runs, p90: ends[Math.floor(runs * 0.9)]! };
}
