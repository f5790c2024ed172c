#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm ci` (the prepare script) or `npm run build`.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// A long run allocates far more than it keeps (its live heap stays flat, see docs/runs.md#memory);
// V8's default lets the old space grow to several times the live size before collecting. A growth
// factor of 1.2 keeps peak memory near what the run holds, at little CPU cost. V8 reads this flag
// whenever it sizes the heap, so setting it here, before any work, takes effect.
if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent'))) setFlagsFromString('--heap-growing-percent=20');

// `tracegate --version` answers from package.json (where src/files/packageFiles.ts reads it too)
// without loading the CLI: a version check in a CI script should cost no more than starting Node.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}

const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(compiled)) {
  process.stderr.write('tracegate is not built yet: run `npm ci` (or `npm run build`) in the tracegate folder first.\n');
  process.exit(3);
}
// The bundle of the same code (scripts/bundleCli.mjs) starts in half the time; a bundle older than
// the compiled files (a `tsc` alone since) is stale and is passed over.
const bundle = new URL('../dist/bundle/main.js', import.meta.url);
const fresh = existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(compiled).mtimeMs;
const { main } = await import((fresh ? bundle : compiled).href);
process.exitCode = await main(process.argv);
