/**
 * A zero-latency OpenAI-compatible chat-completions server in the bench's own process, for the
 * sections whose figure is the CLI's own cost (memory, stored-data commands, the command adapter):
 * every request gets a final answer at once. `answer(n)` is the nth reply's text (n from 1).
 * The live-run section uses bench/loopbackServer.ts instead: its own process, 100 ms a request.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface InstantServer {
  url: string;
  close: () => void;
  requests: () => number;
}

export function startInstantServer(answer: (n: number) => string = () => 'ok, done'): Promise<InstantServer> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      const body = JSON.stringify({
        id: `c${count}`, object: 'chat.completion', created: 0, model: 'bench',
        choices: [{ index: 0, message: { role: 'assistant', content: answer(count), refusal: null }, finish_reason: 'stop' }],
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
