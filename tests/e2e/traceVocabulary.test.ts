import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTR, READABLE_KEYS, VOCABULARY_KEYS } from '../../src/schema/traceVocabulary.js';
import { ROOT, runCli, tempDir } from '../helpers/cli.js';
import { exampleBrain } from '../helpers/exampleBrain.js';
import { FakeOpenAIServer } from '../helpers/openaiServer.js';

/**
 * Traces as the two producers write them (the reference harness, and the capture proxy around an
 * external agent) use only keys of the vocabulary, in their canonical spelling; traces stored
 * with the older spellings still load and judge the same.
 */
interface Span {
  span_id: string;
  kind: string;
  attributes: Record<string, unknown>;
}
interface Report {
  tasks: Array<{ id: string; status: string; failure_reason: string | null; trials: Array<{ trace_file: string | null; checks: Array<{ passed: boolean }> }> }>;
}
const offline = { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OPENAI_MODEL: '' };
const LEGACY_ONLY = [...READABLE_KEYS].filter((k) => !VOCABULARY_KEYS.has(k));

function readReport(out: string): Report {
  return JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Report;
}

/** Every span of every trace a report folder holds. */
function spansOf(out: string): Span[] {
  const dir = path.join(out, 'traces');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => (JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { spans: Span[] }).spans);
}

/** `span kind: key` for each key that is not a canonical vocabulary key (empty when all are). */
function strayKeys(spans: Span[]): string[] {
  const stray = new Set<string>();
  for (const s of spans) for (const k of Object.keys(s.attributes)) if (!VOCABULARY_KEYS.has(k)) stray.add(`${s.kind}: ${k}`);
  return [...stray].sort();
}

const keysOf = (spans: Span[]) => new Set(spans.flatMap((s) => Object.keys(s.attributes)));

let server: FakeOpenAIServer | null = null;
const agents: Server[] = [];
afterEach(async () => {
  await server?.stop();
  server = null;
  for (const agent of agents.splice(0)) {
    agent.closeAllConnections();
    await new Promise((r) => agent.close(r));
  }
});

/** A one-task suite in a fresh folder; returns the suite file and the output folder. */
function oneTask(): { suite: string; out: string } {
  const dir = tempDir();
  const suite = path.join(dir, 'suite.jsonl');
  writeFileSync(suite, JSON.stringify({ id: 'dies', prompt: 'Fix the bug.', expected_contains: ['fixed'] }) + '\n');
  return { suite, out: path.join(dir, 'out') };
}

describe('produced traces use only the vocabulary', () => {
  it('the reference harness on the demo suite (its cassettes), recording full model content', async () => {
    const out = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--out', out, '--no-html', '--record-content', 'full', '-q'], { env: offline });
    // The demo suite holds tasks that fail on purpose: 1 is a failed gate, not a broken run.
    expect([0, 1], run.stderr).toContain(run.code);
    const spans = spansOf(out);
    expect(spans.filter((s) => s.kind === 'tool').length).toBeGreaterThan(10);
    expect(strayKeys(spans)).toEqual([]);
    // The canonical GenAI spellings, not the legacy ones.
    const keys = keysOf(spans);
    for (const key of [ATTR.toolName.key, ATTR.toolCallId.key, ATTR.toolArguments.key, ATTR.toolResult.key, ATTR.toolChoice.key, ATTR.llmInputMessages.key]) expect(keys).toContain(key);
    for (const legacy of LEGACY_ONLY) expect(keys).not.toContain(legacy);
  }, 180_000);

  it('the reference harness with MCP tools (suites/mcp.jsonl)', async () => {
    const out = tempDir();
    const run = await runCli(['run', 'suites/mcp.jsonl', '--out', out, '--no-html', '-q'], { env: offline });
    expect(run.code, run.stderr).toBe(0);
    const spans = spansOf(out);
    expect(strayKeys(spans)).toEqual([]);
    for (const key of [ATTR.toolOrigin.key, ATTR.mcpServer.key, ATTR.mcpServers.key]) expect(keysOf(spans)).toContain(key);
  }, 180_000);

  it.each([
    ['python', 'python3 examples/agents/python/agent.py'],
    ['typescript', 'node dist/examples/agents/typescript/agent.js'],
  ])('the capture proxy around the %s example agent, live against a scripted loopback upstream', async (name, cmd) => {
    server = new FakeOpenAIServer((body) => exampleBrain(body));
    const url = await server.start();
    const out = tempDir();
    const run = await runCli(['run', `examples/agents/${name}/suite.jsonl`, '--agent-cmd', cmd, '--base-url', url, '--out', out, '--no-html', '-q'], {
      env: { ...offline, OPENAI_API_KEY: 'sk-upstream-0123456789abcdefghijklmnop' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests.length).toBeGreaterThan(3);
    const spans = spansOf(out);
    expect(spans.filter((s) => s.kind === 'tool').length).toBeGreaterThan(2);
    expect(strayKeys(spans)).toEqual([]);
    const keys = keysOf(spans);
    for (const key of [ATTR.toolName.key, ATTR.toolCallId.key, ATTR.toolArguments.key, ATTR.toolResult.key, ATTR.llmThread.key, ATTR.agentOutcome.key]) expect(keys).toContain(key);
    for (const legacy of LEGACY_ONLY) expect(keys).not.toContain(legacy);
  }, 180_000);

  it('the capture proxy around a command agent that crashes (the root span says how it ended)', async () => {
    const { suite, out } = oneTask();
    const agent = `${process.execPath} ${path.join(ROOT, 'tests/fixtures/crashingAgents/throwingAgent.mjs')}`;
    const run = await runCli(['run', suite, '--agent-cmd', agent, '--out', out, '--no-html', '-q'], { env: offline });
    expect(run.code, run.stderr).toBe(1);
    const spans = spansOf(out);
    expect(strayKeys(spans)).toEqual([]);
    expect(keysOf(spans)).toContain(ATTR.agentErrorLine.key);
  }, 120_000);

  it('an HTTP agent that answers 500 (the root span keeps its status and body)', async () => {
    const agent = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Traceback (most recent call last):\nRuntimeError: graph recursion limit of 25 reached\n'));
    });
    agents.push(agent);
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    const { suite, out } = oneTask();
    const run = await runCli(['run', suite, '--agent-url', `http://127.0.0.1:${(agent.address() as AddressInfo).port}`, '--out', out, '--no-html', '-q'], { env: offline });
    expect(run.code, run.stderr).toBe(1);
    const spans = spansOf(out);
    expect(strayKeys(spans)).toEqual([]);
    expect(keysOf(spans)).toContain(ATTR.agentHttpBody.key);
  }, 120_000);
});

describe('traces stored with the older spellings still load and judge the same', () => {
  // Written by the harness before its keys were canonical: tool.name, tool.call_id, tool.arguments,
  // result.preview, gen_ai.request.tool_choice, gen_ai.request.parallel_tool_calls.
  const LEGACY = path.join(ROOT, 'tests/fixtures/traces/legacy-keys');

  it('the fixtures really hold the older keys', () => {
    const spans = readdirSync(LEGACY).flatMap((f) => (JSON.parse(readFileSync(path.join(LEGACY, f), 'utf8')) as { spans: Span[] }).spans);
    const keys = keysOf(spans);
    for (const legacy of ['tool.name', 'tool.call_id', 'tool.arguments', 'result.preview', 'gen_ai.request.tool_choice']) expect(keys).toContain(legacy);
    expect(keys).not.toContain(ATTR.toolName.key);
    // The check the produced traces pass is one these fail.
    expect(strayKeys(spans)).toEqual(expect.arrayContaining(['tool: tool.name', 'tool: result.preview', 'agent: gen_ai.request.tool_choice']));
  });

  it('score judges them as the harness run judges fresh traces of the same tasks, and replay shows their tool calls', async () => {
    const scored = tempDir();
    const score = await runCli(['score', 'suites/demo.jsonl', '--traces', LEGACY, '--out', scored, '--no-html'], { env: offline });
    expect(score.code, score.stderr).toBe(0);
    const ids = readdirSync(LEGACY).map((f) => f.replace(/\.e0\.json$/, ''));
    const fresh = tempDir();
    const run = await runCli(['run', 'suites/demo.jsonl', '--grep', `^(${ids.join('|')})$`, '--out', fresh, '--no-html', '-q'], { env: offline });
    expect(run.code, run.stderr).toBe(0);
    const verdicts = (r: Report) => Object.fromEntries(r.tasks.map((t) => [t.id, [t.status, t.failure_reason, t.trials.map((x) => x.checks.map((c) => c.passed))]]));
    expect(Object.keys(verdicts(readReport(scored))).sort()).toEqual([...ids].sort());
    expect(verdicts(readReport(scored))).toEqual(verdicts(readReport(fresh)));
    // Checks that read the tool name and arguments passed: the older keys were read.
    expect(readReport(scored).tasks.every((t) => t.status === 'passed')).toBe(true);

    const replay = await runCli(['replay', path.join(LEGACY, 'missing_readme_recovery_001.e0.json')]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain('read_file');
    expect(replay.stdout).toContain('README2.md');
  }, 180_000);
});
