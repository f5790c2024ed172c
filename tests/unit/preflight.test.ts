import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { networkFaultOf, preflight, PreflightError, requestWithProviderRetries, type PreflightTarget } from '../../src/provider/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A loopback server answering every request with `status`; its base URL. */
async function serve(status: number, seen: string[] = []): Promise<string> {
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(status, { 'content-type': 'application/json' }).end('{"data": []}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
}

/** A loopback port on which nothing listens (it was bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const target = (baseUrl: string, apiKey: string | null = 'sk-test-not-real-000000000000'): PreflightTarget => ({ baseUrl, apiKey, urlSource: '--base-url', keyName: 'OPENAI_API_KEY', role: 'the model endpoint' });

async function failure(promise: Promise<unknown>): Promise<PreflightError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PreflightError);
  return error as PreflightError;
}

describe('network faults are named by what happened', () => {
  it('a refused connection is connection_refused, not connection_reset', async () => {
    const port = await closedPort();
    const error = await requestWithProviderRetries(new URL(`http://127.0.0.1:${port}/v1/chat/completions`), { method: 'POST', headers: {}, body: '{}' }, { deadline: Date.now() + 600 }).catch((e: unknown) => e);
    expect((error as { fault: string }).fault).toBe('connection_refused');
    expect((error as Error).message).toMatch(/connection_refused \(no response: .*ECONNREFUSED/);
  });

  it('reads the system code where fetch and node:http put it', () => {
    expect(networkFaultOf(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }) }))).toBe('dns_failed');
    expect(networkFaultOf(Object.assign(new Error('x'), { code: 'ERR_SSL_WRONG_VERSION_NUMBER' }))).toBe('tls_failed');
    expect(networkFaultOf(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('connection_reset');
    expect(networkFaultOf(new Error('no code'))).toBe('connection_reset');
  });
});

describe('preflight: the endpoint is there and accepts the key, checked once before any trial', () => {
  it('passes a server that answers, sending the key once to /models', async () => {
    const seen: string[] = [];
    expect(await preflight(target(await serve(200, seen)))).toBeNull();
    expect(seen).toEqual(['GET /v1/models Bearer sk-test-not-real-000000000000']);
  });

  it.each([404, 429, 500])('counts HTTP %i as reachable (a server without /models, or a bad minute, is the trials’ business)', async (status) => {
    expect(await preflight(target(await serve(status)))).toBeNull();
  });

  it('names a refused connection, actionable part first', async () => {
    const port = await closedPort();
    const error = await failure(preflight(target(`http://127.0.0.1:${port}/v1`)));
    expect(error.reason).toBe('connection_refused');
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toBe(`connection refused: the model endpoint http://127.0.0.1:${port}/v1: nothing listens there; start the server, or pass the right --base-url`);
  });

  it('names a host that does not resolve', async () => {
    const error = await failure(preflight(target('http://no-such-model-host.invalid/v1')));
    expect(error.reason).toBe('dns_failed');
    expect(error.message).toMatch(/^DNS lookup failed: .*no-such-model-host\.invalid/);
  });

  it('names a TLS failure (https:// to a plain http server)', async () => {
    const error = await failure(preflight(target((await serve(200)).replace('http:', 'https:'))));
    expect(error.reason).toBe('tls_failed');
    expect(error.message).toMatch(/^TLS handshake failed: .*(EPROTO|ERR_SSL_)/);
  });

  it.each([401, 403])('names a refused key (HTTP %i) and the variable it came from, never the key', async (status) => {
    const error = await failure(preflight(target(await serve(status))));
    expect(error.reason).toBe('key_refused');
    expect(error.message).toMatch(new RegExp(`^the key in OPENAI_API_KEY was refused \\(HTTP ${status}\\)`));
    expect(error.message).not.toContain('sk-test');
    const keyless = await failure(preflight(target(await serve(status), null)));
    expect(keyless.message).toMatch(/^it needs a key and OPENAI_API_KEY is not set/);
  });

  it('hides a user:password in the URL', async () => {
    const port = await closedPort();
    const error = await failure(preflight(target(`http://user:hunter2@127.0.0.1:${port}/v1`)));
    expect(error.message).not.toContain('hunter2');
  });

  it('warns, and lets the run go on, when the endpoint accepts the connection but does not answer in time', async () => {
    const server = createServer(() => undefined);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    const warning = await preflight(target(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1`), 300);
    expect(warning).toMatch(/gave no answer to GET \/models within 0.3 s; running anyway/);
    expect(Date.now() - started).toBeLessThan(5000);
    server.closeAllConnections();
  });
});
