import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendOtlp } from '../../../src/traceio/otlpSend.js';

/** A real loopback OTLP endpoint whose answers the test scripts; it records what reached it. */
interface Endpoint {
  url: string;
  hits: Array<{ url: string; authorization: string | undefined }>;
}
const servers: Server[] = [];

async function endpoint(answer: (req: IncomingMessage, res: ServerResponse, hit: number) => void): Promise<Endpoint> {
  const hits: Endpoint['hits'] = [];
  const server = createServer((req, res) => {
    hits.push({ url: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    req.on('end', () => answer(req, res, hits.length));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const request = { resourceSpans: [] };
const auth = { Authorization: 'Bearer not-for-other-hosts' };

describe('sendOtlp against a hostile or busy endpoint', () => {
  it('does not follow a redirect to another host: the error names it, and the other host receives nothing', async () => {
    const other = await endpoint((_req, res) => res.writeHead(200).end());
    const main = await endpoint((_req, res) => res.writeHead(307, { location: `${other.url.replace('127.0.0.1', 'localhost')}/steal` }).end());
    await expect(sendOtlp(main.url, request, 'http/json', auth)).rejects.toThrow(/answered 307 \(a redirect to http:\/\/localhost:\d+\/steal\); redirects are not followed/);
    expect(main.hits).toHaveLength(1);
    expect(other.hits).toEqual([]);
  });

  it('retries 429 after its Retry-After and succeeds; gives up on a 503 that lasts, after 4 attempts', async () => {
    const busy = await endpoint((_req, res, hit) => (hit === 1 ? res.writeHead(429, { 'retry-after': '0' }).end('slow down') : res.writeHead(200).end()));
    await sendOtlp(busy.url, request, 'http/protobuf', auth);
    expect(busy.hits.map((h) => h.authorization)).toEqual([auth.Authorization, auth.Authorization]);
    const down = await endpoint((_req, res) => res.writeHead(503, { 'retry-after': '0' }).end('down'));
    await expect(sendOtlp(down.url, request, 'http/json', auth)).rejects.toThrow(/answered 503 Service Unavailable \(after 4 attempts\): down$/);
    expect(down.hits).toHaveLength(4);
  });

  it('reads only the start of a huge error body, and strips terminal escapes from it', async () => {
    const huge = await endpoint((_req, res) => {
      res.writeHead(500);
      res.write('\u001b[2J\u001b]0;title\u0007boom ');
      const chunk = Buffer.alloc(1 << 20, 65);
      let sent = 0;
      const more = () => {
        while (sent < 2048 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => (sent = 2048));
      more();
    });
    const error = await sendOtlp(huge.url, request, 'http/json', auth).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/answered 500 Internal Server Error: \[2J ]0;title boom A+$/);
    expect(error?.message).not.toMatch(/[\u001b\u0007]/);
    expect(error!.message.length).toBeLessThan(500);
  });

  it('gives up on an endpoint that never answers, at the timeout', async () => {
    const hang = await endpoint(() => undefined);
    await expect(sendOtlp(hang.url, request, 'http/json', auth, 300)).rejects.toThrow(/timeout|aborted/i);
  });

  it('says why no answer came: a refused connection, a TLS handshake that fails (https to a plain HTTP port)', async () => {
    const plain = await endpoint((_req, res) => res.writeHead(200).end());
    const tls = plain.url.replace('http:', 'https:');
    await expect(sendOtlp(tls, request, 'http/json', auth)).rejects.toThrow(new RegExp(`^${tls}/v1/traces: .*(SSL|TLS|EPROTO|ssl)`));
    expect(plain.hits).toEqual([]); // the header never went out in clear
    const port = plain.url.split(':').at(-1)!;
    await new Promise((r) => servers.pop()!.close(r));
    await expect(sendOtlp(`http://127.0.0.1:${port}`, request, 'http/json', auth)).rejects.toThrow(/ECONNREFUSED/);
  });
});
