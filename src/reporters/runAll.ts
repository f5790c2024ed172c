import type { RunReport } from '../schema/report.js';
import type { LiveEvent, LiveHook, Reporter } from './types.js';

/**
 * Fans each run event out to every reporter, isolating them: a reporter that throws is recorded
 * (once per hook, with how often) and the others still get the event and still write.
 */
export class Reporters {
  private readonly failed = new Map<string, { message: string; times: number }>();

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

  /** Every reporter's artifact from the finished report; one that throws costs only its own file. */
  async runEnd(report: RunReport, outDir: string): Promise<string[]> {
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
