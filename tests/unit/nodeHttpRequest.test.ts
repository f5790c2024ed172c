import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLarge, nodeHttpRequest } from '../../src/provider/nodeHttpRequest.js';

const MAX = 4 * 1024 * 1024;
const get = { method: 'GET', headers: {}, body: null };

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
      } else if (req.url === '/bomb') {
        // 64 MB of zeros, gzipped to about 64 KB.
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(Buffer.alloc(16 * MAX)));
      } else if (req.url === '/moved') {
        res.writeHead(308, { location: '/echo' }).end();
      } else if (req.url === '/huge') {
        res.writeHead(200);
        const chunk = Buffer.alloc(1024 * 1024, 120);
        for (let i = 0; i <= MAX / chunk.length; i++) res.write(chunk);
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

describe('nodeHttpRequest (the model client transport)', () => {
  it('sends method, headers and body, and returns status, headers and the body as text', async () => {
    const body = JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'héllo' }] });
    const reply = await nodeHttpRequest(`${base}/echo`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body }, undefined, MAX);
    expect(reply.status).toBe(201);
    expect(reply.headers.get('X-Request-Id')).toBe('req_1');
    expect(JSON.parse(reply.body)).toEqual({ method: 'POST', body, auth: 'Bearer k', length: String(Buffer.byteLength(body)) });
    const missing = await nodeHttpRequest(new URL(`${base}/nothing`), get, undefined, MAX);
    expect(missing.status).toBe(404);
    expect(missing.body).toBe('{"error":{"message":"nope"}}');
  });

  it('decodes a compressed body and follows a 308 with the same method and body', async () => {
    const zipped = await nodeHttpRequest(`${base}/gzip`, get, undefined, MAX);
    expect(zipped.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(zipped.body)).toEqual({ ok: true });
    const moved = await nodeHttpRequest(`${base}/moved`, { method: 'POST', headers: {}, body: 'same body' }, undefined, MAX);
    expect(JSON.parse(moved.body)).toMatchObject({ method: 'POST', body: 'same body' });
  });

  it('rejects like fetch: AbortError on abort (closing the connection), TypeError on refusal; a body over the cap is BodyTooLarge', async () => {
    const controller = new AbortController();
    const pending = nodeHttpRequest(`${base}/hang`, { method: 'POST', headers: {}, body: '{}' }, controller.signal, MAX);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => closedEarly).toBe(1);
    await expect(nodeHttpRequest('http://127.0.0.1:1/v1', get, undefined, MAX)).rejects.toBeInstanceOf(TypeError);
    await expect(nodeHttpRequest(`${base}/huge`, get, undefined, MAX)).rejects.toBeInstanceOf(BodyTooLarge);
  });

  it('a redirect to another origin does not carry the key (a hostile endpoint cannot forward it on)', async () => {
    const other = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ auth: req.headers['authorization'] ?? null, cookie: req.headers['cookie'] ?? null })));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    // Another port is another origin.
    const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1/chat/completions`;
    const hop = createServer((_req, res) => res.writeHead(307, { location: elsewhere }).end());
    await new Promise<void>((r) => hop.listen(0, '127.0.0.1', r));
    try {
      const reply = await nodeHttpRequest(`http://127.0.0.1:${(hop.address() as AddressInfo).port}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-secret', Cookie: 'a=b', 'content-type': 'application/json' }, body: '{}' }, undefined, MAX);
      expect(JSON.parse(reply.body)).toEqual({ auth: null, cookie: null });
      // The same origin keeps it (the 308 test above sends to /echo on the same server).
      const same = await nodeHttpRequest(`${base}/moved`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: 'x' }, undefined, MAX);
      expect(JSON.parse(same.body)).toMatchObject({ auth: 'Bearer k' });
    } finally {
      other.close();
      hop.close();
    }
  });

  it('stops a decompression bomb at the cap', async () => {
    await expect(nodeHttpRequest(`${base}/bomb`, get, undefined, MAX)).rejects.toThrow(/over \d+ bytes/);
  });
});
