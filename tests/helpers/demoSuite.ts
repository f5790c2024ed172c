import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './cli.js';

/** How many tasks suites/demo.jsonl holds, read from the suite so a new demo task does not break every count. */
export const DEMO_TASKS = readFileSync(path.join(ROOT, 'suites/demo.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() && !line.trimStart().startsWith('{"suite"')).length;

/** The demo's tasks that fail on purpose (cut off at their step limit, an incomplete answer, a missing file never recovered). */
export const DEMO_FAILING = 3;
