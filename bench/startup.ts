/**
 * npm run bench (start-up part): `tracegate --version` and `tracegate --help` against their floors,
 * measured in the same run, alternating: `node -e 0` (starting Node at all) and Node importing
 * commander, the command-line parser every start needs. Each figure is the median of the runs,
 * wall time from spawn to exit and CPU from GNU time, with the spread and the load average.
 * BENCH_STARTUP_RUNS sets the number of runs of each (default 15).
 */
import { existsSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_CLI } from './benchCli.js';
import { median, runMeasured, spread, type ProcessUsage } from './processUsage.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNS = Number(process.env['BENCH_STARTUP_RUNS'] ?? 15);

const COMMANDS: Array<{ name: string; args: string[] }> = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'node importing commander', args: ['--input-type=module', '-e', "await import('commander')"] },
  { name: 'tracegate --version', args: [BENCH_CLI, '--version'] },
  { name: 'tracegate --help', args: [BENCH_CLI, '--help'] },
  { name: 'tracegate run --help', args: [BENCH_CLI, 'run', '--help'] },
];

const load = loadavg()[0]!.toFixed(2);
// bin/tracegate.js passes over a bundle older than the compiled files (a `tsc` alone since): say so,
// since the start then loads every module on its own and is measured slower than a user's.
const cliRoot = path.resolve(path.dirname(BENCH_CLI), '..');
const bundle = path.join(cliRoot, 'dist/bundle/main.js');
const compiled = path.join(cliRoot, 'dist/src/cli/main.js');
if (!existsSync(bundle) || statSync(bundle).mtimeMs < statSync(compiled).mtimeMs) {
  console.log(`   (${bundle} is missing or older than the compiled CLI: these figures are of the unbundled files; npm run build makes it)`);
}
const runs = new Map<string, ProcessUsage[]>(COMMANDS.map((c) => [c.name, []]));
// Alternating, so a change in the machine's speed during the run falls on every command alike.
for (let i = 0; i < RUNS; i++) {
  for (const { name, args } of COMMANDS) {
    const usage = await runMeasured(process.execPath, args, { cwd: ROOT });
    if (usage.code !== 0) throw new Error(`${name} exited ${usage.code}: ${usage.stderr.slice(-500)}`);
    runs.get(name)!.push(usage);
  }
}

const floor = median(runs.get('node -e 0')!.map((u) => u.wall_s));
console.log(`0. start-up: medians of ${RUNS} alternating runs each (load ${load} at the start), against starting Node (node -e 0)`);
console.log('   | command | wall | against node -e 0 | over it | CPU | peak RSS |');
console.log('   | --- | ---: | ---: | ---: | ---: | ---: |');
for (const { name } of COMMANDS) {
  const usages = runs.get(name)!;
  const walls = usages.map((u) => u.wall_s);
  const wall = median(walls);
  const overMs = Math.round((wall - floor) * 1000);
  const over = name === 'node -e 0' ? '—' : `${overMs >= 0 ? '+' : '−'}${Math.abs(overMs)} ms`;
  console.log(`   | ${name} | ${spread(walls)} s | ${(wall / floor).toFixed(2)}× | ${over} | ${median(usages.map((u) => u.cpu_ms)).toFixed(0)} ms | ${median(usages.map((u) => u.max_rss_mb)).toFixed(0)} MB |`);
}
