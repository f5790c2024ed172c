import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunReportSchema } from '../../src/schema/report.js';
import { runCli, tempDir } from '../helpers/cli.js';
import { faultPlan } from '../helpers/faultServer.js';
import { FakeOpenAIServer, type ChatRequestBody } from '../helpers/openaiServer.js';

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** Scripted but live: the loopback "model" answers each task's question from its prompt. */
const answer = (body: ChatRequestBody) => ({ content: `The answer is ${/number (\d+)/.exec(body.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? '?'}.` });

function suite(n: number): string {
  const dir = tempDir();
  const file = path.join(dir, 'faults.jsonl');
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ id: `task_${String(i).padStart(4, '0')}`, prompt: `Say the number ${i}.`, expected_contains: [`The answer is ${i}.`] }));
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

describe('provider faults are absorbed, not reported as regressions', () => {
  it('with 10% 429s, 5% 500s, 2% hangs and 2% malformed bodies, 1000 tasks all pass and exit 0', async () => {
    const { hook, injected } = faultPlan({
      rates: { rate_limited: 0.1, server_error: 0.05, hang: 0.02, malformed: 0.02 },
      retryAfter: { header: 'retry-after', value: () => '1' },
      seed: 10,
    });
    const server = new FakeOpenAIServer(answer, { fault: hook, latencyMs: 20 });
    servers.push(server);
    const baseUrl = await server.start();
    const out = tempDir();
    const result = await runCli(['run', suite(1000), '--model', 'fault-test', '--base-url', baseUrl, '-j', '50', '--timeout', '15000', '-q', '--no-html', '--out', out], {
      env: { OPENAI_API_KEY: 'sk-test-not-real-000000000000' },
    });
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(report.tasks).toHaveLength(1000);
    expect(report.tasks.filter((t) => t.status !== 'passed').map((t) => `${t.id}: ${t.status} ${t.error?.code ?? t.failure_reason}: ${t.error?.message ?? ''}`)).toEqual([]);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    // The faults really happened, at about the rates asked for.
    const requests = server.requests.length;
    expect(requests).toBeGreaterThan(1000);
    expect(injected.rate_limited).toBeGreaterThan(requests * 0.07);
    expect(injected.server_error).toBeGreaterThan(requests * 0.03);
    expect(injected.hang).toBeGreaterThan(5);
    expect(injected.malformed).toBeGreaterThan(5);
    // Every injected fault cost one more request (more, if a slow machine let an attempt time out).
    expect(requests).toBeGreaterThanOrEqual(1000 + injected.rate_limited + injected.server_error + injected.hang + injected.malformed);
    // Absorbed faults stay visible in the traces.
    const retried = report.tasks.filter((t) => /"llm\.provider_retries": ?[1-9]/.test(readFileSync(path.join(out, t.trace_file!), 'utf8')));
    expect(retried.length).toBeGreaterThan(100);
   // About 20 s on a quiet two-core machine; the bound is for a machine shared with other test runs.
  }, 180_000);

  it('a fault that outlasts the budget errors the task and names the fault, its status and the retries', async () => {
    const { hook } = faultPlan({ rates: { server_error: 1 } });
    const server = new FakeOpenAIServer(answer, { fault: hook });
    servers.push(server);
    const baseUrl = await server.start();
    const out = tempDir();
    const result = await runCli(['run', suite(2), '--model', 'fault-test', '--base-url', baseUrl, '--timeout', '4000', '-q', '--out', out], {
      env: { OPENAI_API_KEY: 'sk-test-not-real-000000000000' },
    });
    // Every trial errored: nothing could be judged.
    expect(result.code).toBe(3);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    for (const task of report.tasks) {
      expect(task.status).toBe('errored');
      expect(task.error?.code).toBe('PROVIDER_ERROR');
      // The last fault is named (on a slow machine the last attempt may time out instead), and every fault is counted.
      expect(task.error?.message).toMatch(/(server_error \(HTTP 500: .*\)|timeout \(no response: .*\)) and the time budget ran out; \d+ retr(y|ies) \(.*\d+×server_error/);
    }
  });
});

describe('a provider fault every trial hits stops the run', () => {
  it('the first 5 trials refused alike (a model the endpoint does not know): the run stops, says why, exits 3, and --resume can finish it', async () => {
    let refusing = true;
    const server = new FakeOpenAIServer((body) => (refusing ? { status: 404 } : answer(body)));
    servers.push(server);
    const baseUrl = await server.start();
    const out = tempDir();
    const args = ['run', suite(40), '--model', 'no-such-model', '--base-url', baseUrl, '-j', '2', '--no-html', '--out', out];
    const env = { OPENAI_API_KEY: 'sk-test-not-real-000000000000' };
    const result = await runCli(args, { env });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/stopped: the first 5 trials all errored on the same provider fault, and the 3[45] left would too: task task_\d+, step 1: 404 scripted failure \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\)\n {2}fix the cause, then finish the run with --resume/);
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    // The trials that ended are kept; the one in flight when it stopped is not, and nothing more started.
    expect(report.summary.trials).toBeGreaterThanOrEqual(5);
    expect(report.summary.trials).toBeLessThanOrEqual(6);
    expect(server.requests.length).toBeLessThanOrEqual(7);
    expect(report.run.interrupted).toBe(true);

    // The endpoint fixed: --resume runs only what is missing and the run passes.
    refusing = false;
    const resumed = await runCli([...args, '--resume', '-q'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const finished = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(finished.summary).toMatchObject({ trials: 40, passed: 40 });
  });

  it('different faults, or one trial that got through, do not stop it', async () => {
    // Every third call answers: the run goes on to the end however many calls fail.
    const server = new FakeOpenAIServer((body, i) => (i % 3 === 2 ? answer(body) : { status: 404 }));
    servers.push(server);
    const baseUrl = await server.start();
    const out = tempDir();
    const result = await runCli(['run', suite(12), '--model', 'm', '--base-url', baseUrl, '-j', '1', '-q', '--no-html', '--out', out], { env: { OPENAI_API_KEY: 'sk-test-not-real-000000000000' } });
    expect(result.stderr).not.toContain('stopped:');
    const report = RunReportSchema.parse(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')));
    expect(report.summary.trials).toBe(12);
    expect(report.summary.errored).toBe(8);
  });
});
