/**
 * npm run bench (part 2) — orchestration throughput, CPU and memory of a live run, each as a ratio.
 * One loopback OpenAI-compatible server (its own process, LATENCY_MS per request) serves, in the
 * same run and one after the other, tracegate (the CLI as a child process, a live provider:
 * --model x --base-url http://127.0.0.1:PORT/v1) and a bare `fetch` client (bench/bareClient.ts).
 *   A. N=1000, -j 50, a one-tool-call loop (2 requests a task): wall time against the ideal.
 *   B. N=10,000, -j 200, one request a task: wall time against the bare client.
 *   CPU ms per model request and peak RSS of the tracegate process at 1,000 and 10,000 tasks.
 * Every figure is the median of BENCH_REPEATS (default 3) paired runs, tracegate and the bare client
 * alternating, with the spread (lowest–highest); CPU and peak RSS are the kernel's accounting of the
 * whole process (GNU time, bench/processUsage.ts), and the load average is printed beside them.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, runMeasured, spread } from './processUsage.js';
import { BENCH_CLI } from './benchCli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST_BENCH = path.join(ROOT, 'dist/bench');
const LATENCY_MS = Number(process.env['BENCH_LATENCY_MS'] ?? 100);
const REPEATS = Math.max(1, Number(process.env['BENCH_REPEATS'] ?? 3));

interface Measured {
  wall_s: number;
  cpu_ms: number;
  max_rss_mb: number;
}

function startServer(): Promise<{ baseUrl: string; stop: () => void }> {
  const child = spawn(process.execPath, [path.join(DIST_BENCH, 'loopbackServer.js'), String(LATENCY_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (chunk: Buffer) =>
      resolve({ baseUrl: `http://127.0.0.1:${chunk.toString().trim()}/v1`, stop: () => child.kill('SIGTERM') }),
    );
  });
}

/** Runs `node args` under GNU time: wall from spawn to exit, CPU and peak RSS of the whole process. */
async function measure(args: string[]): Promise<Measured> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['OPENAI_API_KEY'];
  delete env['OPENAI_BASE_URL'];
  const usage = await runMeasured(process.execPath, args, { cwd: ROOT, env });
  if (usage.code !== 0) throw new Error(`${args.slice(0, 3).join(' ')} exited ${usage.code}: ${usage.stderr.slice(-2000)}`);
  return { wall_s: usage.wall_s, cpu_ms: usage.cpu_ms, max_rss_mb: usage.max_rss_mb };
}

function suite(dir: string, name: string, count: number, toolLoop: boolean): string {
  const file = path.join(dir, `${name}.jsonl`);
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `t${i}`, prompt: `${toolLoop ? '[tool] ' : ''}What is 2 + 2? (task ${i})`, expected_contains: ['4'], max_steps: 3 }),
  );
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const walls = (runs: Measured[]) => runs.map((r) => r.wall_s);
const fixed = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-throughput-'));
  const server = await startServer();
  const cli = BENCH_CLI;
  let outs = 0;
  const tracegate = (file: string, concurrency: number) =>
    measure([cli, 'run', file, '--model', 'x', '--base-url', server.baseUrl, '-j', String(concurrency), '--out', path.join(dir, `out${++outs}`), '-q']);
  const bare = (count: number, concurrency: number, toolLoop: boolean) =>
    measure([path.join(DIST_BENCH, 'bareClient.js'), server.baseUrl, String(count), String(concurrency), toolLoop ? '1' : '0']);
  try {
    console.log(`\n4. live-run throughput against a loopback OpenAI-compatible server (${LATENCY_MS} ms a request, its own process), median of ${REPEATS} paired runs (lowest–highest)`);
    const loop = suite(dir, 'loop1000', 1000, true);
    const direct = suite(dir, 'direct10000', 10_000, false);
    const single = suite(dir, 'single', 1, false);
    const load = loadavg()[0]!;
    const startup = await tracegate(single, 1);

    const runsA: Measured[] = [];
    const bareA: Measured[] = [];
    const runsB: Measured[] = [];
    const bareB: Measured[] = [];
    for (let i = 0; i < REPEATS; i++) {
      bareA.push(await bare(1000, 50, true));
      runsA.push(await tracegate(loop, 50));
      bareB.push(await bare(10_000, 200, false));
      runsB.push(await tracegate(direct, 200));
    }
    const idealA = Math.ceil(1000 / 50) * 2 * (LATENCY_MS / 1000);
    // Each repeat pairs a tracegate run with the bare client run just before it: the ratio is taken per pair.
    const pairRatios = (runs: Measured[], floor: Measured[], figure: (m: Measured) => number) => runs.map((r, i) => figure(r) / figure(floor[i]!));
    const cpuPer = (requests: number) => (m: Measured) => m.cpu_ms / requests;
    const rss = (runs: Measured[]) => runs.map((r) => r.max_rss_mb);
    const rows: Array<[string, string, string, string]> = [
      ['N=1000 -j 50, tool loop (2 requests a task): wall vs ideal', `${spread(walls(runsA))} s vs ${fixed(idealA)} s (bare fetch ${spread(walls(bareA))} s)`, spread(walls(runsA).map((w) => w / idealA)), '≤ 1.25'],
      ['N=1000 -j 50, tool loop: wall vs bare fetch client', `${spread(walls(runsA))} s vs ${spread(walls(bareA))} s`, spread(pairRatios(runsA, bareA, (m) => m.wall_s)), '≤ 1.15'],
      ['N=10,000 -j 200 (1 request a task): wall vs bare fetch client', `${spread(walls(runsB))} s vs ${spread(walls(bareB))} s`, spread(pairRatios(runsB, bareB, (m) => m.wall_s)), '≤ 1.15'],
      ['CPU per model request, N=1000 tool loop, against the bare client', `${spread(runsA.map(cpuPer(2000)))} ms vs ${spread(bareA.map(cpuPer(2000)))} ms`, spread(pairRatios(runsA, bareA, cpuPer(2000))), '≤ 1.2'],
      ['CPU per model request, N=10,000, against the bare client', `${spread(runsB.map(cpuPer(10_000)))} ms vs ${spread(bareB.map(cpuPer(10_000)))} ms`, spread(pairRatios(runsB, bareB, cpuPer(10_000))), '≤ 1.2'],
      ['peak RSS, 1,000 tasks (every report)', `${spread(rss(runsA), 0)} MB`, fixed(median(rss(runsA)) / 150), '≤ 1 (150 MB)'],
      ['peak RSS, 10,000 tasks (every report)', `${spread(rss(runsB), 0)} MB`, fixed(median(rss(runsB)) / 200), '≤ 1 (200 MB)'],
    ];
    console.log(`   load average (1 min) at the start: ${load.toFixed(1)} on ${cpus().length} cores; at the end: ${loadavg()[0]!.toFixed(1)}`);
    console.log(`   CLI start-up with one task and every report: ${fixed(startup.wall_s)} s wall, ${fixed(startup.cpu_ms, 0)} ms CPU, ${fixed(startup.max_rss_mb, 0)} MB`);
    console.log('\n| figure | measured | ratio | target |\n| --- | --- | --- | --- |');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    console.log(`\n   all runs (wall s / CPU ms / RSS MB): ${[
      ['bare A', bareA], ['tracegate A', runsA], ['bare B', bareB], ['tracegate B', runsB],
    ].map(([label, runs]) => `${label as string} ${(runs as Measured[]).map((r) => `${fixed(r.wall_s)}/${fixed(r.cpu_ms, 0)}/${fixed(r.max_rss_mb, 0)}`).join(', ')}`).join('; ')}`);
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const only = process.env['BENCH_ONLY'];
if (!only || only === 'throughput') await main();
