/**
 * npm run bench, row 4: orchestration overhead of the command adapter. N trials of a trivial agent
 * (one model call against a loopback OpenAI-compatible server, then print the answer) through
 * `tracegate run --agent-cmd` (workspace copy, process group, capture proxy, trace, judging, reports)
 * against the ideal: the same agent spawned N times directly at the same concurrency, plus the CLI's
 * own start-up. Target: ratio ≤ 1.3.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { timeAgentAlone } from './agentAlone.js';
import { BENCH_CLI } from './benchCli.js';
import { startInstantServer } from './instantServer.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const N = Number(process.env['BENCH_AGENT_TRIALS'] ?? 200);
const CONCURRENCY = 4;

const AGENT = `import json, os, sys, urllib.request
task = json.load(sys.stdin)
body = {"model": "m", "messages": [{"role": "user", "content": task["prompt"]}]}
req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
print(json.loads(urllib.request.urlopen(req).read())["choices"][0]["message"]["content"])
`;

/** Async, never spawnSync: the loopback server lives in this process and must keep answering. */
async function tracegate(suite: string, agent: string, url: string, out: string, concurrency: number): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [BENCH_CLI, 'run', suite, '--agent-cmd', `python3 ${agent}`, '--base-url', url, '-j', String(concurrency), '--out', out, '-q', '--no-html'], {
    cwd: ROOT,
    env: { ...process.env, OPENAI_API_KEY: 'sk-bench-not-a-real-key-000000', NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`bench run failed (${code}): ${stderr}`);
  return (performance.now() - started) / 1000;
}

const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-agent-'));
try {
  const agent = path.join(dir, 'agent.py');
  writeFileSync(agent, AGENT);
  const suite = path.join(dir, 'suite.jsonl');
  writeFileSync(suite, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `trivial_${i}`, prompt: 'hi', expected_contains: ['done'] })).join('\n') + '\n');
  const one = path.join(dir, 'one.jsonl');
  writeFileSync(one, JSON.stringify({ id: 'trivial_0', prompt: 'hi', expected_contains: ['done'] }) + '\n');
  const server = await startInstantServer(() => 'done');
  try {
    const startupWithOne = await tracegate(one, agent, server.url, path.join(dir, 'out-one'), 1);
    // The direct runs before and after, the faster taken: on a shared machine load comes and goes.
    const before = await timeAgentAlone(agent, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'k' }, dir, N, CONCURRENCY);
    const seconds = await tracegate(suite, agent, server.url, path.join(dir, 'out'), CONCURRENCY);
    const direct = Math.min(before, await timeAgentAlone(agent, { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'k' }, dir, N, CONCURRENCY));
    const perAgent = direct / Math.ceil(N / CONCURRENCY);
    const startup = Math.max(0, startupWithOne - perAgent);
    const best = direct + startup;
    console.log(`4. command adapter: ${N} trials of a trivial Python agent (one model call each, loopback server) at -j ${CONCURRENCY}`);
    console.log(`   spawned directly: ${direct.toFixed(2)} s; CLI start-up and reports: ${startup.toFixed(2)} s`);
    console.log(`   tracegate run --agent-cmd: ${seconds.toFixed(2)} s against an ideal ${best.toFixed(2)} s: ratio ${(seconds / best).toFixed(2)} (target ≤ 1.3), about ${(((seconds - best) * 1000 * CONCURRENCY) / N).toFixed(0)} ms of overhead per trial and slot`);
  } finally {
    server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
