/**
 * npm run bench (part 2) — orchestration throughput, CPU and memory of a live run, each as a ratio.
 * One loopback OpenAI-compatible server (its own process, LATENCY_MS per request) serves, in the
 * same run and one after the other, tracegate (the CLI as a child process, a live provider:
 * --model x --base-url http://127.0.0.1:PORT/v1) and a bare `fetch` client (bench/bareClient.ts).
 *   A. N=1000, -j 50, a one-tool-call loop (2 requests a task): wall time against the ideal.
 *   B. N=10,000, -j 200, one request a task: wall time against the bare client.
 *   CPU ms per model request and peak RSS of the tracegate process at 1,000 and 10,000 tasks.
 * Each timed figure is the best of BENCH_REPEATS (default 2) runs: the machine may be shared.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST_BENCH = path.join(ROOT, 'dist/bench');
const LATENCY_MS = Number(process.env['BENCH_LATENCY_MS'] ?? 100);
const REPEATS = Math.max(1, Number(process.env['BENCH_REPEATS'] ?? 2));

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

/** Runs `node --import resourceProbe args`, timing it from spawn to exit. */
function measure(args: string[], dir: string): Promise<Measured> {
  const probe = path.join(dir, `probe-${process.hrtime.bigint()}.json`);
  const env: NodeJS.ProcessEnv = { ...process.env, TRACEGATE_BENCH_PROBE: probe };
  delete env['OPENAI_API_KEY'];
  delete env['OPENAI_BASE_URL'];
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', path.join(DIST_BENCH, 'resourceProbe.js'), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const wall = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`${args.slice(0, 3).join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
      const usage = JSON.parse(readFileSync(probe, 'utf8')) as { cpu_ms: number; max_rss_kb: number };
      resolve({ wall_s: wall, cpu_ms: usage.cpu_ms, max_rss_mb: usage.max_rss_kb / 1024 });
    });
  });
}

function suite(dir: string, name: string, count: number, toolLoop: boolean): string {
  const file = path.join(dir, `${name}.jsonl`);
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ id: `t${i}`, prompt: `${toolLoop ? '[tool] ' : ''}What is 2 + 2? (task ${i})`, expected_contains: ['4'], max_steps: 3 }),
  );
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const best = (runs: Measured[]): Measured => runs.reduce((a, b) => (b.wall_s < a.wall_s ? b : a));
const fixed = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-throughput-'));
  const server = await startServer();
  const cli = path.join(ROOT, 'bin/tracegate.js');
  let outs = 0;
  const tracegate = (file: string, concurrency: number) =>
    measure([cli, 'run', file, '--model', 'x', '--base-url', server.baseUrl, '-j', String(concurrency), '--out', path.join(dir, `out${++outs}`), '-q'], dir);
  const bare = (count: number, concurrency: number, toolLoop: boolean) =>
    measure([path.join(DIST_BENCH, 'bareClient.js'), server.baseUrl, String(count), String(concurrency), toolLoop ? '1' : '0'], dir);
  try {
    console.log(`\n4. live-run throughput against a loopback OpenAI-compatible server (${LATENCY_MS} ms a request, its own process), best of ${REPEATS}`);
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
    const a = best(runsA);
    const b = best(runsB);
    const idealA = Math.ceil(1000 / 50) * 2 * (LATENCY_MS / 1000);
    const idealB = Math.ceil(10_000 / 200) * (LATENCY_MS / 1000);
    // CPU: the least any repeat used (contention only ever adds), over the model requests made.
    const minCpu = (runs: Measured[]) => Math.min(...runs.map((r) => r.cpu_ms));
    const cpuA = minCpu(runsA) / 2000;
    const cpuB = minCpu(runsB) / 10_000;
    const netA = (minCpu(runsA) - startup.cpu_ms) / 2000;
    const netB = (minCpu(runsB) - startup.cpu_ms) / 10_000;
    const bareCpuA = minCpu(bareA) / 2000;
    const bareCpuB = minCpu(bareB) / 10_000;
    const rows: Array<[string, string, string, string]> = [
      ['N=1000 -j 50, tool loop (2 requests a task): wall vs ideal', `${fixed(a.wall_s)} s vs ${fixed(idealA)} s (bare fetch ${fixed(best(bareA).wall_s)} s)`, fixed(a.wall_s / idealA), '≤ 1.25'],
      ['N=10,000 -j 200 (1 request a task): wall vs bare fetch client', `${fixed(b.wall_s)} s vs ${fixed(best(bareB).wall_s)} s (ideal ${fixed(idealB)} s)`, fixed(b.wall_s / best(bareB).wall_s), '≤ 1.5'],
      ['CPU per model request, N=1000 tool loop (whole CLI process)', `${fixed(cpuA)} ms (net of start-up ${fixed(netA)} ms; bare fetch ${fixed(bareCpuA)} ms)`, fixed(cpuA / 1.5), '≤ 1 (1.5 ms)'],
      ['CPU per model request, N=10,000 (whole CLI process)', `${fixed(cpuB)} ms (net of start-up ${fixed(netB)} ms; bare fetch ${fixed(bareCpuB)} ms)`, fixed(cpuB / 1.5), '≤ 1 (1.5 ms)'],
      ['CPU per model request against the bare fetch client, N=10,000', `${fixed(cpuB)} ms vs ${fixed(bareCpuB)} ms`, fixed(cpuB / bareCpuB), '(none set)'],
      ['peak RSS, 1,000 tasks', `${fixed(Math.max(...runsA.map((r) => r.max_rss_mb)), 0)} MB`, fixed(Math.max(...runsA.map((r) => r.max_rss_mb)) / 150), '≤ 1 (150 MB)'],
      ['peak RSS, 10,000 tasks', `${fixed(Math.max(...runsB.map((r) => r.max_rss_mb)), 0)} MB`, fixed(Math.max(...runsB.map((r) => r.max_rss_mb)) / 200), '≤ 1 (200 MB)'],
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
