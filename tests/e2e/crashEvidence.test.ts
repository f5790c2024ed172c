import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';

/** Real agents that die with a long stack (tests/fixtures/crashingAgents): the line that says why survives. */
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' };
const FIXTURES = path.join(ROOT, 'tests/fixtures/crashingAgents');

interface Report {
  tasks: Array<{ id: string; status: string; failure_reason: string | null; evidence: Array<{ detail: string }>; trials: Array<{ trace_file: string | null }> }>;
}

async function crashRun(agentCmd: string[], extra: string[] = []) {
  const dir = tempDir();
  const suite = path.join(dir, 'suite.jsonl');
  writeFileSync(suite, JSON.stringify({ id: 'dies', prompt: 'Fix the bug.', expected_contains: ['fixed'] }) + '\n');
  const out = path.join(dir, 'out');
  const result = await runCli(['run', suite, ...agentCmd, '--out', out, '--no-html', ...extra], { env: offline });
  const task = (JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report).tasks[0]!;
  const traceFile = path.join(out, task.trials[0]!.trace_file!);
  const root = (JSON.parse(readFileSync(traceFile, 'utf8')) as { spans: Array<{ kind: string; attributes: Record<string, unknown> }> }).spans.find((s) => s.kind === 'agent')!;
  const replay = await runCli(['replay', traceFile]);
  return { result, task, root, replay };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

describe('crash evidence keeps the line that says why the agent died', () => {
  it.each([
    ['a Node agent that throws', ['--agent-cmd', `${process.execPath} ${path.join(FIXTURES, 'throwingAgent.mjs')}`], 'MaxTurnsExceededError: Max turns (10) exceeded while the agent was still calling tools'],
    ['a Python agent that raises', ['--agent-cmd', `python3 ${path.join(FIXTURES, 'raisingAgent.py')}`], "ValueError: the tool registry has no entry named 'search_repo' (known: read_file, run_shell)"],
  ])('%s: its error line is in the evidence, the trace and replay, with exit code and stderr', async (_name, agent, errorLine) => {
    const { result, task, root, replay } = await crashRun(agent);
    expect(result.code, result.stderr).toBe(1);
    expect(task).toMatchObject({ status: 'failed', failure_reason: 'AGENT_CRASH' });
    // The error line whole, right after what happened; then a short tail.
    expect(task.evidence[0]!.detail).toContain(`the agent crashed: exit code 1; ${errorLine}; stderr tail: `);
    expect(root.attributes['agent.error_line']).toBe(errorLine);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('agent ended: crash (exit code 1)');
    expect(replay.stdout).toContain(`  error line: ${errorLine}`);
    expect(replay.stdout).toMatch(/ {2}stderr \((as kept|last \d+ of \d+ lines kept)\):\n {4}/);
    expect(replay.stdout).toMatch(/^ {4}(\s+at descend|.*line \d+, in descend|ValueError)/m);
  });

  it('a timed-out agent: replay shows the kill reason and signal', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'hang.mjs'), "console.error('[agent] waiting for the model'); setInterval(() => undefined, 1000);\n");
    const dirSuite = path.join(dir, 'suite.jsonl');
    writeFileSync(dirSuite, JSON.stringify({ id: 'hangs', prompt: 'x', timeout_ms: 3000, expected_contains: ['x'] }) + '\n');
    const out = path.join(dir, 'out');
    const result = await runCli(['run', dirSuite, '--agent-cmd', `${process.execPath} ${path.join(dir, 'hang.mjs')}`, '--sandbox', 'process', '--out', out, '--no-html'], { env: offline });
    expect(result.code, result.stderr).toBe(1);
    const task = (JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report).tasks[0]!;
    expect(task.failure_reason).toBe('AGENT_TIMEOUT');
    const replay = await runCli(['replay', path.join(out, task.trials[0]!.trace_file!)]);
    expect(replay.stdout).toMatch(/agent ended: timeout \(signal SIGKILL\)\n {2}kill reason: killed after \d+ ms\n {2}stderr \(as kept\):\n {4}\[agent\] waiting for the model/);
  });

  it('an HTTP agent’s 500 body is labelled a body, not stderr, and its error line is kept', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end(`Traceback (most recent call last):\n  File "app.py", line 9, in handle\n    run()\nRuntimeError: graph recursion limit of 25 reached\n`));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { task, root, replay } = await crashRun(['--agent-url', url]);
    expect(task.evidence[0]!.detail).toMatch(/^the agent crashed: HTTP 500; RuntimeError: graph recursion limit of 25 reached; body: /);
    expect(task.evidence[0]!.detail).not.toContain('stderr');
    expect(root.attributes['agent.http_body']).toContain('RuntimeError');
    expect(root.attributes['agent.stderr_tail']).toBeUndefined();
    expect(replay.stdout).toContain('agent ended: crash (HTTP 500)');
    expect(replay.stdout).toContain('  HTTP body (as kept):');
  });
});
