#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm ci` (the prepare script) or `npm run build`.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// A long run allocates far more than it keeps (its live heap stays flat, see docs/runs.md#memory);
// V8's default lets the old space grow to several times the live size before collecting. A growth
// factor of 1.2 keeps peak memory near what the run holds, at little CPU cost. V8 reads this flag
// whenever it sizes the heap, so setting it here, before any work, takes effect.
if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent'))) setFlagsFromString('--heap-growing-percent=20');

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('tracegate is not built yet: run `npm ci` (or `npm run build`) in the tracegate folder first.\n');
  process.exit(3);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
