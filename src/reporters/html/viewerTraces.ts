import type { Trace } from '../../schema/trace.js';
import { packTrace } from './compactTrace.js';
import { DEFAULT_MAX_EMBEDDED_TRACES, DEFAULT_TRACE_BUDGET } from './renderHtml.js';

/**
 * Traces packed for report.html while the run stores them, so the page need not read, validate
 * and compress each one again after the last trial: on a 1,000-task run that was most of the time
 * between the last trial and the exit (docs/performance.md). Bounded like the page itself (at most
 * as many traces and bytes as it embeds); a trace not kept here is read from its file as before,
 * so the page is the same either way.
 */
export class ViewerTraces {
  private readonly packed = new Map<string, string>();
  private bytes = 0;

  constructor(
    private readonly maxTraces = DEFAULT_MAX_EMBEDDED_TRACES,
    private readonly maxBytes = DEFAULT_TRACE_BUDGET,
  ) {}

  /** Packs `trace` (valid, redacted: as stored at `file`) while there is room. */
  offer(file: string, trace: Trace): void {
    if (this.packed.size >= this.maxTraces || this.bytes >= this.maxBytes) return;
    let packed: string;
    try {
      packed = packTrace(trace);
    } catch {
      // Not a shape the page can show: left to its file, which the page skips as it always has.
      return;
    }
    this.packed.set(file, packed);
    this.bytes += packed.length;
  }

  get(file: string): string | undefined {
    return this.packed.get(file);
  }
}
