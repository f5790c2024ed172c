import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, nodeHttpFetch } from '../../harness/model/nodeHttpFetch.js';

let server: Server;
let base: string;
let closedEarly = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (req.url === '/echo') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
        res.end(JSON.stringify({ method: req.method, body, auth: req.headers['authorization'], length: req.headers['content-length'] }));
      } else if (req.url === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify({ ok: true })));
      } else if (req.url === '/moved') {
        res.writeHead(308, { location: '/echo' }).end();
      } else if (req.url === '/huge') {
        res.writeHead(200);
        const chunk = Buffer.alloc(1024 * 1024, 120);
        for (let i = 0; i <= MAX_RESPONSE_BYTES / chunk.length; i++) res.write(chunk);
        res.end();
      } else if (req.url === '/hang') {
        req.socket.on('close', () => closedEarly++);
      } else res.writeHead(404).end('{"error":{"message":"nope"}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('nodeHttpFetch (the model client fetch)', () => {
  it('sends method, headers and body, and returns status, headers and body like fetch', async () => {
    const body = JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'héllo' }] });
    const response = await nodeHttpFetch(`${base}/echo`, { method: 'POST', headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }), body });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(await response.json()).toEqual({ method: 'POST', body, auth: 'Bearer k', length: String(Buffer.byteLength(body)) });
    const missing = await nodeHttpFetch(new URL(`${base}/nothing`));
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('{"error":{"message":"nope"}}');
  });

  it('decodes a compressed body and follows a 308 with the same method and body', async () => {
    const zipped = await nodeHttpFetch(`${base}/gzip`);
    expect(zipped.headers.get('content-encoding')).toBeNull();
    expect(await zipped.json()).toEqual({ ok: true });
    const moved = await nodeHttpFetch(`${base}/moved`, { method: 'POST', body: 'same body' });
    expect(await moved.json()).toMatchObject({ method: 'POST', body: 'same body' });
  });

  it('rejects like fetch: AbortError on abort (closing the connection), TypeError on refusal or an oversized body', async () => {
    const controller = new AbortController();
    const pending = nodeHttpFetch(`${base}/hang`, { method: 'POST', body: '{}', signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => closedEarly).toBe(1);
    await expect(nodeHttpFetch('http://127.0.0.1:1/v1')).rejects.toBeInstanceOf(TypeError);
    await expect(nodeHttpFetch(`${base}/huge`)).rejects.toThrow(/over \d+ bytes/);
  });
});
