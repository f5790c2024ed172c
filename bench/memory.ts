/**
 * npm run bench (memory part) — peak RSS of `tracegate run` against its targets:
 * ≤150 MB at 1,000 tasks, ≤200 MB at 10,000, ≤400 MB at 100,000.
 *
 * Agent tasks (no policy tasks: every one is a model call) against a zero-latency OpenAI-compatible
 * server on loopback, in this process; the CLI runs as a child under GNU time, which reports the
 * whole process's peak RSS as the kernel kept it (bench/processUsage.ts), report phase included.
 * BENCH_MEMORY_SIZES=1000,10000 picks sizes; by default each size is measured with every report
 * (report.html included) and with --no-html.
 */
import { mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMeasured } from './processUsage.js';
import { BENCH_CLI } from './benchCli.js';
import { startInstantServer } from './instantServer.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TARGET_MB: Record<number, number> = { 1000: 150, 10000: 200, 100000: 400 };

async function writeSuite(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i++) {
    const line = JSON.stringify({ id: `mem_${i}`, prompt: `Say ok (${i}).`, expected_contains: ['ok'], max_steps: 2, tags: [`group_${i % 20}`] }) + '\n';
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
}

async function measure(count: number, url: string, html: boolean): Promise<{ peakMb: number; seconds: number; code: number | null }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-memory-'));
  const suite = path.join(dir, 'suite.jsonl');
  await writeSuite(suite, count);
  const args = [BENCH_CLI, 'run', suite, '--model', 'bench', '--base-url', url, '-j', '50', '--out', path.join(dir, 'out'), '-q', ...(html ? [] : ['--no-html'])];
  const usage = await runMeasured(process.execPath, args, { env: { ...process.env, OPENAI_API_KEY: 'bench' } });
  if (usage.code !== 0) console.log(usage.stderr.slice(-2000));
  const { max_rss_mb: peakMb, wall_s: seconds, code } = usage;
  rmSync(dir, { recursive: true, force: true });
  return { peakMb, seconds, code };
}

const sizes = (process.env['BENCH_MEMORY_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const TARGET_NO_HTML_MB: Record<number, number> = { 100000: 300 };
const server = await startInstantServer();
console.log('4. memory: peak RSS of the whole `tracegate run` process (GNU time), agent tasks against a zero-latency loopback server, -j 50');
console.log('   | tasks | reports | peak RSS | target | ratio | wall | exit |');
console.log('   | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
for (const count of sizes) {
  for (const html of [true, false]) {
    const { peakMb, seconds, code } = await measure(count, server.url, html);
    const target = html ? TARGET_MB[count] : (TARGET_NO_HTML_MB[count] ?? TARGET_MB[count]);
    const ratio = target ? (peakMb / target).toFixed(2) : 'n/a';
    console.log(`   | ${count.toLocaleString()} | ${html ? 'all' : '--no-html'} | ${peakMb.toFixed(0)} MB | ${target ? `${target} MB` : '—'} | ${ratio}${target && peakMb <= target ? ' ✓' : ''} | ${seconds.toFixed(1)} s | ${code} |`);
  }
}
server.close();
