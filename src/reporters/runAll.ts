import type { StreamedReport } from '../report/taskRows.js';
import type { LiveEvent, LiveHook, Reporter, TraceStoredEvent } from './reporter.js';

/**
 * Fans each run event out to every reporter, isolating them: a reporter that throws is recorded
 * (once per hook, with how often) and the others still get the event and still write.
 */
export class Reporters {
  private readonly failed = new Map<string, { message: string; times: number }>();
  /** Which reporter asked for each trace being packed (onTraceStored), to hand it back to. */
  private readonly packing = new Map<string, Reporter>();

  constructor(private readonly list: readonly Reporter[]) {}

  emit<K extends LiveHook>(hook: K, ...event: LiveEvent<K>): void {
    for (const reporter of this.list) {
      const handler = reporter[hook] as ((...args: LiveEvent<K>) => void) | undefined;
      if (!handler) continue;
      try {
        handler.apply(reporter, event);
      } catch (error) {
        this.fail(reporter, hook, error);
      }
    }
  }

  /** The JSON text the first reporter that wants a copy of this stored trace asks to have packed, or null. */
  traceStored(event: TraceStoredEvent): string | null {
    for (const reporter of this.list) {
      if (!reporter.onTraceStored) continue;
      try {
        const json = reporter.onTraceStored(event);
        if (json === null) continue;
        this.packing.set(event.file, reporter);
        return json;
      } catch (error) {
        this.fail(reporter, 'onTraceStored', error);
      }
    }
    return null;
  }

  /** Hands a packed trace back to the reporter that asked for it. */
  tracePacked(file: string, packed: string): void {
    const reporter = this.packing.get(file);
    if (!reporter) return;
    this.packing.delete(file);
    try {
      reporter.onTracePacked?.(file, packed);
    } catch (error) {
      this.fail(reporter, 'onTracePacked', error);
    }
  }

  /** Every reporter's artifact from the finished report; one that throws costs only its own file. */
  async runEnd(report: StreamedReport, outDir: string): Promise<string[]> {
    const written: string[] = [];
    for (const reporter of this.list) {
      if (!reporter.onRunEnd) continue;
      try {
        const file = await reporter.onRunEnd(report, outDir);
        if (file) written.push(file);
      } catch (error) {
        this.fail(reporter, 'onRunEnd', error);
      }
    }
    return written;
  }

  /** `json (onRunEnd): disk full`, one line per reporter and hook that failed. */
  failures(): string[] {
    return [...this.failed].map(([where, f]) => `${where}: ${f.message}${f.times > 1 ? ` (${f.times} times)` : ''}`);
  }

  private fail(reporter: Reporter, hook: string, error: unknown): void {
    const where = `${reporter.name} (${hook})`;
    const seen = this.failed.get(where);
    if (seen) seen.times++;
    else this.failed.set(where, { message: error instanceof Error ? error.message : String(error), times: 1 });
  }
}
