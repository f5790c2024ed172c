#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm ci` (the prepare script) or `npm run build`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('tracegate is not built yet: run `npm ci` (or `npm run build`) in the tracegate folder first.\n');
  process.exit(3);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv);
