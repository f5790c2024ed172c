import type { Trace } from '../../schema/trace.js';
import { viewerTraceJson } from './compactTrace.js';
import { packJson } from '../../files/packJson.js';
import { RUN_DEFAULTS } from '../../schema/runDefaults.js';

/**
 * Traces packed for report.html while the run stores them, so the page need not read, validate
 * and compress each one again after the last trial: on a 1,000-task run that was most of the time
 * between the last trial and the exit (docs/performance.md). Bounded like the page itself (at most
 * as many traces and about as many bytes as it embeds); a trace not kept here is read from its file
 * as before, so the page is the same either way.
 *
 * A run claims a trace here (its compact JSON, made on the main thread) and has the trial writer's
 * thread compress it (packJson), which hands the result back to `add`; `offer` does both in place.
 */
export class ViewerTraces {
  private readonly packed = new Map<string, string>();
  private claimed = 0;
  private bytes = 0;

  constructor(
    private readonly maxTraces: number = RUN_DEFAULTS.maxEmbeddedTraces,
    private readonly maxBytes: number = RUN_DEFAULTS.traceBudgetBytes,
  ) {}

  /**
   * The compact JSON of `trace` (valid and redacted, as stored) to be packed and added, or null when
   * there is no more room. Traces still being packed elsewhere are counted against the trace limit
   * but not yet against the byte budget, so the bytes kept may pass it by those few.
   */
  claim(trace: Trace): string | null {
    if (this.claimed >= this.maxTraces || this.bytes >= this.maxBytes) return null;
    try {
      const json = viewerTraceJson(trace);
      this.claimed++;
      return json;
    } catch {
      // Not a shape the page can show: left to its file, which the page skips as it always has.
      return null;
    }
  }

  /** Keeps `packed` (packJson of what `claim` returned) as the page's copy of the trace at `file`. */
  add(file: string, packed: string): void {
    this.packed.set(file, packed);
    this.bytes += packed.length;
  }

  /** Claims and packs `trace` (as stored at `file`) here and now, while there is room. */
  offer(file: string, trace: Trace): void {
    const json = this.claim(trace);
    if (json !== null) this.add(file, packJson(json));
  }

  get(file: string): string | undefined {
    return this.packed.get(file);
  }
}
