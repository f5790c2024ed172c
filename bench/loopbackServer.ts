/**
 * A loopback OpenAI-compatible chat-completions server for the throughput bench, run as its own
 * process so its CPU never competes inside the client being measured.
 *   node dist/bench/loopbackServer.js LATENCY_MS   → prints the port on stdout, serves until killed.
 * A user message containing "[tool]" gets one calculator call first; every other turn gets the
 * final answer "The result is 4." after LATENCY_MS.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const latencyMs = Number(process.argv[2] ?? 100);
let served = 0;

interface Body {
  model: string;
  messages: Array<{ role: string; content: string | null }>;
}

function reply(body: Body): string {
  served++;
  const wantsTool = body.messages.some((m) => m.role === 'user' && m.content?.includes('[tool]'));
  const hadTool = body.messages.some((m) => m.role === 'tool');
  const message =
    wantsTool && !hadTool
      ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${served}`, type: 'function', function: { name: 'calculator', arguments: '{"operation":"add","a":2,"b":2}' } }] }
      : { role: 'assistant', content: 'The result is 4.' };
  return JSON.stringify({
    id: `chatcmpl-${served}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    choices: [{ index: 0, message, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
  });
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    const text = reply(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body);
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(text), latencyMs);
  });
});
server.keepAliveTimeout = 30_000;
server.maxRequestsPerSocket = 0;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
