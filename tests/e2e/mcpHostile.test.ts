import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TraceSchema, toolSpans, type Trace } from '../../src/schema/trace.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { FakeOpenAIServer, type ChatRequestBody, type ScriptedReply } from '../helpers/openaiServer.js';

const HOSTILE = path.join(ROOT, 'tests/helpers/mcpHostileServer.mjs');

/**
 * One task against the hostile MCP server (as `h`), the model scripted by `reply`; returns its trace.
 * Its calls may take 60 s: no test here is about a call's time limit, and on a loaded machine an
 * 11 MB reply alone can take longer than a few seconds to arrive.
 */
async function runAgainst(
  server: { command: string; args: string[]; env: Record<string, string> },
  reply: (body: ChatRequestBody, i: number) => ScriptedReply,
  task: Record<string, unknown> = {},
) {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'suite.jsonl'), JSON.stringify({ id: 'hostile', prompt: 'Use the tools.', max_steps: 4, ...task }) + '\n');
  const policy = JSON.parse(readFileSync(path.join(ROOT, 'harness/policy/default-policy.json'), 'utf8'));
  policy.mcp_tools = 'allow';
  writeFileSync(path.join(dir, 'policy.json'), JSON.stringify(policy));
  writeFileSync(path.join(dir, 'variant.json'), JSON.stringify({ schema_version: 'variant/v1', name: 'hostile', policy: 'policy.json', mcp_servers: [{ name: 'h', timeout_ms: 60_000, ...server }] }));
  const model = new FakeOpenAIServer(reply);
  const baseURL = await model.start();
  const out = path.join(dir, 'out');
  try {
    const result = await runCli(['run', path.join(dir, 'suite.jsonl'), '--model', 'm', '--base-url', baseURL, '--variant', path.join(dir, 'variant.json'), '--out', out, '-q', '--no-html']);
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as { tasks: Array<{ error?: { code: string } | null }> };
    const traceFile = path.join(out, 'traces/hostile.e0.json');
    const trace: Trace | null = existsSync(traceFile) ? TraceSchema.parse(JSON.parse(readFileSync(traceFile, 'utf8'))) : null;
    return { result, trace: trace!, report, requests: model.requests };
  } finally {
    await model.stop();
  }
}

/** Running (a killed process may stay a zombie until init reaps it: that is not alive). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
};

describe('hostile MCP servers', () => {
  it('tools whose names collide once made safe stay distinct; a duplicate name or an oversized schema is dropped and named in the trace', async () => {
    const { result, trace, requests } = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'names' } }, (body, i) => {
      if (i > 0) return { content: 'done' };
      const spaced = body.tools!.find((t) => t.function.description === 'the tool a b')!.function.name;
      return { tool_calls: [{ name: spaced, arguments: '{}' }, { name: 'h__a_b', arguments: '{}' }] };
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const names = requests[0]!.body.tools!.map((t) => t.function.name);
    expect(new Set(names).size).toBe(names.length);
    const offered = names.filter((n) => n.startsWith('h__'));
    expect(offered).toHaveLength(4);
    expect(offered.every((n) => /^[A-Za-z0-9_-]{1,64}$/.test(n))).toBe(true);
    expect(offered).toContain('h__a_b');
    // Each name reaches the tool it was offered for.
    expect(toolSpans(trace).map((s) => String(s.attributes['gen_ai.tool.call.result']))).toEqual(['called "a b"', 'called "a_b"']);
    const dropped = trace.spans[0]!.attributes['mcp.tools_dropped'] as string[];
    expect(dropped).toHaveLength(2);
    expect(dropped.find((d) => d.startsWith('h:"a_b"'))).toContain('already offered');
    expect(dropped.find((d) => d.startsWith('h:"huge"'))).toContain('input schema');
    expect(JSON.stringify(requests[0]!.body.tools).length).toBeLessThan(100_000);
  });

  it('many large schemas together are capped: the tools past the budget are dropped and named', async () => {
    const { result, trace, requests } = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'bulky' } }, () => ({ content: 'done' }));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const offered = requests[0]!.body.tools!.filter((t) => t.function.name.startsWith('h__'));
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.length).toBeLessThan(100);
    expect(JSON.stringify(requests[0]!.body.tools).length).toBeLessThan(300_000);
    const dropped = trace.spans[0]!.attributes['mcp.tools_dropped'] as string[];
    expect(dropped).toHaveLength(100 - offered.length);
    expect(dropped[0]).toContain('characters of schema and description allowed');
  });

  it('processes a server started do not outlive the task, even when the server died first and ignores SIGTERM', async () => {
    let childPid = 0;
    const { result } = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'orphan' } }, (body, i) => {
      if (i === 0) return { tool_calls: [{ name: 'h__leave_child', arguments: '{}' }] };
      if (i === 1) {
        childPid = Number(/child (\d+)/.exec(JSON.stringify(body.messages))![1]);
        expect(alive(childPid)).toBe(true);
        return { tool_calls: [{ name: 'h__crash', arguments: '{}' }] };
      }
      return { content: 'done' };
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(childPid).toBeGreaterThan(0);
    expect(alive(childPid)).toBe(false);
  });

  it('a call whose server crashed or sent an oversized reply is a COMMAND_FAILED that says why', { timeout: 180_000 }, async () => {
    for (const [tool, why] of [
      ['h__crash', 'panic: out of tickets'],
      ['h__flood', 'exceeded maximum size'],
    ] as const) {
      const { result, trace } = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'orphan' } }, (_body, i) => (i === 0 ? { tool_calls: [{ name: tool, arguments: '{}' }, { name: 'h__leave_child', arguments: '{}' }] } : { content: 'done' }));
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const spans = toolSpans(trace).map((s) => s.attributes);
      expect(spans[0]).toMatchObject({ error_type: 'COMMAND_FAILED', executed: true });
      expect(String(spans[0]!['message'])).toContain(why);
      // The next call to the dead server fails the same way, not as a crash of the harness.
      expect(spans[1]).toMatchObject({ error_type: 'COMMAND_FAILED' });
      expect(String(spans[1]!['message'])).toContain(why);
    }
  });

  // Guarded by the suite's hang limit: before, validating the argument ran the server's regex in the
  // harness, blocking the process (and every timer) for hours, far past any limit; a tight limit
  // here only failed on a loaded machine (15 s was once too little with a second suite beside it).
  it("a schema's catastrophic pattern is left to the server; the rest of the schema is still checked", async () => {
    const { result, trace } = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'patterns' } }, (_body, i) =>
      i === 0
        ? { tool_calls: [{ name: 'h__redos', arguments: JSON.stringify({ q: 'a'.repeat(40) + '!' }) }, { name: 'h__named_pattern', arguments: '{"other": 1}' }, { name: 'h__named_pattern', arguments: '{"pattern": "x"}' }] }
        : { content: 'done' },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const spans = toolSpans(trace).map((s) => s.attributes);
    expect(spans[0]).toMatchObject({ executed: true, 'gen_ai.tool.call.result': 'called "redos"' });
    expect(spans[1]).toMatchObject({ error_type: 'INVALID_ARGUMENTS', executed: false });
    expect(spans[2]).toMatchObject({ executed: true, 'gen_ai.tool.call.result': 'called "named_pattern"' });
  });

  it('a result of images, embedded resources and links reaches the model as text it can use', async () => {
    const { result, trace, requests } = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'orphan' } }, (_body, i) => (i === 0 ? { tool_calls: [{ name: 'h__mixed', arguments: '{}' }] } : { content: 'done' }));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(String(toolSpans(trace)[0]!.attributes['gen_ai.tool.call.result'])).toBe('[image content]\n[resource tickets://T-1]\nT-1: login broken\n[resource link tickets://T-2]');
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('T-1: login broken');
  });

  it('a server that exits at start is an MCP_CONNECT run error that quotes its stderr; so is a missing command, and a refusal, without its terminal escapes', async () => {
    const dies = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'die' } }, () => ({ content: 'never asked' }));
    expect(dies.requests).toHaveLength(0);
    expect(dies.trace.error).toMatchObject({ code: 'MCP_CONNECT' });
    expect(dies.trace.error!.message).toContain('tickets.toml is missing');
    const missing = await runAgainst({ command: 'tracegate-no-such-server', args: [], env: {} }, () => ({ content: 'never asked' }));
    expect(missing.trace.error).toMatchObject({ code: 'MCP_CONNECT' });
    expect(missing.trace.error!.message).toMatch(/tracegate-no-such-server.*(No such file|ENOENT)/s);
    // What the server says reaches the terminal's table: its escape sequences do not.
    const refuses = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'refuse' } }, () => ({ content: 'never asked' }));
    expect(refuses.trace.error).toMatchObject({ code: 'MCP_CONNECT' });
    expect(refuses.trace.error!.message).toContain('thanks');
    expect(refuses.trace.error!.message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(refuses.result.stdout + refuses.result.stderr).not.toContain('\u001b]0;owned');
  });

  // Before, the task's time limit left the server's 20 s handshake (and the SDK's graceful close)
  // running, and the CLI exited only after both. The limit is 6 s, not less: on a loaded machine the
  // server must get to start (and write its pids) before the limit ends the trial.
  it('a server that never answers the handshake is bounded by the task timeout and leaves nothing running', { timeout: 120_000 }, async () => {
    const pidFile = path.join(tempDir(), 'pids');
    const started = Date.now();
    const { report, requests } = await runAgainst({ command: 'node', args: [HOSTILE], env: { MODE: 'hang', PIDFILE: pidFile } }, () => ({ content: 'never asked' }), { timeout_ms: 6000 });
    // Under the 20 s the handshake would have taken: the trial's limit ended it, the CLI did not wait.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(requests).toHaveLength(0);
    expect(report.tasks[0]!.error).toMatchObject({ code: 'TASK_TIMEOUT' });
    const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  });
});
