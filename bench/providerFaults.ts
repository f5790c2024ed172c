/**
 * npm run bench — provider faults: N tasks at -j J against a loopback OpenAI-compatible server with
 * 100 ms latency, once clean and once with 10% of requests answered 429 (Retry-After: 1 s). The
 * target: with the 429s, ≤ 1.3× the clean run and 0 errored tasks. Reported as ratios, and
 * against the floor any client that honours Retry-After has (bench/retryAfterFloor.ts).
 * Two shapes: the target's, 1,000 tasks (a 2 s run, where the waits alone cost 2.1×), and 10,000
 * tasks (a 20 s run, where they cost 1.1×, so the bar can be met).
 *   BENCH_FAULT_TASKS and BENCH_FAULT_J: one shape instead (J defaults to 50)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { floorStats } from './retryAfterFloor.js';
import { rng } from './seededRandom.js';
import { BENCH_CLI } from './benchCli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const J = Number(process.env['BENCH_FAULT_J'] ?? 50);
const SHAPES = process.env['BENCH_FAULT_TASKS'] ? [Number(process.env['BENCH_FAULT_TASKS'])] : [1000, 10_000];
const LATENCY_MS = 100;

/** A chat-completions server that answers after LATENCY_MS, and 429s a share of requests. */
async function server(rate429: number): Promise<{ url: string; counts: { requests: number; limited: number }; close: () => Promise<void> }> {
  const counts = { requests: 0, limited: 0 };
  const random = rng(42);
  const srv = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      // The CLI's preflight (GET /v1/models) is not a model request: answered, not counted, never limited.
      if (req.method !== 'POST') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"bench","object":"model"}]}');
        return;
      }
      counts.requests++;
      if (random() < rate429) {
        counts.limited++;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":{"message":"Rate limit reached","type":"requests"}}');
        return;
      }
      const prompt = (JSON.parse(raw) as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'user')?.content ?? '';
      const n = /number (\d+)/.exec(prompt)?.[1] ?? '?';
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'bench', choices: [{ index: 0, message: { role: 'assistant', content: `The answer is ${n}.`, refusal: null }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }),
        );
      }, LATENCY_MS);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`,
    counts,
    close: () => new Promise((r) => srv.close(() => r())),
  };
}

function runCli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BENCH_CLI, ...args], { env: { ...process.env, OPENAI_API_KEY: 'sk-bench-not-real-0000000000' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

async function once(dir: string, suite: string, rate429: number) {
  const srv = await server(rate429);
  const out = path.join(dir, `out-${path.basename(suite, '.jsonl')}-${rate429}`);
  const started = performance.now();
  const result = await runCli(['run', suite, '--model', 'bench', '--base-url', srv.url, '-j', String(J), '-q', '--out', out, '--timeout', '60000']);
  const seconds = (performance.now() - started) / 1000;
  await srv.close();
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { summary: { passed: number; errored: number } };
  return { seconds, code: result.code, errored: report.summary.errored, passed: report.summary.passed, ...srv.counts };
}

async function shape(dir: string, tasks: number): Promise<void> {
  const suite = path.join(dir, `suite${tasks}.jsonl`);
  writeFileSync(suite, Array.from({ length: tasks }, (_, i) => JSON.stringify({ id: `t${i}`, prompt: `Say the number ${i}.`, expected_contains: [`The answer is ${i}.`] })).join('\n') + '\n');
  const ideal = Math.ceil(tasks / J) * (LATENCY_MS / 1000);
  const clean = await once(dir, suite, 0);
  const faulty = await once(dir, suite, 0.1);
  console.log(`\n4. provider faults: ${tasks} tasks at -j ${J}, one model request each, ${LATENCY_MS} ms latency (ideal ${ideal.toFixed(1)} s)`);
  console.log(`   clean:          ${clean.seconds.toFixed(2)} s (ratio to ideal ${(clean.seconds / ideal).toFixed(2)}), ${clean.passed} passed, ${clean.errored} errored, exit ${clean.code}`);
  console.log(`   10% 429s (Retry-After 1 s, ${faulty.limited} of ${faulty.requests} requests): ${faulty.seconds.toFixed(2)} s, ${faulty.passed} passed, ${faulty.errored} errored, exit ${faulty.code}`);
  console.log(`   ratio with 429s / clean: ${(faulty.seconds / clean.seconds).toFixed(2)} (bar: ≤ 1.3 and 0 errored: ${faulty.seconds / clean.seconds <= 1.3 && faulty.errored === 0 ? 'met' : 'NOT met'})`);
  // What the 429s cost any client that honours Retry-After (bench/retryAfterFloor.ts), and tracegate against that.
  const params = { tasks: tasks, concurrency: J, latencyS: LATENCY_MS / 1000, retryAfterS: 1 };
  const cleanFloor = floorStats({ ...params, rate429: 0 }, 1).mean;
  const faultFloor = floorStats({ ...params, rate429: 0.1 });
  const overhead = clean.seconds - cleanFloor;
  console.log(
    `   floor for a client with no overhead (simulated, 200 fault draws): clean ${cleanFloor.toFixed(2)} s, with 10% 429s ${faultFloor.mean.toFixed(2)} s (p90 ${faultFloor.p90.toFixed(2)} s): ratio ${(faultFloor.mean / cleanFloor).toFixed(2)} from the Retry-After waits alone`,
  );
  console.log(
    `   tracegate with 429s against that floor plus its own clean overhead (${overhead.toFixed(2)} s): ${faulty.seconds.toFixed(2)} s vs ${(faultFloor.mean + overhead).toFixed(2)} s, ratio ${(faulty.seconds / (faultFloor.mean + overhead)).toFixed(2)} (p90 floor: ${(faulty.seconds / (faultFloor.p90 + overhead)).toFixed(2)})`,
  );
}

const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-faults-'));
try {
  for (const tasks of SHAPES) await shape(dir, tasks);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
