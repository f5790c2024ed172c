/**
 * npm run bench (memory part) — peak RSS of `tracegate run` against its targets:
 * ≤150 MB at 1,000 tasks, ≤200 MB at 10,000, ≤400 MB at 100,000.
 *
 * Agent tasks (no policy tasks: every one is a model call) against a zero-latency OpenAI-compatible
 * server on loopback, in this process; the CLI runs as a child whose peak RSS (getrusage maxrss)
 * is reported by a preloaded exit hook. BENCH_MEMORY_SIZES=1000,10000 picks sizes; BENCH_MEMORY_HTML=1
 * also writes report.html (its size at 100k is the HTML report's own concern).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TARGET_MB: Record<number, number> = { 1000: 150, 10000: 200, 100000: 400 };

function startServer(): Promise<{ url: string; close: () => void; requests: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      const body = JSON.stringify({
        id: `c${count}`, object: 'chat.completion', created: 0, model: 'bench',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok, done', refusal: null }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 50, completion_tokens: 3, total_tokens: 53 },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close(), requests: () => count }),
    ),
  );
}

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
  const hook = path.join(dir, 'peak.cjs');
  writeFileSync(hook, "process.on('exit', () => require('fs').writeSync(2, '\\npeak_rss_kb=' + process.resourceUsage().maxRSS + '\\n'));\n");
  const started = performance.now();
  const args = [path.join(ROOT, 'bin/tracegate.js'), 'run', suite, '--model', 'bench', '--base-url', url, '-j', '50', '--out', path.join(dir, 'out'), '-q', ...(html ? [] : ['--no-html'])];
  const child = spawn(process.execPath, ['--require', hook, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENAI_API_KEY: 'bench' } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const seconds = (performance.now() - started) / 1000;
  const kb = Number(/peak_rss_kb=(\d+)/.exec(stderr)?.[1] ?? NaN);
  if (!Number.isFinite(kb)) console.log(stderr.slice(-2000));
  rmSync(dir, { recursive: true, force: true });
  return { peakMb: kb / 1024, seconds, code };
}

const sizes = (process.env['BENCH_MEMORY_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const html = process.env['BENCH_MEMORY_HTML'] === '1';
const server = await startServer();
console.log(`4. memory: peak RSS of \`tracegate run\` (a child process), agent tasks against a zero-latency loopback server, -j 50${html ? '' : ', --no-html'}`);
console.log('   | tasks | peak RSS | target | ratio | wall | exit |');
console.log('   | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const count of sizes) {
  const { peakMb, seconds, code } = await measure(count, server.url, html);
  const target = TARGET_MB[count];
  const ratio = target ? (peakMb / target).toFixed(2) : 'n/a';
  console.log(`   | ${count.toLocaleString()} | ${peakMb.toFixed(0)} MB | ${target ? `${target} MB` : '—'} | ${ratio}${target && peakMb <= target ? ' ✓' : ''} | ${seconds.toFixed(1)} s | ${code} |`);
}
server.close();
