/**
 * The CLI the benchmarks run: this checkout's `bin/tracegate.js`, or another build's named by
 * TRACEGATE_BENCH_CLI (for example a worktree of an older commit, built), so that two versions are
 * measured by the same method on the same machine.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const chosen = process.env['TRACEGATE_BENCH_CLI'];

export const BENCH_CLI = chosen ? path.resolve(chosen) : path.join(ROOT, 'bin/tracegate.js');

if (chosen) {
  if (!existsSync(BENCH_CLI)) throw new Error(`TRACEGATE_BENCH_CLI=${chosen}: no such file (give another checkout's bin/tracegate.js, built)`);
  console.log(`   (measuring the CLI at ${BENCH_CLI}, from TRACEGATE_BENCH_CLI)`);
}
