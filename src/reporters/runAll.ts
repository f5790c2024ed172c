import type { RunReport } from '../schema/report.js';
import type { Reporter } from './types.js';

/** Runs every reporter; one that throws is reported and the others still write. */
export async function runReporters(reporters: Reporter[], report: RunReport, outDir: string): Promise<{ written: string[]; failures: string[] }> {
  const written: string[] = [];
  const failures: string[] = [];
  for (const reporter of reporters) {
    try {
      const file = await reporter.write(report, outDir);
      if (file) written.push(file);
    } catch (error) {
      failures.push(`${reporter.name}: ${(error as Error).message}`);
    }
  }
  return { written, failures };
}
