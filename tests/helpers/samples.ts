import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.js';

/** shared/samples/traces: real files from five tools; shared/ sits beside the checkout. */
export const SAMPLES = ['../shared', '../../shared'].map((p) => path.resolve(ROOT, p, 'samples/traces')).find((p) => existsSync(p)) ?? path.resolve(ROOT, '../shared/samples/traces');
export const FIXTURES = path.join(ROOT, 'tests/fixtures/traces');
