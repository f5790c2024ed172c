#!/usr/bin/env node
// The CLI is compiled to dist/ by `npm ci` (the prepare script) or `npm run build`.
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv);
