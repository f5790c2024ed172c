import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

/** HTTP agents that misbehave, as real loopback servers: each task id picks a behaviour. */
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' };

interface Report {
  tasks: Array<{ id: string; status: string; failure_reason: string | null; evidence: Array<{ detail: string }>; trials: Array<{ trace_file: string | null; error: { code: string; message: string } | null }> }>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

async function serve(handle: (taskId: string, req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => handle((JSON.parse(raw || '{}') as { task_id?: string }).task_id ?? '', req, res));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function run(url: string, tasks: object[], extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir();
  const suite = path.join(dir, 'suite.jsonl');
  writeFileSync(suite, tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
  const out = path.join(dir, 'out');
  const result = await runCli(['run', suite, '--agent-url', url, '--out', out, '--no-html', ...extra], { env: { ...offline, ...env } });
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
  return { result, out, byId: Object.fromEntries(report.tasks.map((t) => [t.id, t])) };
}

const filesUnder = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? filesUnder(path.join(dir, n)) : [path.join(dir, n)]));

describe('HTTP agent adapter (untrusted service)', () => {
  it('an endless body is read up to the cap and cancelled; a body that breaks off is AGENT_CRASH with the reason', async () => {
    let endlessSent = 0;
    const url = await serve((id, req, res) => {
      if (id === 'endless') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.from('ok '.repeat(100_000));
        const pump = () => {
          while (!res.destroyed && endlessSent < 2 ** 31) {
            endlessSent += chunk.length;
            if (!res.write(chunk)) return;
          }
        };
        res.on('drain', pump);
        pump();
      } else if (id === 'reset_mid_body') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('ok partial');
        setTimeout(() => req.socket.resetAndDestroy(), 100);
      } else if (id === 'short_body') {
        req.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nok partial');
        setTimeout(() => req.socket.destroy(), 100);
      }
    });
    const { result, out, byId } = await run(url, ['endless', 'reset_mid_body', 'short_body'].map((id) => ({ id, prompt: 'x', timeout_ms: 20_000, expected_contains: ['ok'] })));
    expect(result.code, result.stderr).toBe(1);
    expect(byId['endless']!.status).toBe('passed');
    // The cap is 4 MB; the socket buffers some more before the cancel closes it, never the 2 GB on offer.
    expect(endlessSent).toBeLessThan(256 * 1024 * 1024);
    const root = (JSON.parse(readFileSync(path.join(out, byId['endless']!.trials[0]!.trace_file!), 'utf8')) as { spans: Array<{ kind: string; attributes: Record<string, unknown> }> }).spans.find((s) => s.kind === 'agent')!;
    expect(root.attributes['agent.stdout_truncated']).toBe(true);
    for (const id of ['reset_mid_body', 'short_body']) {
      expect(byId[id], id).toMatchObject({ status: 'failed', failure_reason: 'AGENT_CRASH' });
      expect(byId[id]!.evidence[0]!.detail, id).toMatch(/HTTP 200, then the body broke off after \d+ bytes: terminated: \S+/);
    }
  });

  it('a redirect is not followed (the header secret and traceparent stay home): AGENT_CRASH naming the Location', async () => {
    const elsewhere: Array<Record<string, unknown>> = [];
    const other = await serve((_id, req, res) => {
      elsewhere.push(req.headers);
      res.end('ok from elsewhere');
    });
    const url = await serve((id, _req, res) => res.writeHead(id === 'see_other' ? 303 : 307, { location: `${other}/steal` }).end());
    const token = 'agent-token-zyxwvu987654';
    const { result, out, byId } = await run(url, ['see_other', 'temporary'].map((id) => ({ id, prompt: 'x', expected_contains: ['ok'] })), ['--agent-header', 'X-Agent-Token=MY_AGENT_TOKEN'], { MY_AGENT_TOKEN: token });
    expect(result.code).toBe(1);
    expect(elsewhere).toEqual([]);
    expect(byId['see_other']!.failure_reason).toBe('AGENT_CRASH');
    expect(byId['see_other']!.evidence[0]!.detail).toContain(`HTTP 303 redirect to ${other}/steal`);
    expect(byId['temporary']!.evidence[0]!.detail).toContain('HTTP 307 redirect to');
    for (const file of filesUnder(out)) expect(readFileSync(file, 'utf8'), file).not.toContain(token);
  });

  it('a Retry-After longer than the time left is not waited out: AGENT_CRASH (not a run error), and the run ends', async () => {
    let calls = 0;
    const url = await serve((_id, _req, res) => {
      calls++;
      res.writeHead(503, { 'retry-after': '20' }).end('busy');
    });
    const { result, byId } = await run(url, [{ id: 'busy', prompt: 'x', timeout_ms: 3000, expected_contains: ['ok'] }]);
    expect(result.code).toBe(1);
    expect(calls).toBe(1);
    expect(byId['busy']).toMatchObject({ status: 'failed', failure_reason: 'AGENT_CRASH' });
    expect(byId['busy']!.evidence[0]!.detail).toMatch(/HTTP 503; its retry in 20 s would end after the time limit/);
  });

  it('an agent that resets every connection, speaks no HTTP, or is not listening is errored AGENT_UNREACHABLE', async () => {
    const url = await serve((id, req) => {
      if (id === 'resets') req.socket.resetAndDestroy();
      else req.socket.end('NOT HTTP AT ALL\r\n\r\n');
    });
    const { result, byId } = await run(url, ['resets', 'garbage'].map((id) => ({ id, prompt: 'x', expected_contains: ['ok'] })));
    expect(result.code).toBe(3);
    for (const id of ['resets', 'garbage']) {
      expect(byId[id]!.status, id).toBe('errored');
      expect(byId[id]!.trials[0]!.error, id).toMatchObject({ code: 'AGENT_UNREACHABLE', message: expect.stringMatching(/no answer after 4 attempts/) });
    }
    const closed = await serve(() => undefined);
    const server = servers.pop()!;
    await new Promise((r) => server.close(r));
    const refused = await run(closed, [{ id: 'refused', prompt: 'x', expected_contains: ['ok'] }]);
    expect(refused.byId['refused']!.trials[0]!.error).toMatchObject({ code: 'AGENT_UNREACHABLE', message: expect.stringMatching(/ECONNREFUSED/) });
  });
});
