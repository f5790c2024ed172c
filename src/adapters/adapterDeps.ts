import type { ErrorPattern } from '../capture/trafficSpans.js';
import type { VolatileMask } from '../capture/cassetteNormalize.js';
import type { Redactor } from '../schema/redact.js';

/** What every adapter is built with besides its plan (createAdapter, createExternalAdapter). */
export interface AdapterDeps {
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  /** Values that must never reach an external agent (the upstream key). */
  secrets: string[];
  errorPatterns?: ErrorPattern[];
  /** The suites' masking patterns for volatile values in tool output (cassette keys). */
  maskPatterns?: VolatileMask[];
  cwd?: string;
  /** The run's -j: the ceiling of requests in flight to one model endpoint. */
  concurrency?: number;
}
