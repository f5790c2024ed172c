import type { RunReport } from '../schema/report.js';

/** Reporters read a finished report and write one artifact; they never decide anything. */
export interface Reporter {
  readonly name: string;
  write(report: RunReport, outDir: string): Promise<string | null>;
}
