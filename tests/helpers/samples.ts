import path from 'node:path';
import { ROOT } from './cli.js';

/** Real files from five tools, copied with their origin and licence (tests/fixtures/samples/README.md). */
export const SAMPLES = path.join(ROOT, 'tests/fixtures/samples');
export const FIXTURES = path.join(ROOT, 'tests/fixtures/traces');
