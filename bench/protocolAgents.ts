/**
 * npm run bench, row 4b: the command adapter's overhead for agents on the other protocols. N trials
 * of a trivial streaming agent on the OpenAI Responses API and N of one on the Anthropic Messages
 * API (one model call each against a loopback server, SSE folded by the proxy's front-end) through
 * `tracegate run --agent-cmd`, against the same agent spawned N times directly at the same
 * concurrency plus the CLI's own start-up. Target: ratio ≤ 1.3 for each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { timeAgentAlone } from './agentAlone.js';
import { BENCH_CLI } from './benchCli.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const N = Number(process.env['BENCH_PROTOCOL_TRIALS'] ?? 100);
const CONCURRENCY = 4;

const RESPONSES_AGENT = `import json, os, sys, urllib.request
task = json.load(sys.stdin)
body = {"model": "m", "input": task["prompt"], "stream": True}
req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/responses", data=json.dumps(body).encode(), headers={"content-type": "application/json", "authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
text = ""
for line in urllib.request.urlopen(req).read().decode().splitlines():
    if line.startswith("data: "):
        event = json.loads(line[6:])
        if event["type"] == "response.output_text.delta":
            text += event["delta"]
print(text)
`;

const MESSAGES_AGENT = `import json, os, sys, urllib.request
task = json.load(sys.stdin)
body = {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": task["prompt"]}], "stream": True}
req = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages?beta=true", data=json.dumps(body).encode(), headers={"content-type": "application/json", "x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"})
text = ""
for line in urllib.request.urlopen(req).read().decode().splitlines():
    if line.startswith("data: "):
        event = json.loads(line[6:])
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
            text += event["delta"]["text"]
print(text)
`;

const sse = (events: Array<Record<string, unknown>>) => events.map((e) => `event: ${String(e['type'])}\ndata: ${JSON.stringify(e)}\n\n`).join('');

const RESPONSES_STREAM = sse([
  { type: 'response.created', sequence_number: 0, response: { id: 'r', object: 'response', status: 'in_progress', model: 'm', output: [] } },
  { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'message', id: 'msg', role: 'assistant', status: 'in_progress', content: [] } },
  { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg', output_index: 0, content_index: 0, delta: 'done' },
  { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item: { type: 'message', id: 'msg', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] } },
  { type: 'response.completed', sequence_number: 4, response: { id: 'r', object: 'response', status: 'completed', model: 'm', output: [{ type: 'message', id: 'msg', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] }], usage: { input_tokens: 5, output_tokens: 1, total_tokens: 6 } } },
]);
const MESSAGES_STREAM = sse([
  { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
  { type: 'message_stop' },
]);

function startServer(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = (req.url ?? '').includes('/v1/messages') ? MESSAGES_STREAM : RESPONSES_STREAM;
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() })));
}

interface Flavour {
  name: string;
  agent: string;
  /** The agent's variables when spawned directly at the server. */
  direct: (url: string) => Record<string, string>;
  /** tracegate's flags and environment for the same server as the proxy's upstream. */
  flags: (url: string) => string[];
  env: (url: string) => Record<string, string>;
}

async function tracegate(suite: string, flavour: Flavour, agent: string, url: string, out: string, concurrency: number): Promise<number> {
  const started = performance.now();
  const args = [BENCH_CLI, 'run', suite, '--agent-cmd', `python3 ${agent}`, ...flavour.flags(url), '-j', String(concurrency), '--out', out, '-q', '--no-html'];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '', ...flavour.env(url), NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`bench run failed (${code}): ${stderr}`);
  return (performance.now() - started) / 1000;
}

const FLAVOURS: Flavour[] = [
  {
    name: 'OpenAI Responses',
    agent: RESPONSES_AGENT,
    direct: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'k' }),
    flags: (url) => ['--base-url', `${url}/v1`],
    env: () => ({ OPENAI_API_KEY: 'sk-bench-not-a-real-key-000000' }),
  },
  {
    name: 'Anthropic Messages',
    agent: MESSAGES_AGENT,
    direct: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'k' }),
    flags: () => [],
    env: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'sk-ant-bench-not-a-real-key-0000' }),
  },
];

const dir = mkdtempSync(path.join(tmpdir(), 'tracegate-bench-protocols-'));
try {
  const suite = path.join(dir, 'suite.jsonl');
  writeFileSync(suite, Array.from({ length: N }, (_, i) => JSON.stringify({ id: `trivial_${i}`, prompt: 'hi', expected_contains: ['done'] })).join('\n') + '\n');
  const one = path.join(dir, 'one.jsonl');
  writeFileSync(one, JSON.stringify({ id: 'trivial_0', prompt: 'hi', expected_contains: ['done'] }) + '\n');
  const server = await startServer();
  try {
    console.log(`4b. command adapter on other protocols: ${N} trials of a trivial streaming Python agent (one model call each, loopback server) at -j ${CONCURRENCY}`);
    for (const [i, flavour] of FLAVOURS.entries()) {
      const agent = path.join(dir, `agent${i}.py`);
      writeFileSync(agent, flavour.agent);
      const startupWithOne = await tracegate(one, flavour, agent, server.url, path.join(dir, `out-one-${i}`), 1);
      const before = await timeAgentAlone(agent, flavour.direct(server.url), dir, N, CONCURRENCY);
      const seconds = await tracegate(suite, flavour, agent, server.url, path.join(dir, `out-${i}`), CONCURRENCY);
      const direct = Math.min(before, await timeAgentAlone(agent, flavour.direct(server.url), dir, N, CONCURRENCY));
      const startup = Math.max(0, startupWithOne - direct / Math.ceil(N / CONCURRENCY));
      const best = direct + startup;
      console.log(`   ${flavour.name}: spawned directly ${direct.toFixed(2)} s, CLI start-up ${startup.toFixed(2)} s; tracegate run --agent-cmd ${seconds.toFixed(2)} s against an ideal ${best.toFixed(2)} s: ratio ${(seconds / best).toFixed(2)} (target ≤ 1.3)`);
    }
  } finally {
    server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
